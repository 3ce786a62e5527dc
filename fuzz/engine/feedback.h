/*
 * feedback.h — turning a run's behaviour features into what the fuzzing
 * engine counts as coverage, so that a new interleaving or fault
 * combination is kept in the corpus like a new branch would be.
 *
 *   libFuzzer  an array in section __libfuzzer_extra_counters: libFuzzer
 *              clears it before every run and reads it after (raises ft:)
 *   AFL++      guards reserved through __sanitizer_cov_trace_pc_guard_init
 *              in an early constructor and hit with
 *              __sanitizer_cov_trace_pc_guard: AFL++ ignores libFuzzer's
 *              extra counters
 *
 * The engine is chosen at build time (HF_ENGINE_LIBFUZZER, HF_ENGINE_AFL;
 * HF_ENGINE_NONE for the replayer, which has none).
 * HEISENFUZZ_FEATURES=0 in the environment turns the feedback off, and the
 * mutator's use of the features with it (hf_behaviour_steers), so that a
 * campaign can be compared with code coverage alone.
 */
#ifndef HF_FEEDBACK_H
#define HF_FEEDBACK_H

#include "behaviour.h"

#include <stdbool.h>
#include <stdint.h>

/* Hands the run's features to the engine, if the run, of `deviations`, is
 * among the calmer half of this process's runs (calm.h).  Under AFL++ the
 * process is one persistent-mode child of its fork server, which the
 * driver replaces after a batch of inputs: the rank starts again with each. */
void hf_feedback_run(const hf_features *f, uint32_t deviations);

/* Under AFL++, when the decision mutator library judges the runs
 * (run_channel.h): moves the target's code coverage out of AFL++'s map
 * into `features` (at most `max`; an edge with its hit count's class, as
 * AFL++ classes them) and returns how many.  Unless `keep_map`, the map is
 * left showing one constant edge: AFL++ queues a new entry, and runs it
 * three more times to calibrate it, whenever a run shows it new bits, and
 * here the mutator, which keeps its own corpus, is the judge.  A failing
 * run keeps its map, so that AFL++ still tells crashes apart by coverage. */
uint32_t hf_feedback_take_coverage(uint64_t *features, uint32_t max, bool keep_map);

/* The engine this binary was built for: "libFuzzer", "AFL++" or "replayer". */
const char *hf_feedback_engine(void);

#endif
