/*
 * test_sched.c — the scheduler and its synchronisation: the undisturbed
 * schedule, failures (deadlock, step and time budgets, spinning, each
 * property kind), timers, mutual exclusion under adversarial schedules,
 * killing tasks, which reads-from pairs are ordered whatever the schedule
 * (spawn, join, a task's own order), ASan's fake stacks reused with the
 * fiber stacks, and many runs in one process without leaks.
 */
#include "check.h"
#include "prop.h"
#include "sanitizer.h"
#include "run.h"
#include "strategy.h"
#include "targets.h"
#include "world.h"

#include <stdlib.h>
#include <string.h>

/* targets/counter, linked in. */
extern const hf_target counter_buggy_target;

static hf_result run_bytes(hf_task_fn *main_fn, const uint8_t *data, size_t size) {
    hf_target t = {.name = "test", .summary = "", .main = main_fn, .max_steps = 10000,
                   .max_time_ns = 10 * HF_SEC};
    hf_result r;
    hf_run(&t, data, size, &r);
    return r;
}

static hf_result run_calm(hf_task_fn *main_fn) { return run_bytes(main_fn, NULL, 0); }

/* ---- The undisturbed schedule -------------------------------------------- */

static char order[64];
static size_t order_len;

static void append(char c) { if (order_len < sizeof order - 1) order[order_len++] = c; order[order_len] = 0; }

static void letter_task(void *arg) {
    for (int i = 0; i < 2; i++) {
        append(*(const char *)arg);
        hf_yield();
    }
}

static void point_task(void *arg) {
    for (int i = 0; i < 2; i++) {
        append(*(const char *)arg);
        hf_switch_point();
    }
}

static void yielders_main(void *arg) {
    (void)arg;
    hf_spawn("a", letter_task, "a");
    hf_spawn("b", letter_task, "b");
}

static void pointers_main(void *arg) {
    (void)arg;
    hf_spawn("a", point_task, "a");
    hf_spawn("b", point_task, "b");
}

static void test_default_schedule(void) {
    order_len = 0;
    hf_result r = run_calm(yielders_main);
    CHECK(r.outcome == HF_OK && !strcmp(order, "abab"), "calm: hf_yield hands over round robin (got %s)", order);
    order_len = 0;
    r = run_calm(pointers_main);
    CHECK(r.outcome == HF_OK && !strcmp(order, "aabb"), "calm: at a switch point the task goes on (got %s)", order);
    order_len = 0;
    uint8_t deviate_first_point[] = {1, 0};   /* decision 0 is main's exit; 1 is a's first switch point */
    r = run_bytes(pointers_main, deviate_first_point, sizeof deviate_first_point);
    CHECK(r.deviations == 1 && !strcmp(order, "abba"), "one deviation at a's switch point lets b in, and b goes on (got %s)", order);
}

/* ---- Failures ------------------------------------------------------------ */

static hf_cond never;
static hf_mutex unused_lock;

static void waits_forever(void *arg) {
    (void)arg;
    hf_mutex_lock(&unused_lock);
    hf_cond_wait(&never, &unused_lock);
}

static void deadlock_main(void *arg) {
    (void)arg;
    hf_cond_init(&never, "never");
    hf_mutex_init(&unused_lock, "lock");
    hf_join(hf_spawn("sleeper", waits_forever, NULL));
}

static void forever_yield(void *arg) { (void)arg; for (;;) hf_yield(); }
static void forever_sleep(void *arg) { (void)arg; for (;;) hf_sleep(HF_SEC); }
static void forever_spin(void *arg) { (void)arg; volatile int x = 0; for (;;) x++; }

static void steps_main(void *arg) { (void)arg; hf_spawn("looper", forever_yield, NULL); forever_yield(NULL); }
static void time_main(void *arg) { (void)arg; forever_sleep(NULL); }
static void spin_main(void *arg) { (void)arg; forever_spin(NULL); }

static void test_failures(void) {
    hf_result r = run_calm(deadlock_main);
    CHECK(r.outcome == HF_FAIL_DEADLOCK, "a task waiting on a condition nobody signals is a deadlock");
    CHECK(strstr(r.message, "main waits for join sleeper") && strstr(r.message, "sleeper waits for cond never"),
          "the deadlock report names each task and what it waits for: %s", r.message);
    r = run_calm(steps_main);
    CHECK(r.outcome == HF_FAIL_STEPS && strstr(r.message, "never finished"), "endless yielding exhausts the step budget");
    CHECK(r.steps == 10001, "the step budget stops the run at its limit (steps %llu)", (unsigned long long)r.steps);
    r = run_calm(time_main);
    CHECK(r.outcome == HF_FAIL_TIME && r.time_ns <= 10 * HF_SEC,
          "endless sleeping exhausts the logical-time budget at %.1f s", (double)r.time_ns / HF_SEC);
    r = run_calm(spin_main);
    CHECK(r.outcome == HF_FAIL_SPIN, "a task spinning without a scheduling point is stopped: %s", r.message);
    r = run_calm(yielders_main);
    CHECK(r.outcome == HF_OK, "after failed runs, the next run starts clean");
}

/* ---- Properties ---------------------------------------------------------- */

static int prop_case;

static void props_main(void *arg) {
    (void)arg;
    switch (prop_case) {
    case 0: hf_always(1 + 1 == 3, "test: always false"); break;
    case 1: hf_always_or_unreachable(false, "test: always_or_unreachable false"); break;
    case 2: hf_unreachable("test: unreachable reached"); break;
    case 3: hf_sometimes(false, "test: sometimes never true"); hf_reachable("test: reachable reached"); break;
    case 4: hf_always(true, "test: always true"); hf_sometimes(true, "test: sometimes true"); break;
    default: if (prop_case > 100) hf_reachable("test: reachable never reached"); break;
    }
}

static hf_prop *find_prop(const char *message) {
    for (size_t i = 0; i < hf_prop_count(); i++)
        if (!strcmp(hf_prop_at(i)->message, message)) return hf_prop_at(i);
    return NULL;
}

static void test_properties(void) {
    const char *fails[] = {"test: always false", "test: always_or_unreachable false", "test: unreachable reached"};
    for (prop_case = 0; prop_case < 3; prop_case++) {
        hf_result r = run_calm(props_main);
        CHECK(r.outcome == HF_FAIL_PROPERTY && r.property && !strcmp(r.message, fails[prop_case]),
              "%s ends the run as a property failure", fails[prop_case]);
    }
    for (prop_case = 3; prop_case < 6; prop_case++) {
        hf_result r = run_calm(props_main);
        CHECK(r.outcome == HF_OK, "properties that only count do not fail the run (case %d)", prop_case);
    }
    hf_prop *never_true = find_prop("test: sometimes never true"), *held = find_prop("test: sometimes true");
    hf_prop *unreached = find_prop("test: reachable never reached"), *reached = find_prop("test: reachable reached");
    CHECK(never_true && never_true->reached == 1 && never_true->held == 0 && hf_prop_unmet(never_true),
          "a sometimes that never held is listed as unmet");
    CHECK(held && !hf_prop_unmet(held), "a sometimes that held is met");
    CHECK(unreached && unreached->reached == 0 && hf_prop_unmet(unreached),
          "a reachable never reached is in the catalogue, unmet");
    CHECK(reached && !hf_prop_unmet(reached), "a reachable reached is met");
    hf_result r;
    prop_case = 0;
    r = run_calm(props_main);
    CHECK(r.failed_task == 1 && !strcmp(hf_task_name(r.failed_task), "main"), "the failure names its task");
}

/* ---- Timers -------------------------------------------------------------- */

static uint64_t woke_at[3];

static void sleeper(void *arg) {
    int i = (int)(intptr_t)arg;
    hf_sleep((uint64_t)(3 - i) * HF_MS);
    woke_at[i] = hf_now();
    append((char)('0' + i));
}

static hf_cond signal_cond;
static hf_mutex signal_lock;
static bool waited_ok, timed_out_ok;
static uint64_t timeout_at;

static void timed_waiter(void *arg) {
    (void)arg;
    hf_mutex_lock(&signal_lock);
    timed_out_ok = !hf_cond_wait_for(&signal_cond, &signal_lock, 5 * HF_MS);
    timeout_at = hf_now();
    waited_ok = hf_cond_wait_for(&signal_cond, &signal_lock, HF_SEC);
    hf_mutex_unlock(&signal_lock);
}

static void timers_main(void *arg) {
    (void)arg;
    for (int i = 0; i < 3; i++) hf_spawn("sleeper", sleeper, (void *)(intptr_t)i);
    hf_cond_init(&signal_cond, "signal");
    hf_mutex_init(&signal_lock, "signal");
    int w = hf_spawn("waiter", timed_waiter, NULL);
    hf_sleep(7 * HF_MS);
    hf_mutex_lock(&signal_lock);
    hf_cond_signal(&signal_cond);
    hf_mutex_unlock(&signal_lock);
    hf_join(w);
}

static void test_timers(void) {
    order_len = 0;
    hf_result r = run_calm(timers_main);
    CHECK(r.outcome == HF_OK && !strcmp(order, "210"), "sleepers wake in deadline order (got %s)", order);
    CHECK(woke_at[2] == HF_MS && woke_at[1] == 2 * HF_MS && woke_at[0] == 3 * HF_MS,
          "each sleeper wakes at exactly its logical deadline");
    CHECK(timed_out_ok && timeout_at == 5 * HF_MS, "a timed wait nobody signals times out at its deadline");
    CHECK(waited_ok, "a signalled timed wait returns true");
    CHECK(r.time_ns == 7 * HF_MS, "time stops at the last event (7 ms), not at a stale 1 s timer (%.3f s)",
          (double)r.time_ns / HF_SEC);
}

/* ---- Mutual exclusion and channels under adversarial schedules ------------ */

static hf_mutex excl;
static int inside, max_inside;

static void critical(void *arg) {
    (void)arg;
    for (int i = 0; i < 3; i++) {
        hf_mutex_lock(&excl);
        inside++;
        if (inside > max_inside) max_inside = inside;
        hf_switch_point();
        hf_yield();
        inside--;
        hf_mutex_unlock(&excl);
    }
}

static hf_chan *pipe_chan;
static int received[32], received_count;
static bool closed_seen;

static void producer(void *arg) {
    (void)arg;
    for (int i = 0; i < 20; i++) hf_chan_send(pipe_chan, &i);
    hf_chan_close(pipe_chan);
}

static void consumer(void *arg) {
    (void)arg;
    int v;
    while (hf_chan_recv(pipe_chan, &v)) received[received_count++] = v;
    closed_seen = true;
}

static hf_sem slots;
static int sem_inside, sem_max;

static void sem_user(void *arg) {
    (void)arg;
    hf_sem_wait(&slots);
    sem_inside++;
    if (sem_inside > sem_max) sem_max = sem_inside;
    hf_yield();
    sem_inside--;
    hf_sem_post(&slots);
}

static void sync_main(void *arg) {
    (void)arg;
    hf_mutex_init(&excl, "excl");
    inside = 0;
    pipe_chan = hf_chan_new("pipe", sizeof(int), 3);
    received_count = 0;
    closed_seen = false;
    hf_sem_init(&slots, "slots", 2);
    sem_inside = 0;
    int ids[10], n = 0;
    for (int i = 0; i < 3; i++) ids[n++] = hf_spawn("critical", critical, NULL);
    ids[n++] = hf_spawn("producer", producer, NULL);
    ids[n++] = hf_spawn("consumer", consumer, NULL);
    for (int i = 0; i < 4; i++) ids[n++] = hf_spawn("sem", sem_user, NULL);
    for (int i = 0; i < n; i++) hf_join(ids[i]);
}

static void test_sync(void) {
    hf_random_strategy random;
    hf_random_strategy_init(&random, 7);
    int all_ok = 1, fifo = 1, closed = 1;
    max_inside = 0;
    sem_max = 0;
    for (int run = 0; run < 3000; run++) {
        hf_target t = {.name = "sync", .summary = "", .main = sync_main};
        hf_result r;
        hf_run_strategy(&t, &random.base, &r);
        all_ok &= r.outcome == HF_OK;
        for (int i = 0; i < received_count; i++) fifo &= received[i] == i;
        fifo &= received_count == 20;
        closed &= closed_seen;
    }
    CHECK(all_ok, "3,000 random schedules of mutex, channel and semaphore users all complete");
    CHECK(max_inside == 1, "the mutex admits one task at a time (at most %d inside)", max_inside);
    CHECK(fifo && closed, "a channel delivers every item in order, then reports closed");
    CHECK(sem_max == 2, "a semaphore of 2 admits two tasks at once, never three (at most %d)", sem_max);
}

/* ---- Killing tasks ------------------------------------------------------- */

static bool victim_resumed;
static hf_chan *victim_chan;
static int victim_id;

static void victim(void *arg) {
    (void)arg;
    int v;
    hf_chan_recv(victim_chan, &v);
    victim_resumed = true;
}

static void killer(void *arg) {
    (void)arg;
    hf_task_kill(hf_task_by_id(victim_id));
    int one = 1;
    hf_chan_send(victim_chan, &one);   /* the victim must not take it */
}

static void kill_main(void *arg) {
    (void)arg;
    victim_resumed = false;
    victim_chan = hf_chan_new("victim", sizeof(int), 1);
    victim_id = hf_spawn("victim", victim, NULL);
    hf_yield();                        /* let it block in recv */
    hf_join(hf_spawn("killer", killer, NULL));
    hf_join(victim_id);                /* a killed task counts as finished */
}

static void test_kill(void) {
    hf_result r = run_calm(kill_main);
    CHECK(r.outcome == HF_OK && !victim_resumed, "a killed task never runs again, and its joiners wake");
    const hf_trace *t = hf_last_trace();
    bool killed_event = false;
    for (uint64_t i = 0; i < t->count; i++) {
        const hf_event *e = hf_trace_event(t, i);
        if (e && e->kind == HF_EV_KILL && !strcmp(hf_task_name(e->task), "victim")) killed_event = true;
    }
    CHECK(killed_event, "the kill is a trace event of the victim");
}

/* ---- Fake stacks under AddressSanitizer ------------------------------------ */

#ifdef HF_ASAN
/* 40 KiB: ASan's largest class of fake frames, of which a fiber's fake
 * stack holds only a few, so frames that are never freed fill it in a few
 * runs. */
enum { BIG_LOCAL = 40 * 1024 };
static bool big_local_on_fake_stack;
static void keep_address(char *p) { (void)p; }
static void (*volatile escape_address)(char *) = keep_address;

/* Ends the run without returning, so this frame is still in use on the
 * fake stack when the fiber is released: the next fiber on that stack must
 * find its frames freed. */
static void big_frame_main(void *arg) {
    (void)arg;
    char big[BIG_LOCAL];
    escape_address(big);   /* so that ASan puts it on the fake stack */
    big_local_on_fake_stack =
        __asan_addr_is_in_fake_stack(__asan_get_current_fake_stack(), big, NULL, NULL) != NULL;
    hf_end_run();
}

static void test_fake_stacks(void) {
    const char *options = getenv("ASAN_OPTIONS");
    if (!options || !strstr(options, "detect_stack_use_after_return=1")) {
        printf("ok - # skip: fake stacks need ASAN_OPTIONS=detect_stack_use_after_return=1\n");
        return;
    }
    enum { RUNS = 50 };
    int on_fake_stack = 0;
    for (int run = 0; run < RUNS; run++) {
        big_local_on_fake_stack = false;
        run_calm(big_frame_main);
        on_fake_stack += big_local_on_fake_stack;
    }
    CHECK(on_fake_stack == RUNS,
          "a stack's fake stack is reused with it, and the frames a released fiber left are freed: "
          "a 40 KiB local is on the fake stack in %d of %d runs (use after return is caught)", on_fake_stack, RUNS);
}
#else
static void test_fake_stacks(void) {}
#endif

/* ---- Which reads-from pairs a schedule can turn round ---------------------- */

/* Sites as numbers, stores and loads reported as the access layer does. */
static int rf_config, rf_flag, rf_own, rf_result;

static void rf_writer(void *arg) {
    (void)arg;
    hf_reads_from_load((uintptr_t)&rf_config, 2);   /* stored before this task was spawned */
    hf_reads_from_load((uintptr_t)&rf_flag, 9);     /* stored by main after the spawn */
    hf_reads_from_store((uintptr_t)&rf_own, 6);
    hf_reads_from_load((uintptr_t)&rf_own, 7);      /* its own store */
    hf_reads_from_store((uintptr_t)&rf_result, 3);
}

static void rf_reader(void *arg) {
    (void)arg;
    hf_reads_from_load((uintptr_t)&rf_result, 4);   /* the writer's, unordered with it */
}

static void rf_main(void *arg) {
    (void)arg;
    hf_reads_from_store((uintptr_t)&rf_config, 1);
    int writer = hf_spawn("writer", rf_writer, NULL), reader = hf_spawn("reader", rf_reader, NULL);
    hf_reads_from_store((uintptr_t)&rf_flag, 8);
    hf_join(writer);
    hf_join(reader);
    hf_reads_from_load((uintptr_t)&rf_result, 5);   /* the writer's, joined first */
}

static void test_racy_pairs(void) {
    hf_result r = run_calm(rf_main);
    uint32_t count;
    const hf_reads_from_pair *p = hf_last_reads_from(&count);
    static const struct { uintptr_t load, store; bool racy; const char *why; } want[] = {
        {2, 1, false, "a store before the loader's spawn"}, {9, 8, true, "the parent's store after the spawn"},
        {7, 6, false, "the loader's own store"}, {4, 3, true, "a sibling's store"},
        {5, 3, false, "a store of a task joined before the load"}};
    enum { WANTED = sizeof want / sizeof want[0] };
    CHECK(r.outcome == HF_OK && count == WANTED, "the calm run shows %u reads-from pairs (%d expected)", count, WANTED);
    for (uint32_t i = 0; i < count && i < WANTED; i++)
        CHECK(p[i].load_site == want[i].load && p[i].store_site == want[i].store && p[i].racy == want[i].racy,
              "pair %u, load %lu from store %lu: %s, %s", i, (unsigned long)p[i].load_site,
              (unsigned long)p[i].store_site, p[i].racy ? "racy" : "ordered whatever the schedule", want[i].why);
}

/* ---- Many runs in one process ---------------------------------------------- */

static void test_many_runs(void) {
    uint8_t input[48];
    hf_rng rng;
    hf_rng_seed(&rng, 3);
    uint64_t failures = 0;
    enum { RUNS = 100000 };
    for (int run = 0; run < RUNS; run++) {
        size_t len = (size_t)hf_rng_below(&rng, sizeof input + 1);
        for (size_t b = 0; b < len; b++) input[b] = (uint8_t)hf_rng_next(&rng);
        hf_result r;
        hf_run(&counter_buggy_target, input, len, &r);
        failures += r.outcome != HF_OK;
    }
    CHECK(failures > 0 && failures < RUNS, "100,000 runs of counter_buggy in one process (%llu failed, each unwound)",
          (unsigned long long)failures);
    hf_runtime_free();   /* what is left is a leak: LeakSanitizer reports it at exit */
}

int main(void) {
    test_default_schedule();
    test_failures();
    test_properties();
    test_timers();
    test_sync();
    test_kill();
    test_racy_pairs();
    test_fake_stacks();
    test_many_runs();
    return check_exit();
}
