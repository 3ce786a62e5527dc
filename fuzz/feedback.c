/*
 * feedback.c — the engine backends of feedback.h.
 */
#include "feedback.h"
#include "calm.h"
#include "mutate.h"

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
