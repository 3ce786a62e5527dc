/*
 * explore.c — `heisenfuzz explore`: run a target over many schedules drawn
 * by a baseline strategy (uniform random bytes, uniform random decisions,
 * swarm, PCT) and count the failures.  It answers "how often does chance alone hit
 * this bug?", the figure a coverage-guided search must beat, and soaks the
 * fixed variants of targets for false alarms.  `--strategy dfs` instead
 * enumerates every run within a bound (dfs.h) and says whether it made them
 * all: the ground truth of what is reachable.
 */
#include "behaviour.h"
#include "dfs.h"
#include "files.h"
#include "run.h"
#include "species.h"
#include "strategy.h"
#include "tool.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The baselines in hf_baseline_kind's order, then bytes and the enumeration. */
typedef enum {
    STRATEGY_RANDOM, STRATEGY_SWARM, STRATEGY_PCT, STRATEGY_GENERATORS, STRATEGY_BYTES, STRATEGY_DFS, STRATEGY_COUNT
} strategy_kind;

static const char *const strategy_names[STRATEGY_COUNT] = {"random", "swarm", "pct", "generators", "bytes", "dfs"};
static const char *const bound_kind_names[] = {"deviations", "preemptions"};

typedef struct explore_options {
    strategy_kind strategy;
    uint64_t runs;          /* how many runs at most */
    uint64_t seed;
    int depth;              /* PCT's d */
    size_t max_len;         /* bytes strategy: inputs of 0..max_len bytes */
    bool until_fail;        /* stop at the first failure */
    bool hashes;            /* print each run's trace hash (determinism checks) */
    const char *save_dir;   /* write the first failing input there */
    bool runs_given;        /* dfs runs until exhausted unless capped */
    uint32_t bound;         /* dfs: per run */
    hf_dfs_bound_kind bound_kind;
    uint32_t values;        /* dfs: options of a wide decision */
} explore_options;

/* Distinct failure messages and how often each was seen. */
enum { MAX_KINDS = 16 };
typedef struct failure_kind { char message[sizeof ((hf_result *)0)->message]; uint64_t count; } failure_kind;

static int parse_u64(const char *text, const char *flag, uint64_t *out) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (!*text || *end || text[0] == '-') return hf_usage_error("explore: %s needs a whole number, not '%s'", flag, text);
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, explore_options *o, const char **target) {
    *o = (explore_options){STRATEGY_RANDOM, 10000, 1, 3, 64, false, false, NULL, false, 2, HF_DFS_DEVIATIONS, 8};
    *target = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            if (*target) return hf_usage_error("explore: more than one target given");
            *target = a;
            continue;
        }
        if (!strcmp(a, "--until-fail")) { o->until_fail = true; continue; }
        if (!strcmp(a, "--hashes")) { o->hashes = true; continue; }
        if (i + 1 >= argc) return hf_usage_error("explore: %s needs a value", a);
        const char *v = argv[++i];
        uint64_t n;
        if (!strcmp(a, "--strategy")) {
            int k = -1;
            for (int s = 0; s < STRATEGY_COUNT; s++) if (!strcmp(v, strategy_names[s])) k = s;
            if (k < 0) return hf_usage_error("explore: unknown strategy '%s' (random, swarm, pct, generators, bytes or dfs)", v);
            o->strategy = (strategy_kind)k;
        } else if (!strcmp(a, "--runs")) {
            if (parse_u64(v, a, &o->runs)) return 2;
            o->runs_given = true;
        } else if (!strcmp(a, "--seed")) {
            if (parse_u64(v, a, &o->seed)) return 2;
        } else if (!strcmp(a, "--depth")) {
            if (parse_u64(v, a, &n)) return 2;
            if (n < 1 || n > HF_PCT_MAX_DEPTH) return hf_usage_error("explore: --depth must be 1..%d", HF_PCT_MAX_DEPTH);
            o->depth = (int)n;
        } else if (!strcmp(a, "--max-len")) {
            if (parse_u64(v, a, &n)) return 2;
            if (n > 1 << 20) return hf_usage_error("explore: --max-len must be at most 1048576");
            o->max_len = (size_t)n;
        } else if (!strcmp(a, "--bound")) {
            if (parse_u64(v, a, &n)) return 2;
            if (n > 1000) return hf_usage_error("explore: --bound must be at most 1000");
            o->bound = (uint32_t)n;
        } else if (!strcmp(a, "--bound-kind")) {
            if (!strcmp(v, "deviations")) o->bound_kind = HF_DFS_DEVIATIONS;
            else if (!strcmp(v, "preemptions")) o->bound_kind = HF_DFS_PREEMPTIONS;
            else return hf_usage_error("explore: --bound-kind is deviations or preemptions, not '%s'", v);
        } else if (!strcmp(a, "--values")) {
            if (parse_u64(v, a, &n)) return 2;
            if (n < 2 || n > HF_DFS_MAX_VALUES) return hf_usage_error("explore: --values must be 2..%d", HF_DFS_MAX_VALUES);
            o->values = (uint32_t)n;
        } else if (!strcmp(a, "-o")) {
            o->save_dir = v;
        } else {
            return hf_usage_error("explore: unknown option '%s'", a);
        }
    }
    if (!*target) return hf_usage_error("explore needs a target");
    if (o->strategy == STRATEGY_DFS && !o->runs_given) o->runs = UINT64_MAX;
    return 0;
}

static void note_failure(failure_kind *kinds, int *count, const char *message) {
    for (int k = 0; k < *count; k++)
        if (!strcmp(kinds[k].message, message)) { kinds[k].count++; return; }
    if (*count == MAX_KINDS) return;
    snprintf(kinds[*count].message, sizeof kinds[*count].message, "%s", message);
    kinds[(*count)++].count = 1;
}

static int save_input(const explore_options *o, const hf_target *t, const uint8_t *data, size_t size) {
    char path[4096], error[512];
    if (o->strategy == STRATEGY_DFS)   /* no seed: the bound names the run */
        snprintf(path, sizeof path, "%s/%s-dfs-bound%u-first-failure", o->save_dir, t->name, o->bound);
    else
        snprintf(path, sizeof path, "%s/%s-%s-seed%" PRIu64 "-first-failure", o->save_dir, t->name,
                 strategy_names[o->strategy], o->seed);
    if (hf_write_file(path, data, size, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return -1;
    }
    fprintf(stderr, "heisenfuzz: first failing input saved as %s\n", path);
    return 0;
}

int hf_cmd_explore(int argc, char **argv) {
    explore_options o;
    const char *target_name;
    int status = parse_options(argc, argv, &o, &target_name);
    if (status) return status;
    const hf_target *t = hf_tool_target(target_name);
    if (!t) return 2;

    hf_baseline baseline;
    if (o.strategy < STRATEGY_BYTES) hf_baseline_init(&baseline, t, (hf_baseline_kind)o.strategy, o.seed, o.depth);
    hf_dfs dfs;
    hf_dfs_init(&dfs, o.bound_kind, o.bound, o.values);
    hf_species features;
    if (!hf_species_init(&features)) { fprintf(stderr, "heisenfuzz: out of memory\n"); return 2; }
    hf_rng bytes_rng;
    hf_rng_seed(&bytes_rng, o.seed);
    uint8_t *input = malloc(o.max_len ? o.max_len : 1);
    if (!input) { fprintf(stderr, "heisenfuzz: out of memory\n"); hf_species_free(&features); return 2; }

    failure_kind kinds[MAX_KINDS];
    int kind_count = 0;
    uint64_t failures = 0, first_failure = 0, logical_ns = 0, run = 0;
    double start = hf_wall_seconds(), last_status = start;
    for (run = 1; run <= o.runs; run++) {
        hf_result r;
        size_t len = 0;
        if (o.strategy == STRATEGY_DFS) {
            if (dfs.exhausted) break;
            hf_dfs_run(&dfs, t, &r);
            if (dfs.diverged || dfs.out_of_memory) break;
        } else if (o.strategy == STRATEGY_BYTES) {
            len = (size_t)hf_rng_below(&bytes_rng, o.max_len + 1);
            for (size_t b = 0; b < len; b++) input[b] = (uint8_t)hf_rng_next(&bytes_rng);
            hf_run(t, input, len, &r);
        } else {
            hf_baseline_run(&baseline, &r);
        }
        logical_ns += r.time_ns;
        const hf_features *seen = hf_last_features();
        for (uint32_t f = 0; f < seen->count; f++) hf_species_add(&features, seen->list[f]);
        if (o.hashes) printf("%" PRIu64 " %016" PRIx64 " %s\n", run, r.trace_hash, hf_outcome_name(r.outcome));
        if (r.outcome != HF_OK) {
            failures++;
            note_failure(kinds, &kind_count, r.message);
            if (failures == 1) {
                first_failure = run;
                if (o.save_dir) {
                    if (o.strategy != STRATEGY_BYTES) {   /* a strategy's run re-encodes */
                        size_t need = hf_decider_encode(hf_last_decisions(), NULL, 0);
                        uint8_t *encoded = malloc(need ? need : 1);
                        if (!encoded) { free(input); return 2; }
                        hf_decider_encode(hf_last_decisions(), encoded, need);
                        if (save_input(&o, t, encoded, need) != 0) { free(encoded); free(input); return 2; }
                        free(encoded);
                    } else if (save_input(&o, t, input, len) != 0) {
                        free(input);
                        return 2;
                    }
                }
            }
            if (o.until_fail) break;
        }
        double now = hf_wall_seconds();
        if (now - last_status >= 2.0) {
            fprintf(stderr, "#%" PRIu64 "\tfailures: %" PRIu64 "\tfeatures: %" PRIu64 "\truns/s: %.0f\tlogical: %.3f h\n",
                    run, failures, features.distinct, (double)run / (now - start), (double)logical_ns / HF_SEC / 3600);
            last_status = now;
        }
    }
    if (run > o.runs) run = o.runs;
    if (o.strategy == STRATEGY_DFS) run = dfs.runs;
    double elapsed = hf_wall_seconds() - start;
    free(input);
    uint64_t distinct_features = features.distinct;
    hf_species_free(&features);
    bool dfs_failed = dfs.diverged || dfs.out_of_memory;
    hf_dfs_free(&dfs);
    if (dfs_failed) {
        fprintf(stderr, "heisenfuzz: explore: %s at run %" PRIu64 "\n",
                dfs.diverged ? "the same decisions led to different decisions: the target is not deterministic"
                             : "out of memory for the decision tree", dfs.runs);
        return 2;
    }

    printf("target: %s\nstrategy: %s", t->name, strategy_names[o.strategy]);
    if (o.strategy == STRATEGY_PCT) printf(" (depth %d, k=%" PRIu64 ")", o.depth, baseline.pct.steps_estimate);
    if (o.strategy == STRATEGY_DFS)
        printf(" (bound %u %s, up to %u values per wide decision)\n", o.bound, bound_kind_names[o.bound_kind], o.values);
    else
        printf(", seed %" PRIu64 "\n", o.seed);
    printf("runs: %" PRIu64 "\nfailures: %" PRIu64 " (%.4f%%)\n", run, failures,
           run ? 100.0 * (double)failures / (double)run : 0.0);
    if (failures) printf("first failure: run %" PRIu64 "\n", first_failure);
    for (int k = 0; k < kind_count; k++) printf("  %" PRIu64 " x %s\n", kinds[k].count, kinds[k].message);
    if (o.strategy == STRATEGY_DFS) {
        printf("features: %" PRIu64 " distinct\n", distinct_features);
        printf("deepest run: %zu decisions\n", dfs.deepest);
        /* Stopped at the first failure, or capped by --runs, it has not
         * seen everything. */
        printf("exhausted: %s", dfs.exhausted ? "yes" : "no");
        if (dfs.exhausted && dfs.pruned) printf(" (every run within the bound, wide decisions at up to %u values each)", o.values);
        if (dfs.exhausted && !dfs.pruned) printf(" (the whole tree: the bound left nothing out; wide decisions at up to %u values each)", o.values);
        printf("\n");
    }
    printf("logical time: %.6f h\nwall time: %.2f s (%.0f runs/s)\n", (double)logical_ns / HF_SEC / 3600, elapsed,
           elapsed > 0 ? (double)run / elapsed : 0.0);
    return failures ? 1 : 0;
}
