/*
 * tool.c — helpers shared by the tool's commands.
 */
#define _DEFAULT_SOURCE   /* clock_gettime */
#include "tool.h"
#include "targets.h"

#include <stdio.h>
#include <time.h>

int hf_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("heisenfuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see 'heisenfuzz --help')\n", stderr);
    va_end(ap);
    return 2;
}

const hf_target *hf_tool_target(const char *name) {
    const hf_target *t = hf_target_find(name);
    if (!t) fprintf(stderr, "heisenfuzz: unknown target '%s' (see 'heisenfuzz list')\n", name);
    return t;
}

double hf_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
