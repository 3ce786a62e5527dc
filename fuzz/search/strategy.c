/*
 * strategy.c — uniform random and PCT decision strategies (strategy.h).
 */
#include "strategy.h"
#include "behaviour.h"
#include "records.h"
#include "run.h"

#include <assert.h>
#include <string.h>

static uint64_t uniform(hf_rng *r, uint64_t lo, uint64_t hi) {
    if (lo == 0 && hi == UINT64_MAX) return hf_rng_next(r);
    return lo + hf_rng_below(r, hi - lo + 1);
}

/* ---- Uniform random ------------------------------------------------------ */

static uint64_t random_decide(hf_strategy *base, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                              uint64_t dflt, const int *tasks, const hf_task_facts *facts) {
    (void)tag;
    (void)key;
    (void)dflt;
    (void)tasks;
    (void)facts;
    return uniform(&((hf_random_strategy *)base)->rng, lo, hi);
}

void hf_random_strategy_init(hf_random_strategy *s, uint64_t seed) {
    s->base.decide = random_decide;
    hf_rng_seed(&s->rng, seed);
}

/* ---- PCT ----------------------------------------------------------------- */

/* Initial priorities lie above every value a change point assigns (1..d-1),
 * and are distinct with overwhelming probability; ties go to the lower id. */
static uint64_t initial_priority(hf_pct_strategy *s) {
    return (uint64_t)s->depth + 1 + hf_rng_below(&s->rng, 1ull << 40);
}

static uint64_t pct_decide(hf_strategy *base, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                           uint64_t dflt, const int *tasks, const hf_task_facts *facts) {
    hf_pct_strategy *s = (hf_pct_strategy *)base;
    (void)key;
    (void)dflt;
    (void)facts;
    if (HF_DECISION_CLASS(tag) != HF_DECISION_TASK || !tasks) return uniform(&s->rng, lo, hi);
    int n = (int)(hi - lo + 1);
    for (int i = 0; i < n; i++)
        if (!s->priority[tasks[i]]) s->priority[tasks[i]] = initial_priority(s);
    s->step++;
    int best = 0;
    for (int i = 1; i < n; i++)
        if (s->priority[tasks[i]] > s->priority[tasks[best]]) best = i;
    for (int c = 0; c < s->depth - 1; c++) {
        if (s->change_at[c] != s->step) continue;
        /* The c-th change point: the task about to run drops to d-1-c,
         * below every initial priority and every earlier change. */
        s->priority[tasks[best]] = (uint64_t)(s->depth - 1 - c);
        best = 0;
        for (int i = 1; i < n; i++)
            if (s->priority[tasks[i]] > s->priority[tasks[best]]) best = i;
    }
    return lo + (uint64_t)best;
}

void hf_pct_strategy_init(hf_pct_strategy *s, uint64_t seed, int depth) {
    assert(depth >= 1 && depth <= HF_PCT_MAX_DEPTH);
    memset(s, 0, sizeof *s);
    s->base.decide = pct_decide;
    hf_rng_seed(&s->rng, seed);
    s->depth = depth;
    s->steps_estimate = 1;
}

void hf_pct_begin_run(hf_pct_strategy *s) {
    memset(s->priority, 0, sizeof s->priority);
    s->step = 0;
    for (int c = 0; c < s->depth - 1; c++) s->change_at[c] = 1 + hf_rng_below(&s->rng, s->steps_estimate);
}

void hf_pct_end_run(hf_pct_strategy *s, uint64_t steps) {
    if (steps > s->steps_estimate) s->steps_estimate = steps;
}

/* ---- A fresh generator each run: swarm, POS, SURW ------------------------ */

static uint64_t fresh_decide(hf_strategy *base, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                             uint64_t dflt, const int *tasks, const hf_task_facts *facts) {
    return hf_generate(&((hf_fresh_strategy *)base)->run, tag, key, lo, hi, dflt, tasks, facts);
}

void hf_fresh_strategy_init(hf_fresh_strategy *s, hf_generator_kind kind, uint64_t seed) {
    s->base.decide = fresh_decide;
    s->kind = kind;
    hf_rng_seed(&s->rng, seed);
}

void hf_fresh_begin_run(hf_fresh_strategy *s) {
    hf_generator_init(&s->run, s->kind, 0, hf_rng_next(&s->rng), 0, UINT64_MAX);
}

/* ---- The search's generators, unguided ----------------------------------- */

static uint64_t generator_decide(hf_strategy *base, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                                 uint64_t dflt, const int *tasks, const hf_task_facts *facts) {
    hf_generator_strategy *s = (hf_generator_strategy *)base;
    /* Past its stretch, the calm run: as the record's decoding has it. */
    return s->decisions++ < s->run.end ? hf_generate(&s->run, tag, key, lo, hi, dflt, tasks, facts) : dflt;
}

void hf_generator_strategy_init(hf_generator_strategy *s, bool shared_memory, uint64_t seed) {
    s->shared_memory = shared_memory;
    s->base.decide = generator_decide;
    hf_rng_seed(&s->rng, seed);
}

void hf_generator_begin_run(hf_generator_strategy *s) {
    hf_item it = hf_fresh_generator(&s->rng, s->shared_memory, 0);
    s->decisions = 0;
    hf_generator_init(&s->run, (hf_generator_kind)(it.mode & 15), it.mode >> 4, it.seed, 0,
                      hf_stretch_decisions(it.stretch));
}

/* ---- Baselines ------------------------------------------------------------ */

void hf_baseline_init(hf_baseline *b, const hf_target *t, hf_baseline_kind kind, uint64_t seed, int depth) {
    b->kind = kind;
    b->target = t;
    hf_random_strategy_init(&b->random, seed);
    static const hf_generator_kind fresh_kind[] = {
        [HF_BASELINE_SWARM] = HF_GEN_SWARM, [HF_BASELINE_POS] = HF_GEN_POS, [HF_BASELINE_SURW] = HF_GEN_SURW,
    };
    hf_fresh_strategy_init(&b->fresh, fresh_kind[kind], seed);
    hf_pct_strategy_init(&b->pct, seed, depth);
    hf_generator_strategy_init(&b->generators, t->preempt_at_accesses, seed);
    if (kind == HF_BASELINE_PCT) {
        hf_result calm;
        hf_run(t, NULL, 0, &calm);
        hf_pct_end_run(&b->pct, calm.steps);
    }
}

void hf_baseline_run(hf_baseline *b, hf_result *r) {
    switch (b->kind) {
    case HF_BASELINE_RANDOM:
        hf_run_strategy(b->target, &b->random.base, r);
        break;
    case HF_BASELINE_SWARM:
    case HF_BASELINE_POS:
    case HF_BASELINE_SURW:
        hf_fresh_begin_run(&b->fresh);
        hf_run_strategy(b->target, &b->fresh.base, r);
        break;
    case HF_BASELINE_PCT:
        hf_pct_begin_run(&b->pct);
        hf_run_strategy(b->target, &b->pct.base, r);
        hf_pct_end_run(&b->pct, r->steps);
        break;
    case HF_BASELINE_GENERATORS:
        hf_generator_begin_run(&b->generators);
        hf_run_strategy(b->target, &b->generators.base, r);
        break;
    }
}
