/*
 * dfs.c — the bounded depth-first enumeration of a run's decision tree
 * (dfs.h).
 */
#include "dfs.h"
#include "world.h"   /* which task is running at a task choice: what a preemption bound counts */

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- Which options a decision offers ------------------------------------ */

static bool enumerable(uint64_t lo, uint64_t hi, uint32_t max_values, bool every) {
    return every || hi - lo < max_values;   /* hi - lo + 1 values, without overflow */
}

static unsigned bit_length(uint64_t x) {
    unsigned n = 0;
    while (x) { n++; x >>= 1; }
    return n;
}

/* A wide decision's options other than the default, increasing: lo, lo + 2^b
 * for bit lengths spread evenly, hi.  Returns how many (< max_values). */
static uint32_t wide_others(uint64_t lo, uint64_t hi, uint64_t dflt, uint32_t max_values, uint64_t *out) {
    assert(max_values >= 2 && max_values <= HF_DFS_MAX_VALUES);
    uint64_t span = hi - lo;
    uint64_t candidate[HF_DFS_MAX_VALUES];
    uint32_t n = 0;
    candidate[n++] = lo;
    /* Room for the default, lo and hi; the rest are powers of two above lo. */
    uint32_t powers = max_values >= 3 ? max_values - 3 : 0;
    unsigned top = bit_length(span) - 1;   /* 2^top <= span */
    for (uint32_t j = 0; j < powers; j++) {
        unsigned b = powers == 1 ? top / 2 : (unsigned)(((uint64_t)j * top + (powers - 1) / 2) / (powers - 1));
        candidate[n++] = lo + (1ull << b);
    }
    if (max_values >= 3) candidate[n++] = hi;
    /* Already increasing; drop repeats (rounding may give a bit length
     * twice, 2^top may be hi) and the default. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (candidate[i] == dflt || (kept && out[kept - 1] == candidate[i])) continue;
        out[kept++] = candidate[i];
    }
    if (kept >= max_values) kept = max_values - 1;
    return kept;
}

uint32_t hf_dfs_option_count(uint64_t lo, uint64_t hi, uint64_t dflt, uint32_t max_values, bool every) {
    assert(lo <= dflt && dflt <= hi && lo < hi);
    if (enumerable(lo, hi, max_values, every)) {
        assert(hi - lo < UINT32_MAX);
        return (uint32_t)(hi - lo + 1);
    }
    uint64_t others[HF_DFS_MAX_VALUES];
    return 1 + wide_others(lo, hi, dflt, max_values, others);
}

uint64_t hf_dfs_option(uint64_t lo, uint64_t hi, uint64_t dflt, uint32_t max_values, bool every, uint32_t option) {
    if (option == 0) return dflt;
    if (enumerable(lo, hi, max_values, every)) {
        /* The values in order, with the default taken out. */
        uint64_t v = lo + option - 1;
        return v >= dflt ? v + 1 : v;
    }
    uint64_t others[HF_DFS_MAX_VALUES];
    uint32_t n = wide_others(lo, hi, dflt, max_values, others);
    assert(option <= n);
    return others[option - 1];
}

/* ---- The bound ------------------------------------------------------------ */

/* What taking `option` at `n` costs against the bound. */
static uint32_t cost(const hf_dfs *d, const hf_dfs_node *n, uint32_t option) {
    if (option == 0) return 0;   /* the default never costs: the calm run is always within the bound */
    if (d->bound_kind == HF_DFS_PREEMPTIONS && HF_DECISION_CLASS(n->tag) == HF_DECISION_TASK) {
        /* A task choice's value is an index among the runnable tasks: it
         * preempts when the task that could go on is not the one chosen. */
        uint64_t chosen = hf_dfs_option(n->lo, n->hi, n->dflt, d->max_values, true, option);
        return n->running_option >= 0 && chosen != n->lo + (uint64_t)n->running_option;
    }
    return 1;
}

/* ---- The strategy --------------------------------------------------------- */

static bool grow(hf_dfs *d) {
    if (d->length < d->capacity) return true;
    size_t grown = d->capacity ? 2 * d->capacity : 256;
    hf_dfs_node *p = realloc(d->path, grown * sizeof *p);
    if (!p) return false;
    d->path = p;
    d->capacity = grown;
    return true;
}

/* The option of the task that could go on at a task choice: the running
 * task, when it is among the runnable ones. */
static int32_t running_option(uint64_t lo, uint64_t hi, const int *tasks) {
    if (!tasks || !hf_w.current) return -1;
    for (uint64_t i = 0; i <= hi - lo; i++)
        if (tasks[i] == hf_w.current->id) return (int32_t)i;
    return -1;
}

static uint64_t dfs_decide(hf_strategy *base, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                           uint64_t dflt, const int *tasks, const hf_task_facts *facts) {
    hf_dfs *d = (hf_dfs *)base;
    (void)key;
    (void)facts;
    bool task = HF_DECISION_CLASS(tag) == HF_DECISION_TASK;
    if (d->at < d->prefix) {
        hf_dfs_node *n = &d->path[d->at];
        if (n->tag == tag && n->lo == lo && n->hi == hi && n->dflt == dflt && n->spent_before == d->spent) {
            d->at++;
            d->spent += cost(d, n, n->chosen);
            return hf_dfs_option(lo, hi, dflt, d->max_values, task, n->chosen);
        }
        /* The same choices led elsewhere: the target read something that
         * is not a decision.  Everything from here on is a new path. */
        d->diverged = true;
        d->prefix = d->at;
    }
    if (d->out_of_memory || !grow(d)) {
        d->out_of_memory = true;
        return dflt;
    }
    d->path[d->at] = (hf_dfs_node){
        .lo = lo, .hi = hi, .dflt = dflt, .tag = tag,
        .options = hf_dfs_option_count(lo, hi, dflt, d->max_values, task),
        .chosen = 0,
        .running_option = task ? running_option(lo, hi, tasks) : -1,
        .spent_before = d->spent,
    };
    d->at++;
    d->length = d->at;
    return dflt;
}

void hf_dfs_init(hf_dfs *d, hf_dfs_bound_kind kind, uint32_t bound, uint32_t max_values) {
    assert(max_values >= 2 && max_values <= HF_DFS_MAX_VALUES);
    memset(d, 0, sizeof *d);
    d->base.decide = dfs_decide;
    d->bound_kind = kind;
    d->bound = bound;
    d->max_values = max_values;
}

void hf_dfs_free(hf_dfs *d) {
    free(d->path);
    d->path = NULL;
    d->length = d->capacity = 0;
}

/* Moves to the next path: the deepest decision with an untried option the
 * bound still allows takes it, and the decisions after it are dropped. */
static void backtrack(hf_dfs *d) {
    for (size_t i = d->length; i-- > 0;) {
        hf_dfs_node *n = &d->path[i];
        for (uint32_t next = n->chosen + 1; next < n->options; next++) {
            if (n->spent_before + cost(d, n, next) > d->bound) {
                d->pruned = true;
                continue;
            }
            n->chosen = next;
            d->length = d->prefix = i + 1;
            return;
        }
    }
    d->length = d->prefix = 0;
    d->exhausted = true;
}

void hf_dfs_run(hf_dfs *d, const hf_target *t, hf_result *r) {
    assert(!d->exhausted);
    d->at = 0;
    d->spent = 0;
    d->length = d->prefix;
    hf_run_strategy(t, &d->base, r);
    /* A run that ended before its replayed prefix did (it cannot, being
     * deterministic) would leave a path longer than the run. */
    if (d->at < d->prefix) d->diverged = true;
    d->length = d->at < d->length ? d->at : d->length;
    d->runs++;
    if (d->at > d->deepest) d->deepest = d->at;
    if (d->diverged || d->out_of_memory) return;
    assert(d->spent <= d->bound);
    backtrack(d);
}
