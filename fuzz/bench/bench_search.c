/*
 * bench_search.c — `heisenfuzz bench --search`: how many executions each
 * search needs to find each buggy target's bug, over seeds.
 *
 *   random       every decision uniformly random (in process)
 *   swarm        a fault profile and rates drawn per run (in process)
 *   pct          PCT with d = 3 (in process)
 *   generators   the search's own generator records, one fresh one per run,
 *                without feedback (in process): what the generators find
 *                alone, apart from what guidance adds; not a baseline a user
 *                has, so the goals compare against the three above
 *   lf-bytes     libFuzzer, code coverage only, its byte mutator alone: the
 *                control (<target>_bytes_fuzzer, HEISENFUZZ_FEATURES=0)
 *   lf-cov       the full search without behaviour features
 *                (<target>_fuzzer, HEISENFUZZ_FEATURES=0)
 *   lf-search    the full search: generator records, the decision mutator,
 *                behaviour features (<target>_fuzzer, what `fuzz` runs)
 *   afl-search   AFL++ with the decision mutator library and behaviour
 *                features (<target>_afl, <target>_afl_mutator.so)
 *
 * The engines' figures are their executions to the first crash (libFuzzer's
 * stat::number_of_executed_units, AFL++'s execs: in the crash's file name)
 * plus the runs the mutator made itself to learn inputs.  A search that has
 * not found the bug within --max-runs counts as --max-runs + 1, shown ">".
 * Each is run from an empty corpus with the target's dictionary, as
 * `heisenfuzz fuzz` does (AFL++, which wants a seed, from the calm run),
 * AFL++ with the settings of `heisenfuzz fuzz --engine afl`
 * (hf_afl_environment): fast calibration, since nearly every generated
 * schedule is a new queue entry and its default eight calibration runs per
 * entry would dominate, and the decision mutator library alone.
 * Under each row the goals are checked, and lf-search is set against lf-cov
 * seed by seed, since a median of a few seeds cannot tell a cost from a
 * coin flip.
 */
#define _DEFAULT_SOURCE   /* mkdtemp */
#include "commands.h"
#include "run.h"
#include "strategy.h"
#include "targets.h"
#include "options.h"
#include "tool.h"

#include <assert.h>
#include <dirent.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_SEEDS = 1000 };

typedef enum {
    S_RANDOM, S_SWARM, S_PCT, S_POS, S_SURW, S_GENERATORS, S_LF_BYTES, S_LF_COV, S_LF_SEARCH, S_AFL_SEARCH, SEARCHES
} search_kind;

static const char *const search_names[SEARCHES] = {"random",   "swarm",  "pct",       "pos",       "surw",
                                                   "generators", "lf-bytes", "lf-cov", "lf-search", "afl-search"};

typedef struct search_options {
    int seeds;
    uint64_t max_runs;
    bool only[SEARCHES];      /* all false: every search */
} search_options;

typedef struct outcome {
    uint64_t executions;      /* to the first failure; max + 1 when none */
    double seconds;
} outcome;

/* ---- Runs of one search ----------------------------------------------------- */

static outcome baseline_runs(const hf_target *t, hf_baseline_kind kind, uint64_t seed, uint64_t max) {
    double start = hf_wall_seconds();
    hf_baseline b;
    hf_baseline_init(&b, t, kind, seed, 3);
    uint64_t run = 1;
    for (; run <= max; run++) {
        hf_result r;
        hf_baseline_run(&b, &r);
        if (r.outcome != HF_OK) break;
    }
    return (outcome){run, hf_wall_seconds() - start};
}

/* Runs a shell command, returning the value of the last line of its output
 * that starts with `key` in *value (0 when none). */
static int run_reading(const char *cmd, const char *key, uint64_t *value, const char *key2, uint64_t *value2) {
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[4096];
    size_t k = strlen(key), k2 = key2 ? strlen(key2) : 0;
    while (fgets(line, sizeof line, p)) {
        if (!strncmp(line, key, k)) *value = strtoull(line + k, NULL, 10);
        if (key2 && !strncmp(line, key2, k2)) *value2 = strtoull(line + k2, NULL, 10);
    }
    return pclose(p);
}

static void remove_tree(const char *dir) {
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "heisenfuzz: could not remove %s\n", dir);
}

/* libFuzzer from an empty corpus; executions 0 when it did not run. */
static outcome libfuzzer_runs(const char *fuzzer, const char *dict, bool features, uint64_t seed, uint64_t max) {
    char dir[] = "/tmp/heisenfuzz-bench-XXXXXX";
    if (!mkdtemp(dir)) return (outcome){0, 0};
    char dict_arg[PATH_MAX + 16] = "";
    if (access(dict, R_OK) == 0) snprintf(dict_arg, sizeof dict_arg, "-dict='%s'", dict);
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %s '%s' %s -seed=%" PRIu64 " -runs=%" PRIu64 " -print_final_stats=1 "
             "-exact_artifact_path='%s/crash' 2>&1",
             dir, features ? "" : "HEISENFUZZ_FEATURES=0", fuzzer, dict_arg, seed, max, dir);
    double start = hf_wall_seconds();
    uint64_t executed = 0, mutator = 0;
    run_reading(cmd, "stat::number_of_executed_units:", &executed, "stat::heisenfuzz_mutator_runs:", &mutator);
    double seconds = hf_wall_seconds() - start;
    char crash[sizeof dir + 16];
    snprintf(crash, sizeof crash, "%s/crash", dir);
    bool crashed = access(crash, F_OK) == 0;
    remove_tree(dir);
    if (!executed) return (outcome){0, 0};
    uint64_t total = executed + mutator;
    return (outcome){crashed && total <= max ? total : max + 1, seconds};
}

/* The smallest "execs:N" among the crash files AFL++ saved; 0 when none. */
static uint64_t first_crash_execs(const char *crashes) {
    DIR *d = opendir(crashes);
    if (!d) return 0;
    uint64_t first = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *at = strstr(e->d_name, ",execs:");
        if (!at) continue;
        uint64_t n = strtoull(at + 7, NULL, 10);
        if (!first || n < first) first = n;
    }
    closedir(d);
    return first;
}

/* AFL++ with the decision mutator, from a calm seed (AFL++ wants one). */
static outcome afl_runs(const char *bin_dir, const char *name, const char *dict, uint64_t seed, uint64_t max) {
    char dir[] = "/tmp/heisenfuzz-bench-XXXXXX";
    if (!mkdtemp(dir)) return (outcome){0, 0};
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/seeds", dir);
    FILE *calm = NULL;
    if (mkdir(path, 0777) == 0) {
        snprintf(path, sizeof path, "%s/seeds/calm", dir);
        calm = fopen(path, "wb");
    }
    if (!calm) { remove_tree(dir); return (outcome){0, 0}; }
    fputc(0xff, calm);   /* 255 decisions left at their default: the calm run */
    fclose(calm);
    char dict_arg[PATH_MAX + 16] = "";
    if (access(dict, R_OK) == 0) snprintf(dict_arg, sizeof dict_arg, "-x '%s'", dict);
    /* The campaign's settings (hf_afl_environment), and the benchmark's
     * own: stop at the first crash, quietly. */
    char library[PATH_MAX + 64], settings[PATH_MAX * 2] = "";
    snprintf(library, sizeof library, "%s/%s_afl_mutator.so", bin_dir, name);
    hf_env_var vars[HF_AFL_ENV_MAX];
    size_t nvars = hf_afl_environment(library, vars), used = 0;
    for (size_t i = 0; i < nvars && used < sizeof settings; i++)
        used += (size_t)snprintf(settings + used, sizeof settings - used, "%s='%s' ", vars[i].name, vars[i].value);
    char cmd[PATH_MAX * 8];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && %sAFL_BENCH_UNTIL_CRASH=1 AFL_QUIET=1 HEISENFUZZ_MUTATOR_RUNS='%s/mutator-runs' "
             "afl-fuzz -t 1000 -s %" PRIu64 " -E %" PRIu64 " %s -i seeds -o findings -- '%s/%s_afl' >afl.log 2>&1",
             dir, settings, dir, seed, max, dict_arg, bin_dir, name);
    double start = hf_wall_seconds();
    int status = system(cmd);
    double seconds = hf_wall_seconds() - start;
    char crashes[PATH_MAX + 64];
    snprintf(crashes, sizeof crashes, "%s/findings/default/crashes", dir);
    uint64_t execs = first_crash_execs(crashes), mutator = 0;
    snprintf(path, sizeof path, "%s/mutator-runs", dir);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%" SCNu64, &mutator) != 1) mutator = 0;
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/findings/default/fuzzer_stats", dir);
    bool ran = access(path, F_OK) == 0;
    if (!ran) fprintf(stderr, "heisenfuzz: afl-fuzz did not run (status %d); see its log in %s\n", status, dir);
    else remove_tree(dir);
    if (!ran) return (outcome){0, 0};
    uint64_t total = execs + mutator;
    return (outcome){execs && total <= max ? total : max + 1, seconds};
}

/* ---- The table ---------------------------------------------------------------- */

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median_of(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_u64);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct summary {
    uint64_t median;          /* executions; max + 1 when the median seed did not find it */
    int found;                /* seeds that found the bug */
    double seconds;           /* median wall seconds */
    bool ran;
} summary;

static summary summarize(const outcome *o, int n, uint64_t max) {
    static uint64_t executions[MAX_SEEDS];
    static double seconds[MAX_SEEDS];
    summary s = {0, 0, 0, true};
    for (int i = 0; i < n; i++) {
        s.found += o[i].executions <= max;
        executions[i] = o[i].executions;
        seconds[i] = o[i].seconds;
    }
    s.median = median_of(executions, n);
    if (s.median > max) s.median = max + 1;
    qsort(seconds, (size_t)n, sizeof *seconds, compare_double);
    s.seconds = n % 2 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2;
    return s;
}

static void print_cell(const summary *s, uint64_t max, int seeds) {
    char text[64];
    if (!s->ran) snprintf(text, sizeof text, "-");
    else if (s->median > max) snprintf(text, sizeof text, ">%" PRIu64 " %d/%d", max, s->found, seeds);
    else snprintf(text, sizeof text, "%" PRIu64 " %d/%d", s->median, s->found, seeds);
    printf(" %15s", text);
}

static bool wanted(const search_options *o, search_kind k) {
    for (int i = 0; i < SEARCHES; i++)
        if (o->only[i]) return o->only[k];
    return true;
}

/* One execution of search k; executions 0 when it could not run. */
static outcome one_run(search_kind k, const hf_target *t, const char *bin_dir, const char *dict, uint64_t seed,
                       uint64_t max) {
    char fuzzer[PATH_MAX + 64];
    switch (k) {
    case S_RANDOM: return baseline_runs(t, HF_BASELINE_RANDOM, seed, max);
    case S_SWARM: return baseline_runs(t, HF_BASELINE_SWARM, seed, max);
    case S_PCT: return baseline_runs(t, HF_BASELINE_PCT, seed, max);
    case S_POS: return baseline_runs(t, HF_BASELINE_POS, seed, max);
    case S_SURW: return baseline_runs(t, HF_BASELINE_SURW, seed, max);
    case S_GENERATORS: return baseline_runs(t, HF_BASELINE_GENERATORS, seed, max);
    case S_LF_BYTES:
        snprintf(fuzzer, sizeof fuzzer, "%s/%s_bytes_fuzzer", bin_dir, t->name);
        return libfuzzer_runs(fuzzer, dict, false, seed, max);
    case S_LF_COV:
    case S_LF_SEARCH:
        snprintf(fuzzer, sizeof fuzzer, "%s/%s_fuzzer", bin_dir, t->name);
        return libfuzzer_runs(fuzzer, dict, k == S_LF_SEARCH, seed, max);
    case S_AFL_SEARCH: return afl_runs(bin_dir, t->name, dict, seed, max);
    case SEARCHES: break;
    }
    return (outcome){0, 0};
}

/* Behaviour features against coverage alone, seed by seed: both searches
 * ran libFuzzer with the same seeds, so the seeds pair them.  A median of
 * ten seeds of a signal that neither helps nor hurts loses half the time;
 * the interval and the seed counts say whether a ratio below 1 is a cost
 * or a coin flip.  The interval is a paired bootstrap (seeds drawn with
 * replacement, both searches' runs of a seed together), with a fixed seed
 * of its own so that the same runs print the same interval. */
static void print_features_against_coverage(const outcome *coverage, const outcome *features, int n) {
    int faster = 0, slower = 0;
    for (int i = 0; i < n; i++) {
        faster += features[i].executions < coverage[i].executions;
        slower += features[i].executions > coverage[i].executions;
    }
    enum { RESAMPLES = 2000 };
    static double ratio[RESAMPLES];
    static uint64_t c[MAX_SEEDS], f[MAX_SEEDS];
    hf_rng rng;
    hf_rng_seed(&rng, 1);
    for (int b = 0; b < RESAMPLES; b++) {
        for (int i = 0; i < n; i++) {
            uint64_t pick = hf_rng_below(&rng, (uint64_t)n);
            c[i] = coverage[pick].executions;
            f[i] = features[pick].executions;
        }
        ratio[b] = (double)median_of(c, n) / (double)median_of(f, n);
    }
    qsort(ratio, RESAMPLES, sizeof *ratio, compare_double);
    printf("    features vs coverage, seed by seed: faster on %d, slower on %d, the same on %d of %d; "
           "bootstrap 95%% interval of the ratio %.2f-%.2fx\n",
           faster, slower, n - faster - slower, n, ratio[RESAMPLES / 40], ratio[RESAMPLES - 1 - RESAMPLES / 40]);
}

/* The goals for one target, from its row: "meets" or "MISSED" for each
 * that its row has the searches for. */
static void print_goals(const summary *s, uint64_t max) {
    int best = -1;
    for (int k = S_RANDOM; k <= S_SURW; k++)
        if (s[k].ran && (best < 0 || s[k].median < s[best].median)) best = k;
    const summary *full = &s[S_LF_SEARCH];
    if (!full->ran) return;
    const char *sep = "    ";   /* "; " once anything is printed */
    if (best >= 0) {
        uint64_t b = s[best].median;
        bool hard = b >= 1000 || b > max;
        bool close = full->median <= 2 * b + 100;
        bool tenfold = !hard || full->median * 10 <= b;
        printf("%sbest blind: %s %s%" PRIu64 "; lf-search %" PRIu64 " (%s 2x+100)", sep, search_names[best],
               b > max ? ">" : "", b > max ? max : b, full->median, close ? "within" : "MISSED");
        if (hard) printf(", %.1fx fewer (%s 10x)", (double)b / (double)full->median, tenfold ? "meets" : "MISSED");
        sep = "; ";
    }
    if (s[S_LF_COV].ran) {
        double ratio = (double)s[S_LF_COV].median / (double)full->median;
        printf("%sfeatures vs coverage %.2fx (%s 1.0x)", sep, ratio, ratio >= 1.0 ? "meets" : "MISSED");
        sep = "; ";
    }
    if (s[S_GENERATORS].ran) {
        printf("%svs its generators alone %.2fx", sep, (double)s[S_GENERATORS].median / (double)full->median);
        sep = "; ";
    }
    if (*sep == ';') printf("\n");
}

static int search_target(const hf_target *t, const search_options *o, const char *bin_dir) {
    assert(hf_target_is_buggy(t));
    char family[256], relative[300], dict[PATH_MAX + 320];
    hf_target_family(t, family, sizeof family);
    snprintf(relative, sizeof relative, "dict/%s.dict", family);
    hf_tree_path(bin_dir, relative, dict, sizeof dict);
    summary s[SEARCHES] = {{0}};
    static outcome runs[SEARCHES][MAX_SEEDS];
    char afl_build[PATH_MAX + 64];
    snprintf(afl_build, sizeof afl_build, "%s/%s_afl", bin_dir, t->name);
    for (int k = 0; k < SEARCHES; k++) {
        if (!wanted(o, (search_kind)k)) continue;
        if (k == S_AFL_SEARCH && access(afl_build, X_OK) != 0) {
            fprintf(stderr, "  %s: no AFL++ build (%s), afl-search skipped\n", t->name, afl_build);
            continue;
        }
        for (int seed = 1; seed <= o->seeds; seed++) {
            runs[k][seed - 1] = one_run((search_kind)k, t, bin_dir, dict, (uint64_t)seed, o->max_runs);
            if (runs[k][seed - 1].executions == 0) {
                fprintf(stderr, "heisenfuzz: %s on %s did not run (are the fuzzers built? ./build.sh)\n",
                        search_names[k], t->name);
                return 2;
            }
        }
        s[k] = summarize(runs[k], o->seeds, o->max_runs);
        fprintf(stderr, "  %s %s: median %" PRIu64 ", %d/%d seeds, %.2f s\n", t->name, search_names[k], s[k].median,
                s[k].found, o->seeds, s[k].seconds);
    }
    printf("%-24s", t->name);
    for (int k = 0; k < SEARCHES; k++) print_cell(&s[k], o->max_runs, o->seeds);
    printf("\n%-24s", "  median wall s");
    for (int k = 0; k < SEARCHES; k++) {
        if (s[k].ran) printf(" %15.2f", s[k].seconds);
        else printf(" %15s", "-");
    }
    printf("\n");
    print_goals(s, o->max_runs);
    if (s[S_LF_COV].ran && s[S_LF_SEARCH].ran)
        print_features_against_coverage(runs[S_LF_COV], runs[S_LF_SEARCH], o->seeds);
    fflush(stdout);
    return 0;
}

static int parse_only(const char *list, search_options *o) {
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *name = strtok(copy, ","); name; name = strtok(NULL, ",")) {
        int k = 0;
        while (k < SEARCHES && strcmp(search_names[k], name)) k++;
        if (k == SEARCHES)
            return hf_command_usage_error(hf_bench_search_spec.name, "bench --search: unknown search '%s' in --only",
                                          name);
        o->only[k] = true;
    }
    return 0;
}

/* What the command line sets; search_options is made from it. */
typedef struct search_command_line {
    uint64_t seeds;
    uint64_t max_runs;
    const char *only;         /* a comma-separated list of searches, or NULL: all */
} search_command_line;

static const search_command_line search_defaults = {.seeds = 10, .max_runs = 100000};

static const hf_option search_option_table[] = {
    {.name = "seeds", HF_UINT(search_command_line, seeds, 1, MAX_SEEDS), .value_name = "N",
     .help = "run each search with seeds 1..N"},
    {.name = "max-runs", HF_UINT(search_command_line, max_runs, 1, UINT64_MAX), .value_name = "N",
     .help = "a search that has not failed after N executions did not find the bug"},
    {.name = "only", HF_STRING(search_command_line, only), .value_name = "S,...",
     .help = "only these searches: random, swarm, pct, pos, surw, generators, lf-bytes, lf-cov, lf-search, "
             "afl-search"},
};

const hf_command_spec hf_bench_search_spec = {
    .name = "bench --search",
    .operands = "[TARGET...]",
    .summary = "executions to each buggy target's first failure (median, seeds that found it, wall seconds) for "
               "random, swarm, pct, pos, surw, lf-bytes (libFuzzer's byte mutator, the control), lf-cov (the full "
               "search without behaviour features), lf-search (the full search) and afl-search, with the goals checked",
    .options_first = true,   /* the targets end the options */
    HF_OPTION_TABLE(search_option_table),
    .defaults = &search_defaults,
    .size = sizeof(search_command_line),
};

int hf_bench_search(int argc, char **argv) {
    search_command_line line;
    char **targets;
    int count;
    int parsed = hf_options_parse(&hf_bench_search_spec, argc, argv, &line, &targets, &count);
    if (parsed != HF_PARSED) return parsed;
    search_options o = {(int)line.seeds, line.max_runs, {false}};
    if (line.only && parse_only(line.only, &o)) return 2;
    for (int i = 0; i < count; i++) {
        const hf_target *t = hf_tool_target(targets[i]);
        if (!t) return 2;
        if (!hf_target_is_buggy(t))
            return hf_command_usage_error(hf_bench_search_spec.name,
                                          "bench --search takes buggy targets (NAME_buggy), not %s", t->name);
    }
    char bin_dir[PATH_MAX];
    if (hf_exe_dir(bin_dir, sizeof bin_dir) != 0) return 2;

    printf("executions to the first failure: median over %d seeds and the seeds that found it (max %" PRIu64 ")\n",
           o.seeds, o.max_runs);
    printf("%-24s", "target");
    for (int k = 0; k < SEARCHES; k++) printf(" %15s", search_names[k]);
    printf("\n");
    int status = 0;
    if (count > 0) {
        for (int i = 0; i < count && !status; i++) status = search_target(hf_target_find(targets[i]), &o, bin_dir);
    } else {
        for (const hf_target *const *t = hf_target_list(); *t && !status; t++)
            if (hf_target_is_buggy(*t)) status = search_target(*t, &o, bin_dir);
    }
    return status;
}
