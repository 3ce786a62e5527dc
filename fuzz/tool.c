/*
 * tool.c — helpers shared by the tool's commands (and by fuzzers that replay
 * inputs themselves, fuzz/pthread_driver.c): it knows no target table.
 */
#define _DEFAULT_SOURCE   /* clock_gettime, readlink */
#include "tool.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
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

void hf_tool_print_run(const hf_target *t, size_t size, const hf_result *r, bool timeline) {
    if (timeline) {
        printf("%s: %zu bytes, %llu decisions (%u non-default, marked *), %llu steps, %.9f logical s\n",
               t->name, size, (unsigned long long)r->decisions, r->deviations,
               (unsigned long long)r->steps, (double)r->time_ns / HF_SEC);
        hf_print_timeline(stdout, 0);
    }
    if (r->outcome == HF_OK) printf("verdict: ok\n");
    else printf("verdict: fail %s\n", r->message);
    printf("trace-hash: %016llx\n", (unsigned long long)r->trace_hash);
}

double hf_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int hf_exe_dir(char *dir, size_t size) {
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0) return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    return 0;
}
