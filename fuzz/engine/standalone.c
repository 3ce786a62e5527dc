/*
 * standalone.c — what a binary without a fuzzing engine (the tool, the
 * tests) links in place of the engine's coverage runtime.
 *
 * Target code is always compiled with a coverage kind, because clang only
 * accepts the load/store tracing that catches spinning tasks (schedule/
 * spin.c) together with one.  Here that coverage is simply not collected.
 */
#include <stdint.h>

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
    (void)start;
    (void)stop;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) { (void)guard; }
