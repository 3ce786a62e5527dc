/*
 * test_minimize.c — the minimizer: noisy crashes of counter_buggy shrink to
 * a 1-minimal schedule that still fails the same way (checked here by
 * undoing each deviation again), deterministically; values are lowered; an
 * input that does not fail is refused; a goal the input misses is searched
 * for among its reductions; a deviation whose index an undone one moved is
 * found again by its kind and rank; the run budget is honoured; deviations
 * are explained from the trace; and the regression test source says what
 * it replays.
 */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "check.h"
#include "explain.h"
#include "files.h"
#include "minimize.h"
#include "regress.h"
#include "targets.h"
#include "world.h"   /* a decision of the runtime's own, as the simulated world takes them */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* targets/counter, linked in (a test, not a registry lookup: a missing one fails the build). */
extern const hf_target counter_buggy_target, counter_target;

/* ---- Small targets of the test's own ---------------------------------------- */

/* Two checks in a row, each tripped by its own yes/no decision. */
static void two_checks_main(void *arg) {
    (void)arg;
    bool early = hf_chance("trip the early check", false);
    hf_always(!early, "the early check holds");
    bool late = hf_chance("trip the late check", false);
    hf_always(!late, "the late check holds");
}
static const hf_target two_checks = {.name = "two_checks", .summary = "test", .main = two_checks_main};

/* A 64-bit workload value that fails from 1000 up. */
static void delay_main(void *arg) {
    (void)arg;
    uint64_t delay = hf_random64("delay in ns", 0);
    hf_always(delay < 1000, "the delay stays under a microsecond");
}
static const hf_target delay = {.name = "delay", .summary = "test", .main = delay_main};

/* Fails from 10 up, with a note of its own from 1000 up: two stories. */
static void two_stories_main(void *arg) {
    (void)arg;
    uint64_t lateness = hf_random64("lateness", 0);
    if (lateness >= 1000) hf_note("very late");
    hf_always(lateness < 10, "never late");
}
static const hf_target two_stories = {.name = "two_stories", .summary = "test", .main = two_stories_main};

/* A delay decided inside the runtime: no event of its own, only a later
 * one (the sleep) shows it. */
static void quiet_delay_main(void *arg) {
    (void)arg;
    hf_sleep(hf_decide_range(&hf_w.decider, HF_DECISION_WORKLOAD, 1, 1000, 1));
    hf_note("woke up");
}
static const hf_target quiet_delay = {.name = "quiet_delay", .summary = "test", .main = quiet_delay_main};

/* A yes/no whose only effect is five decisions of another kind (details)
 * before the one that trips the check: undoing it moves the trip from
 * decision 6 to decision 1, further than a shift of a few decisions. */
static void detour_main(void *arg) {
    (void)arg;
    if (hf_chance("take the detour", false))
        for (int i = 0; i < 5; i++) hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, 1, 0);
    hf_always(!hf_chance("trip the check", false), "the check holds");
}
static const hf_target detour = {.name = "detour", .summary = "test", .main = detour_main};

/* ---- Helpers ---------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

static const hf_minimize_options unbounded = {.max_runs = 0};

static hf_result run_devs(const hf_target *t, const hf_deviation *devs, size_t count) {
    uint8_t bytes[4096];
    size_t n = hf_encode_deviations(devs, count, bytes, sizeof bytes);
    hf_result r;
    hf_run(t, bytes, n < sizeof bytes ? n : sizeof bytes, &r);
    return r;
}

/* Undoes each deviation in turn: true when every one loses the goal (or,
 * having shifted later decisions, makes the run take as many deviations). */
static bool one_minimal(const hf_target *t, const hf_goal *g, const hf_minimized *m) {
    hf_deviation less[HF_DEVIATIONS_KEPT];
    for (size_t skip = 0; skip < m->count; skip++) {
        size_t n = 0;
        for (size_t i = 0; i < m->count; i++) if (i != skip) less[n++] = m->deviations[i];
        hf_result r = run_devs(t, less, n);
        if (hf_goal_met(g, &r) && r.deviations < m->count) return false;
    }
    return true;
}

static hf_goal counter_goal(void) {
    hf_goal g = {.outcome = HF_FAIL_PROPERTY};
    snprintf(g.message, sizeof g.message, "the final count equals the number of increments");
    return g;
}

/* ---- Tests ------------------------------------------------------------------ */

static void noisy_counter_crashes(void) {
    hf_goal goal = counter_goal();
    int crashes = 0, still_fail = 0, minimal = 0, proven = 0, smaller = 0, deterministic = 0, exact = 0;
    uint32_t most_before = 0;
    size_t most_after = 0;
    for (int attempt = 0; attempt < 200 && crashes < 12; attempt++) {
        /* Every decision deviates: skip 0, then a random value. */
        uint8_t input[300];
        for (size_t i = 0; i < sizeof input; i++) input[i] = i % 2 ? (uint8_t)next_random() : 0;
        hf_result r;
        hf_run(&counter_buggy_target, input, sizeof input, &r);
        if (!hf_goal_met(&goal, &r) || r.deviations < 8) continue;
        crashes++;
        hf_minimized m, again;
        if (hf_minimize(&counter_buggy_target, &goal, input, sizeof input, &unbounded, &m) != HF_MINIMIZED) continue;
        hf_result after = run_devs(&counter_buggy_target, m.deviations, m.count);
        still_fail += hf_goal_met(&goal, &after) && after.deviations == m.count;
        minimal += one_minimal(&counter_buggy_target, &goal, &m);
        proven += m.one_minimal && !m.budget_ran_out && m.goal_was_met;
        smaller += m.count < r.deviations && m.size < sizeof input;
        uint8_t encoded[4096] = {0};
        size_t full = hf_encode_deviations(m.deviations, m.count, encoded, sizeof encoded);
        bool zeros_after = true;
        for (size_t i = m.size; i < full; i++) zeros_after &= encoded[i] == 0;
        exact += m.size <= full && full - m.size < 8 && zeros_after && memcmp(encoded, m.bytes, m.size) == 0;
        hf_minimize(&counter_buggy_target, &goal, input, sizeof input, &unbounded, &again);
        deterministic += again.size == m.size && memcmp(again.bytes, m.bytes, m.size) == 0 && again.runs == m.runs;
        if (r.deviations > most_before) most_before = r.deviations;
        if (m.count > most_after) most_after = m.count;
        hf_minimized_free(&m);
        hf_minimized_free(&again);
    }
    CHECK(crashes == 12, "12 noisy crashes of counter_buggy with 8 or more deviations (found %d)", crashes);
    CHECK(still_fail == crashes, "each minimized schedule still fails the counter property, taking just its deviations");
    CHECK(minimal == crashes, "each is 1-minimal: undoing any one deviation loses the failure");
    CHECK(proven == crashes, "and the minimizer says so itself");
    CHECK(smaller == crashes, "each has fewer deviations and bytes than its crash (at most %u -> at most %zu deviations)",
          most_before, most_after);
    CHECK(exact == crashes, "the bytes written are the encoding of the deviation list, "
          "less the high zero bytes of its last value (missing bytes read as 0)");
    CHECK(deterministic == crashes, "minimizing the same crash twice gives the same bytes in the same runs");
}

static void lowers_values(void) {
    /* libFuzzer's first counter_buggy crash: skip 3, value 16.  With two
     * tasks runnable a pick has one alternative, so 16 means what 0 does. */
    const uint8_t crash[] = {3, 16};
    hf_goal goal = counter_goal();
    hf_minimized m;
    hf_minimize_status s = hf_minimize(&counter_buggy_target, &goal, crash, sizeof crash, &unbounded, &m);
    CHECK(s == HF_MINIMIZED && m.count == 1 && m.deviations[0].index == 3 && m.deviations[0].value == 0 &&
          m.size == 1 && m.bytes[0] == 3,
          "counter_buggy's {3, 16} becomes the single deviation {3, 0}, written as the one byte 03");
    char what[1][HF_EXPLAIN_SIZE];
    hf_explain_deviations(&counter_buggy_target, m.deviations, m.count, false, what);
    CHECK(strstr(what[0], "scheduling pick") && strstr(what[0], "worker2 runs") &&
          strstr(what[0], "after worker1: read 0"),
          "its deviation is explained as a scheduling pick: %s", what[0]);
    hf_minimized_free(&m);

    /* A 64-bit value is lowered while the failure holds, to the threshold. */
    hf_deviation big = {0, 0x0123456789abcdefu, 8};
    uint8_t input[16];
    size_t n = hf_encode_deviations(&big, 1, input, sizeof input);
    hf_goal delay_goal = {.outcome = HF_FAIL_PROPERTY};
    snprintf(delay_goal.message, sizeof delay_goal.message, "the delay stays under a microsecond");
    s = hf_minimize(&delay, &delay_goal, input, n, &unbounded, &m);
    CHECK(s == HF_MINIMIZED && m.count == 1 && m.deviations[0].value == 1000,
          "a failing 64-bit value is lowered to the threshold, 1000 (got %llu)",
          s == HF_MINIMIZED && m.count ? (unsigned long long)m.deviations[0].value : 0ull);
    hf_explain_deviations(&delay, m.deviations, m.count, false, what);
    CHECK(strstr(what[0], "workload decision") && strstr(what[0], "delay in ns"),
          "a workload decision is explained by its name: %s", what[0]);
    hf_minimized_free(&m);

    /* Lowering keeps the story: 10 would fail too, but without the note. */
    hf_goal late_goal = {.outcome = HF_FAIL_PROPERTY};
    snprintf(late_goal.message, sizeof late_goal.message, "never late");
    s = hf_minimize(&two_stories, &late_goal, input, n, &unbounded, &m);
    CHECK(s == HF_MINIMIZED && m.count == 1 && m.deviations[0].value == 1000,
          "a value is lowered only as far as the run tells the same story: 1000, not 10 (got %llu)",
          s == HF_MINIMIZED && m.count ? (unsigned long long)m.deviations[0].value : 0ull);
    hf_minimized_free(&m);
}

static void explains_each_deviation(void) {
    /* counter_buggy: 3 workers (decision 0), 5 increments each (1), then
     * (past main's pick at its join, 2, and worker1's first two switch
     * points, 3 and 4) worker2 preempts worker1 at its third (5). */
    const hf_deviation devs[] = {{0, 0, 1}, {1, 1, 1}, {5, 0, 1}};
    char what[3][HF_EXPLAIN_SIZE];
    hf_explain_deviations(&counter_buggy_target, devs, 3, false, what);
    CHECK(strstr(what[0], "workload decision") && strstr(what[0], "workers = 3 (default 2)"),
          "the first of three deviations is the number of workers: %s", what[0]);
    CHECK(strstr(what[1], "workload decision") && strstr(what[1], "increments per worker = 5 (default 3)"),
          "the second is the increments per worker: %s", what[1]);
    CHECK(strstr(what[2], "scheduling pick") && strstr(what[2], "worker2 runs (after worker1: read 2)"),
          "the third is a scheduling pick: %s", what[2]);
    CHECK(hf_last_decisions()->deviations == 3, "the last run is the whole schedule (%u deviations)",
          hf_last_decisions()->deviations);

    const hf_deviation delay_dev[] = {{0, 41, 1}};
    hf_explain_deviations(&quiet_delay, delay_dev, 1, false, what);
    CHECK(strstr(what[0], "decision, first seen at 0.000000000 s: main sleep 43 ns"),
          "a decision without an event of its own is named by the first event it changed: %s", what[0]);
}

static void refuses_what_does_not_fail(void) {
    hf_goal goal = counter_goal();
    hf_minimized m;
    CHECK(hf_minimize(&counter_buggy_target, &goal, NULL, 0, &unbounded, &m) == HF_NOT_REPRODUCED,
          "the undisturbed schedule of counter_buggy passes, so there is nothing to minimize");
    const uint8_t crash[] = {3, 0};
    CHECK(hf_minimize(&counter_target, &goal, crash, sizeof crash, &unbounded, &m) == HF_NOT_REPRODUCED,
          "the fixed counter does not fail counter_buggy's crash: refused");
    hf_goal other = goal;
    snprintf(other.message, sizeof other.message, "a property no target has");
    CHECK(hf_minimize(&counter_buggy_target, &other, crash, sizeof crash, &unbounded, &m) == HF_NOT_REPRODUCED &&
          !m.goal_was_met, "a goal that neither the crash nor a reduction of it fails is refused");
}

static void searches_for_the_goal(void) {
    /* Both checks tripped: the run fails the early one.  The goal is the
     * late one, as if a later build had added the early check. */
    hf_deviation both[] = {{0, 0, 0}, {1, 0, 0}};
    uint8_t input[8];
    size_t n = hf_encode_deviations(both, 2, input, sizeof input);
    hf_result r;
    hf_run(&two_checks, input, n, &r);
    CHECK(r.outcome == HF_FAIL_PROPERTY && !strcmp(r.message, "the early check holds"),
          "tripping both checks fails the early one");
    hf_goal goal = {.outcome = HF_FAIL_PROPERTY};
    snprintf(goal.message, sizeof goal.message, "the late check holds");
    hf_minimized m;
    hf_minimize_status s = hf_minimize(&two_checks, &goal, input, n, &unbounded, &m);
    CHECK(s == HF_MINIMIZED && !m.goal_was_met && m.count == 1 && m.deviations[0].index == 1 && m.one_minimal,
          "minimizing toward the late check drops the early trip and keeps the late one");
    hf_minimized_free(&m);

    hf_goal any = {.any_outcome = true};
    snprintf(any.message, sizeof any.message, "the late check holds");
    s = hf_minimize(&two_checks, &any, input, n, &unbounded, &m);
    CHECK(s == HF_MINIMIZED && m.count == 1, "a goal of any outcome kind matches by message alone");
    hf_minimized_free(&m);
}

static void reaims_by_meaning(void) {
    const hf_deviation both[] = {{0, 0, 0}, {6, 0, 0}};   /* the detour, and the trip after it */
    hf_result r = run_devs(&detour, both, 2);
    CHECK(r.outcome == HF_FAIL_PROPERTY && r.deviations == 2, "the detour and the trip fail the check");
    uint8_t input[8];
    size_t n = hf_encode_deviations(both, 2, input, sizeof input);
    hf_goal goal;
    hf_goal_from_result(&goal, &r);
    hf_minimized m;
    hf_minimize_status s = hf_minimize(&detour, &goal, input, n, &unbounded, &m);
    CHECK(s == HF_MINIMIZED && m.count == 1 && m.deviations[0].index == 1 && m.one_minimal,
          "undoing the detour re-aims the trip at the decision of its kind and rank, five decisions earlier: "
          "one deviation (%zu, the first at %llu)", m.count, m.count ? (unsigned long long)m.deviations[0].index : 0ull);
    hf_minimized_free(&m);
}

static void honours_the_budget(void) {
    hf_goal goal = counter_goal();
    uint8_t input[300];
    hf_result r;
    do {
        for (size_t i = 0; i < sizeof input; i++) input[i] = i % 2 ? (uint8_t)next_random() : 0;
        hf_run(&counter_buggy_target, input, sizeof input, &r);
    } while (!hf_goal_met(&goal, &r) || r.deviations < 16);
    hf_minimize_options few = {.max_runs = 4};
    hf_minimized m;
    hf_minimize_status s = hf_minimize(&counter_buggy_target, &goal, input, sizeof input, &few, &m);
    hf_result after = run_devs(&counter_buggy_target, m.deviations, m.count);
    CHECK(s == HF_MINIMIZED && m.runs <= 4 && m.budget_ran_out && !m.one_minimal,
          "with --max-runs 4 the search stops after 4 runs (%llu) and does not claim 1-minimality",
          (unsigned long long)m.runs);
    CHECK(hf_goal_met(&goal, &after) && m.count <= r.deviations,
          "what it has by then still fails the same way (%zu of %u deviations)", m.count, r.deviations);
    hf_minimized_free(&m);
}

static void writes_a_regression_test(void) {
    hf_goal goal = counter_goal();
    hf_deviation pick = {3, 0, 1};
    char what[1][HF_EXPLAIN_SIZE] = {"scheduling pick at 0.000000000 s: worker2 runs */ not the end"};
    hf_regress_test t = {
        .buggy = &counter_buggy_target, .fixed = &counter_target, .goal = &goal,
        .deviations = &pick, .count = 1, .what = what, .origin = "dir/crash-1", .origin_bytes = 2,
        .origin_deviations = 1,
    };
    char dir[] = "/tmp/hf-test-regress-XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL, "a temporary directory for the test source");
    snprintf(path, sizeof path, "%s/t.c", dir);
    char error[512];
    int written = hf_regress_write(&t, path, error, sizeof error);
    size_t size = 0;
    uint8_t *text = written == 0 ? hf_read_file(path, &size, error, sizeof error) : NULL;
    char *src = text ? calloc(1, size + 1) : NULL;
    if (src) memcpy(src, text, size);
    CHECK(src && strstr(src, "{3, 0, 1},") && strstr(src, "hf_target_find(\"counter_buggy\")") &&
          strstr(src, "hf_target_find(\"counter\")") && strstr(src, "hf_run(buggy,") && strstr(src, "hf_run(fixed,") && strstr(src, "r.outcome == HF_FAIL_PROPERTY") &&
          strstr(src, "\"the final count equals the number of increments\""),
          "the test source holds the schedule table, both targets and the expected failure");
    CHECK(src && !strstr(src, "*/ not the end") && strstr(src, "* / not the end"),
          "text from the run cannot end a comment early");
    CHECK(src && strstr(src, "from the crash\n *\n *     crash-1\n"), "it names the crash it came from");
    free(src);
    free(text);
    CHECK(hf_regress_write(&t, path, error, sizeof error) == 0, "writing the same test again is allowed");
    pick.value = 1;
    CHECK(hf_regress_write(&t, path, error, sizeof error) != 0 && strstr(error, "exists with other contents"),
          "a different test is not written over it: %s", error);
    unlink(path);
    rmdir(dir);

    char name[128];
    const uint8_t bytes[] = {3, 0};
    hf_regress_default_name(&counter_buggy_target, bytes, sizeof bytes, name, sizeof name);
    CHECK(!strncmp(name, "counter_buggy_", 14) && strlen(name) == 14 + 8 && hf_regress_name_ok(name),
          "the default test name is the target and 8 hex digits of the schedule's hash (%s)", name);
    CHECK(!hf_regress_name_ok("../x") && !hf_regress_name_ok("") && !hf_regress_name_ok("a b"),
          "test names are limited to letters, digits and '_'");
}

int main(void) {
    noisy_counter_crashes();
    lowers_values();
    explains_each_deviation();
    refuses_what_does_not_fail();
    searches_for_the_goal();
    reaims_by_meaning();
    honours_the_budget();
    writes_a_regression_test();
    hf_runtime_free();
    return check_exit();
}
