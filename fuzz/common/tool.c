/*
 * tool.c — helpers shared by the tool's commands.
 */
#define _GNU_SOURCE   /* clock_gettime, readlink, program_invocation_name */
#include "tool.h"
#include "contain.h"
#include "targets.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

/* The command line being run, for hf_tool_run_in_fuzzer. */
static int tool_argc;
static char **tool_argv;
static bool in_fuzzer;

void hf_tool_remember_args(int argc, char **argv, bool in_a_fuzzer) {
    tool_argc = argc;
    tool_argv = argv;
    in_fuzzer = in_a_fuzzer;
}

bool hf_tool_in_fuzzer(void) { return in_fuzzer; }

bool hf_tool_names_fuzzer(const char *arg) { return strchr(arg, '/') != NULL; }

/* FUZZER:NAME splits at the last ':' after the last '/'. */
static const char *target_part(const char *arg) {
    const char *slash = strrchr(arg, '/'), *colon = strrchr(arg, ':');
    return colon && colon > slash ? colon + 1 : NULL;
}

int hf_tool_run_in_fuzzer(const char *arg) {
    assert(tool_argv && "hf_tool_main records the command line");
    char path[PATH_MAX];
    const char *name = target_part(arg);
    snprintf(path, sizeof path, "%.*s", (int)(name ? (size_t)(name - 1 - arg) : strlen(arg)), arg);
    if (access(path, X_OK) != 0) {
        fprintf(stderr, "heisenfuzz: no fuzzer binary %s: %s\n", path, strerror(errno));
        return 2;
    }
    char **args = calloc((size_t)tool_argc + 1, sizeof *args);
    if (!args) {
        fprintf(stderr, "heisenfuzz: out of memory\n");
        return 2;
    }
    args[0] = path;
    for (int i = 1; i < tool_argc; i++) args[i] = tool_argv[i];
    setenv("HEISENFUZZ_TOOL", "1", 1);
    fflush(stdout);
    fflush(stderr);
    execv(path, args);
    fprintf(stderr, "heisenfuzz: cannot run %s: %s\n", path, strerror(errno));
    free(args);
    return 2;
}

const hf_target *hf_tool_target(const char *name) {
    if (hf_tool_names_fuzzer(name)) {
        if (!in_fuzzer) {
            hf_tool_run_in_fuzzer(name);
            return NULL;
        }
        const char *named = target_part(name);
        if (!named) {
            char error[512];
            const hf_target *t = hf_target_for_program(program_invocation_name, error, sizeof error);
            if (!t) fprintf(stderr, "heisenfuzz: %s\n", error);
            return t;
        }
        name = named;
    }
    const hf_target *t = hf_target_find(name);
    if (!t) fprintf(stderr, "heisenfuzz: unknown target '%s' (see 'heisenfuzz list')\n", name);
    return t;
}

const char *hf_tool_target_name(const hf_target *t) {
    static char name[256];
    hf_target_log_name(t, program_invocation_name, name, sizeof name);
    return name;
}

void hf_tool_print_run(const hf_target *t, size_t size, const hf_result *r, bool timeline) {
    if (timeline) {
        printf("%s: %zu bytes, %llu decisions (%u non-default, marked *), %llu steps, %.9f logical s\n",
               hf_tool_target_name(t), size, (unsigned long long)r->decisions, r->deviations,
               (unsigned long long)r->steps, (double)r->time_ns / HF_SEC);
        hf_print_timeline(stdout, 0);
    }
    if (r->outcome == HF_OK) printf("verdict: ok\n");
    else printf("verdict: fail %s\n", r->message);
    printf("trace-hash: %016llx\n", (unsigned long long)r->trace_hash);
}

static int (*input_hook)(const char *path);
static void (*output_hook)(const char *path);
static bool (*extra_hook)(void);

void hf_tool_set_file_hooks(int (*input)(const char *path), void (*output)(const char *path), bool (*extra)(void)) {
    input_hook = input;
    output_hook = output;
    extra_hook = extra;
}

int hf_tool_input(const char *path) { return input_hook ? input_hook(path) : 0; }

void hf_tool_output(const char *path) {
    if (output_hook) output_hook(path);
}

bool hf_tool_input_extra(void) { return extra_hook && extra_hook(); }

bool hf_tool_contains(const hf_target *t) { return hf_target_is_pthread_program(t); }

static const char crash_prefix[] = "crash (";

void hf_tool_crash_result(hf_result *r, const char *what) {
    memset(r, 0, sizeof *r);
    r->outcome = HF_FAIL_PROGRAM;
    snprintf(r->message, sizeof r->message, "%s%s)", crash_prefix, what);
    r->deviations = hf_last_decisions()->deviations;
}

bool hf_tool_is_crash(hf_outcome outcome, const char *message) {
    return outcome == HF_FAIL_PROGRAM && !strncmp(message, crash_prefix, sizeof crash_prefix - 1);
}

typedef struct tool_run {
    const hf_target *target;
    const uint8_t *data;
    size_t size;
    bool print, timeline;   /* a replay: print the run, with its timeline */
} tool_run;

static void print_crash_verdict(const char *what) { printf("verdict: fail %s%s)\n", crash_prefix, what); }

void hf_tool_print_crash(const char *what) {
    fflush(stdout);
    printf("\n-- the run crashed (%s); the timeline up to the crash:\n", what);
    hf_print_timeline(stdout, 0);
    print_crash_verdict(what);
    fflush(stdout);
}

static void run_work(void *context, void *shared) {
    const tool_run *c = context;
    hf_run(c->target, c->data, c->size, shared);
    if (c->print) hf_tool_print_run(c->target, c->size, shared, c->timeline);
}

static void run_crashed(void *context, void *shared, const char *what) {
    const tool_run *c = context;
    hf_tool_crash_result(shared, what);
    if (c->print && c->timeline) hf_tool_print_crash(what);
    else if (c->print) print_crash_verdict(what);
}

bool hf_tool_run(const hf_target *t, const uint8_t *data, size_t size, bool contain, hf_result *r) {
    tool_run c = {t, data, size, false, false};
    return hf_contain_if(contain, run_work, run_crashed, &c, r, sizeof *r) != HF_CONTAINED_LOST;
}

bool hf_tool_replay(const hf_target *t, const uint8_t *data, size_t size, bool contain, bool timeline) {
    tool_run c = {t, data, size, true, timeline};
    hf_result r;
    if (hf_contain_if(contain, run_work, run_crashed, &c, &r, sizeof r) == HF_CONTAINED_LOST) return true;
    return r.outcome != HF_OK;
}

double hf_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool hf_tree_path(const char *bin_dir, const char *relative, char *path, size_t size) {
    static const char *const levels_up[] = {"..", "../.."};
    for (size_t i = 0; i < sizeof levels_up / sizeof *levels_up; i++) {
        snprintf(path, size, "%s/%s/%s", bin_dir, levels_up[i], relative);
        if (access(path, F_OK) == 0) return true;
    }
    return false;
}

int hf_exe_dir(char *dir, size_t size) {
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0) return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    return 0;
}

size_t hf_afl_environment(const char *mutator, hf_env_var out[HF_AFL_ENV_MAX]) {
    size_t n = 0;
    out[n++] = (hf_env_var){"AFL_NO_UI", "1"};   /* lines, not a screen: its output goes to a file */
    out[n++] = (hf_env_var){"AFL_SKIP_CPUFREQ", "1"};
    out[n++] = (hf_env_var){"AFL_NO_AFFINITY", "1"};   /* shared machines: leave the cores to the kernel */
    out[n++] = (hf_env_var){"AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES", "1"};
    /* Nearly every generated schedule is a new queue entry; eight
     * calibration runs for each would be most of the campaign. */
    out[n++] = (hf_env_var){"AFL_FAST_CAL", "1"};
    if (mutator && *mutator) {
        out[n++] = (hf_env_var){"AFL_CUSTOM_MUTATOR_LIBRARY", mutator};
        out[n++] = (hf_env_var){"AFL_CUSTOM_MUTATOR_ONLY", "1"};   /* see mutator_afl.c */
    }
    assert(n <= HF_AFL_ENV_MAX);
    return n;
}
