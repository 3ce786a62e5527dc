/*
 * heisenfuzz.c — the command-line tool: list targets, replay inputs as
 * readable timelines, fuzz a target until its bug (cmd_fuzz.c), minimize a failing
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
    if (argc > 2) return hf_usage_error("list takes at most one fuzzer binary");
    if (argc == 2 && !hf_tool_in_fuzzer()) {
        if (!hf_tool_names_fuzzer(argv[1]))
            return hf_usage_error("list: '%s' is not the path of a fuzzer binary (write ./%s)", argv[1], argv[1]);
        return hf_tool_run_in_fuzzer(argv[1]);
    }
    for (const hf_target *const *t = hf_target_list(); *t; t++)
        printf("%-26s %s\n", (*t)->name, (*t)->summary);
    const hf_target *own = hf_target_added();   /* a pthread program's fuzzer holds its program */
    if (own) printf("%-26s %s\n", own->name, own->summary);
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

/* ---- help and dispatch ---------------------------------------------------- */

static int cmd_help(int argc, char **argv);

static const struct command {
    const char *name;
    const char *usage;
    const char *help;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"list", "list [FUZZER]", "the targets, one per line (those linked into this program, or into FUZZER)", cmd_list},
    {"replay", "replay [-q] TARGET FILE...",
     "run each input file without a fuzzer: timeline, verdict, trace-hash; exit 1 if a run failed.\n"
     "      TARGET may be a fuzzer binary (a path: ./prog_fuzzer, one build-pthread wrote included)",
     cmd_replay},
    {"fuzz", "fuzz [--engine libfuzzer|afl] [--jobs N] [--time S] [--keep-going] [--seed N] [--dir DIR]\n"
             "           [--log FILE] TARGET [-- ENGINE-FLAGS]",
     "fuzz TARGET with its libFuzzer binary (--jobs N: -fork=N) or AFL++ binary (a main and N-1\n"
     "      secondaries), with its dictionary and seeds, until a run fails (every run with --keep-going)\n"
     "      or S seconds pass (default 600; --max-time is the same); then replay the failure; exit 1 if\n"
     "      one did.  DIR (default hf-work) holds the corpus, one crash-TARGET-K per distinct failure,\n"
     "      the discovery log every process appends to (TARGET.log, or --log FILE) and its chart\n"
     "      (TARGET.svg).  ^C stops the engines and leaves every log complete",
     hf_cmd_fuzz},
    {"minimize",
     "minimize [-o MIN] [--expect MESSAGE] [--max-runs N] [--max-time S] [-q]\n"
     "               [--emit-test [--test-name NAME] [--test-dir DIR]] TARGET CRASH",
     "shrink CRASH to the decisions that make it fail the same way (1-minimal), write it to MIN\n"
     "      (default CRASH.min) with its goal in MIN.goal, and print its timeline.  The goal is\n"
     "      --expect's message, else CRASH.goal, else CRASH's own failure.  --emit-test also writes\n"
     "      DIR/NAME.c (default tests/regress/TARGET_HASH.c), a C test asserting the failure in\n"
     "      TARGET and its absence in the fixed twin (TARGET minus _buggy).  Defaults: --max-runs\n"
     "      200000, --max-time 600.  Exit 2 when CRASH does not fail or cannot be minimized;\n"
     "      exit 1 when the fixed twin fails the minimized schedule too (no test written).\n"
     "      TARGET may be a pthread program's fuzzer (./prog_fuzzer, from build-pthread): it has no\n"
     "      twin, so its test (default DIR is the current directory, NAME the fuzzer's name less\n"
     "      _fuzzer, then the hash) checks the program alone: built with the program's sources by\n"
     "      build-pthread --test NAME.c PROG.c..., it asserts that the minimized schedule still fails\n"
     "      with the same outcome and message, taking the same deviations; built against the fixed\n"
     "      sources with -- -DHF_PROGRAM_FIXED, that the same schedule passes",
     hf_cmd_minimize},
    {"explore", "explore TARGET [--strategy random|swarm|pct|generators|bytes|dfs] [--runs N] [--seed S] [--depth D] [--max-len L] [--bound K] [--bound-kind deviations|preemptions] [--values N] [--until-fail] [--hashes] [-o DIR]",
     "run TARGET over schedules drawn by a baseline strategy and count failures (--hashes: print each run's trace hash; -o: save the first failing input); exit 1 if any run failed.  "
     "--strategy dfs enumerates every run with at most K (default 2) deviations from the default, or preemptions, depth-first, "
     "wide decisions (times, 64-bit values) at up to N (default 8) values each: default, lo, hi, log-spaced; it prints the distinct "
     "behaviour features seen and whether that bounded space was exhausted, running until it is unless --runs caps it",
     hf_cmd_explore},
    {"bench", "bench [--quick] | bench --search [--seeds N] [--max-runs N] [--only S,...] [TARGET...] | bench --species [--runs N] [TARGET...] | bench --plateau [--campaigns N] [--first-seed S] [--runs N] [--max-bound K] [--truth-runs N] [--values N] [--keep-logs DIR] [TARGET...]",
     "time fiber switches and scheduling decisions against swapcontext and a bare switch, and runs per second; "
     "--search: executions to each buggy target's first failure (median, seeds that found it, wall seconds) for "
     "random, swarm, pct, lf-bytes (libFuzzer's byte mutator, the control), lf-cov (the full search without "
     "behaviour features), lf-search (the full search) and afl-search, with the goals checked (default 10 seeds, "
     "max 100000); "
     "--species: how three species (trace hash, run signature, behaviour feature) saturate; "
     "--plateau: the plateau rule against ground truth: every behaviour feature within a bound of deviations "
     "(explore --strategy dfs, the bound raised until one more adds none), then N (default 20) seeded libFuzzer "
     "campaigns of --runs (default 200000) executions, and at the rule's first firing in each the share of the true "
     "features found (goal >= 95%), the executions to the last new feature and Chao1 against the true total "
     "(default target: counter)",
     hf_cmd_bench},
    {"chart", "chart [-o FILE.svg] [--x logical|executions|wall] [--skip-bad] LOG...",
     "draw discovery logs (HEISENFUZZ_LOG, fuzz --log) as an SVG: behaviours, Good-Turing, the plateau, crashes",
     hf_cmd_chart},
    {"report", "report [-o FILE.html] [--skip-bad] LOG...",
     "what a campaign never exercised, as one self-contained HTML page (default report.html): the\n"
     "      discovery chart and plateau, the target's properties (sometimes/reachable never held and\n"
     "      assertions never evaluated first), fault kinds never injected, behaviours by category\n"
     "      over time, the crashes and the files that replay them",
     hf_cmd_report},
    {"build-pthread", "build-pthread PROG.c... [-o PATH] [--afl | --test TEST.c] [-v] [-- CFLAGS]",
     "build an unmodified pthread program with a main into a fuzzer of its schedules at PATH\n"
     "      (default PROG_fuzzer): threads run as tasks, every shared memory access and pthread call is a\n"
     "      preemption point, a failed assert, abort(), exit status, crash or deadlock is a crash.\n"
     "      PATH --replay FILE... prints a run's timeline; PATH --minimize FILE -o OUT shrinks a crash.\n"
     "      --afl builds for AFL++; -v shows the commands; CFLAGS go to clang.  --test TEST.c builds,\n"
     "      instead of a fuzzer, the program with TEST.c's main and no engine (default PATH: TEST):\n"
     "      a regression test that minimize --emit-test wrote for this program",
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
    printf("\nTARGET is a target linked into this program (see list), or a fuzzer binary holding\n"
           "your own: ./FUZZER (its target) or ./FUZZER:NAME; the command then runs inside it.\n");
    printf("\nexit status: 0 ok, 1 a run failed, 2 usage or input error\n");
    return 0;
}

int hf_tool_main(int argc, char **argv) {
    hf_tool_remember_args(argc, argv);
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
