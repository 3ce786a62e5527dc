/*
 * strategy.c — uniform random and PCT decision strategies (strategy.h).
 */
#include "strategy.h"
#include "behaviour.h"

#include <assert.h>
#include <string.h>

void hf_rng_seed(hf_rng *r, uint64_t seed) { r->state = seed; }

/* splitmix64: tiny, fast, and every seed (including 0) is good. */
uint64_t hf_rng_next(hf_rng *r) { return hf_mix64(r->state += 0x9e3779b97f4a7c15u); }

uint64_t hf_rng_below(hf_rng *r, uint64_t n) {
    assert(n > 0);
    /* Rejection keeps it uniform for every n. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = hf_rng_next(r); while (x >= limit);
    return x % n;
}

static uint64_t uniform(hf_rng *r, uint64_t lo, uint64_t hi) {
    if (lo == 0 && hi == UINT64_MAX) return hf_rng_next(r);
    return lo + hf_rng_below(r, hi - lo + 1);
}

/* ---- Uniform random ------------------------------------------------------ */

static uint64_t random_decide(hf_strategy *base, uint64_t lo, uint64_t hi, uint64_t dflt, const int *tasks) {
    (void)dflt;
    (void)tasks;
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

static uint64_t pct_decide(hf_strategy *base, uint64_t lo, uint64_t hi, uint64_t dflt, const int *tasks) {
    hf_pct_strategy *s = (hf_pct_strategy *)base;
    (void)dflt;
    if (!tasks) return uniform(&s->rng, lo, hi);
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
