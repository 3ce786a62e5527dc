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
#include "commands.h"
#include "files.h"
#include "options.h"
#include "run.h"
#include "targets.h"
#include "tool.h"

#include <assert.h>
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
    if (argc > 2) return hf_command_usage_error("list", "list takes at most one fuzzer binary");
    if (argc == 2 && !hf_tool_in_fuzzer()) {
        if (!hf_tool_names_fuzzer(argv[1]))
            return hf_command_usage_error("list", "list: '%s' is not the path of a fuzzer binary (write ./%s)", argv[1],
                                          argv[1]);
        return hf_tool_run_in_fuzzer(argv[1]);
    }
    for (const hf_target *const *t = hf_target_list(); *t; t++)
        printf("%-26s %s\n", (*t)->name, (*t)->summary);
    const hf_target *own = hf_target_added();   /* a pthread program's fuzzer holds its program */
    if (own) printf("%-26s %s\n", own->name, own->summary);
    return 0;
}

/* ---- replay -------------------------------------------------------------- */

typedef struct replay_options {
    bool quiet;
} replay_options;

static const replay_options replay_defaults = {0};

static const hf_option replay_option_table[] = {
    {.name = "quiet", .short_name = 'q', HF_FLAG(replay_options, quiet), .help = "no timeline"},
};

static const hf_command_spec replay_spec = {
    .name = "replay",
    .operands = "TARGET FILE...",
    .summary = "run each input file without a fuzzer: timeline, verdict, trace-hash; exit 1 if a run failed.  "
               "TARGET may be a fuzzer binary (a path: ./prog_fuzzer, one build-pthread wrote included)",
    .options_first = true,   /* what follows TARGET is files */
    HF_OPTION_TABLE(replay_option_table),
    .defaults = &replay_defaults,
    .size = sizeof(replay_options),
};

static int cmd_replay(int argc, char **argv) {
    replay_options o;
    char **operands;
    int count;
    int parsed = hf_options_parse(&replay_spec, argc, argv, &o, &operands, &count);
    if (parsed != HF_PARSED) return parsed;
    if (count < 2) return hf_command_usage_error(replay_spec.name, "replay needs a target and at least one file");
    const hf_target *t = hf_tool_target(operands[0]);
    if (!t) return 2;
    int status = 0;
    for (int f = 1; f < count; f++) {
        char error[512];
        size_t size;
        uint8_t *data = hf_read_file(operands[f], &size, error, sizeof error);
        if (!data) {
            fprintf(stderr, "heisenfuzz: %s\n", error);
            return 2;
        }
        if (hf_tool_input(operands[f]) != 0) {
            free(data);
            return 2;
        }
        if (count > 2) printf("== %s\n", operands[f]);
        if (hf_tool_replay(t, data, size, hf_tool_contains(t), !o.quiet)) status = 1;
        free(data);
    }
    return status;
}

/* ---- help and dispatch ---------------------------------------------------- */

static int cmd_help(int argc, char **argv);

/* A command is described by its options' tables (usage, help and parsing
 * from one place), or, for the few without a table, by hand. */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const hf_command_spec *const *specs;   /* NULL-terminated, or NULL: usage and help below */
    const char *usage;
    const char *help;
} commands[] = {
    {"list", cmd_list, NULL, "list [FUZZER]",
     "the targets, one per line (those linked into this program, or into FUZZER)"},
    {"replay", cmd_replay, (const hf_command_spec *const[]){&replay_spec, NULL}, NULL, NULL},
    {"fuzz", hf_cmd_fuzz, (const hf_command_spec *const[]){&hf_fuzz_spec, NULL}, NULL, NULL},
    {"minimize", hf_cmd_minimize, (const hf_command_spec *const[]){&hf_minimize_spec, NULL}, NULL, NULL},
    {"explore", hf_cmd_explore, (const hf_command_spec *const[]){&hf_explore_spec, NULL}, NULL, NULL},
    {"bench", hf_cmd_bench,
     (const hf_command_spec *const[]){&hf_bench_spec, &hf_bench_search_spec, &hf_bench_species_spec,
                                      &hf_bench_plateau_spec, NULL},
     NULL, NULL},
    {"chart", hf_cmd_chart, (const hf_command_spec *const[]){&hf_chart_spec, NULL}, NULL, NULL},
    {"report", hf_cmd_report, (const hf_command_spec *const[]){&hf_report_spec, NULL}, NULL, NULL},
    {"build-pthread", hf_cmd_build_pthread, NULL,
     "build-pthread PROG.c|PROG.cpp... [-o PATH] [--afl | --test TEST.c] [-v] [-- CFLAGS]",
     "build an unmodified pthread program (C, or C++ with std::thread) with a main into a fuzzer of its schedules at PATH "
     "(default PROG_fuzzer): threads run as tasks, every shared memory access and pthread call is a "
     "preemption point, a failed assert, abort(), exit status, crash or deadlock is a crash; each run has its own copy of the files it touches. "
     "PATH --replay FILE... prints a run's timeline; PATH --minimize FILE -o OUT shrinks a crash. "
     "--afl builds for AFL++, and beside PATH its decision mutator library PATH_mutator.so (AFL_CUSTOM_MUTATOR_LIBRARY, with AFL_CUSTOM_MUTATOR_ONLY=1); -v shows the commands; CFLAGS go to clang (clang++ for C++ sources).  --test TEST.c builds, instead of a "
     "fuzzer, the program with TEST.c's main and no engine (default PATH: TEST): a regression test that "
     "minimize --emit-test wrote for this program"},
    /* A compiler's options are the compiler's: passed through, never
     * parsed here (only --help, first, is the tool's). */
    {"cc", hf_cmd_cc, NULL, "cc COMPILER-ARGS...   (make CC=\"heisenfuzz cc\")",
     "a C compiler driver for a project's own build: what it links is the fuzzer build-pthread would make of the "
     "same sources. -c compiles with build-pthread's flags and the project's (its -O dropped: the program runs at "
     "-O0, each access a preemption point) and renames the program's pthread, main, printf, ... calls to the layer's "
     "in the object, so objects and archives made with ar are ready; a link (objects, archives, -lNAME found as "
     "libNAME.a in a -L directory given) merges the program as build-pthread does and links it with the layer. -E, "
     "-M, -MM, -S pass through with the layer's flags; no input file (--version, -v) runs plain clang. Configure: "
     "an output or input named conftest*, or HEISENFUZZ_CC_PLAIN=1, builds with plain clang (configure runs what "
     "it links; a fuzzer would start fuzzing). HEISENFUZZ_CC_ENGINE=afl builds for AFL++ (default libfuzzer), "
     "and OUTPUT_mutator.so beside the fuzzer, its decision mutator library (each object carries the library's "
     "compile in a section of its own). A "
     "compile error is the compiler's message and status; no main, -shared or a missing layer one line, exit 2. "
     "Every argument is the compiler's but --help as the first."},
    {"c++", hf_cmd_cxx, NULL, "c++ COMPILER-ARGS...   (make CXX=\"heisenfuzz c++\")",
     "the same for C++: clang++ compiles every source (as C++) and links the program (libstdc++; what of "
     "std::thread the layer covers: schedule/README.md, \"C++\"). Same environment: HEISENFUZZ_CC_ENGINE=afl, "
     "HEISENFUZZ_CC_PLAIN=1; conftest* builds plainly"},
    {"help", cmd_help, NULL, "help", "this text"},
};

enum { COMMAND_COUNT = sizeof commands / sizeof *commands };

const hf_command_spec *const *hf_tool_command_specs(void) {
    static const hf_command_spec *all[16];
    if (!all[0]) {
        size_t n = 0;
        for (size_t c = 0; c < COMMAND_COUNT; c++)
            for (const hf_command_spec *const *s = commands[c].specs; s && *s; s++) {
                assert(n + 1 < sizeof all / sizeof *all);
                all[n++] = *s;
            }
    }
    return all;
}

static void print_command(const struct command *c) {
    if (!c->specs) {
        printf("  %s\n      ", c->usage);
        hf_options_print_wrapped(stdout, c->help, 6, 6);
        return;
    }
    for (const hf_command_spec *const *s = c->specs; *s; s++) {
        printf("  ");
        hf_options_print_usage(stdout, *s, 2);
        printf("      ");
        hf_options_print_wrapped(stdout, (*s)->summary, 6, 6);
    }
}

static int cmd_help(int argc, char **argv) {
    (void)argc;
    (void)argv;
    printf("heisenfuzz — a coverage-guided fuzzer for schedules\n\n"
           "usage: heisenfuzz COMMAND [ARGS]   (heisenfuzz COMMAND --help: its options)\n\n");
    for (size_t c = 0; c < COMMAND_COUNT; c++) print_command(&commands[c]);
    printf("\nTARGET is a target linked into this program (see list), or a fuzzer binary holding\n"
           "your own: ./FUZZER (its target) or ./FUZZER:NAME; the command then runs inside it.\n");
    printf("\nexit status: 0 ok, 1 a run failed, 2 usage or input error\n");
    return 0;
}

/* COMMAND --help: from its tables, or its hand-written usage. */
static int command_help(const struct command *c) {
    if (!c->specs) {
        printf("usage: heisenfuzz %s\n  ", c->usage);
        hf_options_print_wrapped(stdout, c->help, 2, 2);
        return 0;
    }
    for (const hf_command_spec *const *s = c->specs; *s; s++) {
        if (s != c->specs) printf("\n");
        hf_options_print_help(stdout, *s);
    }
    return 0;
}

static int tool_main(int argc, char **argv, bool in_fuzzer) {
    hf_tool_remember_args(argc, argv, in_fuzzer);
    if (argc < 2) return hf_usage_error("no command given");
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) name = "help";
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++) {
        if (strcmp(commands[c].name, name)) continue;
        if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) return command_help(&commands[c]);
        int status = commands[c].run(argc - 1, argv + 1);
        hf_runtime_free();
        return status;
    }
    return hf_usage_error("unknown command '%s'", argv[1]);
}

int hf_tool_main(int argc, char **argv) { return tool_main(argc, argv, false); }

int hf_tool_main_in_fuzzer(int argc, char **argv) { return tool_main(argc, argv, true); }
