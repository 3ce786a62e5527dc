/*
 * cmd_fuzz.c — `heisenfuzz fuzz`: a campaign on one target with libFuzzer
 * (one process, or -fork=N) or AFL++ (a main and N-1 secondaries), with the
 * target's dictionary and seeds, into one folder:
 *
 *   DIR/NAME/              libFuzzer's corpus (AFL++: the queues in DIR/afl-NAME/)
 *   DIR/crash-NAME-K       one crash per distinct failure of this campaign
 *   DIR/NAME.log           the discovery log every process appends to
 *   DIR/NAME.svg           its chart, drawn at the end
 *   DIR/NAME.engine.out    the engines' own output (unless --verbose)
 *
 * What it prints is the campaign's result, not the engines' chatter: one
 * status line from the discovery log while it runs, then the failures, the
 * minimized schedule's timeline and the files.  libFuzzer reports a failing
 * schedule as a "deadly signal" with a stack trace (the harness aborts to
 * report it), which a new user reads as a crash of the tool; so the
 * engines' output goes to DIR/NAME.engine.out, and --verbose shows it live.
 *
 * It stops at the first failure unless --keep-going, or when --time runs
 * out, or at ^C: the engines get SIGINT once (each in its own process group,
 * so a terminal's ^C reaches them only through here) and every log is
 * complete when they are done.  Then the crashes are sorted by failure, the
 * chart drawn, and the first crash minimized (DIR/crash-NAME-K.min) and
 * replayed as a timeline: a crash found by a generator is a storm of
 * deviations, and only the few that matter make a readable story.
 */
#define _DEFAULT_SOURCE   /* readlink, setenv, kill, usleep, strdup */
#include "chart.h"
#include "commands.h"
#include "files.h"
#include "logread.h"
#include "minimize.h"
#include "options.h"
#include "run.h"
#include "status.h"
#include "targets.h"
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* feedback.h's, in fuzzer binaries only (weak: the heisenfuzz program has
 * no engine). */
extern const char *hf_feedback_engine(void) __attribute__((weak));

/* The status line: rewritten in place every second on a terminal; where
 * stdout is a file or a pipe (a CI log, `| tee`), a carriage return would
 * pile every update into one line, so a whole line every 5 s instead. */
enum { MAX_JOBS = 64, MAX_CRASHES = 4096, STATUS_PERIOD_S = 5, TERMINAL_PERIOD_S = 1, GRACE_S = 30 };

typedef enum engine { ENGINE_LIBFUZZER, ENGINE_AFL } engine;

typedef struct campaign {
    const hf_target *target;
    char name[256];                 /* its files and messages go by: hf_tool_target_name */
    engine engine;
    int jobs;
    long time_s;
    bool keep_going;
    const char *seed;
    char fuzzer[PATH_MAX];
    char dir[PATH_MAX];
    char corpus[PATH_MAX + 64];     /* libFuzzer's corpus, or AFL++'s -o */
    char staging[PATH_MAX + 64];    /* libFuzzer's artifact prefix */
    char log[PATH_MAX + 64];
    char chart[PATH_MAX + 64];
    char engine_out[PATH_MAX + 64];
    char dict[PATH_MAX + 64];       /* "" when the target has none */
    char seeds[PATH_MAX + 64];
    char mutator[PATH_MAX + 64];    /* AFL++ custom mutator beside the tool, or "" */
    int extra_argc;
    char **extra_argv;              /* after "--": handed to the engine */
    bool verbose;                   /* the engines' output here, live, not in engine_out */
    pid_t pids[MAX_JOBS];
    int running;
} campaign;

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
    (void)sig;
    interrupted = 1;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- Where things are ------------------------------------------------------ */

/* The fuzzer binary: beside the tool (out/NAME_fuzzer, out/NAME_afl), or,
 * for a user's target, the fuzzer this command runs in. */
static int find_fuzzer(campaign *c, const char *bin_dir) {
    if (hf_tool_in_fuzzer()) {
        ssize_t n = readlink("/proc/self/exe", c->fuzzer, sizeof c->fuzzer - 1);
        if (n <= 0) {
            fprintf(stderr, "heisenfuzz: cannot find this fuzzer binary: %s\n", strerror(errno));
            return -1;
        }
        c->fuzzer[n] = '\0';
        /* The engine is the one this binary was linked with. */
        const char *built = hf_feedback_engine ? hf_feedback_engine() : "replayer";
        bool afl_binary = strcmp(built, "AFL++") == 0, lf_binary = strcmp(built, "libFuzzer") == 0;
        if ((c->engine == ENGINE_AFL && !afl_binary) || (c->engine == ENGINE_LIBFUZZER && !lf_binary)) {
            fprintf(stderr, "heisenfuzz: %s is a %s binary, not one for %s (build it with heisenfuzz-%s)\n",
                    c->fuzzer, built, c->engine == ENGINE_AFL ? "AFL++" : "libFuzzer",
                    c->engine == ENGINE_AFL ? "afl" : "libfuzzer");
            return -1;
        }
        /* It must run as a fuzzer now, on the target the command named. */
        unsetenv("HEISENFUZZ_TOOL");
        setenv("HEISENFUZZ_TARGET", c->target->name, 1);
        return 0;
    }
    snprintf(c->fuzzer, sizeof c->fuzzer, "%s/%s_%s", bin_dir, c->target->name,
             c->engine == ENGINE_AFL ? "afl" : "fuzzer");
    if (access(c->fuzzer, X_OK) != 0) {
        fprintf(stderr, "heisenfuzz: no fuzzer binary %s (build it with ./build.sh%s)\n", c->fuzzer,
                c->engine == ENGINE_AFL ? " where afl-clang-fast is installed" : "");
        return -1;
    }
    return 0;
}

/* The dictionary and seeds: in the source tree for an in-tree target
 * (dict/FAMILY.dict, targets/FAMILY/seeds), beside the binary for a user's
 * (FUZZER.dict, FUZZER_seeds/; OSS-Fuzz's names). */
static void find_dict_and_seeds(campaign *c, const char *bin_dir) {
    char family[256], relative[300];
    hf_target_family(c->target, family, sizeof family);
    if (hf_tool_in_fuzzer()) {
        snprintf(c->dict, sizeof c->dict, "%s.dict", c->fuzzer);
        snprintf(c->seeds, sizeof c->seeds, "%s_seeds", c->fuzzer);
    } else {
        snprintf(relative, sizeof relative, "dict/%s.dict", family);
        hf_tree_path(bin_dir, relative, c->dict, sizeof c->dict);
        snprintf(relative, sizeof relative, "targets/%s/seeds", family);
        hf_tree_path(bin_dir, relative, c->seeds, sizeof c->seeds);
    }
    if (!is_file(c->dict)) {
        fprintf(stderr, "heisenfuzz: no dictionary for %s (looked for %s): fuzzing without one\n", c->name, c->dict);
        c->dict[0] = '\0';
    }
    if (!is_dir(c->seeds)) c->seeds[0] = '\0';
    snprintf(c->mutator, sizeof c->mutator, "%s/%s_afl_mutator.so", bin_dir, c->target->name);
    if (hf_tool_in_fuzzer() || !is_file(c->mutator)) c->mutator[0] = '\0';
}

/* ---- Starting the engines ---------------------------------------------------- */

/* Forks a child in its own process group running `args`, its output in
 * engine_out unless --verbose. */
static pid_t spawn(const campaign *c, char *const *args) {
    pid_t pid = fork();
    if (pid < 0) {
        perror("heisenfuzz: fork");
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        if (!c->verbose) {
            int fd = open(c->engine_out, O_WRONLY | O_APPEND | O_CREAT, 0666);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
                close(fd);
            }
        }
        execvp(args[0], args);
        fprintf(stderr, "heisenfuzz: cannot run %s: %s\n", args[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);   /* also here: no race with a signal sent right away */
    return pid;
}

static int start_libfuzzer(campaign *c) {
    static char prefix[PATH_MAX + 96], seed[64], time_arg[64], dict[PATH_MAX + 96], fork_arg[32];
    char *args[96];
    int n = 0;
    args[n++] = c->fuzzer;
    snprintf(prefix, sizeof prefix, "-artifact_prefix=%s/", c->staging);
    args[n++] = prefix;
    snprintf(seed, sizeof seed, "-seed=%s", c->seed ? c->seed : "0");
    args[n++] = seed;
    snprintf(time_arg, sizeof time_arg, "-max_total_time=%ld", c->time_s);
    args[n++] = time_arg;
    args[n++] = "-print_final_stats=1";
    if (c->dict[0]) {
        snprintf(dict, sizeof dict, "-dict=%s", c->dict);
        args[n++] = dict;
    }
    /* Fork mode runs N workers and survives crashes when asked to; one
     * process without --keep-going is libFuzzer's plain loop. */
    if (c->jobs > 1 || c->keep_going) {
        snprintf(fork_arg, sizeof fork_arg, "-fork=%d", c->jobs);
        args[n++] = fork_arg;
        if (c->keep_going) args[n++] = "-ignore_crashes=1";
    }
    for (int i = 0; i < c->extra_argc && n < 90; i++) args[n++] = c->extra_argv[i];
    args[n++] = c->corpus;   /* new inputs go to the first corpus directory */
    if (c->seeds[0]) args[n++] = c->seeds;
    args[n] = NULL;
    pid_t pid = spawn(c, args);
    if (pid < 0) return -1;
    c->pids[c->running++] = pid;
    return 0;
}

static int start_afl(campaign *c) {
    /* afl-fuzz needs a seed directory; a one-byte input stands in for a
     * target without seeds (byte 0: the first decision deviates). */
    char in[PATH_MAX + 96];
    if (c->seeds[0]) {
        snprintf(in, sizeof in, "%s", c->seeds);
    } else {
        snprintf(in, sizeof in, "%s/afl-in-%s", c->dir, c->name);
        char seed_file[PATH_MAX + 128], error[512];
        snprintf(seed_file, sizeof seed_file, "%s/zero", in);
        if (hf_make_dir(in, HF_DIR_AND_PARENTS, error, sizeof error) != 0 ||
            hf_write_file(seed_file, "", 1, error, sizeof error) != 0) {
            fprintf(stderr, "heisenfuzz: %s\n", error);
            return -1;
        }
    }
    /* afl-fuzz refuses sanitizer options it did not set itself. */
    unsetenv("ASAN_OPTIONS");
    unsetenv("UBSAN_OPTIONS");
    unsetenv("MSAN_OPTIONS");
    hf_env_var vars[HF_AFL_ENV_MAX];
    size_t nvars = hf_afl_environment(c->mutator, vars);
    for (size_t i = 0; i < nvars; i++) setenv(vars[i].name, vars[i].value, 1);
    if (c->mutator[0] && c->jobs > 1) {
        /* Each instance's library keeps its corpus itself, AFL++'s queues
         * staying empty: the instances share theirs here instead. */
        char shared[PATH_MAX + 96];
        snprintf(shared, sizeof shared, "%s/afl-shared-%s", c->dir, c->name);
        setenv("HEISENFUZZ_SHARED_CORPUS", shared, 1);
    }
    for (int k = 0; k < c->jobs; k++) {
        char role[16], seed[32], time_arg[32];
        snprintf(role, sizeof role, k == 0 ? "main" : "s%d", k);
        /* Each instance its own random stream, all from the one seed. */
        snprintf(seed, sizeof seed, "%lld", (c->seed ? atoll(c->seed) : 0) + k);
        snprintf(time_arg, sizeof time_arg, "%ld", c->time_s);
        char *args[64];
        int n = 0;
        args[n++] = "afl-fuzz";
        args[n++] = "-i";
        args[n++] = in;
        args[n++] = "-o";
        args[n++] = c->corpus;
        args[n++] = k == 0 ? "-M" : "-S";
        args[n++] = role;
        args[n++] = "-s";
        args[n++] = seed;
        args[n++] = "-V";
        args[n++] = time_arg;
        if (c->dict[0]) {
            args[n++] = "-x";
            args[n++] = c->dict;
        }
        /* AFL++ derives its timeout from the seeds' runs, the calm run's
         * ~1 ms in persistent mode: 20 ms, which kills longer generated
         * schedules before they finish.  A runaway schedule ends in the
         * runtime's own budget anyway; this only guards the process. */
        bool timeout_given = false;
        for (int i = 0; i < c->extra_argc; i++) timeout_given |= strncmp(c->extra_argv[i], "-t", 2) == 0;
        if (!timeout_given) {
            args[n++] = "-t";
            args[n++] = "1000";
        }
        for (int i = 0; i < c->extra_argc && n < 60; i++) args[n++] = c->extra_argv[i];
        args[n++] = "--";
        args[n++] = c->fuzzer;
        args[n] = NULL;
        pid_t pid = spawn(c, args);
        if (pid < 0) return -1;
        c->pids[c->running++] = pid;
    }
    return 0;
}

/* ---- Watching ----------------------------------------------------------------- */

typedef struct crash_list {
    char *paths[MAX_CRASHES];
    size_t count;
} crash_list;

static int by_string(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends the files of `dir` whose names begin with `prefix`, sorted. */
static void list_files(crash_list *l, const char *dir, const char *prefix) {
    DIR *d = opendir(dir);
    if (!d) return;
    size_t first = l->count;
    for (struct dirent *e; (e = readdir(d)) && l->count < MAX_CRASHES;) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
        /* What a program's crash needs beside its bytes (invocation.h), not a crash. */
        size_t length = strlen(e->d_name);
        if (length > 5 && !strcmp(e->d_name + length - 5, ".args")) continue;
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!is_file(path)) continue;
        l->paths[l->count] = strdup(path);
        if (l->paths[l->count]) l->count++;
    }
    closedir(d);
    qsort(l->paths + first, l->count - first, sizeof *l->paths, by_string);
}

/* The failing inputs the engines have written so far. */
static void engine_crashes(const campaign *c, crash_list *l) {
    if (c->engine == ENGINE_LIBFUZZER) {
        list_files(l, c->staging, "crash-");
        list_files(l, c->staging, "timeout-");
        list_files(l, c->staging, "oom-");
        return;
    }
    DIR *d = opendir(c->corpus);
    if (!d) return;
    char instances[MAX_JOBS][256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < MAX_JOBS;)
        if (e->d_name[0] != '.') snprintf(instances[n++], sizeof instances[0], "%s", e->d_name);
    closedir(d);
    for (int i = 0; i < n; i++) {
        char crashes[PATH_MAX * 2];
        snprintf(crashes, sizeof crashes, "%s/%s/crashes", c->corpus, instances[i]);
        list_files(l, crashes, "id:");
    }
}

static void free_list(crash_list *l) {
    for (size_t i = 0; i < l->count; i++) free(l->paths[i]);
    l->count = 0;
}

static void signal_all(campaign *c, int sig) {
    for (int i = 0; i < c->running; i++)
        if (c->pids[i] > 0) kill(-c->pids[i], sig);
}

/* How the status line is shown: in place on a terminal (TERMINAL), as a
 * line now and then (LINES), or not at all (NONE: one libFuzzer process
 * with --verbose prints its own). */
typedef enum status_mode { STATUS_NONE, STATUS_LINES, STATUS_TERMINAL } status_mode;

/* The campaign's status line, from the merged discovery log; `last` ends
 * an in-place line with a newline. */
static void print_status(const campaign *c, status_mode mode, double elapsed, size_t crashes, bool last) {
    const char *paths[] = {c->log};
    hf_campaign log;
    char error[512], status[512] = "no executions logged yet", line[1024];
    if (hf_campaign_read(&log, paths, 1, true, error, sizeof error) == 0) {
        hf_plateau rule = {0};
        for (size_t i = 0; i < log.count; i++) hf_plateau_update(&rule, &log.points[i]);
        hf_status_line(status, sizeof status, &log.points[log.count - 1], &rule);
        char size[64];
        hf_campaign_size(&log, size, sizeof size);
        snprintf(line, sizeof line, "heisenfuzz: [%.0f s, %s] %s  crash files: %zu", elapsed, size, status, crashes);
        hf_campaign_free(&log);
    } else {
        snprintf(line, sizeof line, "heisenfuzz: [%.0f s] %s  crash files: %zu", elapsed, status, crashes);
    }
    /* libFuzzer's tab after "#N" has no place inside this line. */
    for (char *tab = strchr(line, '\t'); tab; tab = strchr(tab, '\t')) *tab = ' ';
    if (mode == STATUS_TERMINAL) {
        /* A line longer than the terminal wraps, and the carriage return
         * then goes back to its last row only: cut it to the width. */
        struct winsize ws;
        if (!last && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 && strlen(line) >= ws.ws_col)
            line[ws.ws_col - 1] = '\0';
        printf("\r%s\033[K%s", line, last ? "\n" : "");
    } else {
        printf("%s\n", line);
    }
    fflush(stdout);
}

/* Waits for the engines: stops them at the first crash (unless
 * keep_going), after the time (plus a grace period), or at ^C. */
static void watch(campaign *c, status_mode mode) {
    double start = hf_wall_seconds(), last_status = start, stop_sent = 0;
    double period = mode == STATUS_TERMINAL ? TERMINAL_PERIOD_S : STATUS_PERIOD_S;
    bool stopping = false;
    int live = c->running;
    while (live > 0) {
        for (int i = 0; i < c->running; i++) {
            if (c->pids[i] <= 0) continue;
            int st;
            pid_t r = waitpid(c->pids[i], &st, WNOHANG);
            if (r == c->pids[i] || (r < 0 && errno == ECHILD)) {
                c->pids[i] = -1;
                live--;
            }
        }
        if (live == 0) break;
        double now = hf_wall_seconds();
        crash_list found = {0};
        engine_crashes(c, &found);
        size_t crashes = found.count;
        free_list(&found);
        bool time_up = now - start > (double)c->time_s + GRACE_S;
        if (!stopping && (interrupted || time_up || (crashes > 0 && !c->keep_going))) {
            if (interrupted) printf("%sheisenfuzz: interrupted; stopping the engines\n",
                                    mode == STATUS_TERMINAL ? "\r\033[K" : "\n");
            signal_all(c, SIGINT);
            stopping = true;
            stop_sent = now;
        } else if (stopping && now - stop_sent > GRACE_S) {
            signal_all(c, SIGKILL);   /* an engine that ignores SIGINT */
            stop_sent = now + 1e9;
        }
        if (mode != STATUS_NONE && now - last_status >= period) {
            print_status(c, mode, now - start, crashes, false);
            last_status = now;
        }
        usleep(200 * 1000);
    }
    if (mode != STATUS_NONE) {
        crash_list found = {0};
        engine_crashes(c, &found);
        print_status(c, mode, hf_wall_seconds() - start, found.count, true);
        free_list(&found);
    }
}

/* ---- Afterwards ---------------------------------------------------------------- */

typedef struct kept_crash {
    hf_goal goal;
    char path[PATH_MAX + 96];
} kept_crash;

/* Replays every crash the engines wrote and keeps one per distinct failure
 * (kind and message) as DIR/crash-NAME-K under a fresh K.  libFuzzer's
 * staged copies are removed; AFL++'s stay in its output folder.  Returns
 * the number kept, their paths in `kept`. */
static size_t sort_crashes(const campaign *c, kept_crash *kept, size_t cap) {
    crash_list found = {0};
    engine_crashes(c, &found);
    size_t count = 0;
    int next = 1;
    for (size_t i = 0; i < found.count; i++) {
        char error[512];
        size_t size;
        uint8_t *data = hf_read_file(found.paths[i], &size, error, sizeof error);
        if (!data) continue;
        if (hf_tool_input(found.paths[i]) != 0) {
            free(data);
            continue;
        }
        hf_result r;
        if (!hf_tool_run(c->target, data, size, hf_tool_contains(c->target), &r) || r.outcome == HF_OK) {
            fprintf(stderr, "heisenfuzz: %s does not fail when replayed; left where it is\n", found.paths[i]);
            free(data);
            continue;
        }
        hf_goal g;
        hf_goal_from_result(&g, &r);
        bool seen = false;
        for (size_t k = 0; k < count && !seen; k++) seen = hf_goal_met(&kept[k].goal, &r);
        if (!seen && count < cap) {
            kept_crash *k = &kept[count];
            k->goal = g;
            for (;; next++) {
                snprintf(k->path, sizeof k->path, "%s/crash-%s-%d", c->dir, c->name, next);
                if (access(k->path, F_OK) != 0) break;
            }
            if (hf_write_file(k->path, data, size, error, sizeof error) == 0) {
                hf_tool_output(k->path);
                count++;
            } else {
                fprintf(stderr, "heisenfuzz: %s\n", error);
            }
        }
        free(data);
        if (c->engine == ENGINE_LIBFUZZER) {
            unlink(found.paths[i]);
            char record[PATH_MAX * 2 + 8];
            snprintf(record, sizeof record, "%s.args", found.paths[i]);
            unlink(record);
        }
    }
    free_list(&found);
    return count;
}

/* Minimizes a crash into CRASH.min and prints the timeline of the result;
 * the crash itself when it cannot be minimized.  Returns whether CRASH.min
 * was written. */
static bool show_crash(const hf_target *t, const char *path) {
    size_t size;
    char error[512];
    uint8_t *data = hf_read_file(path, &size, error, sizeof error);
    if (!data) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return false;
    }
    if (hf_tool_input(path) != 0) {
        free(data);
        return false;
    }
    bool contain = hf_tool_contains(t);
    hf_result r;
    bool failed = hf_tool_run(t, data, size, contain, &r) && r.outcome != HF_OK;
    hf_goal goal;
    if (failed) hf_goal_from_result(&goal, &r);
    hf_minimize_options mo = {.max_runs = 50000, .max_seconds = 60, .progress = NULL, .contain = contain};
    hf_minimized m;
    char min_path[PATH_MAX + 8];
    snprintf(min_path, sizeof min_path, "%s.min", path);
    hf_minimize_status minimized = failed ? hf_minimize(t, &goal, data, size, &mo, &m) : HF_NOT_REPRODUCED;
    bool written = minimized == HF_MINIMIZED && hf_write_file(min_path, m.bytes, m.size, error, sizeof error) == 0;
    if (minimized == HF_MINIMIZED && !written) fprintf(stderr, "heisenfuzz: %s\n", error);
    if (written) hf_tool_output(min_path);
    if (written) {
        printf("heisenfuzz: minimized from %u deviations to %zu (%s, %llu runs); replaying it:\n\n",
               m.original_deviations, m.count, min_path, (unsigned long long)m.runs);
        hf_tool_replay(t, m.bytes, m.size, contain, true);
    } else {
        printf("heisenfuzz: replaying it:\n\n");
        hf_tool_replay(t, data, size, contain, true);
    }
    if (minimized == HF_MINIMIZED) hf_minimized_free(&m);
    free(data);
    return written;
}

/* The chart of the merged log, written quietly: the status line has
 * already said what its figures say.  Returns whether it was drawn. */
static bool draw_chart(const campaign *c) {
    const char *paths[] = {c->log};
    hf_campaign log;
    char error[512];
    if (hf_campaign_read(&log, paths, 1, true, error, sizeof error) != 0) return false;
    bool drawn = hf_chart_write_file(c->chart, &log, HF_CHART_LOGICAL, error, sizeof error) == 0;
    if (!drawn) fprintf(stderr, "heisenfuzz: %s\n", error);
    hf_campaign_free(&log);
    return drawn;
}

/* ---- The command line -------------------------------------------------------- */

/* In engine's order. */
static const char *const engine_names[] = {"libfuzzer", "afl", NULL};

typedef struct fuzz_options {
    int engine;              /* an engine */
    uint64_t jobs;
    uint64_t time_s;
    bool keep_going;
    const char *seed;        /* handed to the engine as it is */
    const char *dir;
    const char *log;         /* NULL: DIR/TARGET.log */
    bool verbose;
    bool afl_env;
} fuzz_options;

static const fuzz_options fuzz_defaults = {.engine = ENGINE_LIBFUZZER, .jobs = 1, .time_s = 600, .dir = "hf-work"};

static const hf_option fuzz_option_table[] = {
    {.name = "engine", HF_WORD(fuzz_options, engine, engine_names),
     .help = "fuzz with TARGET's libFuzzer binary or its AFL++ binary"},
    {.name = "jobs", HF_UINT(fuzz_options, jobs, 1, MAX_JOBS), .value_name = "N",
     .help = "N processes: libFuzzer's -fork=N, or an AFL++ main and N-1 secondaries"},
    {.name = "time", HF_UINT(fuzz_options, time_s, 1, 365L * 24 * 3600), .value_name = "S",
     .help = "stop after S seconds"},
    {.name = "max-time", HF_UINT(fuzz_options, time_s, 1, 365L * 24 * 3600), .value_name = "S",
     .help = "the same as --time"},
    {.name = "keep-going", HF_FLAG(fuzz_options, keep_going), .help = "go on after a failure, until the time is up"},
    {.name = "seed", HF_STRING(fuzz_options, seed), .value_name = "N", .help = "the engine's random seed"},
    {.name = "dir", HF_STRING(fuzz_options, dir), .value_name = "DIR",
     .help = "holds the corpus, one crash-TARGET-K per distinct failure, the discovery log and its chart"},
    {.name = "log", HF_STRING(fuzz_options, log), .value_name = "FILE",
     .help = "the discovery log every process appends to (default DIR/TARGET.log)"},
    {.name = "verbose", .short_name = 'v', HF_FLAG(fuzz_options, verbose),
     .help = "show the engines' own output here as it comes, instead of in DIR/TARGET.engine.out"},
    {.name = "afl-env", HF_FLAG(fuzz_options, afl_env),
     .help = "print the AFL_* variables an AFL++ campaign on TARGET sets, NAME=value a line, and exit: "
             "to run afl-fuzz as this command does"},
};

const hf_command_spec hf_fuzz_spec = {
    .name = "fuzz",
    .operands = "TARGET [--\1ENGINE-FLAGS]",
    .summary = "fuzz TARGET with its libFuzzer or AFL++ binary, with its dictionary and seeds, until a run fails "
               "(every run with --keep-going) or the time is up; then replay the failure; exit 1 if one did.  "
               "DIR holds the corpus, one crash-TARGET-K per distinct failure, the discovery log every process "
               "appends to (TARGET.log, or --log FILE), its chart (TARGET.svg) and the engines' own output "
               "(TARGET.engine.out; --verbose shows it instead).  ^C stops the engines and leaves every log "
               "complete",
    .options_first = true,   /* after TARGET come the engine's flags */
    HF_OPTION_TABLE(fuzz_option_table),
    .defaults = &fuzz_defaults,
    .size = sizeof(fuzz_options),
};

int hf_cmd_fuzz(int argc, char **argv) {
    fuzz_options o;
    char **operands;
    int count;
    int parsed = hf_options_parse(&hf_fuzz_spec, argc, argv, &o, &operands, &count);
    if (parsed != HF_PARSED) return parsed;
    if (count < 1) return hf_command_usage_error(hf_fuzz_spec.name, "fuzz needs a target");
    campaign *c = calloc(1, sizeof *c);
    if (!c) return 2;
    int status = 2;
    const char *dir = o.dir, *log = o.log;
    c->engine = (engine)o.engine;
    c->keep_going = o.keep_going;
    c->seed = o.seed;
    c->verbose = o.verbose;
    c->target = hf_tool_target(operands[0]);
    if (!c->target) goto done;
    int i = 1;
    if (i < count && !strcmp(operands[i], "--")) i++;
    c->extra_argc = count - i;
    c->extra_argv = operands + i;
    c->jobs = (int)o.jobs;
    c->time_s = (long)o.time_s;

    char bin_dir[PATH_MAX];
    if (hf_exe_dir(bin_dir, sizeof bin_dir) != 0) {
        fprintf(stderr, "heisenfuzz: cannot find the directory of this program\n");
        goto done;
    }
    if (find_fuzzer(c, bin_dir) != 0) goto done;
    snprintf(c->name, sizeof c->name, "%s", hf_tool_target_name(c->target));
    find_dict_and_seeds(c, bin_dir);
    if (o.afl_env) {
        hf_env_var vars[HF_AFL_ENV_MAX];
        size_t nvars = hf_afl_environment(c->mutator, vars);
        for (size_t v = 0; v < nvars; v++) printf("%s=%s\n", vars[v].name, vars[v].value);
        status = 0;
        goto done;
    }
    const char *name = c->name;
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    if (c->engine == ENGINE_AFL) snprintf(c->corpus, sizeof c->corpus, "%s/afl-%s", dir, name);
    else snprintf(c->corpus, sizeof c->corpus, "%s/%s", dir, name);
    snprintf(c->staging, sizeof c->staging, "%s/.%s-artifacts", dir, name);
    if (log) snprintf(c->log, sizeof c->log, "%s", log);
    else snprintf(c->log, sizeof c->log, "%s/%s.log", dir, name);
    snprintf(c->chart, sizeof c->chart, "%s/%s.svg", dir, name);
    snprintf(c->engine_out, sizeof c->engine_out, "%s/%s.engine.out", dir, name);
    char dir_error[PATH_MAX + 128];
    if (hf_make_dir(c->corpus, HF_DIR_AND_PARENTS, dir_error, sizeof dir_error) != 0 ||
        hf_make_dir(c->staging, HF_DIR_AND_PARENTS, dir_error, sizeof dir_error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", dir_error);
        goto done;
    }
    /* The fuzzers open the log at their first run; a wrong path should
     * stop us here, not them there. */
    int fd = open(c->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "heisenfuzz: cannot open the discovery log %s: %s\n", c->log, strerror(errno));
        goto done;
    }
    close(fd);
    setenv("HEISENFUZZ_LOG", c->log, 1);

    /* The campaign's one status line speaks for every engine; with
     * --verbose one libFuzzer process prints its own progress instead, as
     * it always did, and with several engines both show, each a line. */
    status_mode mode = !c->verbose && isatty(STDOUT_FILENO) ? STATUS_TERMINAL
                       : c->verbose && c->engine == ENGINE_LIBFUZZER && c->jobs == 1 ? STATUS_NONE
                                                                                     : STATUS_LINES;
    const char *engine_name = c->engine == ENGINE_AFL ? "AFL++" : "libFuzzer";
    printf("heisenfuzz: fuzzing %s with %s (%d %s, corpus %s, at most %ld s%s)\n", name, engine_name, c->jobs,
           c->engine == ENGINE_AFL ? (c->jobs == 1 ? "instance" : "instances: a main and secondaries")
                                   : (c->jobs == 1 ? "process" : "workers (-fork)"),
           c->corpus, c->time_s, c->keep_going ? ", keeps going after a crash" : "");
    if (!c->verbose) printf("heisenfuzz: engine output: %s (--verbose shows it here)\n", c->engine_out);
    if (c->engine == ENGINE_AFL && c->mutator[0]) printf("heisenfuzz: AFL++ custom mutator %s\n", c->mutator);
    fflush(stdout);

    struct sigaction ours = {0}, before;
    ours.sa_handler = on_interrupt;
    sigemptyset(&ours.sa_mask);
    sigaction(SIGINT, &ours, &before);
    int started = c->engine == ENGINE_AFL ? start_afl(c) : start_libfuzzer(c);
    if (started == 0) watch(c, mode);
    else signal_all(c, SIGINT), watch(c, STATUS_NONE);
    sigaction(SIGINT, &before, NULL);

    kept_crash *kept = calloc(MAX_CRASHES, sizeof *kept);
    size_t crashes = kept ? sort_crashes(c, kept, MAX_CRASHES) : 0;
    rmdir(c->staging);

    struct stat st;
    bool charted = stat(c->log, &st) == 0 && st.st_size > 0 && draw_chart(c);

    bool minimized = false;
    if (crashes == 0) {
        printf("heisenfuzz: no failure found in %s%s\n", name, interrupted ? " (interrupted)" : "");
        status = started == 0 ? 0 : 2;   /* ^C without a failure is no error */
    } else {
        printf("\nheisenfuzz: %zu distinct failure%s:\n", crashes, crashes == 1 ? "" : "s");
        for (size_t k = 0; k < crashes; k++) {
            char what[600];
            hf_goal_describe(&kept[k].goal, what, sizeof what);
            printf("  %s  %s\n", kept[k].path, what);
        }
        printf("heisenfuzz: %s found a failing schedule: %s\n", engine_name, kept[0].path);
        minimized = show_crash(c->target, kept[0].path);
        status = 1;
    }

    /* The files last, where the reader is after a long timeline. */
    enum { MAX_ROWS = 10, LISTED = 3 };
    char min_path[PATH_MAX + 104], again[2 * PATH_MAX + 256], output_of[64];
    const char *rows[MAX_ROWS][2];
    int n = 0;
    for (size_t k = 0; k < crashes && k < LISTED; k++) {
        if (k > 0) {
            rows[n][0] = kept[k].path, rows[n++][1] = "another failure's schedule";
            continue;
        }
        /* The target as the user named it: a fuzzer binary's path too. */
        snprintf(again, sizeof again, "the failing schedule; again: heisenfuzz replay %s %s", operands[0],
                 kept[0].path);
        rows[n][0] = kept[0].path, rows[n++][1] = again;
        if (minimized) {
            snprintf(min_path, sizeof min_path, "%s.min", kept[0].path);
            rows[n][0] = min_path, rows[n++][1] = "the same failure, minimized: the timeline above";
        }
    }
    if (crashes > LISTED) rows[n][0] = "...", rows[n++][1] = "more failures' schedules (all listed above)";
    rows[n][0] = c->corpus, rows[n++][1] = c->engine == ENGINE_AFL ? "AFL++'s queues" : "the corpus";
    rows[n][0] = c->log, rows[n++][1] = "the discovery log (heisenfuzz report makes a page of it)";
    if (charted) rows[n][0] = c->chart, rows[n++][1] = "its chart: behaviours found over time, the plateau";
    if (!c->verbose) {
        snprintf(output_of, sizeof output_of, "%s's own output", engine_name);
        rows[n][0] = c->engine_out, rows[n++][1] = output_of;
    }
    int width = 0;
    for (int r = 0; r < n; r++)
        if ((int)strlen(rows[r][0]) > width) width = (int)strlen(rows[r][0]);
    printf("\nheisenfuzz: files of this campaign:\n");
    for (int r = 0; r < n; r++) printf("  %-*s  %s\n", width, rows[r][0], rows[r][1]);
    fflush(stdout);
    free(kept);
done:
    free(c);
    return status;
}
