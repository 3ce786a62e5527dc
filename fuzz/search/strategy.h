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
 *   swarm            each run draws a fault profile (which fault kinds are
 *                    on, and a rate for each kind and each class of decision,
 *                    from rare to storm) and decides at those rates: the
 *                    swarm generator of decide.h with a fresh 64-bit seed per
 *                    run, as FoundationDB's and TigerBeetle's simulators do.
 *   POS              partial order sampling (Yuan et al.): random priorities
 *                    per event, redrawn for the events that race with one
 *                    that ran (decide.h's pos generator, a fresh seed per run).
 *   SURW             a SURW-class walk (Ozkan et al.): the next task drawn in
 *                    proportion to the events it has still to make, as the
 *                    calm run counted them (decide.h's surw generator).
 *   generators       each run one generator record drawn as the search's
 *                    mutator draws a fresh one (records.h): the search's own
 *                    random schedules without its guidance, to tell what the
 *                    generators find alone from what feedback adds.
 *
 * All are seeded: the same seed gives the same sequence of runs.
 */
#ifndef HF_STRATEGY_H
#define HF_STRATEGY_H

#include "decide.h"
#include "rng.h"
#include "world.h"

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

/* Swarm, POS and SURW: a generator of decide.h over the whole run, with a
 * fresh 64-bit seed each run. */
typedef struct hf_fresh_strategy {
    hf_strategy base;
    hf_rng rng;
    hf_generator_kind kind;             /* HF_GEN_SWARM, HF_GEN_POS or HF_GEN_SURW */
    hf_generator run;                   /* this run's generator */
} hf_fresh_strategy;

void hf_fresh_strategy_init(hf_fresh_strategy *s, hf_generator_kind kind, uint64_t seed);
/* Draws this run's generator; call before every run. */
void hf_fresh_begin_run(hf_fresh_strategy *s);

typedef struct hf_generator_strategy {
    hf_strategy base;
    hf_rng rng;
    hf_generator run;                   /* this run's generator */
    uint64_t decisions;                 /* taken so far this run */
    bool shared_memory;                 /* the target preempts at its accesses (records.h) */
} hf_generator_strategy;

void hf_generator_strategy_init(hf_generator_strategy *s, bool shared_memory, uint64_t seed);
/* Draws this run's generator; call before every run. */
void hf_generator_begin_run(hf_generator_strategy *s);

/* ---- One run after another of a baseline ---------------------------------- */

typedef enum hf_baseline_kind {
    HF_BASELINE_RANDOM, HF_BASELINE_SWARM, HF_BASELINE_PCT, HF_BASELINE_GENERATORS, HF_BASELINE_POS,
    HF_BASELINE_SURW
} hf_baseline_kind;

typedef struct hf_baseline {
    hf_baseline_kind kind;
    const struct hf_target *target;
    hf_random_strategy random;
    hf_fresh_strategy fresh;            /* swarm, POS, SURW */
    hf_pct_strategy pct;
    hf_generator_strategy generators;
} hf_baseline;

/* PCT learns k from the target's calm run, which this makes. */
void hf_baseline_init(hf_baseline *b, const struct hf_target *t, hf_baseline_kind kind, uint64_t seed, int depth);
/* The next run of the baseline; hf_decider_encode(hf_last_decisions(), ...)
 * then gives the bytes that replay it. */
void hf_baseline_run(hf_baseline *b, struct hf_result *r);

#endif
