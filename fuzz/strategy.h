/*
 * strategy.h — the baselines a fuzzing campaign is measured against, which
 * users also want on their own (Shuttle and Coyote offer them):
 *
 *   uniform random   every decision drawn uniformly among its options;
 *   PCT              Burckhardt et al.'s probabilistic concurrency testing:
 *                    random distinct task priorities, the highest-priority
 *                    runnable task always runs, and at d-1 random steps the
 *                    running task's priority drops below all others.  A bug
 *                    of depth d is hit with probability >= 1/(n k^(d-1)) per
 *                    run (n tasks, k steps).  Decisions other than "which
 *                    task runs" are drawn uniformly, as in Coyote.
 *
 * Both are seeded: the same seed gives the same sequence of runs.
 */
#ifndef HF_STRATEGY_H
#define HF_STRATEGY_H

#include "decide.h"
#include "world.h"

typedef struct hf_rng { uint64_t state; } hf_rng;

void hf_rng_seed(hf_rng *r, uint64_t seed);
uint64_t hf_rng_next(hf_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t hf_rng_below(hf_rng *r, uint64_t n);

typedef struct hf_random_strategy {
    hf_strategy base;
    hf_rng rng;
} hf_random_strategy;

void hf_random_strategy_init(hf_random_strategy *s, uint64_t seed);

enum { HF_PCT_MAX_DEPTH = 16 };

typedef struct hf_pct_strategy {
    hf_strategy base;
    hf_rng rng;
    int depth;                          /* d: the bug depth aimed at */
    uint64_t steps_estimate;            /* k: scheduling steps in a run */
    uint64_t step;                      /* scheduling decisions so far this run */
    uint64_t change_at[HF_PCT_MAX_DEPTH - 1];
    uint64_t priority[HF_MAX_TASKS + 1];   /* by task id; 0 = not yet assigned */
} hf_pct_strategy;

void hf_pct_strategy_init(hf_pct_strategy *s, uint64_t seed, int depth);
/* Draws this run's change points; call before every run. */
void hf_pct_begin_run(hf_pct_strategy *s);
/* Learns k from the runs seen (the largest step count so far). */
void hf_pct_end_run(hf_pct_strategy *s, uint64_t steps);

#endif
