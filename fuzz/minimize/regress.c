/*
 * regress.c — the C source of a regression test for a minimized schedule.
 *
 * The test reads like a hand-written unit test: a comment saying what it
 * reproduces, the schedule as a table with a comment per decision, then
 * encode, run the buggy target, check the failure, run the fixed one,
 * check that it passes (a pthread program, which has no twin: run it and
 * check the failure, or with HF_PROGRAM_FIXED its absence).  The targets
 * are found by name in the registry
 * (targets.h), so the test links with whatever defines them: the in-tree
 * targets or a user's own file.  Text from the run (messages, task names) is escaped
 * for string literals and made harmless inside comments.
 */
#define _POSIX_C_SOURCE 200809L   /* open_memstream */
#include "regress.h"
#include "files.h"

#include <assert.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_BYTES_SHOWN = 64 };   /* a longer input is not spelled out in the comment */

void hf_regress_default_name(const hf_target *buggy, const uint8_t *bytes, size_t size, char *out, size_t cap) {
    uint64_t hash = XXH3_64bits(bytes, size);
    snprintf(out, cap, "%s_%08llx", buggy->name, (unsigned long long)(hash >> 32));
}

void hf_regress_program_name(const char *fuzzer, const uint8_t *bytes, size_t size, char *out, size_t cap) {
    const char *base = strrchr(fuzzer, '/');
    base = base ? base + 1 : fuzzer;
    size_t n = strlen(base);
    static const char *const endings[] = {"_fuzzer", "_afl"};
    for (size_t e = 0; e < sizeof endings / sizeof *endings; e++) {
        size_t k = strlen(endings[e]);
        if (n > k && strcmp(base + n - k, endings[e]) == 0) { n -= k; break; }
    }
    char stem[128];
    size_t used = 0;
    for (size_t i = 0; i < n && used + 1 < sizeof stem; i++)
        stem[used++] = isalnum((unsigned char)base[i]) ? base[i] : '_';
    stem[used] = '\0';
    uint64_t hash = XXH3_64bits(bytes, size);
    snprintf(out, cap, "%s_%08llx", used ? stem : "program", (unsigned long long)(hash >> 32));
}

bool hf_regress_name_ok(const char *name) {
    if (!*name) return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') return false;
    return true;
}

/* A C string literal's contents.  '?' is escaped so that no trigraph forms. */
static void put_literal(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c > 0x7e) fprintf(f, "\\%03o", c);
        else fputc(c, f);
    }
}

/* Text inside a comment: printable, and unable to end it or splice it. */
static void put_comment_text(FILE *f, const char *s) {
    char last = 0;
    for (; *s; s++) {
        char c = *s;
        if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7e) c = '.';
        if ((last == '*' && c == '/') || (last == '?' && c == '?') || c == '\\') fputc(' ', f);
        if (c == '\\') c = '/';
        fputc(c, f);
        last = c;
    }
}

static const char *outcome_constant(hf_outcome o) {
    switch (o) {
    case HF_OK: return "HF_OK";
    case HF_FAIL_PROPERTY: return "HF_FAIL_PROPERTY";
    case HF_FAIL_DEADLOCK: return "HF_FAIL_DEADLOCK";
    case HF_FAIL_STEPS: return "HF_FAIL_STEPS";
    case HF_FAIL_TIME: return "HF_FAIL_TIME";
    case HF_FAIL_SPIN: return "HF_FAIL_SPIN";
    case HF_FAIL_LIMIT: return "HF_FAIL_LIMIT";
    case HF_FAIL_CONFIG: return "HF_FAIL_CONFIG";
    case HF_FAIL_PROGRAM: return "HF_FAIL_PROGRAM";
    }
    assert(!"unknown outcome");
    return "HF_OK";
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void put_header(FILE *f, const hf_regress_test *t, const char *file) {
    const hf_goal *g = t->goal;
    fprintf(f, "/*\n * %s — regression test for %s.\n *\n", file, t->buggy->name);
    fprintf(f, " * The schedule below makes %s fail\n *\n *     ", t->buggy->name);
    if (!g->any_outcome) fprintf(f, "%s: ", hf_outcome_name(g->outcome));
    put_comment_text(f, g->message);
    fprintf(f, "\n *\n * while its fixed variant, %s, passes it.  `heisenfuzz minimize\n"
               " * --emit-test` wrote it from the crash\n *\n *     ", t->fixed->name);
    put_comment_text(f, base_name(t->origin));
    fprintf(f, "\n *\n * (%zu bytes, %" PRIu32 " non-default decision%s), minimized to %s",
            t->origin_bytes, t->origin_deviations, t->origin_deviations == 1 ? "" : "s",
            t->count == 0 ? "nothing: the undisturbed\n * schedule itself fails.\n"
            : t->count == 1 ? "the one below:\n" : "those below:\n");
    if (t->count) {
        fprintf(f, " * undoing any one loses the failure.  Every decision not listed takes\n"
                   " * its default.  It replays through the runtime, no fuzzer needed.\n");
        size_t size = hf_encode_deviations(t->deviations, t->count, NULL, 0);
        if (size <= MAX_BYTES_SHOWN) {
            uint8_t bytes[MAX_BYTES_SHOWN];
            hf_encode_deviations(t->deviations, t->count, bytes, sizeof bytes);
            fprintf(f, " *\n * As an input file (for `heisenfuzz replay %s FILE`), in hex:\n *    ",
                    t->buggy->name);
            for (size_t i = 0; i < size; i++)
                fprintf(f, "%s%02x", i && i % 16 == 0 ? "\n *    " : " ", bytes[i]);
            fprintf(f, "\n");
        }
    }
    fprintf(f, " */\n");
}

static void put_program_header(FILE *f, const hf_regress_test *t, const char *file, const char *name) {
    const hf_goal *g = t->goal;
    fprintf(f, "/*\n * %s — regression test for the pthread program of ", file);
    put_comment_text(f, base_name(t->program));
    fprintf(f, ".\n *\n * The schedule below makes the program fail\n *\n *     ");
    if (!g->any_outcome) fprintf(f, "%s: ", hf_outcome_name(g->outcome));
    put_comment_text(f, g->message);
    fprintf(f, "\n *\n * `heisenfuzz minimize --emit-test` wrote it from the crash\n *\n *     ");
    put_comment_text(f, base_name(t->origin));
    fprintf(f, "\n *\n * (%zu bytes, %" PRIu32 " non-default decision%s), minimized to %s", t->origin_bytes,
            t->origin_deviations, t->origin_deviations == 1 ? "" : "s",
            t->count == 0 ? "nothing: the undisturbed\n * schedule itself fails.\n"
            : t->count == 1 ? "the one below:\n * undoing it loses the failure.\n"
            : "those below:\n * undoing any one loses the failure.\n");
    fprintf(f, " *\n"
               " * Build it with the program's sources, as the fuzzer was built (the same\n"
               " * heisenfuzz, the same flags after --), this file's main in place of an\n"
               " * engine; it replays through the runtime, no fuzzer needed:\n"
               " *\n"
               " *     heisenfuzz build-pthread --test %s PROGRAM.c... -o %s\n"
               " *     ./%s      checks that the program still fails the same way\n"
               " *\n"
               " * and, once the program is fixed, as a regression test of the fix:\n"
               " *\n"
               " *     heisenfuzz build-pthread --test %s PROGRAM.c... -o %s -- -DHF_PROGRAM_FIXED\n"
               " *     ./%s      checks that the same schedule passes\n"
               " *\n"
               " * A decision's index counts the program's preemption points, which are\n"
               " * its compiled loads, stores and pthread calls: the schedule replays bit\n"
               " * for bit only on a build with the same optimisation and sanitizer, and\n"
               " * a fixed program may reach different points under the same indexes.\n"
               " */\n", file, name, name, file, name, name);
}

/* The expected failure, the opening of main() and the schedule encoded
 * into `input` and `size`: the same for a target's test and a program's. */
static void put_main_opening(FILE *f, const hf_regress_test *t, size_t encoded_size) {
    fprintf(f, "static const char expected_failure[] = \"");
    put_literal(f, t->goal->message);
    fprintf(f, "\";\n\nint main(void) {\n");
    if (t->count) {
        fprintf(f, "    uint8_t input[%zu];\n", encoded_size);
        fprintf(f, "    size_t size = hf_encode_deviations(schedule, sizeof schedule / sizeof *schedule,\n"
                   "                                       input, sizeof input);\n");
        fprintf(f, "    CHECK(size == sizeof input, \"the schedule encodes into %%zu bytes\", size);\n\n");
    } else {
        fprintf(f, "    const uint8_t *input = NULL;   /* no deviation at all */\n");
        fprintf(f, "    size_t size = 0;\n\n");
    }
}

/* The checks that the run in `r` failed the goal's way, taking exactly
 * the schedule's deviations; `who` names what ran, in the checks' lines. */
static void put_failure_checks(FILE *f, const hf_regress_test *t, const char *who) {
    const hf_goal *g = t->goal;
    if (g->any_outcome)
        fprintf(f, "    CHECK(r.outcome != HF_OK && strcmp(r.message, expected_failure) == 0,\n");
    else
        fprintf(f, "    CHECK(r.outcome == %s && strcmp(r.message, expected_failure) == 0,\n",
                outcome_constant(g->outcome));
    fprintf(f, "          \"%s fails: %%s (got %%s: %%s)\", expected_failure,\n"
               "          hf_outcome_name(r.outcome), r.message);\n", who);
    fprintf(f, "    CHECK(r.deviations == %zu, \"%s takes exactly the scheduled deviations (took %%u)\",\n"
               "          r.deviations);\n", t->count, who);
}

static void put_program_main(FILE *f, const hf_regress_test *t, size_t encoded_size) {
    put_main_opening(f, t, encoded_size);
    fprintf(f, "    hf_result r;\n    hf_run(&hf_pthread_program_target, input, size, &r);\n");
    fprintf(f, "#ifndef HF_PROGRAM_FIXED\n");
    put_failure_checks(f, t, "the program");
    fprintf(f, "#else\n");
    fprintf(f, "    CHECK(r.outcome == HF_OK, \"the fixed program passes the schedule that made it fail: %%s \"\n"
               "          \"(got %%s%%s%%s)\", expected_failure, hf_outcome_name(r.outcome), r.message[0] ? \": \" : \"\",\n"
               "          r.message);\n");
    fprintf(f, "#endif\n\n    hf_runtime_free();\n    return check_exit();\n}\n");
}

static void put_schedule(FILE *f, const hf_regress_test *t) {
    if (t->count == 0) return;
    fprintf(f, "/* The decisions that leave the undisturbed schedule, in the order the run\n"
               " * takes them: {decision index, raw value, value bytes}. */\n"
               "static const hf_deviation schedule[] = {\n");
    for (size_t i = 0; i < t->count; i++) {
        const hf_deviation *d = &t->deviations[i];
        char cell[64];
        /* A decimal literal past INT64_MAX needs its suffix. */
        snprintf(cell, sizeof cell, "{%" PRIu64 ", %" PRIu64 "%s, %u},", d->index, d->value,
                 d->value > INT64_MAX ? "u" : "", d->width);
        fprintf(f, "    %-24s /* ", cell);
        put_comment_text(f, t->what[i]);
        fprintf(f, " */\n");
    }
    fprintf(f, "};\n\n");
}

static void put_main(FILE *f, const hf_regress_test *t, size_t encoded_size) {
    const char *buggy = t->buggy->name, *fixed = t->fixed->name;
    put_main_opening(f, t, encoded_size);
    fprintf(f, "    const hf_target *buggy = hf_target_find(\"%s\"), *fixed = hf_target_find(\"%s\");\n"
               "    CHECK(buggy && fixed, \"%s and %s are linked in\");\n"
               "    if (!buggy || !fixed) return check_exit();\n\n", buggy, fixed, buggy, fixed);
    fprintf(f, "    hf_result r;\n    hf_run(buggy, input, size, &r);\n");
    put_failure_checks(f, t, buggy);
    fprintf(f, "\n");
    fprintf(f, "    hf_run(fixed, input, size, &r);\n");
    fprintf(f, "    CHECK(r.outcome == HF_OK, \"%s, the fixed variant, passes the same schedule (got %%s%%s%%s)\",\n"
               "          hf_outcome_name(r.outcome), r.message[0] ? \": \" : \"\", r.message);\n\n", fixed);
    fprintf(f, "    hf_runtime_free();\n    return check_exit();\n}\n");
}

int hf_regress_write(const hf_regress_test *t, const char *path, char *error, size_t error_size) {
    assert(t->buggy && (t->fixed || t->program) && t->goal && (t->deviations || t->count == 0));
    char *text = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&text, &length);
    if (!f) {
        snprintf(error, error_size, "out of memory writing %s", path);
        return -1;
    }
    const char *file = base_name(path);
    if (t->program) {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(file) > 2 ? strlen(file) - 2 : strlen(file)), file);
        put_program_header(f, t, file, name);
    } else {
        put_header(f, t, file);
    }
    fprintf(f, "#include \"check.h\"\n#include \"run.h\"\n#include \"targets.h\"\n\n#include <string.h>\n\n");
    put_schedule(f, t);
    if (t->program) put_program_main(f, t, hf_encode_deviations(t->deviations, t->count, NULL, 0));
    else put_main(f, t, hf_encode_deviations(t->deviations, t->count, NULL, 0));
    if (fclose(f) != 0 || !text) {
        free(text);
        snprintf(error, error_size, "out of memory writing %s", path);
        return -1;
    }
    /* A test of the same name that says something else may have been
     * edited by hand: it is not replaced. */
    char ignored[8];
    size_t old_length;
    uint8_t *old = access(path, F_OK) == 0 ? hf_read_file(path, &old_length, ignored, sizeof ignored) : NULL;
    bool differs = old && (old_length != length || memcmp(old, text, length) != 0);
    free(old);
    int status = -1;
    if (differs) snprintf(error, error_size, "%s exists with other contents; remove it or choose another name", path);
    else status = hf_write_file(path, text, length, error, error_size);
    free(text);
    return status;
}
