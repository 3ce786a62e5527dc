/*
 * cmd_minimize.c — `heisenfuzz minimize`: shrink a failing input to the
 * decisions that make it fail, write it with its goal, print its timeline,
 * and on request write it as a C regression test.
 *
 * The goal is the failure to keep.  It comes from --expect, else from a
 * goal file beside the input (CRASH.goal, as this command writes beside
 * its output), else from the input's own run.  So an input minimized once
 * keeps its original goal when a later build makes it fail differently:
 * the command says so and minimizes toward the goal regardless.
 *
 * A pthread program's fuzzer (`heisenfuzz minimize ./prog_fuzzer CRASH`:
 * the command runs inside it) has no fixed twin; its --emit-test writes a
 * test of the program alone (regress.h), into the current directory unless
 * --test-dir says otherwise.
 */
#define _GNU_SOURCE   /* strdup, program_invocation_name */
#include "commands.h"
#include "explain.h"
#include "files.h"
#include "minimize.h"
#include "options.h"
#include "regress.h"
#include "targets.h"
#include "tool.h"

#include <errno.h>    /* program_invocation_name */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Options ------------------------------------------------------------- */

typedef struct options {
    const char *target;
    const char *input;
    const char *output;        /* NULL: INPUT.min */
    const char *expect;        /* the goal's message, or NULL */
    uint64_t max_runs;
    double max_seconds;
    bool quiet;                /* no timeline */
    bool emit_test;
    const char *test_name;     /* NULL: TARGET_HASH */
    const char *test_dir;
} options;

static const options minimize_defaults = {.max_runs = 200000, .max_seconds = 600, .test_dir = "tests/regress"};

static const hf_option minimize_option_table[] = {
    {.name = "output", .short_name = 'o', HF_STRING(options, output), .value_name = "MIN",
     .help = "write the minimized input to MIN (default CRASH.min), its goal to MIN.goal"},
    {.name = "expect", HF_STRING(options, expect), .value_name = "MESSAGE",
     .help = "the failure message to keep (else CRASH.goal's, else CRASH's own failure)"},
    {.name = "max-runs", HF_UINT(options, max_runs, 1, UINT64_MAX), .value_name = "N",
     .help = "stop after N runs"},
    {.name = "max-time", HF_SECONDS(options, max_seconds), .value_name = "S", .help = "stop after S seconds"},
    {.name = "quiet", .short_name = 'q', HF_FLAG(options, quiet), .help = "no timeline"},
    {.name = "emit-test", HF_FLAG(options, emit_test),
     .help = "also write DIR/NAME.c, a C test asserting the failure in TARGET and its absence in the fixed twin"},
    {.name = "test-name", HF_STRING(options, test_name), .value_name = "NAME",
     .help = "--emit-test: the test's name (default TARGET_HASH)"},
    {.name = "test-dir", HF_STRING(options, test_dir), .value_name = "DIR", .help = "--emit-test: where it goes"},
};

const hf_command_spec hf_minimize_spec = {
    .name = "minimize",
    .operands = "TARGET CRASH",
    .summary = "shrink CRASH to the decisions that make it fail the same way (1-minimal), write it to MIN with "
               "its goal in MIN.goal, and print its timeline.  The goal is --expect's message, else CRASH.goal, "
               "else CRASH's own failure.  Exit 2 when CRASH does not fail or cannot be minimized; exit 1 when "
               "the fixed twin fails the minimized schedule too (no test written).  TARGET may be a pthread "
               "program's fuzzer (./prog_fuzzer, from build-pthread): it has no twin, so its test (default DIR the "
               "current directory, NAME the fuzzer's name less _fuzzer, then the hash) checks the program alone: "
               "built with the program's sources by build-pthread --test NAME.c PROG.c..., it asserts that the "
               "minimized schedule still fails the same way, taking the same deviations; built against the fixed "
               "sources with -- -DHF_PROGRAM_FIXED, that the same schedule passes",
    HF_OPTION_TABLE(minimize_option_table),
    .defaults = &minimize_defaults,
    .size = sizeof(options),
};

/* Returns HF_PARSED, or the exit status after printing --help or what was wrong. */
static int parse_options(int argc, char **argv, options *o) {
    char **operands;
    int count;
    int status = hf_options_parse(&hf_minimize_spec, argc, argv, o, &operands, &count);
    if (status != HF_PARSED) return status;
    if (count > 2)
        return hf_command_usage_error(hf_minimize_spec.name, "minimize: unexpected argument '%s'", operands[2]);
    if (count < 2)
        return hf_command_usage_error(hf_minimize_spec.name, "minimize needs a target and a crashing input");
    o->target = operands[0];
    o->input = operands[1];
    if (o->expect && !o->expect[0])
        return hf_command_usage_error(hf_minimize_spec.name, "minimize: --expect needs a failure message");
    if (o->test_name && !hf_regress_name_ok(o->test_name))
        return hf_command_usage_error(hf_minimize_spec.name,
                                      "minimize: --test-name '%s' must be letters, digits and '_' only", o->test_name);
    if ((o->test_name || strcmp(o->test_dir, "tests/regress")) && !o->emit_test)
        return hf_command_usage_error(hf_minimize_spec.name, "minimize: --test-name and --test-dir go with --emit-test");
    return HF_PARSED;
}

/* ---- Goal files: "key value" lines ---------------------------------------- */

static void put_escaped(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == '\\') fputs("\\\\", f);
        else if (*s == '\n') fputs("\\n", f);
        else fputc(*s, f);
    }
}

static int write_goal_file(const char *path, const hf_target *t, const hf_goal *g, char *error, size_t size) {
    char *text = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&text, &length);
    if (!f) { snprintf(error, size, "out of memory writing %s", path); return -1; }
    fprintf(f, "# the failure this input reproduces; heisenfuzz minimize keeps it as its goal\n");
    fprintf(f, "target %s\noutcome %s\nmessage ", t->name, g->any_outcome ? "any" : hf_outcome_name(g->outcome));
    put_escaped(f, g->message);
    fputc('\n', f);
    fclose(f);
    int status = text ? hf_write_file(path, text, length, error, size) : -1;
    if (!text) snprintf(error, size, "out of memory writing %s", path);
    free(text);
    return status;
}

static bool outcome_by_name(const char *name, hf_outcome *out) {
    for (hf_outcome o = HF_FAIL_PROPERTY; o <= HF_FAIL_LIMIT; o++)
        if (!strcmp(hf_outcome_name(o), name)) { *out = o; return true; }
    return false;
}

/* Reads a goal file.  Returns 1 when read, 0 when there is none, -1 with a
 * reason in `error` when it is malformed. */
static int read_goal_file(const char *path, hf_goal *g, char *error, size_t size) {
    if (access(path, F_OK) != 0) return 0;
    size_t length;
    uint8_t *bytes = hf_read_file(path, &length, error, size);
    if (!bytes) return -1;
    char *data = malloc(length + 1);   /* as one string, each line cut in place */
    if (!data) { free(bytes); snprintf(error, size, "out of memory reading %s", path); return -1; }
    memcpy(data, bytes, length);
    data[length] = '\0';
    free(bytes);
    memset(g, 0, sizeof *g);
    g->any_outcome = true;
    bool have_message = false;
    int line = 0, status = 1;
    for (char *p = data, *end = data + length; p < end && status == 1; ) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        *eol = '\0';
        line++;
        char *space = strchr(p, ' ');
        const char *value = space ? space + 1 : "";
        if (space) *space = '\0';
        if (p[0] == '\0' || p[0] == '#' || !strcmp(p, "target")) {
            /* a comment, or informative only */
        } else if (!strcmp(p, "outcome")) {
            g->any_outcome = !strcmp(value, "any");
            if (!g->any_outcome && !outcome_by_name(value, &g->outcome)) {
                snprintf(error, size, "%s:%d: unknown outcome '%s'", path, line, value);
                status = -1;
            }
        } else if (!strcmp(p, "message")) {
            size_t n = 0;
            for (const char *v = value; *v && n + 1 < sizeof g->message; v++) {
                if (*v == '\\' && v[1] == 'n') { g->message[n++] = '\n'; v++; }
                else if (*v == '\\' && v[1] == '\\') { g->message[n++] = '\\'; v++; }
                else g->message[n++] = *v;
            }
            g->message[n] = '\0';
            have_message = true;
        } else {
            snprintf(error, size, "%s:%d: unknown key '%s' (expected target, outcome or message)", path, line, p);
            status = -1;
        }
        p = eol + 1;
    }
    if (status == 1 && !have_message) {
        snprintf(error, size, "%s: no 'message' line", path);
        status = -1;
    }
    free(data);
    return status;
}

/* ---- The command ---------------------------------------------------------- */

/* The fixed twin of a buggy target, or NULL after saying why not.  A pair
 * declared as one (HF_DEFINE_TARGET_PAIR) names its twin; a buggy target
 * declared alone (a user's NAME_buggy beside NAME) is paired by name. */
static const hf_target *fixed_twin(const hf_target *buggy) {
    if (buggy->fixed) return buggy->fixed;
    if (!hf_target_is_buggy(buggy)) {
        fprintf(stderr, "heisenfuzz: --emit-test needs a target named *_buggy with a fixed twin; '%s' is not one\n",
                buggy->name);
        return NULL;
    }
    char name[256];
    hf_target_family(buggy, name, sizeof name);
    const hf_target *fixed = hf_target_find(name);
    if (!fixed) fprintf(stderr, "heisenfuzz: --emit-test: target '%s' has no fixed twin '%s'\n", buggy->name, name);
    return fixed;
}

static void print_summary(const options *o, const hf_target *t, const hf_goal *goal, const char *goal_source,
                          size_t input_size, const hf_minimized *m, const char *output) {
    char goal_text[640];
    hf_goal_describe(goal, goal_text, sizeof goal_text);
    printf("minimized %s for %s\n", o->input, hf_tool_target_name(t));
    printf("  goal:        %s (%s)\n", goal_text, goal_source);
    printf("  bytes:       %zu -> %zu\n", input_size, m->size);
    printf("  deviations:  %u -> %zu\n", m->original_deviations, m->count);
    printf("  runs:        %llu in %.2f s\n", (unsigned long long)m->runs, m->seconds);
    if (m->one_minimal)
        printf("  1-minimal:   yes, undoing any one remaining deviation loses the failure\n");
    else
        printf("  1-minimal:   not proven, the budget (--max-runs %llu, --max-time %g) ran out first\n",
               (unsigned long long)o->max_runs, o->max_seconds);
    if (!m->goal_was_met)
        printf("  note:        the crash itself now fails another way; this reduction of it fails the goal's way\n");
    printf("  written:     %s (goal in %s.goal)\n", output, output);
}

static void print_decisions(const hf_minimized *m, char (*what)[HF_EXPLAIN_SIZE]) {
    printf("\ndecisions kept (decision index: raw value, value bytes):\n");
    if (m->count == 0) printf("  none: the undisturbed schedule fails\n");
    for (size_t i = 0; i < m->count; i++)
        printf("  %6llu: %-6llu %u  %s\n", (unsigned long long)m->deviations[i].index,
               (unsigned long long)m->deviations[i].value, m->deviations[i].width, what[i]);
    printf("\n");
}

/* Writes the regression test.  A target's asserts the failure and its
 * absence in the fixed twin (checked here first); a pthread program has no
 * twin to check it against, so its test checks the program alone
 * (regress.h), built with the program's sources. */
static int emit_test(const options *o, const hf_target *t, const hf_target *fixed, const hf_goal *goal,
                     const hf_minimized *m, char (*what)[HF_EXPLAIN_SIZE], size_t input_size) {
    bool program = hf_target_is_pthread_program(t);
    if (!goal->any_outcome && hf_tool_is_crash(goal->outcome, goal->message)) {
        /* The test runs the schedule in its own process, which the crash
         * would end before any check. */
        fprintf(stderr, "heisenfuzz: --emit-test: a regression test cannot check a %s yet (it would end the "
                        "test's own process); the minimized schedule is written, no test\n", goal->message);
        return 1;
    }
    if (program && hf_tool_input_extra()) {
        /* The test's main runs the program with no arguments and an empty
         * stdin: it would check another run than this one. */
        fprintf(stderr, "heisenfuzz: --emit-test: a regression test cannot give the program its arguments or "
                        "stdin yet; the minimized schedule is written (with its .args), no test\n");
        return 1;
    }
    if (!program) {
        hf_result r;
        hf_run(fixed, m->bytes, m->size, &r);
        if (r.outcome != HF_OK) {
            fprintf(stderr, "heisenfuzz: the fixed variant %s fails the minimized schedule too (%s: %s); "
                            "no regression test written\n", fixed->name, hf_outcome_name(r.outcome), r.message);
            return 1;
        }
    }
    char name[256], path[PATH_MAX + 264];
    if (o->test_name) snprintf(name, sizeof name, "%s", o->test_name);
    else if (program) hf_regress_program_name(program_invocation_name, m->bytes, m->size, name, sizeof name);
    else hf_regress_default_name(t, m->bytes, m->size, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.c", o->test_dir, name);
    hf_regress_test test = {
        .buggy = t, .fixed = program ? NULL : fixed, .goal = goal, .deviations = m->deviations, .count = m->count,
        .what = what, .origin = o->input, .origin_bytes = input_size,
        .origin_deviations = m->original_deviations, .program = program ? program_invocation_name : NULL,
    };
    char error[512];
    if (hf_regress_write(&test, path, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return 2;
    }
    if (program)
        printf("regression test: %s (build it with the program: heisenfuzz build-pthread --test %s PROGRAM.c... "
               "-o %s; add -- -DHF_PROGRAM_FIXED once the program is fixed)\n", path, path, name);
    else if (hf_tool_in_fuzzer())
        printf("regression test: %s (build it with your target: clang %s YOUR_TARGET.c "
               "$(pkg-config --cflags --libs heisenfuzz))\n", path, path);
    else
        printf("regression test: %s (built by ./build.sh as out/tests/test_regress_%s)\n", path, name);
    return 0;
}

/* The goal: asked for, recorded beside the input, or the input's own
 * failure (`r`, its run).  Returns 0, or 2 after saying what was wrong. */
static int choose_goal(const options *o, const hf_result *r, hf_goal *goal, const char **source) {
    if (o->expect) {
        memset(goal, 0, sizeof *goal);
        goal->any_outcome = true;
        snprintf(goal->message, sizeof goal->message, "%s", o->expect);
        *source = "from --expect";
        return 0;
    }
    char path[PATH_MAX + 8], error[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s.goal", o->input);
    int read = read_goal_file(path, goal, error, sizeof error);
    if (read < 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return 2;
    }
    if (read == 1) {
        *source = "recorded in the crash's .goal file";
        return 0;
    }
    hf_goal_from_result(goal, r);
    *source = "the crash's own failure";
    return 0;
}

/* The minimized input, its goal beside it.  Returns 0, or 2 after saying
 * what was wrong. */
static int write_outputs(const char *output, const hf_target *t, const hf_goal *goal, const hf_minimized *m) {
    char error[PATH_MAX + 128], goal_path[PATH_MAX + 8];
    snprintf(goal_path, sizeof goal_path, "%s.goal", output);
    if (hf_write_file(output, m->bytes, m->size, error, sizeof error) != 0 ||
        write_goal_file(goal_path, t, goal, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return 2;
    }
    hf_tool_output(output);
    return 0;
}

static int minimize_input(const options *o, const hf_target *t, const hf_target *fixed,
                          const uint8_t *data, size_t size) {
    bool contain = hf_tool_contains(t);
    hf_result r;
    if (!hf_tool_run(t, data, size, contain, &r)) return 2;
    if (r.outcome == HF_OK) {
        fprintf(stderr, "heisenfuzz: %s does not fail under %s (the run completes, every property holds): "
                        "nothing to minimize\n", o->input, t->name);
        return 2;
    }
    hf_goal goal;
    const char *goal_source;
    if (choose_goal(o, &r, &goal, &goal_source) != 0) return 2;
    char goal_text[640], now_text[640];
    hf_goal_describe(&goal, goal_text, sizeof goal_text);
    if (!hf_goal_met(&goal, &r)) {
        hf_goal now;
        hf_goal_from_result(&now, &r);
        hf_goal_describe(&now, now_text, sizeof now_text);
        fprintf(stderr, "heisenfuzz: %s now fails with %s, not the goal %s (%s): minimizing toward the goal\n",
                o->input, now_text, goal_text, goal_source);
    }

    hf_minimize_options mo = {.max_runs = o->max_runs, .max_seconds = o->max_seconds, .progress = stderr,
                              .contain = contain};
    hf_minimized m;
    if (hf_minimize(t, &goal, data, size, &mo, &m) != HF_MINIMIZED) {
        fprintf(stderr, "heisenfuzz: cannot reproduce the goal %s from %s: neither it nor any reduction "
                        "tried fails that way (%llu runs%s)\n", goal_text, o->input, (unsigned long long)m.runs,
                m.original_deviations > HF_DEVIATIONS_KEPT ? "; only its first deviations could be used" : "");
        return 2;
    }
    char output[PATH_MAX + 8];
    snprintf(output, sizeof output, "%s%s", o->output ? o->output : o->input, o->output ? "" : ".min");
    char (*what)[HF_EXPLAIN_SIZE] = calloc(m.count ? m.count : 1, sizeof *what);
    int status = what ? write_outputs(output, t, &goal, &m) : 2;
    if (!what) fprintf(stderr, "heisenfuzz: out of memory\n");
    if (status == 0) {
        hf_explain_deviations(t, m.deviations, m.count, contain, what);
        print_summary(o, t, &goal, goal_source, size, &m, output);
        print_decisions(&m, what);
        hf_tool_replay(t, m.bytes, m.size, contain, !o->quiet);
        if (o->emit_test) {
            fflush(stdout);
            status = emit_test(o, t, fixed, &goal, &m, what, size);
        }
    }
    free(what);
    hf_minimized_free(&m);
    return status;
}

int hf_cmd_minimize(int argc, char **argv) {
    options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != HF_PARSED) return parsed;
    const hf_target *t = hf_tool_target(o.target);
    if (!t) return 2;
    const hf_target *fixed = NULL;
    if (o.emit_test && !hf_target_is_pthread_program(t) && !(fixed = fixed_twin(t))) return 2;
    /* A program's test is not one of the repository's (build.sh builds those
     * with the in-tree targets): it goes where the command runs. */
    /* A program keeps its test beside itself unless --test-dir says otherwise
     * (the default is the parser's own string, not one the user gave). */
    if (o.emit_test && hf_target_is_pthread_program(t) && o.test_dir == minimize_defaults.test_dir) o.test_dir = ".";
    char error[2 * PATH_MAX + 128];
    /* Before any work: the test's directory (only its last part is made: a
     * missing parent is more likely a mistyped path than a wish). */
    if (o.emit_test && hf_make_dir(o.test_dir, HF_DIR_ONLY, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return 2;
    }
    /* Output paths get a suffix (".min", ".goal"). */
    if (strlen(o.input) + 8 >= PATH_MAX || (o.output && strlen(o.output) + 8 >= PATH_MAX)) {
        fprintf(stderr, "heisenfuzz: minimize: a path is longer than %d bytes\n", PATH_MAX - 8);
        return 2;
    }
    size_t size;
    uint8_t *data = hf_read_file(o.input, &size, error, sizeof error);
    if (!data) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return 2;
    }
    if (hf_tool_input(o.input) != 0) {
        free(data);
        return 2;
    }
    int status = minimize_input(&o, t, fixed, data, size);
    free(data);
    return status;
}
