/*
 * bench_plateau.c — `heisenfuzz bench --plateau`: does the plateau rule
 * (estimate.h) fire when the search has found what there is to find, or
 * merely when it stopped finding?  Checked against ground truth.
 *
 * Per target:
 *   1. The ground truth: the behaviour features of every run within a bound
 *      of deviations, enumerated depth-first (dfs.h), for bounds 0, 1, 2, ...
 *      until one more adds no feature (saturated), the whole tree is done,
 *      or --max-bound / --truth-runs is reached (then the truth is a lower
 *      bound, and the table says so).
 *   2. --campaigns libFuzzer campaigns of the full search
 *      (out/<target>_fuzzer, -seed=S..S+N-1 from --first-seed S (default 1),
 *      -runs=--runs, the target's
 *      dictionary, HEISENFUZZ_LOG), each from an empty corpus.
 *   3. In each campaign's discovery log, the first point where the plateau
 *      rule holds: the share of the true features found by then (goal:
 *      >= 95% in every campaign), the executions from there to the
 *      campaign's last new feature, and Chao1 there against the true total.
 *      Features a campaign found outside the ground truth are counted: any
 *      such feature means the truth was not exhaustive.
 *
 * A pthread program's fuzzer runs this itself (PROG_fuzzer --bench-plateau,
 * pthread_driver.c); its campaigns are runs of that same binary.
 */
#define _DEFAULT_SOURCE   /* mkdtemp, readlink */
#include "behaviour.h"
#include "commands.h"
#include "dfs.h"
#include "estimate.h"
#include "logread.h"
#include "run.h"
#include "species.h"
#include "targets.h"
#include "options.h"
#include "tool.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_CAMPAIGNS = 100 };
#define GOAL_SHARE 0.95

typedef struct plateau_options {
    int campaigns;
    uint64_t first_seed;      /* campaigns use seeds first_seed, first_seed + 1, ... */
    uint64_t runs;            /* per campaign */
    uint32_t max_bound;       /* the ground truth's largest bound */
    uint64_t truth_runs;      /* enumeration runs per bound at most */
    uint32_t values;          /* options of a wide decision */
    const char *keep_logs;    /* a directory to keep each campaign's discovery log in, or NULL */
} plateau_options;

typedef struct truth {
    hf_species features;
    uint32_t bound;           /* the bound whose features these are */
    uint64_t runs;            /* that bound's enumeration */
    bool saturated;           /* bound + 1 added nothing, or the whole tree was enumerated */
    bool whole_tree;
    uint64_t check_runs;      /* the runs of bound + 1 that found nothing more */
} truth;

/* ---- Ground truth -------------------------------------------------------- */

/* Enumerates every run within `bound`; false when it was cut short. */
static bool enumerate(const hf_target *t, uint32_t bound, const plateau_options *o, hf_species *into,
                      uint64_t *runs, bool *whole_tree) {
    hf_dfs d;
    hf_dfs_init(&d, HF_DFS_DEVIATIONS, bound, o->values);
    while (!d.exhausted && d.runs < o->truth_runs && !d.diverged && !d.out_of_memory) {
        hf_result r;
        hf_dfs_run(&d, t, &r);
        const hf_features *f = hf_last_features();
        for (uint32_t i = 0; i < f->count; i++) hf_species_add(into, f->list[i]);
    }
    if (d.diverged) fprintf(stderr, "heisenfuzz: %s is not deterministic: the enumeration diverged\n", t->name);
    bool done = d.exhausted;
    *runs = d.runs;
    *whole_tree = d.exhausted && !d.pruned;
    hf_dfs_free(&d);
    return done;
}

static bool ground_truth(const hf_target *t, const plateau_options *o, truth *out) {
    memset(out, 0, sizeof *out);
    if (!hf_species_init(&out->features)) return false;
    for (uint32_t k = 0; k <= o->max_bound; k++) {
        hf_species next;
        if (!hf_species_init(&next)) return false;
        uint64_t runs;
        bool whole;
        double start = hf_wall_seconds();
        bool done = enumerate(t, k, o, &next, &runs, &whole);
        fprintf(stderr, "  %s: bound %u: %" PRIu64 " runs, %" PRIu64 " features, %s (%.1f s)\n", t->name, k, runs,
                next.distinct, done ? whole ? "the whole tree" : "exhausted" : "cut short by --truth-runs",
                hf_wall_seconds() - start);
        if (!done) {   /* keep the last complete bound */
            hf_species_free(&next);
            return true;
        }
        /* A larger bound's tree holds the smaller's, so its features do too:
         * the same count means the same set. */
        if (k > 0 && next.distinct == out->features.distinct) {
            /* k added nothing: k - 1 has them all. */
            hf_species_free(&next);
            out->saturated = true;
            out->check_runs = runs;
            return true;
        }
        hf_species_free(&out->features);
        out->features = next;
        out->bound = k;
        out->runs = runs;
        out->whole_tree = whole;
        if (whole) {
            out->saturated = true;
            return true;
        }
    }
    return true;
}

/* ---- One campaign ---------------------------------------------------------- */

typedef struct campaign_result {
    bool ran;
    bool fired;                  /* the plateau rule held at some point */
    uint64_t fired_at;           /* executions then */
    uint64_t found_at_fire;      /* true features found by then */
    double chao1_at_fire;
    uint64_t final_executions;
    uint64_t final_found;        /* true features found in all */
    uint64_t outside;            /* features found that the truth lacks */
    uint64_t last_new_at;        /* executions at the point of the last new feature */
} campaign_result;

static void remove_tree(const char *dir) {
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "heisenfuzz: could not remove %s\n", dir);
}

static campaign_result run_campaign(const char *fuzzer, const char *target_env, const char *dict, uint64_t seed,
                                    const plateau_options *o, const char *name, const truth *tr) {
    uint64_t runs = o->runs;
    campaign_result c = {0};
    char dir[] = "/tmp/heisenfuzz-plateau-XXXXXX";
    if (!mkdtemp(dir)) return c;
    char dict_arg[PATH_MAX + 16] = "";
    if (access(dict, R_OK) == 0) snprintf(dict_arg, sizeof dict_arg, "-dict='%s'", dict);
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && HEISENFUZZ_LOG='%s/log' %s '%s' %s -seed=%" PRIu64 " -runs=%" PRIu64
             " -exact_artifact_path='%s/crash' >'%s/out' 2>&1",
             dir, dir, target_env, fuzzer, dict_arg, seed, runs, dir, dir);
    int status = system(cmd);
    char log[sizeof dir + 8];
    snprintf(log, sizeof log, "%s/log", dir);
    const char *paths[] = {log};
    hf_campaign camp;
    char error[512];
    if (hf_campaign_read(&camp, paths, 1, false, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: campaign seed %" PRIu64 " (exit %d): %s\n", seed, status, error);
        remove_tree(dir);
        return c;
    }
    c.ran = true;
    hf_plateau rule = {0};
    uint64_t found = 0;   /* true features among the first i behaviours */
    uint64_t counted = 0;
    for (size_t i = 0; i < camp.count; i++) {
        const hf_progress *p = &camp.points[i];
        for (; counted < p->behaviours; counted++) {
            if (hf_species_count(&tr->features, camp.behaviour_ids[counted])) found++;
            else c.outside++;
        }
        if (i > 0 && p->behaviours > camp.points[i - 1].behaviours) c.last_new_at = p->executions;
        hf_plateau_update(&rule, p);
        if (rule.holds && !c.fired) {
            c.fired = true;
            c.fired_at = p->executions;
            c.found_at_fire = found;
            c.chao1_at_fire = hf_chao1(p->behaviours, p->f1, p->f2);
        }
    }
    c.final_executions = camp.count ? camp.points[camp.count - 1].executions : 0;
    c.final_found = found;
    hf_campaign_free(&camp);
    if (o->keep_logs) {
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/%s-seed%" PRIu64 ".log'", log, o->keep_logs, name, seed);
        if (system(cmd) != 0) fprintf(stderr, "heisenfuzz: could not keep %s in %s\n", log, o->keep_logs);
    }
    remove_tree(dir);
    return c;
}

/* Whether `t` is in the registry, rather than a fuzzer's own program
 * (a pthread program's, known only to the fuzzer that holds it). */
static bool registered(const hf_target *t) {
    for (const hf_target *const *r = hf_target_list(); *r; r++)
        if (*r == t) return true;
    return false;
}

/* ---- Per target ------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int plateau_target(const hf_target *t, const plateau_options *o, const char *fuzzer, const char *target_env,
                          const char *dict) {
    truth tr;
    if (!ground_truth(t, o, &tr)) {
        fprintf(stderr, "heisenfuzz: out of memory\n");
        return 2;
    }
    uint64_t total = tr.features.distinct;
    const char *base = strrchr(fuzzer, '/');
    printf("%s (%s): ground truth %" PRIu64 " features (bound %u deviations, %" PRIu64 " runs; ", t->name,
           base ? base + 1 : fuzzer, total, tr.bound, tr.runs);
    if (tr.whole_tree) printf("the whole tree: the bound left nothing out)\n");
    else if (tr.saturated) printf("saturated: bound %u, %" PRIu64 " runs, adds none)\n", tr.bound + 1, tr.check_runs);
    else printf("NOT saturated: a lower bound)\n");
    printf("  %-6s %12s %10s %8s %16s %10s %10s %12s\n", "seed", "plateau at", "found", "share", "last new after",
           "chao1", "final", "outside");
    static campaign_result res[MAX_CAMPAIGNS];
    int fired = 0, below_goal = 0, ran = 0;
    uint64_t after[MAX_CAMPAIGNS], outside = 0;
    double min_share = 1.0, chao_sum = 0;
    int after_count = 0;
    for (int s = 1; s <= o->campaigns; s++) {
        campaign_result *c = &res[s - 1];
        uint64_t seed = o->first_seed + (uint64_t)s - 1;
        *c = run_campaign(fuzzer, target_env, dict, seed, o, t->name, &tr);
        if (!c->ran) {
            fprintf(stderr, "heisenfuzz: campaign %d on %s did not run (is %s built? ./build.sh)\n", s, t->name, fuzzer);
            hf_species_free(&tr.features);
            return 2;
        }
        ran++;
        outside += c->outside;
        printf("  %-6" PRIu64, seed);
        if (c->fired) {
            double share = total ? (double)c->found_at_fire / (double)total : 1.0;
            uint64_t gap = c->last_new_at > c->fired_at ? c->last_new_at - c->fired_at : 0;
            fired++;
            below_goal += share < GOAL_SHARE;
            if (share < min_share) min_share = share;
            chao_sum += c->chao1_at_fire;
            after[after_count++] = gap;
            printf(" %12" PRIu64 " %10" PRIu64 " %7.1f%% %16" PRIu64 " %10.1f", c->fired_at, c->found_at_fire,
                   100 * share, gap, c->chao1_at_fire);
        } else {
            printf(" %12s %10s %8s %16s %10s", "never", "-", "-", "-", "-");
        }
        printf(" %5" PRIu64 "/%-4" PRIu64 " %12" PRIu64 "\n", c->final_found, total, c->outside);
        fflush(stdout);
    }
    uint64_t median_after = 0, max_after = 0;
    if (after_count) {
        qsort(after, (size_t)after_count, sizeof *after, cmp_u64);
        median_after = after[after_count / 2];
        max_after = after[after_count - 1];
    }
    printf("  summary: fired in %d/%d campaigns; ", fired, ran);
    if (fired)
        printf("share at the plateau min %.1f%% (goal >= 95%%: %s); ", 100 * min_share,
               min_share >= GOAL_SHARE ? "met" : "MISSED");
    else
        printf("share at the plateau: none to judge (it never fired); ");
    printf("fired before 95%%: %d (goal 0: %s); executions from the plateau to the last new feature: median %" PRIu64
           ", max %" PRIu64 "; chao1 at the plateau: mean %.1f vs %" PRIu64 " true; features outside the truth: %" PRIu64
           "%s\n",
           below_goal, below_goal == 0 ? "met" : "MISSED", median_after, max_after, fired ? chao_sum / fired : 0.0, total,
           outside, outside ? " (the ground truth is NOT exhaustive)" : "");
    /* How far the campaigns got: what "never fired" cost. */
    uint64_t least_final = total;
    int all_found = 0;
    for (int s = 0; s < o->campaigns; s++) {
        if (res[s].final_found < least_final) least_final = res[s].final_found;
        all_found += res[s].final_found == total;
    }
    printf("  at the end: %d/%d campaigns found all %" PRIu64 " true features, the least %" PRIu64 "\n", all_found, ran,
           total, least_final);
    fflush(stdout);
    hf_species_free(&tr.features);
    return 0;
}

/* What the command line sets; plateau_options is made from it. */
typedef struct plateau_command_line {
    uint64_t campaigns, first_seed, runs, max_bound, truth_runs, values;
    const char *keep_logs;
} plateau_command_line;

static const plateau_command_line plateau_defaults = {
    .campaigns = 20, .first_seed = 1, .runs = 200000, .max_bound = 5, .truth_runs = 3000000, .values = 8,
};

static const hf_option plateau_option_table[] = {
    {.name = "campaigns", HF_UINT(plateau_command_line, campaigns, 1, MAX_CAMPAIGNS), .value_name = "N",
     .help = "seeded libFuzzer campaigns per target"},
    {.name = "first-seed", HF_UINT(plateau_command_line, first_seed, 1, UINT32_MAX), .value_name = "S",
     .help = "the campaigns' seeds are S, S+1, ..."},
    {.name = "runs", HF_UINT(plateau_command_line, runs, 1000, UINT64_MAX), .value_name = "N",
     .help = "executions per campaign"},
    {.name = "max-bound", HF_UINT(plateau_command_line, max_bound, 0, 100), .value_name = "K",
     .help = "the ground truth's largest bound of deviations"},
    {.name = "truth-runs", HF_UINT(plateau_command_line, truth_runs, 1, UINT64_MAX), .value_name = "N",
     .help = "enumeration runs per bound at most"},
    {.name = "values", HF_UINT(plateau_command_line, values, 2, HF_DFS_MAX_VALUES), .value_name = "N",
     .help = "values of a wide decision in the enumeration"},
    {.name = "keep-logs", HF_STRING(plateau_command_line, keep_logs), .value_name = "DIR",
     .help = "keep each campaign's discovery log in DIR"},
};

const hf_command_spec hf_bench_plateau_spec = {
    .name = "bench --plateau",
    .operands = "[TARGET...]",
    .summary = "the plateau rule against ground truth: every behaviour feature within a bound of deviations "
               "(explore --strategy dfs, the bound raised until one more adds none), then seeded libFuzzer "
               "campaigns, and at the rule's first firing in each the share of the true features found (goal >= "
               "95%), the executions to the last new feature and Chao1 against the true total (default target: "
               "counter)",
    .options_first = true,   /* the targets end the options */
    HF_OPTION_TABLE(plateau_option_table),
    .defaults = &plateau_defaults,
    .size = sizeof(plateau_command_line),
};

int hf_bench_plateau(int argc, char **argv) {
    plateau_command_line line;
    char **operands;
    int count;
    int parsed = hf_options_parse(&hf_bench_plateau_spec, argc, argv, &line, &operands, &count);
    if (parsed != HF_PARSED) return parsed;
    if (line.keep_logs && access(line.keep_logs, W_OK) != 0)
        return hf_command_usage_error(hf_bench_plateau_spec.name,
                                      "bench --plateau: --keep-logs needs a writable directory, not '%s'",
                                      line.keep_logs);
    plateau_options o = {(int)line.campaigns, line.first_seed, line.runs, (uint32_t)line.max_bound, line.truth_runs,
                         (uint32_t)line.values, line.keep_logs};
    static const char *const defaults[] = {"counter"};
    const char *const *names = count > 0 ? (const char *const *)operands : defaults;
    if (count == 0) count = (int)(sizeof defaults / sizeof *defaults);
    const hf_target *targets[64];
    if (count > 64) return hf_command_usage_error(hf_bench_plateau_spec.name, "bench --plateau: at most 64 targets");
    for (int i = 0; i < count; i++)   /* a fuzzer's target: this command goes on inside that fuzzer */
        if (!(targets[i] = hf_tool_target(names[i]))) return 2;

    char bin_dir[PATH_MAX];
    if (hf_exe_dir(bin_dir, sizeof bin_dir) != 0) return 2;
    printf("the plateau rule against ground truth: %d libFuzzer campaigns per target of at most %" PRIu64
           " executions\n", o.campaigns, o.runs);
    fflush(stdout);
    int status = 0;
    for (int i = 0; i < count && !status; i++) {
        const hf_target *t = targets[i];
        char fuzzer[PATH_MAX + 300], dict[PATH_MAX + 300], family[256], relative[300], target_env[320] = "";
        hf_target_family(t, family, sizeof family);
        snprintf(relative, sizeof relative, "dict/%s.dict", family);
        hf_tree_path(bin_dir, relative, dict, sizeof dict);
        if (!registered(t)) {
            /* A program's fuzzer: its campaigns are runs of this binary. */
            ssize_t n = readlink("/proc/self/exe", fuzzer, sizeof fuzzer - 1);
            if (n <= 0) {
                fprintf(stderr, "heisenfuzz: cannot find this fuzzer's own path\n");
                return 2;
            }
            fuzzer[n] = '\0';
            snprintf(target_env, sizeof target_env, "env -u HEISENFUZZ_TOOL");
        } else {
            snprintf(fuzzer, sizeof fuzzer, "%s/%s_fuzzer", bin_dir, t->name);
        }
        status = plateau_target(t, &o, fuzzer, target_env, dict);
    }
    return status;
}
