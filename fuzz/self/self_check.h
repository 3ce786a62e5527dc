/*
 * self_check.h — how the runtime's own fuzzers (fuzz/self/) report a broken
 * invariant: one line naming it on stderr, then abort(), which every engine
 * records as a crash.  Not assert(): OSS-Fuzz builds may define NDEBUG.
 */
#ifndef HF_SELF_CHECK_H
#define HF_SELF_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define SELF_CHECK(cond, ...)                                                   \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: invariant broken: ", __FILE__, __LINE__);   \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            abort();                                                            \
        }                                                                       \
    } while (0)

#endif
