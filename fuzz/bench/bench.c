/*
 * bench.c — `heisenfuzz bench`: what a context switch and a scheduling
 * decision cost, measured in one process against two baselines (a bare
 * register switch and glibc's swapcontext), and runs per second of each
 * target.  Ratios matter, not absolute times: machines are shared and noisy,
 * so each figure is the best of several repetitions.
 */
#define _DEFAULT_SOURCE
#include "commands.h"
#include "fiber.h"
#include "run.h"
#include "sim.h"
#include "targets.h"
#include "options.h"
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#ifndef HF_FIBER_UCONTEXT
void hf_fiber_switch_raw(void **save_sp, void *load_sp);
#endif

enum { REPEATS = 5 };
static long iterations;

/* ---- Ping-pong between the main context and one fiber -------------------- */

static hf_fiber ping_main, ping_fiber;

#ifndef HF_FIBER_UCONTEXT
static void raw_pong(void) {
    for (;;) hf_fiber_switch_raw(&ping_fiber.sp, ping_main.sp);
}

static double bench_raw_switch(void) {
    hf_fiber_init_main(&ping_main);
    if (!hf_fiber_create(&ping_fiber, raw_pong)) return 0;
    hf_fiber_switch(&ping_main, &ping_fiber);   /* start it: a fiber's first switch-in is announced */
    double t0 = hf_wall_seconds();
    for (long i = 0; i < iterations; i++) hf_fiber_switch_raw(&ping_main.sp, ping_fiber.sp);
    double t = hf_wall_seconds() - t0;
    hf_fiber_release(&ping_fiber);
    return t / (2.0 * (double)iterations);
}
#endif

static void fiber_pong(void) {
    for (;;) hf_fiber_switch(&ping_fiber, &ping_main);
}

static double bench_fiber_switch(void) {
    hf_fiber_init_main(&ping_main);
    if (!hf_fiber_create(&ping_fiber, fiber_pong)) return 0;
    hf_fiber_switch(&ping_main, &ping_fiber);
    double t0 = hf_wall_seconds();
    for (long i = 0; i < iterations; i++) hf_fiber_switch(&ping_main, &ping_fiber);
    double t = hf_wall_seconds() - t0;
    hf_fiber_release(&ping_fiber);
    return t / (2.0 * (double)iterations);
}

static ucontext_t uc_main, uc_pong;

static void uc_pong_fn(void) {
    for (;;) swapcontext(&uc_pong, &uc_main);
}

static double bench_swapcontext(void) {
    static char stack[64 * 1024];
    getcontext(&uc_pong);
    uc_pong.uc_stack.ss_sp = stack;
    uc_pong.uc_stack.ss_size = sizeof stack;
    uc_pong.uc_link = NULL;
    makecontext(&uc_pong, uc_pong_fn, 0);
    swapcontext(&uc_main, &uc_pong);
    long n = iterations / 20 + 1;    /* it is slow enough to need fewer */
    double t0 = hf_wall_seconds();
    for (long i = 0; i < n; i++) swapcontext(&uc_main, &uc_pong);
    return (hf_wall_seconds() - t0) / (2.0 * (double)n);
}

/* ---- Scheduling decisions inside a run ----------------------------------- */

static long yields_per_task;
static bool use_switch_point;

static void yielder(void *arg) {
    (void)arg;
    for (long i = 0; i < yields_per_task; i++) {
        if (use_switch_point) hf_switch_point();
        else hf_yield();
    }
}

static void two_yielders(void *arg) {
    (void)arg;
    int a = hf_spawn("a", yielder, NULL);
    int b = hf_spawn("b", yielder, NULL);
    hf_join(a);
    hf_join(b);
}

/* ns per scheduling step: with hf_yield every step switches task; with
 * hf_switch_point the default is to go on, so a step is a decision alone. */
static double bench_decision(bool switch_point) {
    hf_target t = {.name = "bench", .summary = "", .main = two_yielders,
                   .max_steps = (uint64_t)iterations * 4 + 100};
    use_switch_point = switch_point;
    yields_per_task = iterations / 2;
    hf_result r;
    double t0 = hf_wall_seconds();
    hf_run(&t, NULL, 0, &r);
    double t1 = hf_wall_seconds();
    if (r.outcome != HF_OK) {
        fprintf(stderr, "heisenfuzz: bench run failed: %s\n", r.message);
        return 0;
    }
    return (t1 - t0) / (double)r.steps;
}

/* ---- Whole runs ---------------------------------------------------------- */

static double bench_runs(const hf_target *t, long runs, long *failures) {
    uint8_t input[64];
    uint64_t state = 0x9e3779b97f4a7c15u;
    *failures = 0;
    double t0 = hf_wall_seconds();
    for (long i = 0; i < runs; i++) {
        /* Inputs from a fixed generator: the same ones every time. */
        size_t len = (size_t)(i % (long)sizeof input);
        for (size_t b = 0; b < len; b++) {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            input[b] = (uint8_t)state;
        }
        hf_result r;
        hf_run(t, input, len, &r);
        *failures += r.outcome != HF_OK;
    }
    return (double)runs / (hf_wall_seconds() - t0);
}

static double best(double (*f)(void)) {
    double b = 0;
    for (int i = 0; i < REPEATS; i++) {
        double v = f();
        if (v > 0 && (b == 0 || v < b)) b = v;
    }
    return b;
}

static double decision_with_switch(void) { return bench_decision(false); }
static double decision_without_switch(void) { return bench_decision(true); }

/* ---- The simulated world: the five-node cluster target ----------------------
 * Simulated messages per wall second, and logical time simulated per wall
 * time, both over the same runs: calm ones (the empty input), and stormy
 * ones (every fault kind allowed, then random decisions).  A commercial
 * deterministic hypervisor reports about 47x (280 simulated hours in 6). */

static size_t stormy_input(uint8_t *buf, size_t cap, uint64_t *state) {
    size_t n = 0;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) buf[n++] = 0;   /* allow every kind */
    while (n < cap) {
        *state ^= *state << 13; *state ^= *state >> 7; *state ^= *state << 17;
        buf[n++] = (uint8_t)*state;
    }
    return n;
}

/* One batch of runs; both figures come from the same batch, the fastest of
 * REPEATS (the machine is shared). */
static void bench_world_runs(const char *label, bool stormy, long runs) {
    /* By name: the tool's code is linked into users' fuzzers too, which
     * have no cluster target (the figures are then skipped). */
    const hf_target *cluster = hf_target_find("cluster");
    if (!cluster) {
        printf("%-40s skipped: the cluster target is not linked in\n", label);
        return;
    }
    double best_wall = 0;
    uint64_t messages = 0, logical_ns = 0;
    long failures = 0;
    for (int repeat = 0; repeat < REPEATS; repeat++) {
        uint8_t input[48];
        uint64_t state = 0x2545F4914F6CDD1Du, batch_messages = 0, batch_logical = 0;
        long batch_failures = 0;
        double t0 = hf_wall_seconds();
        for (long i = 0; i < runs; i++) {
            size_t len = stormy ? stormy_input(input, sizeof input, &state) : 0;
            hf_result r;
            hf_run(cluster, input, len, &r);
            batch_messages += hf_sim_stats_of_run()->sent;
            batch_logical += r.time_ns;
            batch_failures += r.outcome != HF_OK;
        }
        double wall = hf_wall_seconds() - t0;
        if (best_wall == 0 || wall < best_wall) {
            best_wall = wall;
            messages = batch_messages;
            logical_ns = batch_logical;
            failures = batch_failures;
        }
    }
    printf("%-26s %8ld %14.0f %16.0f %10ld\n", label, runs, (double)messages / best_wall,
           (double)logical_ns / HF_SEC / best_wall, failures);
}

static void bench_world(bool quick) {
    long runs = quick ? 300 : 2000;
    printf("\n%-26s %8s %14s %16s %10s\n", "cluster (5 nodes)", "runs", "messages/s", "logical/wall", "failures");
    bench_world_runs("calm (empty input)", false, runs);
    bench_world_runs("stormy (every fault kind)", true, runs);
}

typedef struct bench_options {
    bool quick;
} bench_options;

static const bench_options bench_defaults = {0};

static const hf_option bench_option_table[] = {
    {.name = "quick", HF_FLAG(bench_options, quick), .help = "fewer iterations and runs"},
};

const hf_command_spec hf_bench_spec = {
    .name = "bench",
    .summary = "time fiber switches and scheduling decisions against swapcontext and a bare switch, and runs per "
               "second.  `bench --search`, `bench --species` and `bench --plateau` are benchmarks of the search "
               "(see their --help)",
    HF_OPTION_TABLE(bench_option_table),
    .defaults = &bench_defaults,
    .size = sizeof(bench_options),
};

int hf_cmd_bench(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--search")) return hf_bench_search(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "--species")) return hf_bench_species(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "--plateau")) return hf_bench_plateau(argc - 1, argv + 1);
    bench_options o;
    char **operands;
    int count;
    int parsed = hf_options_parse(&hf_bench_spec, argc, argv, &o, &operands, &count);
    if (parsed != HF_PARSED) return parsed;
    if (count > 0)
        return hf_command_usage_error(hf_bench_spec.name,
                                      "bench takes --quick, --search, --species or --plateau, not '%s'", operands[0]);
    bool quick = o.quick;
    iterations = quick ? 200000 : 2000000;
    long runs = quick ? 2000 : 50000;

#ifndef HF_FIBER_UCONTEXT
    double raw = best(bench_raw_switch);
#else
    double raw = 0;
#endif
    double fiber = best(bench_fiber_switch);
    double ucx = best(bench_swapcontext);
    double step_switch = best(decision_with_switch);
    double step_stay = best(decision_without_switch);

    printf("%-44s %10s %12s %14s\n", "operation", "ns", "vs bare", "swapcontext/x");
    printf("%-44s %10.1f %12s %14.1f\n", "bare register switch (baseline)", raw * 1e9, "1.00x", ucx / raw);
    printf("%-44s %10.1f %11.2fx %14.1f\n", "fiber switch (sanitizer-aware)", fiber * 1e9, fiber / raw, ucx / fiber);
    printf("%-44s %10.1f %11.2fx %14.1f\n", "scheduling decision that switches task", step_switch * 1e9,
           step_switch / raw, ucx / step_switch);
    printf("%-44s %10.1f %11.2fx %14.1f\n", "scheduling decision that stays", step_stay * 1e9,
           step_stay / raw, ucx / step_stay);
    printf("%-44s %10.1f %11.2fx %14s\n", "glibc swapcontext", ucx * 1e9, ucx / raw, "1.0");
    printf("\n%-26s %14s %10s\n", "target", "runs/s", "failures");
    for (const hf_target *const *t = hf_target_list(); *t; t++) {
        long failures;
        double rate = bench_runs(*t, runs, &failures);
        printf("%-26s %14.0f %10ld\n", (*t)->name, rate, failures);
    }
    bench_world(quick);
    return 0;
}
