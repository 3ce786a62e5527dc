/*
 * test_targets.c — the article's incidents (issue 4) as a control group and
 * as bugs.
 *
 *   - every variant of every target passes the empty input (the calm,
 *     undisturbed world) and replays it to the same trace hash;
 *   - each incident's fixed variant passes many pseudo-random schedules,
 *     uniform and dense (small skips: a deviation at nearly every
 *     decision), and in those runs meets every sometimes and reachable
 *     property of its directory: the control group does reach the races it
 *     survives;
 *   - each buggy variant fails its minimal schedule (below, with the
 *     decisions it takes) on the expected property, and the fixed variant
 *     passes those very bytes;
 *   - few uniform random inputs hit a buggy variant's bug: the search, not
 *     luck, has to find it;
 *   - the deeper incidents' fixed variants also pass runs whose decisions
 *     the uniform random and PCT strategies take (storms of faults and
 *     preemptions, which the byte inputs above rarely make).
 *
 * HF_TARGET_RUNS overrides the runs per fixed variant: 50,000 by default,
 * 5,000 under a sanitizer, whose build is there to catch memory errors,
 * not to add volume (a run costs 20-250 us here, several times that under
 * AddressSanitizer); the random-share check tries 10,000 inputs, 2,000
 * under a sanitizer.
 */
#define _POSIX_C_SOURCE 199309L   /* clock_gettime */
#include "check.h"
#include "prop.h"
#include "run.h"
#include "strategy.h"
#include "targets.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 0x2545f4914f6cdd1du;
static uint64_t next_random(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* Uniform bytes, or (dense) bytes below 8: short skips and small values,
 * so nearly every decision deviates. */
static size_t random_input(uint8_t *buf, size_t cap, bool dense) {
    size_t len = (size_t)(next_random() % (cap + 1));
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(dense ? next_random() % 8 : next_random());
    return len;
}

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#endif
#ifdef UNDER_SANITIZER
enum { DEFAULT_RUNS = 5000, SHARE_TRIES = 2000 };
#else
enum { DEFAULT_RUNS = 50000, SHARE_TRIES = 10000 };
#endif

/* An incident: its fixed variant, and its buggy one with the shortest
 * known failing schedule. */
typedef struct incident {
    const char *fixed;
    const char *dir;               /* its sources: their sometimes/reachable properties */
    const char *buggy;             /* NULL: no planted bug */
    const char *property;          /* the message of the property the bug violates */
    const char *decisions;         /* what the schedule's bytes decide, for the reader */
    uint8_t bytes[16];
    size_t size;
    double max_random_share;       /* of uniform random inputs that may hit the bug */
    int runs_divisor;              /* 0 or 1: the full soak; N: a soak N times shorter, and
                                      runs/N/2 runs of each decision strategy besides */
} incident;

/* Found by libFuzzer (-seed=1), minimized by `heisenfuzz minimize`; also
 * tests/regress/kafka_hw_truncation_kip101.c. */
#define HW_TRUNCATION_DECISIONS                                                                       \
    "decision 2: the fault profile allows crashes; decision 3: the first crash, at 64 ms, strikes "   \
    "broker-a, whose HW lags its log by the record it fetched last; decision 36: broker-b crashes at " \
    "the same instant; decision 37: broker-b stays down 56.4 ms, so its session outlives broker-a's restart"
#define HW_TRUNCATION_BYTES {0x02, 0x00, 0x20, 0x2f, 0x20, 0x00, 0x00, 0x00, 0x80, 0x6b, 0x2b, 0x02}, 12

/* Found by libFuzzer (-seed=1), minimized by `heisenfuzz minimize`; also
 * tests/regress/zk_newleader_ack_4646.c. */
#define NEWLEADER_ACK_DECISIONS                                                                        \
    "decisions 1, 2: the fault profile allows crashes and lost writes; decision 3: the follower loses "  \
    "power at 5 ms; decision 14: its SyncThread runs the instant the first DIFF transaction is handed to " \
    "it, flushes it alone, and the ACK of NEWLEADER goes out while the rest wait for the next fsync"
#define NEWLEADER_ACK_BYTES {0x01, 0x00, 0x00, 0x05, 0x00, 0x0a, 0x00}, 7

static const incident incidents[] = {
    {"metrics_race", "targets/metrics_race/", "metrics_race_buggy", "the exported totals equal the number of updates",
     "decision 11: the client sends request 2 before the answer to request 1; decision 21: "
     "handler1, between its load and its store of the histogram count, is preempted by handler2",
     {0x0b, 0x09, 0x00}, 3, 0.005, 1},
    {"kafka_idempotent", "targets/kafka_idempotent/", "kafka_idempotent_buggy",
     "for each producer, the records in the log appear in send order, without duplicates",
     "decision 0: the fault profile allows message delays; decision 14: the LeaderAndIsr to broker1 "
     "takes 6 ms (corrIds 21, 22 NotLeaderOrFollower, 23 NotEnoughReplicas, 24 baseSeq 4188 written first)",
     {0x00, 0x0d, 0x3f, 0x80, 0x58}, 5, 0.005, 1},
    {"lease_lock", "targets/lease_lock/", "lease_lock_buggy",
     "at most one client believes it holds the lock at any logical instant",
     "decision 3: the fault profile allows clock skew; decision 5: client1's clock is 8 ms behind; "
     "decision 16: client1 works 80 ms under its first 50 ms lease",
     {0x03, 0x01, 0xe0, 0x2e, 0x0a, 0x6f, 0x11, 0x01}, 8, 0.005, 1},
    {"diskless_agent", "targets/diskless_agent/", "diskless_agent_buggy",
     "every acknowledged record is readable through metadata and object store, exactly once",
     "decision 2: the fault profile allows store errors; decision 60: the first PUT fails; "
     "decision 67: the committer, polling as that PUT ends, runs between its two state transitions",
     {0x02, 0x39, 0x00, 0x06, 0x00}, 5, 0.005, 1},
    {"diskless_topic", "targets/diskless_topic/", NULL, NULL, NULL, {0}, 0, 0, 1},
    {"kafka_hw_truncation", "targets/kafka_hw_truncation/", "kafka_hw_truncation_buggy",
     "every record acknowledged to the producer is in the log of a broker that becomes leader",
     HW_TRUNCATION_DECISIONS, HW_TRUNCATION_BYTES, 0.005, 10},
    {"zk_newleader_ack", "targets/zk_newleader_ack/", "zk_newleader_ack_buggy",
     "after a restart, the follower's log holds every transaction it acknowledged",
     NEWLEADER_ACK_DECISIONS, NEWLEADER_ACK_BYTES, 0.005, 5},
};
enum { INCIDENTS = sizeof incidents / sizeof *incidents };

static void check_calm_world(void) {
    for (const hf_target *const *t = hf_target_list(); *t; t++) {
        hf_result a, b;
        hf_run(*t, NULL, 0, &a);
        hf_run(*t, NULL, 0, &b);
        CHECK(a.outcome == HF_OK && a.deviations == 0, "%s: the empty input (the calm world) passes%s%s",
              (*t)->name, a.outcome == HF_OK ? "" : ": ", a.message);
        CHECK(a.trace_hash == b.trace_hash && a.steps == b.steps, "%s: the empty input replays identically",
              (*t)->name);
    }
}

static const hf_target *find(const char *name) {
    const hf_target *t = hf_target_find(name);
    if (!t) CHECK(false, "%s is defined (HF_DEFINE_TARGET) and linked", name);
    return t;
}

static void check_fixed_variant(const incident *g, long runs) {
    static uint8_t input[512];
    const hf_target *t = find(g->fixed);
    if (!t) return;
    size_t props = hf_prop_count();
    uint64_t *held_before = calloc(props ? props : 1, sizeof *held_before);
    for (size_t p = 0; p < props; p++) held_before[p] = hf_prop_at(p)->held;

    long failures = 0;
    uint64_t logical_ns = 0, deviations = 0;
    char first[600] = "";
    double t0 = seconds();
    for (long i = 0; i < runs; i++) {
        size_t len = random_input(input, i % 2 ? 64 : sizeof input, i % 2 == 0);
        hf_result r;
        hf_run(t, input, len, &r);
        logical_ns += r.time_ns;
        deviations += r.deviations;
        if (r.outcome != HF_OK && failures++ == 0) snprintf(first, sizeof first, " (run %ld: %s)", i, r.message);
    }
    double elapsed = seconds() - t0;
    printf("# %s: %ld runs in %.1f s (%.0f runs/s), %.2f logical hours, %.1f deviations per run\n", t->name, runs,
           elapsed, (double)runs / elapsed, (double)logical_ns / HF_SEC / 3600, (double)deviations / (double)runs);
    CHECK(failures == 0, "%s (fixed): %ld pseudo-random schedules, %ld failures%s", t->name, runs, failures, first);

    for (size_t p = 0; p < props; p++) {
        const hf_prop *prop = hf_prop_at(p);
        if ((prop->kind != HF_SOMETIMES && prop->kind != HF_REACHABLE) || strncmp(prop->file, g->dir, strlen(g->dir)))
            continue;
        CHECK(prop->held > held_before[p], "%s (fixed): its runs met %s \"%s\" (%llu times)", t->name,
              hf_prop_kind_name(prop->kind), prop->message, (unsigned long long)(prop->held - held_before[p]));
    }
    free(held_before);
}

/* Runs whose decisions a strategy takes: uniform random (every fault a
 * coin toss, every scheduling choice uniform) and PCT (d = 3). */
static void check_fixed_strategies(const incident *g, long runs) {
    const hf_target *t = find(g->fixed);
    if (!t) return;
    long failures[2] = {0, 0};
    char first[600] = "";
    hf_random_strategy random;
    hf_random_strategy_init(&random, 1);
    hf_pct_strategy pct;
    hf_pct_strategy_init(&pct, 1, 3);
    for (long i = 0; i < runs; i++) {
        hf_result r;
        hf_run_strategy(t, &random.base, &r);
        if (r.outcome != HF_OK && failures[0]++ == 0) snprintf(first, sizeof first, " (random run %ld: %s)", i, r.message);
        hf_pct_begin_run(&pct);
        hf_run_strategy(t, &pct.base, &r);
        hf_pct_end_run(&pct, r.steps);
        if (r.outcome != HF_OK && failures[1]++ == 0) snprintf(first, sizeof first, " (pct run %ld: %s)", i, r.message);
    }
    CHECK(failures[0] == 0 && failures[1] == 0,
          "%s (fixed): %ld uniform random and %ld PCT schedules, %ld and %ld failures%s", t->name, runs, runs,
          failures[0], failures[1], first);
}

static void check_buggy_variant(const incident *g) {
    static uint8_t input[64];
    const hf_target *buggy = find(g->buggy), *fixed = find(g->fixed);
    if (!buggy || !fixed) return;
    /* The pair is declared as one (HF_DEFINE_TARGET_PAIR): --emit-test's twin. */
    CHECK(buggy->fixed == fixed && !fixed->fixed, "%s names %s as its fixed twin", buggy->name, fixed->name);
    hf_result r;
    hf_run(buggy, g->bytes, g->size, &r);
    printf("# %s: %s\n", g->buggy, g->decisions);
    CHECK(r.outcome == HF_FAIL_PROPERTY && r.property && strcmp(r.property->message, g->property) == 0,
          "%s: its minimal schedule (%u deviations) violates \"%s\"", g->buggy, r.deviations, g->property);
    hf_run(fixed, g->bytes, g->size, &r);
    CHECK(r.outcome == HF_OK, "%s: the same schedule passes the fixed variant%s%s", g->fixed,
          r.outcome == HF_OK ? "" : ": ", r.message);

    long hits = 0, tries = SHARE_TRIES;
    for (long k = 0; k < tries; k++) {
        size_t len = random_input(input, sizeof input, false);
        hf_run(buggy, input, len, &r);
        hits += r.outcome != HF_OK;
    }
    double share = (double)hits / (double)tries;
    CHECK(share <= g->max_random_share, "%s: %ld of %ld uniform random inputs hit the bug (%.2f%%, at most %.2f%%)",
          g->buggy, hits, tries, 100 * share, 100 * g->max_random_share);
}

int main(void) {
    const char *env = getenv("HF_TARGET_RUNS");
    long runs = env ? atol(env) : DEFAULT_RUNS;
    check_calm_world();
    for (int i = 0; i < INCIDENTS; i++) {
        if (incidents[i].buggy) check_buggy_variant(&incidents[i]);
        int divisor = incidents[i].runs_divisor > 1 ? incidents[i].runs_divisor : 1;
        check_fixed_variant(&incidents[i], runs / divisor);
        if (divisor > 1) check_fixed_strategies(&incidents[i], runs / divisor / 2);
    }
    hf_runtime_free();
    return check_exit();
}
