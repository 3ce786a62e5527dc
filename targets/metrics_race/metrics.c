/*
 * metrics.c — the instrumentation library's update paths.
 *
 * The counter and the buckets always use an atomic add.  The histogram's
 * count and sum are where the two variants differ.  The library's first
 * version updated them with a plain read-modify-write: the author reasoned
 * that a histogram is observed by one request at a time, and every test
 * agreed, because the tests send requests one after another.  Two handlers
 * finishing at the same instant, one preempted between its load and its
 * store, lose the other's update.  The fix makes both updates indivisible:
 * an atomic add for the count, and for the sum (a float in the real
 * library, which has no atomic add) a compare-and-swap loop that retries
 * when the word changed between its load and its swap.
 *
 * hf_switch_point() marks each place where a real thread can be preempted
 * between two instructions that matter.  An unhinted registry (the target
 * metrics_race_nohint_buggy) has none: the runtime preempts at every shared
 * access, and the indivisible updates are real atomic instructions, which
 * no access point splits.
 */
#include "metrics.h"

#include <assert.h>
#include <string.h>

const uint64_t metrics_bucket_bound_us[METRICS_BUCKETS] = {
    1 * HF_MS / HF_US, 5 * HF_MS / HF_US, 25 * HF_MS / HF_US, 100 * HF_MS / HF_US, UINT64_MAX,
};

void metrics_init(metrics_registry *m, bool indivisible_updates) {
    assert(m);
    memset(m, 0, sizeof *m);
    m->indivisible_updates = indivisible_updates;
}

static void hint(const metrics_registry *m) {
    if (!m->unhinted) hf_switch_point();
}

/* LOCK XADD: one instruction, nothing can come between its load and store. */
static void atomic_add(const metrics_registry *m, uint64_t *word, uint64_t delta) {
    if (m->unhinted) {
        __atomic_fetch_add(word, delta, __ATOMIC_SEQ_CST);
        return;
    }
    hf_switch_point();
    *word += delta;
}

/* load; add; store — preemptible between the load and the store. */
static void plain_add(const metrics_registry *m, uint64_t *word, uint64_t delta, const char *name) {
    hint(m);
    uint64_t seen = *word;
    hf_note("%s: load %llu", name, (unsigned long long)seen);
    hint(m);
    *word = seen + delta;
    hf_note("%s: store %llu", name, (unsigned long long)(seen + delta));
}

/* load; add; compare-and-swap, retried while another task got there first. */
static void cas_add(const metrics_registry *m, uint64_t *word, uint64_t delta, const char *name) {
    for (;;) {
        hint(m);
        uint64_t seen = *word;
        hint(m);
        if (m->unhinted ? __atomic_compare_exchange_n(word, &seen, seen + delta, false, __ATOMIC_SEQ_CST,
                                                      __ATOMIC_SEQ_CST)
                        : *word == seen) {
            if (!m->unhinted) *word = seen + delta;
            return;
        }
        /* The fixed variant meets the race the buggy one loses to: the
         * control group must show it does reach it. */
        hf_sometimes(true, "a compare-and-swap lost the race and retried");
        hf_note("%s: compare-and-swap saw %llu, expected %llu: retry", name,
                (unsigned long long)*word, (unsigned long long)seen);
    }
}

static int bucket_of(uint64_t latency_us) {
    int b = 0;
    while (latency_us > metrics_bucket_bound_us[b]) b++;
    assert(b < METRICS_BUCKETS);
    return b;
}

void metrics_request_served(metrics_registry *m, uint64_t latency_us) {
    assert(m);
    atomic_add(m, &m->requests_total, 1);
    atomic_add(m, &m->latency_bucket[bucket_of(latency_us)], 1);
    if (m->indivisible_updates) {
        atomic_add(m, &m->latency_count, 1);
        cas_add(m, &m->latency_sum_us, latency_us, "histogram sum");
    } else {
        plain_add(m, &m->latency_count, 1, "histogram count");
        plain_add(m, &m->latency_sum_us, latency_us, "histogram sum");
    }
}

void metrics_scrape(const metrics_registry *m, metrics_snapshot *out) {
    assert(m && out);
    memset(out, 0, sizeof *out);
    hint(m);
    out->requests_total = m->requests_total;
    for (int b = 0; b < METRICS_BUCKETS; b++) {
        hint(m);
        out->bucket_total += m->latency_bucket[b];
    }
    hint(m);
    out->latency_count = m->latency_count;
    hint(m);
    out->latency_sum_us = m->latency_sum_us;
}
