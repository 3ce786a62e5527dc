/*
 * heisenfuzz.c — the command-line tool: list targets, replay inputs as
 * readable timelines, fuzz a target until its bug, minimize a failing
 * input into a regression test, benchmark the runtime, build a pthread
 * program into a fuzzer.
 *
 * Exit status: 0 ok; 1 a run failed (a bug was found or replayed);
 * 2 the command itself was wrong (usage, unknown target, unreadable file).
 */
#define _DEFAULT_SOURCE   /* readlink, mkdir */
#include "files.h"
#include "run.h"
#include "targets.h"
#include "tool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- list ---------------------------------------------------------------- */

static int cmd_list(int argc, char **argv) {
    (void)argv;
    if (argc > 1) return hf_usage_error("list takes no arguments");
    for (const hf_target *const *t = hf_targets; *t; t++)
        printf("%-26s %s\n", (*t)->name, (*t)->summary);
    return 0;
}

/* ---- replay -------------------------------------------------------------- */

static int cmd_replay(int argc, char **argv) {
    bool quiet = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) quiet = true;
        else return hf_usage_error("replay: unknown option '%s'", argv[i]);
    }
    if (argc - i < 2) return hf_usage_error("replay needs a target and at least one file");
    const hf_target *t = hf_tool_target(argv[i]);
    if (!t) return 2;
    int status = 0;
    for (int f = i + 1; f < argc; f++) {
        char error[512];
        size_t size;
        uint8_t *data = hf_read_file(argv[f], &size, error, sizeof error);
        if (!data) {
            fprintf(stderr, "heisenfuzz: %s\n", error);
            return 2;
        }
        hf_result r;
        hf_run(t, data, size, &r);
        free(data);
        if (argc - i > 2) printf("== %s\n", argv[f]);
        hf_tool_print_run(t, size, &r, !quiet);
        if (r.outcome != HF_OK) status = 1;
    }
    return status;
}

/* ---- fuzz: run the target's libFuzzer binary until it finds a bug --------- */

static int make_dirs(const char *path) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int cmd_fuzz(int argc, char **argv) {
    const char *dir = NULL, *seed = NULL, *max_time = "600", *log = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
        if (i + 1 >= argc) return hf_usage_error("fuzz: %s needs a value", argv[i]);
        if (!strcmp(argv[i], "--dir")) dir = argv[++i];
        else if (!strcmp(argv[i], "--seed")) seed = argv[++i];
        else if (!strcmp(argv[i], "--max-time")) max_time = argv[++i];
        else if (!strcmp(argv[i], "--log")) log = argv[++i];
        else return hf_usage_error("fuzz: unknown option '%s'", argv[i]);
    }
    if (i >= argc) return hf_usage_error("fuzz needs a target");
    const hf_target *t = hf_tool_target(argv[i++]);
    if (!t) return 2;
    if (i < argc && !strcmp(argv[i], "--")) i++;

    char bin_dir[PATH_MAX], fuzzer[PATH_MAX + 64], work[PATH_MAX], corpus[PATH_MAX + 16];
    if (hf_exe_dir(bin_dir, sizeof bin_dir) != 0) {
        fprintf(stderr, "heisenfuzz: cannot find the directory of this program\n");
        return 2;
    }
    snprintf(fuzzer, sizeof fuzzer, "%s/%s_fuzzer", bin_dir, t->name);
    if (access(fuzzer, X_OK) != 0) {
        fprintf(stderr, "heisenfuzz: no fuzzer binary %s (build it with ./build.sh)\n", fuzzer);
        return 2;
    }
    snprintf(work, sizeof work, "%s", dir ? dir : "hf-work");
    snprintf(corpus, sizeof corpus, "%s/%s", work, t->name);
    if (make_dirs(corpus) != 0) {
        fprintf(stderr, "heisenfuzz: cannot create %s: %s\n", corpus, strerror(errno));
        return 2;
    }
    /* A fresh name for this campaign's crash, so no earlier one is lost. */
    char crash[PATH_MAX + 64];
    for (int n = 1;; n++) {
        snprintf(crash, sizeof crash, "%s/crash-%s-%d", work, t->name, n);
        if (access(crash, F_OK) != 0) break;
    }

    /* The target's dictionary and seeds, where the source tree has them
     * (the tool lives in out/, beside dict/ and targets/). */
    char base[PATH_MAX], dict[PATH_MAX + 96], seeds[PATH_MAX + 96];
    hf_target_family(t, base, sizeof base);
    snprintf(dict, sizeof dict, "-dict=%s/../dict/%s.dict", bin_dir, base);
    snprintf(seeds, sizeof seeds, "%s/../targets/%s/seeds", bin_dir, base);

    char exact[PATH_MAX + 96], seed_arg[64], time_arg[64];
    snprintf(exact, sizeof exact, "-exact_artifact_path=%s", crash);
    snprintf(seed_arg, sizeof seed_arg, "-seed=%s", seed ? seed : "0");
    snprintf(time_arg, sizeof time_arg, "-max_total_time=%s", max_time);
    char *args[64];
    int n = 0;
    args[n++] = fuzzer;
    args[n++] = exact;
    args[n++] = seed_arg;
    args[n++] = time_arg;
    args[n++] = "-print_final_stats=1";
    if (access(dict + strlen("-dict="), R_OK) == 0) args[n++] = dict;
    for (; i < argc && n < 60; i++) args[n++] = argv[i];
    args[n++] = corpus;   /* new inputs go to the first corpus directory */
    if (access(seeds, R_OK) == 0) args[n++] = seeds;
    args[n] = NULL;

    if (log) {
        /* The fuzzer opens the log at its first run; a wrong path should
         * stop us here, not it there. */
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            fprintf(stderr, "heisenfuzz: cannot open the discovery log %s: %s\n", log, strerror(errno));
            return 2;
        }
        close(fd);
        setenv("HEISENFUZZ_LOG", log, 1);
    }

    printf("heisenfuzz: fuzzing %s with libFuzzer (corpus %s, at most %s s)\n", t->name, corpus, max_time);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("heisenfuzz: fork"); return 2; }
    if (pid == 0) {
        execv(fuzzer, args);
        fprintf(stderr, "heisenfuzz: cannot run %s: %s\n", fuzzer, strerror(errno));
        _exit(127);
    }
    int wstatus;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {}
    if (log) printf("heisenfuzz: discovery log %s (draw it: heisenfuzz chart %s -o chart.svg)\n", log, log);
    if (access(crash, F_OK) != 0) {
        printf("heisenfuzz: no failure found in %s\n", t->name);
        return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? 0 : 2;
    }
    printf("\nheisenfuzz: libFuzzer found a failing schedule: %s\nheisenfuzz: replaying it:\n\n", crash);
    char *replay_args[] = {"replay", (char *)t->name, crash, NULL};
    return cmd_replay(3, replay_args);
}

/* ---- help and dispatch ---------------------------------------------------- */

static int cmd_help(int argc, char **argv);

static const struct command {
    const char *name;
    const char *usage;
    const char *help;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"list", "list", "the targets, one per line", cmd_list},
    {"replay", "replay [-q] TARGET FILE...",
     "run each input file without a fuzzer: timeline, verdict, trace-hash; exit 1 if a run failed",
     cmd_replay},
    {"fuzz", "fuzz [--dir DIR] [--seed N] [--max-time S] [--log FILE] TARGET [-- LIBFUZZER-FLAGS]",
     "fuzz TARGET with its libFuzzer binary until a run fails, then replay the failure; exit 1 if one did; "
     "--log appends a discovery log (HEISENFUZZ_LOG) for chart",
     cmd_fuzz},
    {"minimize",
     "minimize [-o MIN] [--expect MESSAGE] [--max-runs N] [--max-time S] [-q]\n"
     "               [--emit-test [--test-name NAME] [--test-dir DIR]] TARGET CRASH",
     "shrink CRASH to the decisions that make it fail the same way (1-minimal), write it to MIN\n"
     "      (default CRASH.min) with its goal in MIN.goal, and print its timeline.  The goal is\n"
     "      --expect's message, else CRASH.goal, else CRASH's own failure.  --emit-test also writes\n"
     "      DIR/NAME.c (default tests/regress/TARGET_HASH.c), a C test asserting the failure in\n"
     "      TARGET and its absence in the fixed twin (TARGET minus _buggy).  Defaults: --max-runs\n"
     "      200000, --max-time 600.  Exit 2 when CRASH does not fail or cannot be minimized;\n"
     "      exit 1 when the fixed twin fails the minimized schedule too (no test written)",
     hf_cmd_minimize},
    {"explore", "explore TARGET [--strategy random|swarm|pct|bytes] [--runs N] [--seed S] [--depth D] [--max-len L] [--until-fail] [--hashes] [-o DIR]",
     "run TARGET over schedules drawn by a baseline strategy and count failures (--hashes: print each run's trace hash; -o: save the first failing input); exit 1 if any run failed",
     hf_cmd_explore},
    {"bench", "bench [--quick] | bench --search [--seeds N] [--max-runs N] [--only S,...] [TARGET...] | bench --species [--runs N] [TARGET...]",
     "time fiber switches and scheduling decisions against swapcontext and a bare switch, and runs per second; "
     "--search: executions to each buggy target's first failure (median, seeds that found it, wall seconds) for "
     "random, swarm, pct, lf-bytes (libFuzzer's byte mutator, the control), lf-cov (the full search without "
     "behaviour features), lf-search (the full search) and afl-search, with the goals checked (default 10 seeds, "
     "max 100000); "
     "--species: how three species (trace hash, run signature, behaviour feature) saturate",
     hf_cmd_bench},
    {"chart", "chart [-o FILE.svg] [--x logical|executions|wall] [--skip-bad] LOG...",
     "draw discovery logs (HEISENFUZZ_LOG, fuzz --log) as an SVG: behaviours, Good-Turing, the plateau, crashes",
     hf_cmd_chart},
    {"build-pthread", "build-pthread PROG.c... [-o PATH] [--afl] [-v] [-- CFLAGS]",
     "build an unmodified pthread program with a main into a fuzzer of its schedules at PATH\n"
     "      (default PROG_fuzzer): threads run as tasks, every shared memory access and pthread call is a\n"
     "      preemption point, a failed assert, abort(), exit status, crash or deadlock is a crash.\n"
     "      PATH --replay FILE... prints a run's timeline; PATH --minimize FILE -o OUT shrinks a crash.\n"
     "      --afl builds for AFL++; -v shows the commands; CFLAGS go to clang",
     hf_cmd_build_pthread},
    {"help", "help", "this text", cmd_help},
};

static int cmd_help(int argc, char **argv) {
    (void)argc;
    (void)argv;
    printf("heisenfuzz — a coverage-guided fuzzer for schedules\n\n"
           "usage: heisenfuzz COMMAND [ARGS]\n\n");
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
        printf("  %s\n      %s\n", commands[c].usage, commands[c].help);
    printf("\nexit status: 0 ok, 1 a run failed, 2 usage or input error\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return hf_usage_error("no command given");
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) name = "help";
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        if (strcmp(commands[c].name, name)) continue;
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
            printf("usage: heisenfuzz %s\n  %s\n", commands[c].usage, commands[c].help);
            return 0;
        }
        int status = commands[c].run(argc - 1, argv + 1);
        hf_runtime_free();
        return status;
    }
    return hf_usage_error("unknown command '%s'", argv[1]);
}
