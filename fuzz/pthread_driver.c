/*
 * pthread_driver.c — what a fuzzer built by `heisenfuzz build-pthread` does
 * besides fuzzing: it replays and minimizes its own inputs, since the
 * program it holds is in no target table of the tool.
 *
 *   PROG_fuzzer --replay FILE...            timeline, verdict, trace hash
 *   PROG_fuzzer --minimize FILE -o OUT      the fewest decisions that still fail
 *   PROG_fuzzer --explore [OPTIONS]         `heisenfuzz explore`'s baselines
 *                                           (uniform random, PCT) on the program
 *   PROG_fuzzer --bench-plateau [OPTIONS]   `heisenfuzz bench --plateau` on the
 *                                           program, its campaigns runs of this binary
 *   PROG_fuzzer MODE --help                 that mode's usage (exit 0)
 *
 * These are read at start-up (hf_fuzzer_start, called by the harness's
 * LLVMFuzzerInitialize before libFuzzer parses its flags), and the process
 * exits when done: libFuzzer never starts.  The tool's own replay and
 * minimize (--emit-test included) run inside this binary too
 * (hf_fuzzer_tool_start), with the program as their target.  Any
 * other command line goes to the engine.  Replays and the minimizer's
 * runs go in a child process each (contain.h), so that a run that crashes
 * (a signal, or a sanitizer's report) prints its timeline up to the crash
 * and is a failure like any other.  The exit status follows the tool's:
 * 0 ok, 1 a run failed, 2 bad usage or an unreadable file.
 */
#include "contain.h"
#include "files.h"
#include "minimize.h"
#include "run.h"
#include "targets.h"
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const hf_target *hf_fuzzer_start(int *argc, char ***argv);

static int usage(const char *prog, const char *problem) {
    fprintf(stderr, "%s: %s\nusage: %s --replay FILE...\n       %s --minimize FILE -o OUT\n"
                    "       %s --explore [--strategy random|swarm|pct|generators|pos|surw|bytes|dfs] [--runs N] [--seed S] [--depth D] [--bound K] [--until-fail]\n"
                    "       %s --bench-plateau [--campaigns N] [--runs N] [--max-bound K]\n"
                    "       %s [libFuzzer flags] [CORPUS...]\n", prog, problem, prog, prog, prog, prog, prog);
    return 2;
}

/* ---- --help after a mode ---------------------------------------------------- */

static bool asks_help(int argc, char **argv) {
    for (int i = 0; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
    return false;
}

/* PROG MODE --help: the mode's usage on stdout, exit status 0.  --explore and
 * --bench-plateau are the tool's commands on this program, so their help is
 * the tool's table with this program's command line and no TARGET. */
static int mode_help(const char *prog, const char *mode) {
    char command[4096];
    snprintf(command, sizeof command, "%s %s", prog, mode);
    if (!strcmp(mode, "--replay")) {
        printf("usage: %s FILE...\n\n  ", command);
        hf_options_print_wrapped(stdout, "run each file as a schedule of the program: its timeline (up to a "
                                 "crash, should it crash), verdict and trace hash; exit 1 if a run failed", 2, 2);
    } else if (!strcmp(mode, "--minimize")) {
        printf("usage: %s FILE -o OUT\n\n  ", command);
        hf_options_print_wrapped(stdout, "shrink the failing schedule FILE to the fewest decisions that still "
                                 "fail the same way, write it to OUT and print its timeline", 2, 2);
    } else {
        hf_options_print_help_as(stdout, !strcmp(mode, "--explore") ? &hf_explore_spec : &hf_bench_plateau_spec,
                                 command, NULL);
        printf("\nThe target is the program this fuzzer holds.\n");
    }
    return 0;
}

static int explore(int argc, char **argv) {
    char *args[64];
    int n = 0;
    args[n++] = "explore";
    args[n++] = (char *)hf_pthread_program_target.name;
    for (int i = 0; i < argc && n < 63; i++) args[n++] = argv[i];
    args[n] = NULL;
    return hf_cmd_explore(n, args);
}

static int bench_plateau(int argc, char **argv) {
    char *args[64];
    int n = 0;
    args[n++] = "--plateau";
    for (int i = 0; i < argc && n < 62; i++) args[n++] = argv[i];
    args[n++] = (char *)hf_pthread_program_target.name;
    args[n] = NULL;
    return hf_bench_plateau(n, args);
}

static uint8_t *read_input(const char *path, size_t *size) {
    char error[512];
    uint8_t *data = hf_read_file(path, size, error, sizeof error);
    if (!data) fprintf(stderr, "heisenfuzz: %s\n", error);
    return data;
}

static int replay(int count, char **files) {
    const hf_target *t = &hf_pthread_program_target;
    int status = 0;
    for (int f = 0; f < count; f++) {
        size_t size;
        uint8_t *data = read_input(files[f], &size);
        if (!data) return 2;
        if (count > 1) printf("== %s\n", files[f]);
        if (hf_tool_replay(t, data, size, true, true)) status = 1;
        free(data);
    }
    return status;
}

static int minimize(const char *in, const char *out) {
    const hf_target *t = &hf_pthread_program_target;
    size_t size;
    uint8_t *data = read_input(in, &size);
    if (!data) return 2;
    hf_result r;
    if (!hf_tool_run(t, data, size, true, &r) || r.outcome == HF_OK) {
        fprintf(stderr, "heisenfuzz: %s: the run does not fail, there is nothing to minimize\n", in);
        free(data);
        return 2;
    }
    hf_goal goal;
    hf_goal_from_result(&goal, &r);
    hf_minimize_options options = {.max_runs = 100000, .max_seconds = 300, .progress = NULL, .contain = true};
    hf_minimized m;
    hf_minimize_status status = hf_minimize(t, &goal, data, size, &options, &m);
    free(data);
    if (status != HF_MINIMIZED) {
        fprintf(stderr, "heisenfuzz: %s: the failure did not reproduce\n", in);
        return 1;
    }
    char error[512];
    if (hf_write_file(out, m.bytes, m.size, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        hf_minimized_free(&m);
        return 2;
    }
    printf("minimized %s: %u deviations -> %zu (%zu bytes, %llu runs, %.1f s)%s -> %s\n", in,
           m.original_deviations, m.count, m.size, (unsigned long long)m.runs, m.seconds,
           m.one_minimal ? ", 1-minimal" : "", out);
    hf_tool_replay(t, m.bytes, m.size, true, true);
    hf_minimized_free(&m);
    return 1;
}

/* The tool's commands inside this fuzzer (HEISENFUZZ_TOOL: `heisenfuzz
 * replay|minimize ./prog_fuzzer ...`) find the program as the only target,
 * and a replay that crashes prints its timeline, as --replay does. */
void hf_fuzzer_tool_start(void);
void hf_fuzzer_tool_start(void) {
    hf_target_add(&hf_pthread_program_target);
    hf_on_crash(hf_tool_print_crash);
}

const hf_target *hf_fuzzer_start(int *argc, char ***argv) {
    hf_target_add(&hf_pthread_program_target);   /* the tool's commands find it by name */
    if (*argc < 2) return &hf_pthread_program_target;
    char **args = *argv;
    const char *prog = args[0];
    static const char *const modes[] = {"--replay", "--minimize", "--explore", "--bench-plateau"};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
        if (!strcmp(args[1], modes[m]) && asks_help(*argc - 2, args + 2)) exit(mode_help(prog, modes[m]));
    if (!strcmp(args[1], "--replay")) {
        if (*argc < 3) exit(usage(prog, "--replay needs at least one file"));
        exit(replay(*argc - 2, args + 2));
    }
    if (!strcmp(args[1], "--minimize")) {
        if (*argc != 5 || strcmp(args[3], "-o")) exit(usage(prog, "--minimize needs FILE -o OUT"));
        exit(minimize(args[2], args[4]));
    }
    if (!strcmp(args[1], "--explore")) exit(explore(*argc - 2, args + 2));
    if (!strcmp(args[1], "--bench-plateau")) exit(bench_plateau(*argc - 2, args + 2));
    if (!strcmp(args[1], "--help") || !strcmp(args[1], "-h")) {
        usage(prog, "a fuzzer of schedules for one pthread program");
        fprintf(stderr, "  HEISENFUZZ_PROGRAM_OUTPUT=1  show the program's own stdout/stderr\n"
                        "  HEISENFUZZ_TRACE_HASH=1      print every run's trace hash\n"
                        "  libFuzzer's own flags: %s -help=1\n", prog);
        exit(0);
    }
    return &hf_pthread_program_target;
}
