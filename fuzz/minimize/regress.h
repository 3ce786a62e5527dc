/*
 * regress.h — writing a minimized schedule as a C regression test: the
 * deviation list as a table, replayed through the runtime with no fuzzing
 * engine, asserting the failure in the buggy variant and its absence in
 * the fixed one.  build.sh compiles every tests/regress/NAME.c into
 * out/tests/test_regress_NAME, so the suite runs it.
 */
#ifndef HF_REGRESS_H
#define HF_REGRESS_H

#include "explain.h"
#include "minimize.h"

typedef struct hf_regress_test {
    const hf_target *buggy;          /* fails the goal on the schedule */
    const hf_target *fixed;          /* must pass it */
    const hf_goal *goal;
    const hf_deviation *deviations;  /* the minimized schedule */
    size_t count;
    char (*what)[HF_EXPLAIN_SIZE];   /* one explanation per deviation */
    const char *origin;              /* the crash it came from, for the comment */
    size_t origin_bytes;             /* its size ... */
    uint32_t origin_deviations;      /* ... and its deviations */
    const char *program;             /* for a pthread program (buggy is its target, fixed NULL):
                                      * the fuzzer it was found with, for the comment */
} hf_regress_test;

/* A pthread program's test (program set, fixed NULL) checks the program
 * alone, for there is no twin to link beside it: built with the program's
 * sources by `heisenfuzz build-pthread --test NAME.c PROG.c...`, it asserts
 * that the schedule still fails the same way (the same outcome and message,
 * the same deviations taken); built with -DHF_PROGRAM_FIXED against the
 * fixed sources, that the same schedule passes. */

/* "counter_buggy_1f2e3d4c": the target and a hash of the schedule's bytes. */
void hf_regress_default_name(const hf_target *buggy, const uint8_t *bytes, size_t size, char *out, size_t cap);
/* The same for a program's fuzzer: its file name less _fuzzer or _afl, any
 * character other than a letter, digit or '_' made '_' ("deadlock_buggy_1f2e3d4c"). */
void hf_regress_program_name(const char *fuzzer, const uint8_t *bytes, size_t size, char *out, size_t cap);

/* True when `name` can name a test file and program: letters, digits, '_'. */
bool hf_regress_name_ok(const char *name);

/* Writes the test's C source to `path` (atomically), unless a file there
 * already holds something else.  Returns 0, or -1 with a one-line reason
 * in `error`. */
int hf_regress_write(const hf_regress_test *t, const char *path, char *error, size_t error_size);

#endif
