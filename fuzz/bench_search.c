/*
 * bench_search.c — `heisenfuzz bench --search`: how many executions each
 * search strategy needs to find each buggy target's bug, median over seeds.
 *
 *   random     every decision uniformly random (in process)
 *   pct        PCT with d = 3 (in process)
 *   coverage   libFuzzer with code coverage only (HEISENFUZZ_FEATURES=0)
 *   behaviour  libFuzzer with code coverage plus behaviour features
 *
 * The libFuzzer figures come from the target's real fuzzer binary (its
 * stat::number_of_executed_units at the crash).  A strategy that has not
 * found the bug within --max-runs counts as --max-runs, shown with ">".
 */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "run.h"
#include "strategy.h"
#include "targets.h"
#include "tool.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_SEEDS = 100, STRATEGIES = 4 };
static const char *const strategy_names[STRATEGIES] = {"random", "pct(d=3)", "libFuzzer cov", "libFuzzer cov+behaviour"};

typedef struct search_options {
    int seeds;
    uint64_t max_runs;
} search_options;

/* Runs until the first failure; returns the runs it took, or max + 1. */
static uint64_t in_process_runs(const hf_target *t, int strategy, uint64_t seed, uint64_t max) {
    hf_random_strategy random;
    hf_pct_strategy pct;
    hf_random_strategy_init(&random, seed);
    hf_pct_strategy_init(&pct, seed, 3);
    if (strategy == 1) {
        hf_result calm;
        hf_run(t, NULL, 0, &calm);
        hf_pct_end_run(&pct, calm.steps);
    }
    for (uint64_t run = 1; run <= max; run++) {
        hf_result r;
        if (strategy == 0) {
            hf_run_strategy(t, &random.base, &r);
        } else {
            hf_pct_begin_run(&pct);
            hf_run_strategy(t, &pct.base, &r);
            hf_pct_end_run(&pct, r.steps);
        }
        if (r.outcome != HF_OK) return run;
    }
    return max + 1;
}

/* Runs the target's libFuzzer binary from an empty corpus, with the
 * target's dictionary when it has one (as `heisenfuzz fuzz` does); returns
 * the executions to its first crash, max + 1 when none, 0 on error. */
static uint64_t libfuzzer_runs(const char *fuzzer, const char *dict, bool features, uint64_t seed, uint64_t max) {
    char dir[] = "/tmp/heisenfuzz-bench-XXXXXX";
    if (!mkdtemp(dir)) return 0;
    char dict_arg[PATH_MAX + 16] = "";
    if (access(dict, R_OK) == 0) snprintf(dict_arg, sizeof dict_arg, "-dict='%s'", dict);
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %s '%s' %s -seed=%" PRIu64 " -runs=%" PRIu64 " -print_final_stats=1 "
             "-exact_artifact_path='%s/crash' 2>&1",
             dir, features ? "" : "HEISENFUZZ_FEATURES=0", fuzzer, dict_arg, seed, max, dir);
    FILE *p = popen(cmd, "r");
    uint64_t executed = 0;
    if (p) {
        char line[4096];
        while (fgets(line, sizeof line, p))
            sscanf(line, "stat::number_of_executed_units: %" SCNu64, &executed);
        pclose(p);
    }
    char crash[sizeof dir + 16];
    snprintf(crash, sizeof crash, "%s/crash", dir);
    bool crashed = access(crash, F_OK) == 0;
    unlink(crash);
    rmdir(dir);
    if (!executed) return 0;
    return crashed ? executed : max + 1;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_count(uint64_t v, uint64_t max) {
    if (v > max) printf(" %13s", ">max");
    else printf(" %13" PRIu64, v);
}

static int search_target(const hf_target *t, const search_options *o, const char *bin_dir) {
    assert(hf_target_is_buggy(t));
    char fuzzer[PATH_MAX + 64], family[256], dict[PATH_MAX + 320];
    snprintf(fuzzer, sizeof fuzzer, "%s/%s_fuzzer", bin_dir, t->name);
    hf_target_family(t, family, sizeof family);
    snprintf(dict, sizeof dict, "%s/../dict/%s.dict", bin_dir, family);
    if (access(fuzzer, X_OK) != 0) {
        fprintf(stderr, "heisenfuzz: no fuzzer binary %s (build it with ./build.sh)\n", fuzzer);
        return 2;
    }
    uint64_t runs[STRATEGIES][MAX_SEEDS], medians[STRATEGIES];
    for (int s = 0; s < STRATEGIES; s++) {
        for (int seed = 1; seed <= o->seeds; seed++) {
            uint64_t n = s < 2 ? in_process_runs(t, s, (uint64_t)seed, o->max_runs)
                               : libfuzzer_runs(fuzzer, dict, s == 3, (uint64_t)seed, o->max_runs);
            if (n == 0) {
                fprintf(stderr, "heisenfuzz: %s did not run\n", fuzzer);
                return 2;
            }
            runs[s][seed - 1] = n;
        }
        medians[s] = median(runs[s], o->seeds);
        fprintf(stderr, "  %s %s: median %" PRIu64 "\n", t->name, strategy_names[s], medians[s]);
    }
    printf("%-26s", t->name);
    for (int s = 0; s < STRATEGIES; s++) print_count(medians[s], o->max_runs);
    printf(" %9.1fx %9.1fx\n", (double)medians[0] / (double)medians[3], (double)medians[1] / (double)medians[3]);
    return 0;
}

int hf_bench_search(int argc, char **argv) {
    search_options o = {10, 1000000};
    int first_target = argc;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') { first_target = i; break; }
        if (i + 1 >= argc) return hf_usage_error("bench --search: %s needs a value", argv[i]);
        char *end;
        unsigned long long v = strtoull(argv[++i], &end, 10);
        if (*end || !*argv[i]) return hf_usage_error("bench --search: %s needs a whole number", argv[i - 1]);
        if (!strcmp(argv[i - 1], "--seeds") && v >= 1 && v <= MAX_SEEDS) o.seeds = (int)v;
        else if (!strcmp(argv[i - 1], "--max-runs") && v >= 1) o.max_runs = v;
        else return hf_usage_error("bench --search: bad option %s %s", argv[i - 1], argv[i]);
    }
    for (int i = first_target; i < argc; i++) {
        const hf_target *t = hf_tool_target(argv[i]);
        if (!t) return 2;
        if (!hf_target_is_buggy(t)) return hf_usage_error("bench --search takes buggy targets (NAME_buggy), not %s", t->name);
    }
    char bin_dir[PATH_MAX];
    if (hf_exe_dir(bin_dir, sizeof bin_dir) != 0) return 2;

    printf("executions to the first failure, median of %d seeds (max %" PRIu64 ")\n", o.seeds, o.max_runs);
    printf("%-26s %13s %13s %13s %13s %10s %10s\n", "target", "random", "pct(d=3)", "lf coverage", "lf +behaviour",
           "random/beh", "pct/beh");
    int status = 0;
    if (first_target < argc) {
        for (int i = first_target; i < argc && !status; i++) status = search_target(hf_target_find(argv[i]), &o, bin_dir);
    } else {
        for (const hf_target *const *t = hf_target_list(); *t && !status; t++)
            if (hf_target_is_buggy(*t)) status = search_target(*t, &o, bin_dir);
    }
    return status;
}
