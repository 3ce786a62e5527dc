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
#include "commands.h"
#include "dfs.h"
#include "files.h"
#include "options.h"
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
    STRATEGY_RANDOM, STRATEGY_SWARM, STRATEGY_PCT, STRATEGY_GENERATORS, STRATEGY_POS, STRATEGY_SURW, STRATEGY_BYTES,
    STRATEGY_DFS, STRATEGY_COUNT
} strategy_kind;

static const char *const strategy_names[STRATEGY_COUNT + 1] = {"random", "swarm", "pct", "generators", "pos", "surw",
                                                              "bytes", "dfs", NULL};
/* In hf_dfs_bound_kind's order. */
static const char *const bound_kind_names[] = {"deviations", "preemptions", NULL};

typedef struct explore_options {
    int strategy;           /* a strategy_kind */
    uint64_t runs;          /* how many runs at most */
    bool runs_given;        /* dfs runs until exhausted unless capped */
    uint64_t seed;
    uint64_t depth;         /* PCT's d */
    uint64_t max_len;       /* bytes strategy: inputs of 0..max_len bytes */
    uint64_t bound;         /* dfs: per run */
    int bound_kind;         /* dfs: a hf_dfs_bound_kind */
    uint64_t values;        /* dfs: options of a wide decision */
    bool until_fail;        /* stop at the first failure */
    bool hashes;            /* print each run's trace hash (determinism checks) */
    const char *save_dir;   /* write the first failing input there */
} explore_options;

static const explore_options explore_defaults = {
    .strategy = STRATEGY_RANDOM, .runs = 10000, .seed = 1, .depth = 3, .max_len = 64,
    .bound = 2, .bound_kind = HF_DFS_DEVIATIONS, .values = 8,
};

static const hf_option explore_option_table[] = {
    {.name = "strategy", HF_WORD(explore_options, strategy, strategy_names),
     .help = "how schedules are drawn: uniform random decisions, swarm, PCT, generator records, POS, a SURW-class "
             "walk, random bytes, or the bounded enumeration"},
    {.name = "runs", HF_UINT(explore_options, runs, 0, UINT64_MAX), HF_GIVEN(explore_options, runs_given),
     .value_name = "N", .help = "at most N runs (dfs: until the bounded space is exhausted unless given)"},
    {.name = "seed", HF_UINT(explore_options, seed, 0, UINT64_MAX), .value_name = "S",
     .help = "the seed of the drawn schedules"},
    {.name = "depth", HF_UINT(explore_options, depth, 1, HF_PCT_MAX_DEPTH), .value_name = "D",
     .help = "pct: the bug depth d"},
    {.name = "max-len", HF_UINT(explore_options, max_len, 0, 1 << 20), .value_name = "L",
     .help = "bytes: inputs of 0..L bytes"},
    {.name = "bound", HF_UINT(explore_options, bound, 0, 1000), .value_name = "K",
     .help = "dfs: at most K deviations (or preemptions) per run"},
    {.name = "bound-kind", HF_WORD(explore_options, bound_kind, bound_kind_names),
     .help = "dfs: what the bound counts"},
    {.name = "values", HF_UINT(explore_options, values, 2, HF_DFS_MAX_VALUES), .value_name = "N",
     .help = "dfs: wide decisions (times, 64-bit values) take up to N values: default, lo, hi, log-spaced"},
    {.name = "until-fail", HF_FLAG(explore_options, until_fail), .help = "stop at the first failing run"},
    {.name = "hashes", HF_FLAG(explore_options, hashes), .help = "print each run's trace hash"},
    {.short_name = 'o', HF_STRING(explore_options, save_dir), .value_name = "DIR",
     .help = "save the first failing input in DIR (made, with its parents, when missing)"},
};

const hf_command_spec hf_explore_spec = {
    .name = "explore",
    .operands = "TARGET",
    .summary = "run TARGET over schedules drawn by a baseline strategy and count failures; exit 1 if any run "
               "failed.  --strategy dfs enumerates every run with at most K deviations from the default, or "
               "preemptions, depth-first, wide decisions at up to N values each; it prints the distinct behaviour "
               "features seen and whether that bounded space was exhausted, running until it is unless --runs "
               "caps it",
    HF_OPTION_TABLE(explore_option_table),
    .defaults = &explore_defaults,
    .size = sizeof(explore_options),
};

/* Distinct failure messages and how often each was seen. */
enum { MAX_KINDS = 16 };
typedef struct failure_kind { char message[sizeof ((hf_result *)0)->message]; uint64_t count; } failure_kind;

static int parse_options(int argc, char **argv, explore_options *o, const char **target) {
    char **operands;
    int count;
    int status = hf_options_parse(&hf_explore_spec, argc, argv, o, &operands, &count);
    if (status != HF_PARSED) return status;
    if (count > 1) return hf_command_usage_error(hf_explore_spec.name, "explore: more than one target given");
    if (count < 1) return hf_command_usage_error(hf_explore_spec.name, "explore needs a target");
    *target = operands[0];
    if (o->strategy == STRATEGY_DFS && !o->runs_given) o->runs = UINT64_MAX;
    return HF_PARSED;
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
        snprintf(path, sizeof path, "%s/%s-dfs-bound%" PRIu64 "-first-failure", o->save_dir, hf_tool_target_name(t),
                 o->bound);
    else
        snprintf(path, sizeof path, "%s/%s-%s-seed%" PRIu64 "-first-failure", o->save_dir, hf_tool_target_name(t),
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
    if (status != HF_PARSED) return status;
    const hf_target *t = hf_tool_target(target_name);
    if (!t) return 2;
    /* Before any run, so that a long search does not end in a failure that
     * cannot be kept: the directory it is saved in, and its parents. */
    if (o.save_dir) {
        char error[4608];   /* a long path, twice (the part that failed), and the reason */
        if (hf_make_dir(o.save_dir, HF_DIR_AND_PARENTS, error, sizeof error) != 0) {
            fprintf(stderr, "heisenfuzz: %s\n", error);
            return 2;
        }
    }

    hf_baseline baseline;
    if (o.strategy < STRATEGY_BYTES) hf_baseline_init(&baseline, t, (hf_baseline_kind)o.strategy, o.seed, (int)o.depth);
    hf_dfs dfs;
    hf_dfs_init(&dfs, (hf_dfs_bound_kind)o.bound_kind, (uint32_t)o.bound, (uint32_t)o.values);
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

    printf("target: %s\nstrategy: %s", hf_tool_target_name(t), strategy_names[o.strategy]);
    if (o.strategy == STRATEGY_PCT)
        printf(" (depth %" PRIu64 ", k=%" PRIu64 ")", o.depth, baseline.pct.steps_estimate);
    if (o.strategy == STRATEGY_DFS)
        printf(" (bound %" PRIu64 " %s, up to %" PRIu64 " values per wide decision)\n", o.bound,
               bound_kind_names[o.bound_kind], o.values);
    else
        printf(", seed %" PRIu64 "\n", o.seed);
    printf("runs: %" PRIu64 "\nfailures: %" PRIu64 " (%.4f%%)\n", run, failures,
           run ? 100.0 * (double)failures / (double)run : 0.0);
    if (failures) printf("first failure: run %" PRIu64 "\n", first_failure);
    if (hf_profile_runs())   /* before the first: counted apart, so that "run N" names the run it was */
        printf("profile runs: %" PRIu64 " (the calm run, made to learn which accesses can race)\n",
               hf_profile_runs());
    for (int k = 0; k < kind_count; k++) printf("  %" PRIu64 " x %s\n", kinds[k].count, kinds[k].message);
    if (o.strategy == STRATEGY_DFS) {
        printf("features: %" PRIu64 " distinct\n", distinct_features);
        printf("deepest run: %zu decisions\n", dfs.deepest);
        /* Stopped at the first failure, or capped by --runs, it has not
         * seen everything. */
        printf("exhausted: %s", dfs.exhausted ? "yes" : "no");
        if (dfs.exhausted && dfs.pruned)
            printf(" (every run within the bound, wide decisions at up to %" PRIu64 " values each)", o.values);
        if (dfs.exhausted && !dfs.pruned)
            printf(" (the whole tree: the bound left nothing out; wide decisions at up to %" PRIu64 " values each)",
                   o.values);
        printf("\n");
    }
    printf("logical time: %.6f h\nwall time: %.2f s (%.0f runs/s)\n", (double)logical_ns / HF_SEC / 3600, elapsed,
           elapsed > 0 ? (double)run / elapsed : 0.0);
    return failures ? 1 : 0;
}
