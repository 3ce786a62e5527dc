/*
 * feedback.c — the engine backends of feedback.h, and the process-wide set
 * of features seen (the discovery log's "distinct features").
 */
#include "feedback.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if !defined(HF_ENGINE_LIBFUZZER) && !defined(HF_ENGINE_AFL)
#error "build with -DHF_ENGINE_LIBFUZZER or -DHF_ENGINE_AFL"
#endif

/* Engine slots a feature maps to; collisions only blur the signal a little.
 * Kept small because libFuzzer scans the whole array after every run. */
enum { SLOTS = 8192 };

#ifdef HF_ENGINE_LIBFUZZER
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t extra_counters[SLOTS];

static void engine_hit(uint64_t feature) { extra_counters[feature % SLOTS] = 1; }
#endif

#ifdef HF_ENGINE_AFL
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop);
void __sanitizer_cov_trace_pc_guard(uint32_t *guard);

static uint32_t guards[SLOTS];

/* Priority 101 runs before AFL++'s own start-up code hands out the map, so
 * these guards get ids like any instrumented edge. */
__attribute__((constructor(101))) static void reserve_guards(void) {
    __sanitizer_cov_trace_pc_guard_init(guards, guards + SLOTS);
}

static void engine_hit(uint64_t feature) { __sanitizer_cov_trace_pc_guard(&guards[feature % SLOTS]); }
#endif

/* ---- Features seen by this process: a growing open-addressing set -------- */

static uint64_t *seen;
static size_t seen_cap, seen_count;

static bool seen_insert(uint64_t h);

static void seen_grow(void) {
    uint64_t *old = seen;
    size_t old_cap = seen_cap;
    seen_cap = seen_cap ? 2 * seen_cap : 4096;
    seen = calloc(seen_cap, sizeof *seen);
    if (!seen) abort();
    seen_count = 0;
    for (size_t i = 0; i < old_cap; i++) if (old[i]) seen_insert(old[i]);
    free(old);
}

static bool seen_insert(uint64_t h) {
    if (2 * (seen_count + 1) > seen_cap) seen_grow();
    size_t at = (size_t)(h & (seen_cap - 1));
    while (seen[at]) {
        if (seen[at] == h) return false;
        at = (at + 1) & (seen_cap - 1);
    }
    seen[at] = h;
    seen_count++;
    return true;
}

static void free_seen(void) { free(seen); }

uint32_t hf_feedback_run(const hf_features *f) {
    static int enabled = -1;
    if (enabled < 0) {
        const char *v = getenv("HEISENFUZZ_FEATURES");
        enabled = !(v && !strcmp(v, "0"));
        atexit(free_seen);
    }
    uint32_t fresh = 0;
    for (uint32_t i = 0; i < f->count; i++) {
        fresh += seen_insert(f->list[i]);
        if (enabled) engine_hit(f->list[i]);
    }
    return fresh;
}

uint64_t hf_feedback_distinct(void) { return seen_count; }
