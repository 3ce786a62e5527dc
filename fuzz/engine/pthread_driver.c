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
 * Any of them, and the engine's own command line, may end in `-- [--stdin
 * FILE] ARGS...`: what the program's main gets (invocation.h), taken off the
 * command line before the engine parses it; without it, HEISENFUZZ_ARGS and
 * HEISENFUZZ_STDIN say.  A schedule file with a record beside it
 * (FILE.args) replays and minimizes with the record's arguments and stdin,
 * unless the command line gives some; the fuzzer writes the record beside
 * each crash libFuzzer keeps, and --minimize beside OUT, whenever the
 * program runs with arguments or stdin.
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
#define _GNU_SOURCE   /* sigaction */
#include "commands.h"
#include "contain.h"
#include "feedback.h"
#include "files.h"
#include "invocation.h"
#include "minimize.h"
#include "run.h"
#include "sha1.h"
#include "targets.h"
#include "tool.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const hf_target *hf_fuzzer_start(int *argc, char ***argv);

static int usage(const char *prog, const char *problem) {
    fprintf(stderr, "%s: %s\nusage: %s --replay FILE... [-- PROGRAM]\n       %s --minimize FILE -o OUT [-- PROGRAM]\n"
                    "       %s --explore [--strategy random|swarm|pct|generators|pos|surw|bytes|dfs] [--runs N] [--seed S] [--depth D] [--bound K] [--until-fail] [-- PROGRAM]\n"
                    "       %s --bench-plateau [--campaigns N] [--runs N] [--max-bound K] [-- PROGRAM]\n"
                    "       %s [libFuzzer flags] [CORPUS...] [-- PROGRAM]\n"
                    "PROGRAM: [--stdin FILE] [--file-faults] [--crashes] [--] ARGS...: main's arguments, the file on\n"
                    "         its stdin, whether writes and syncs of files may fail, and whether the machine may crash,\n"
                    "         losing unsynced writes and starting the program again (fault decisions)\n",
            prog, problem, prog, prog, prog, prog, prog);
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
        printf("usage: %s FILE... [-- [--stdin FILE] [--file-faults] [--crashes] ARGS...]\n\n  ", command);
        hf_options_print_wrapped(stdout, "run each file as a schedule of the program: its timeline (up to a "
                                 "crash, should it crash), verdict and trace hash; exit 1 if a run failed.  The "
                                 "program gets the arguments, stdin, file faults and crashes after --, else those "
                                 "recorded in FILE.args, else HEISENFUZZ_ARGS, HEISENFUZZ_STDIN, "
                                 "HEISENFUZZ_FILE_FAULTS and HEISENFUZZ_CRASHES", 2, 2);
    } else if (!strcmp(mode, "--minimize")) {
        printf("usage: %s FILE -o OUT [-- [--stdin FILE] [--file-faults] [--crashes] ARGS...]\n\n  ", command);
        hf_options_print_wrapped(stdout, "shrink the failing schedule FILE to the fewest decisions that still "
                                 "fail the same way, write it to OUT (and the program's arguments and stdin to "
                                 "OUT.args, when it has some) and print its timeline", 2, 2);
    } else {
        hf_options_print_help_as(stdout, !strcmp(mode, "--explore") ? &hf_explore_spec : &hf_bench_plateau_spec,
                                 command, NULL);
        printf("\nThe target is the program this fuzzer holds.\n");
    }
    return 0;
}

/* ---- The program's arguments and stdin (invocation.h) ------------------------ */

static hf_invocation base;              /* the command line's, or the environment's */
static bool base_from_command_line;     /* which wins over a file's record */
static hf_invocation current;           /* what the runs of the file being run get */

/* Before running a schedule file: its record, unless the command line said. */
static int use_input(const char *path) {
    current = base;
    if (!base_from_command_line) {
        hf_invocation recorded;
        int read = hf_invocation_read_record(path, &recorded);
        if (read == 2) return 2;
        if (read == 1) current = recorded;
    }
    return hf_invocation_apply(&current);
}

static void keep_beside(const char *path) { hf_invocation_write_record(path, &current); }

static bool current_given(void) { return hf_invocation_given(&current); }

/* ---- The record beside a crash libFuzzer keeps ---------------------------------- */

/* libFuzzer names the crash file after the input (crash-SHA1, in the
 * -artifact_prefix= folder, or -exact_artifact_path=) and writes it after
 * the run has failed, from its own handlers: of abort() (the harness's
 * verdict), of a fatal signal, of a sanitizer's report.  So the record is
 * written in front of each of those, by code that is safe in a signal
 * handler: the text is made at start-up, and only open, write and rename
 * are called. */
static const char *artifact_exact, *artifact_prefix = "";
static char record_text[64 * 1024];
static bool recording;
static const uint8_t *run_data;
static size_t run_size;
static volatile sig_atomic_t recorded;
static struct sigaction engine_action[NSIG];
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

static size_t append(char *to, size_t at, size_t size, const char *text) {
    while (*text && at + 1 < size) to[at++] = *text++;
    to[at] = '\0';
    return at;
}

static void write_crash_record(void) {
    if (!recording || recorded || !run_data) return;
    recorded = 1;
    char path[4096], tmp[4096 + 8], sha1[41];
    size_t n = 0;
    if (artifact_exact) {
        n = append(path, 0, sizeof path, artifact_exact);
    } else {
        hf_sha1_hex(run_data, run_size, sha1);
        n = append(path, 0, sizeof path, artifact_prefix);
        n = append(path, n, sizeof path, "crash-");
        n = append(path, n, sizeof path, sha1);
    }
    n = append(path, n, sizeof path, ".args");
    append(tmp, append(tmp, 0, sizeof tmp, path), sizeof tmp, ".tmp");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    size_t length = strlen(record_text), done = 0;
    while (done < length) {
        ssize_t w = write(fd, record_text + done, length - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    if (done == length) rename(tmp, path);
    else unlink(tmp);
}

/* In front of the engine's (or a sanitizer's) handler, which then runs. */
static void on_fatal_signal(int sig, siginfo_t *info, void *context) {
    write_crash_record();
    struct sigaction *engine = &engine_action[sig];
    if (engine->sa_flags & SA_SIGINFO) {
        engine->sa_sigaction(sig, info, context);
    } else if (engine->sa_handler == SIG_IGN) {
        return;
    } else if (engine->sa_handler == SIG_DFL) {
        signal(sig, SIG_DFL);
        raise(sig);
    } else {
        engine->sa_handler(sig);
    }
}

/* The sanitizers call it with the report's last line, before they end the
 * process (and libFuzzer's death callback writes the crash file); this one
 * prints that line as theirs does, then writes the record. */
void __sanitizer_report_error_summary(const char *summary);
void __sanitizer_report_error_summary(const char *summary) {
    if (summary) {
        ssize_t ignored = write(2, summary, strlen(summary));
        ignored = write(2, "\n", 1);
        (void)ignored;
    }
    write_crash_record();
}

void hf_fuzzer_run_starts(const uint8_t *data, size_t size);
void hf_fuzzer_run_starts(const uint8_t *data, size_t size) {
    run_data = data;
    run_size = size;
    static bool hooked;
    if (hooked || !recording) return;
    /* At the first run: libFuzzer has put its handlers in place by now. */
    hooked = true;
    for (size_t i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++) {
        int sig = fatal_signals[i];
        if (sigaction(sig, NULL, &engine_action[sig]) != 0) continue;
        struct sigaction ours = engine_action[sig];
        ours.sa_sigaction = on_fatal_signal;
        ours.sa_flags = (engine_action[sig].sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
        sigaction(sig, &ours, NULL);
    }
}

void hf_fuzzer_run_failed(void);
void hf_fuzzer_run_failed(void) { write_crash_record(); }

/* Engine mode: the program runs with `base`; crashes get its record. */
static void start_engine(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-exact_artifact_path=", 21)) artifact_exact = argv[i] + 21;
        else if (!strncmp(argv[i], "-artifact_prefix=", 17)) artifact_prefix = argv[i] + 17;
    }
    /* AFL++ names its crash files itself, after the run: no record there. */
    recording = hf_invocation_given(&base) && !strcmp(hf_feedback_engine(), "libFuzzer") &&
                hf_invocation_format(&base, record_text, sizeof record_text);
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
        if (use_input(files[f]) != 0) {
            free(data);
            return 2;
        }
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
    if (use_input(in) != 0) {
        free(data);
        return 2;
    }
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
    keep_beside(out);
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
    /* The tool's command line is the tool's: the program's arguments come
     * from the environment, or a schedule's record. */
    hf_invocation_from_env(&base);
    current = base;
    if (hf_invocation_apply(&base) != 0) exit(2);
    hf_tool_set_file_hooks(use_input, keep_beside, current_given);
}

const hf_target *hf_fuzzer_start(int *argc, char ***argv) {
    hf_target_add(&hf_pthread_program_target);   /* the tool's commands find it by name */
    char **args = *argv;
    const char *prog = args[0];
    int given = hf_invocation_from_command_line(argc, args, &base, prog);
    if (given == 2) exit(2);
    base_from_command_line = given == 1;
    if (base_from_command_line) hf_invocation_to_env(&base);   /* for libFuzzer's child processes */
    else hf_invocation_from_env(&base);
    current = base;
    if (hf_invocation_apply(&base) != 0) exit(2);
    if (*argc < 2) {
        start_engine(*argc, args);
        return &hf_pthread_program_target;
    }
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
        fprintf(stderr, "  HEISENFUZZ_ARGS='A B'        main's arguments when no -- gives them (split at spaces, no quoting)\n"
                        "  HEISENFUZZ_STDIN=FILE        the program's stdin when no -- gives it (else empty)\n"
                        "  HEISENFUZZ_PROGRAM_OUTPUT=1  show the program's own stdout/stderr\n"
                        "  HEISENFUZZ_PROGRAM_OUTPUT=FILE  its stdout into FILE (the last run's), stderr shown\n"
                        "  HEISENFUZZ_PROGRAM_FILES=DIR the files the last run made or changed, written under DIR\n"
                        "  HEISENFUZZ_FILE_FAULTS=1     writes and syncs of files may fail, when no -- says\n"
                        "  HEISENFUZZ_CRASHES=1         the machine may crash at calls that change files, when no -- says\n"
                        "  HEISENFUZZ_TRACE_HASH=1      print every run's trace hash\n"
                        "  libFuzzer's own flags: %s -help=1\n", prog);
        exit(0);
    }
    start_engine(*argc, args);
    return &hf_pthread_program_target;
}
