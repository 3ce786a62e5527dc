/*
 * generate.c — the generators behind the decision stream's generator
 * records (format and kinds in decide.h).
 *
 * Every draw is a hash of the seed, the decision's index and a salt, never
 * a running random state: an explicit deviation that overrides one
 * generated decision, or a run that takes a different path, leaves every
 * other decision's draw where it was.  PCT keeps the one state it needs
 * (priorities lowered at change points), a function of the decisions taken.
 */
#include "decide.h"
#include "behaviour.h"

#include <assert.h>
#include <string.h>

/* 2^32 * 2^(-0.8 L): the chance of a deviation at level L, 0..15, as a
 * threshold for a 32-bit draw.  Level 0 is 7/8, not certain: some
 * decisions repeat until they take their default (the next world fault
 * "now" is followed by another such decision), and those must end. */
static const uint64_t chance_at_level[16] = {
    3758096384u, 2466810934u, 1416810831u, 813744135u, 467373275u, 268435456u, 154175683u, 88550677u,
    50859008u,   29210830u,   16777216u,   9635980u,   5534417u,   3178688u,   1825677u,   1048576u,
};

enum { SALT_CHANCE, SALT_VALUE, SALT_PROFILE, SALT_LEVEL, SALT_PRIORITY, SALT_CHANGE };

static uint64_t draw(const hf_generator *g, uint64_t index, uint64_t salt) {
    return hf_mix64(g->seed ^ hf_mix64(index * 8 + salt));
}

static bool chance(const hf_generator *g, uint64_t index, uint64_t threshold) {
    return (draw(g, index, SALT_CHANCE) >> 32) < threshold;
}

/* Uniform in [lo, hi]. */
static uint64_t any_option(uint64_t r, uint64_t lo, uint64_t hi) {
    if (lo == 0 && hi == UINT64_MAX) return r;
    return lo + r % (hi - lo + 1);
}

/* Uniform among the options of [lo, hi] other than `dflt` (lo < hi). */
static uint64_t other_option(uint64_t r, uint64_t lo, uint64_t hi, uint64_t dflt) {
    if (lo == 0 && hi == UINT64_MAX) return r != dflt ? r : ~r;
    uint64_t span = hi - lo, step = 1 + r % span, room = hi - dflt;
    return step <= room ? dflt + step : lo + (step - room - 1);
}

static void init_swarm(hf_generator *g) {
    for (unsigned cls = 0; cls < 8; cls++)
        for (unsigned kind = 0; kind < 32; kind++) {
            uint64_t key = cls * 32 + kind;
            unsigned level = g->level + (unsigned)(draw(g, key, SALT_LEVEL) % (16 - g->level));
            g->threshold[cls][kind] = chance_at_level[level];
        }
}

void hf_generator_init(hf_generator *g, hf_generator_kind kind, unsigned level, uint64_t seed, uint64_t start,
                       uint64_t end) {
    assert(level < 16);
    assert(start <= end);
    g->kind = kind;
    g->level = level;
    g->seed = hf_mix64(seed ^ ((uint64_t)kind << 56 | (uint64_t)level << 48));
    g->start = start;
    g->end = end;
    if (kind == HF_GEN_SWARM) init_swarm(g);
    if (kind == HF_GEN_PCT) {
        g->task_choices = 0;
        uint64_t k = 1ull << (5 + 2 * (level >> 2));
        for (unsigned c = 0; c < 3; c++) g->change_at[c] = (uint32_t)(1 + draw(g, c, SALT_CHANGE) % k);
        memset(g->lowered, 0, sizeof g->lowered);
    }
}

/* A walk: deviate with the chance `threshold`, or (threshold == UINT64_MAX)
 * draw uniformly among all options.  A fault's details are always drawn
 * uniformly: the fault itself is the rare event, its shape should vary.
 * And the profile (which fault kinds may happen at all) is a coin toss
 * whatever the intensity: a rare walk is a run with rare faults, not a
 * run whose faults are almost never allowed. */
static uint64_t walk(const hf_generator *g, hf_decision_tag tag, uint64_t index, uint64_t lo, uint64_t hi,
                     uint64_t dflt, uint64_t threshold) {
    uint64_t r = draw(g, index, SALT_VALUE);
    if (threshold == UINT64_MAX || HF_DECISION_CLASS(tag) == HF_DECISION_DETAIL) return any_option(r, lo, hi);
    if (HF_DECISION_CLASS(tag) == HF_DECISION_PROFILE) threshold = 1ull << 31;
    return chance(g, index, threshold) ? other_option(r, lo, hi, dflt) : dflt;
}

static uint64_t swarm(const hf_generator *g, hf_decision_tag tag, uint64_t index, uint64_t lo, uint64_t hi,
                      uint64_t dflt) {
    unsigned cls = HF_DECISION_CLASS(tag) >> 5, kind = HF_DECISION_KIND(tag);
    /* A fault kind is on for half the seeds: the profile decision says so,
     * and a kind that is off never happens, whatever else allowed it. */
    bool on = draw(g, kind, SALT_PROFILE) & 1;
    if (HF_DECISION_CLASS(tag) == HF_DECISION_PROFILE) return on ? other_option(0, lo, hi, dflt) : dflt;
    if (HF_DECISION_CLASS(tag) == HF_DECISION_FAULT && !on) return dflt;
    if (HF_DECISION_CLASS(tag) != HF_DECISION_FAULT) kind = 0;   /* one rate per other class */
    return walk(g, tag, index, lo, hi, dflt, g->threshold[cls][kind]);
}

/* PCT (Burckhardt et al.): the runnable task of highest priority runs; at
 * the c-th change point the task about to run drops below all others. */
static uint64_t pct_priority(const hf_generator *g, int id) {
    assert(id >= 1 && id <= HF_TASK_IDS_MAX);
    if (g->lowered[id - 1]) return g->lowered[id - 1];
    return 8 + (draw(g, (uint64_t)id, SALT_PRIORITY) >> 8);   /* above every lowered one (1..3) */
}

static uint64_t pct_best(const hf_generator *g, uint64_t n, const int *tasks) {
    uint64_t best = 0;
    for (uint64_t i = 1; i < n; i++)
        if (pct_priority(g, tasks[i]) > pct_priority(g, tasks[best])) best = i;
    return best;
}

static uint64_t pct(hf_generator *g, uint64_t lo, uint64_t hi, const int *tasks) {
    assert(tasks);
    uint64_t n = hi - lo + 1, best = pct_best(g, n, tasks);
    unsigned depth = 1 + (g->level & 3);
    g->task_choices++;
    for (unsigned c = 0; c + 1 < depth; c++) {
        if (g->change_at[c] != g->task_choices) continue;
        g->lowered[tasks[best] - 1] = depth - 1 - c;
        best = pct_best(g, n, tasks);
    }
    return lo + best;
}

uint64_t hf_generate(hf_generator *g, hf_decision_tag tag, uint64_t index, uint64_t lo, uint64_t hi,
                     uint64_t dflt, const int *tasks) {
    assert(lo < hi && lo <= dflt && dflt <= hi);
    bool task = HF_DECISION_CLASS(tag) == HF_DECISION_TASK;
    switch (g->kind) {
    case HF_GEN_WALK:
        return walk(g, tag, index, lo, hi, dflt, g->level ? chance_at_level[g->level - 1] : UINT64_MAX);
    case HF_GEN_SWARM:
        return swarm(g, tag, index, lo, hi, dflt);
    case HF_GEN_PCT:
        return task && tasks ? pct(g, lo, hi, tasks) : walk(g, tag, index, lo, hi, dflt, UINT64_MAX);
    case HF_GEN_TASKS:
        return task ? walk(g, tag, index, lo, hi, dflt, chance_at_level[g->level]) : dflt;
    case HF_GEN_FAULTS:
        return task ? dflt : walk(g, tag, index, lo, hi, dflt, chance_at_level[g->level]);
    case HF_GEN_CALM:
    case HF_GEN_ADVANCE:
        return dflt;
    }
    return dflt;
}
