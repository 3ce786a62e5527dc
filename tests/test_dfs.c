/*
 * test_dfs.c — the bounded depth-first enumeration (fuzz/search/dfs.h): on a
 * target whose tree is counted by hand it makes exactly that many runs for
 * every bound, each a different schedule that its encoded input replays;
 * it finds counter_buggy's lost update with a small bound; a wide decision
 * offers the default, lo, hi and log-spaced values, distinct and in range.
 *
 * The hand count.  Main spawns A and B and returns; each task runs three
 * segments split by two switch points.  A run is an interleaving of A's
 * segments with B's: C(6, 3) = 20 of them.  Cut into r alternating blocks,
 * it costs one deviation for starting with B (main's exit picks A by
 * default) and one per preemption, r - 2 of them (of the r - 1 switches,
 * the one after the first task to finish is forced).  Splitting 3 segments
 * into m blocks can be done C(2, m - 1) ways, so by r = 2..6 there are
 * 1, 2, 4, 2, 1 interleavings starting with A and as many with B:
 *   deviations  0: 1   1: 1+2   2: 2+4   3: 4+2   4: 2+1   5: 1
 *               cumulative 1, 4, 10, 16, 19, 20
 *   preemptions (main's first pick is no preemption: main has ended)
 *               r - 2 = 0: 2  1: 4  2: 8  3: 4  4: 2
 *               cumulative 2, 6, 14, 18, 20
 */
#include "check.h"
#include "dfs.h"
#include "hf.h"
#include "run.h"
#include "targets.h"

#include <stdlib.h>
#include <string.h>

static void segment_task(void *arg) {
    const char *name = arg;
    hf_note("%s starts", name);
    hf_switch_point();
    hf_note("%s goes on", name);
    hf_switch_point();
    hf_note("%s ends", name);
}

static void two_tasks_main(void *arg) {
    (void)arg;
    hf_spawn("A", segment_task, "A");
    hf_spawn("B", segment_task, "B");
}

HF_DEFINE_TARGET(dfs_two_tasks_target) = {
    .name = "test_dfs_two_tasks",
    .summary = "two tasks of two switch points each (test_dfs.c)",
    .main = two_tasks_main,
};

enum { MAX_RUNS = 64 };

/* Runs the enumeration to the end; returns the runs, and whether every run
 * had a trace of its own and its encoded input replayed it. */
static bool last_pruned;   /* whether the last enumeration's bound left an option out */

static uint64_t enumerate(const hf_target *t, hf_dfs_bound_kind kind, uint32_t bound, bool *distinct,
                          bool *replays) {
    hf_dfs d;
    hf_dfs_init(&d, kind, bound, 8);
    uint64_t hashes[MAX_RUNS];
    uint64_t runs = 0;
    *distinct = *replays = true;
    while (!d.exhausted && runs < MAX_RUNS && !d.diverged) {
        hf_result r;
        hf_dfs_run(&d, t, &r);
        uint8_t input[256];
        size_t len = hf_decider_encode(hf_last_decisions(), input, sizeof input);
        for (uint64_t i = 0; i < runs; i++) *distinct &= hashes[i] != r.trace_hash;
        hashes[runs++] = r.trace_hash;
        hf_result again;
        hf_run(t, input, len, &again);
        *replays &= len <= sizeof input && again.trace_hash == r.trace_hash;
    }
    bool clean = d.exhausted && !d.diverged && !d.out_of_memory;
    last_pruned = d.pruned;
    hf_dfs_free(&d);
    return clean ? runs : 0;
}

int main(void) {
    const hf_target *t = hf_target_find("test_dfs_two_tasks");
    CHECK(t != NULL, "the test target is registered");
    if (!t) return check_exit();

    static const uint64_t by_deviations[] = {1, 4, 10, 16, 19, 20, 20};
    for (uint32_t k = 0; k < sizeof by_deviations / sizeof *by_deviations; k++) {
        bool distinct, replays;
        uint64_t runs = enumerate(t, HF_DFS_DEVIATIONS, k, &distinct, &replays);
        CHECK(runs == by_deviations[k], "bound %u deviations: %llu runs, as counted by hand (%llu)", k,
              (unsigned long long)runs, (unsigned long long)by_deviations[k]);
        CHECK(distinct && replays, "bound %u deviations: every run a different schedule, replayed by its input", k);
        /* The costliest run takes 5 deviations: from bound 5 on nothing is left out. */
        CHECK(last_pruned == (k < 5), "bound %u deviations: %s", k,
              k < 5 ? "the bound left runs out" : "the whole tree, nothing left out");
    }
    static const uint64_t by_preemptions[] = {2, 6, 14, 18, 20, 20};
    for (uint32_t k = 0; k < sizeof by_preemptions / sizeof *by_preemptions; k++) {
        bool distinct, replays;
        uint64_t runs = enumerate(t, HF_DFS_PREEMPTIONS, k, &distinct, &replays);
        CHECK(runs == by_preemptions[k], "bound %u preemptions: %llu runs, as counted by hand (%llu)", k,
              (unsigned long long)runs, (unsigned long long)by_preemptions[k]);
        CHECK(distinct && replays, "bound %u preemptions: every run a different schedule, replayed by its input", k);
    }

    /* counter_buggy: one badly placed switch loses an increment. */
    const hf_target *counter = hf_target_find("counter_buggy");
    CHECK(counter != NULL, "counter_buggy is linked in");
    if (counter) {
        hf_dfs d;
        hf_dfs_init(&d, HF_DFS_DEVIATIONS, 1, 8);
        uint64_t first_failure = 0;
        uint8_t input[256];
        size_t len = 0;
        while (!d.exhausted && !first_failure) {
            hf_result r;
            hf_dfs_run(&d, counter, &r);
            if (r.outcome != HF_OK) {
                first_failure = d.runs;
                len = hf_decider_encode(hf_last_decisions(), input, sizeof input);
            }
        }
        hf_dfs_free(&d);
        CHECK(first_failure > 0 && first_failure <= 18, "bound 1 finds counter_buggy's lost update (run %llu of 18)",
              (unsigned long long)first_failure);
        hf_result again;
        hf_run(counter, input, len, &again);
        CHECK(first_failure && again.outcome == HF_FAIL_PROPERTY, "the failing run's input replays the failure");
    }

    /* Wide decisions: a finite, principled set of values. */
    uint32_t n = hf_dfs_option_count(1000, 2000000000, 5000000, 8, false);
    bool ordered = hf_dfs_option(1000, 2000000000, 5000000, 8, false, 0) == 5000000;
    bool has_lo = false, has_hi = false;
    uint64_t previous = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint64_t v = hf_dfs_option(1000, 2000000000, 5000000, 8, false, i);
        ordered &= v >= 1000 && v <= 2000000000 && v != 5000000 && (i == 1 || v > previous);
        has_lo |= v == 1000;
        has_hi |= v == 2000000000;
        previous = v;
    }
    CHECK(n == 8 && ordered && has_lo && has_hi,
          "a wide range offers 8 values: the default first, then lo .. hi increasing (%u)", n);
    uint32_t all = hf_dfs_option_count(0, UINT64_MAX, 7, 16, false);
    CHECK(all == 16 && hf_dfs_option(0, UINT64_MAX, 7, 16, false, all - 1) == UINT64_MAX,
          "a 64-bit value offers 16 values up to 2^64 - 1");
    CHECK(hf_dfs_option_count(2, 4, 2, 8, false) == 3 && hf_dfs_option(2, 4, 2, 8, false, 1) == 3 &&
              hf_dfs_option(2, 4, 2, 8, false, 2) == 4,
          "a narrow range offers every value");
    hf_runtime_free();
    return check_exit();
}
