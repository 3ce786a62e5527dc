/*
 * feedback.c — the engine backends of feedback.h.
 */
#define _GNU_SOURCE   /* shmat, shmctl under -std=c11 */
#include "feedback.h"
#include "calm.h"
#include "mutate.h"

#include <stdlib.h>
#include <string.h>
#ifdef HF_ENGINE_AFL
#include <sys/shm.h>
#endif

#if !defined(HF_ENGINE_LIBFUZZER) && !defined(HF_ENGINE_AFL) && !defined(HF_ENGINE_NONE)
#error "build with -DHF_ENGINE_LIBFUZZER, -DHF_ENGINE_AFL or -DHF_ENGINE_NONE (the replayer)"
#endif

/* Engine slots a feature maps to; collisions only blur the signal a little.
 * Kept small because libFuzzer scans the whole array after every run. */
enum { SLOTS = 8192 };

#ifdef HF_ENGINE_LIBFUZZER
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t extra_counters[SLOTS];

static void engine_hit(uint64_t feature) { extra_counters[feature % SLOTS] = 1; }

const char *hf_feedback_engine(void) { return "libFuzzer"; }
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

/* The part of the map AFL++'s runtime hands out: its size, or past the
 * last edge numbered, whichever is more. */
extern uint32_t __afl_map_size, __afl_final_loc;

/* AFL++'s map, attached a second time from the shared memory segment the
 * fuzzer names in __AFL_SHM_ID (NULL when there is none), as much of it as
 * the edges use: the segment is 8 MiB, the map 64 KiB, and reading and
 * clearing all of it took 30 times as long as a run (AFL++ ran 52 schedules
 * a second, libFuzzer 1,649).  Not through __afl_area_ptr: afl-clang-fast
 * declares that itself in every module it instruments, and a second
 * declaration of the name breaks the link. */
static uint8_t *afl_map(size_t *size) {
    static uint8_t *map;
    static size_t map_size;
    static bool looked;
    if (!looked) {
        looked = true;
        const char *id = getenv("__AFL_SHM_ID");
        struct shmid_ds segment;
        if (id && shmctl(atoi(id), IPC_STAT, &segment) == 0) {
            void *p = shmat(atoi(id), NULL, 0);
            size_t used = __afl_map_size > __afl_final_loc ? __afl_map_size : (size_t)__afl_final_loc + 1;
            if (p != (void *)-1) map = p, map_size = used < segment.shm_segsz ? used : segment.shm_segsz;
        }
    }
    *size = map_size;
    return map;
}

/* AFL++'s classes of hit counts: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+. */
static uint64_t hit_class(uint8_t hits) {
    static const uint8_t floor[] = {1, 2, 3, 4, 8, 16, 32, 128};
    uint64_t c = 0;
    while (c + 1 < sizeof floor && hits >= floor[c + 1]) c++;
    return c;
}

uint32_t hf_feedback_take_coverage(uint64_t *features, uint32_t max, bool keep_map) {
    size_t size;
    uint8_t *map = afl_map(&size);
    uint32_t n = 0;
    for (size_t edge = 0; edge < size && n < max; edge++) {
        if (!map[edge]) continue;
        /* One to one and never 0 (an odd multiplier), and unlike a behaviour feature's hash. */
        features[n++] = (((uint64_t)edge << 3 | hit_class(map[edge])) + 1) * 0x9e3779b97f4a7c15ull;
    }
    /* All at once, after the loop, which is instrumented too. */
    if (map && !keep_map) {
        memset(map, 0, size);
        map[0] = 1;
    }
    return n;
}

const char *hf_feedback_engine(void) { return "AFL++"; }
#endif

#ifdef HF_ENGINE_NONE
/* The replayer only runs inputs: no engine to steer. */
static void engine_hit(uint64_t feature) { (void)feature; }

const char *hf_feedback_engine(void) { return "replayer"; }
#endif

void hf_feedback_run(const hf_features *f, uint32_t deviations) {
    static hf_calmness calmness;
    if (!hf_behaviour_steers() || !hf_calmness_admits(&calmness, deviations)) return;
    for (uint32_t i = 0; i < f->count; i++) engine_hit(f->list[i]);
}
