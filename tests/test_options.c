/*
 * test_options.c — the commands' option tables (fuzz/common/options.c): every
 * command's --help lists every option its table has, a bad whole number is
 * refused with exit 2 naming the option and the value, and the parser itself
 * handles the forms users write (--opt=value, --opt value, -o value, --,
 * options after operands, ranges, words, missing and unknown options).
 */
#define _GNU_SOURCE   /* open_memstream, dup */
#include "check.h"
#include "commands.h"
#include "options.h"
#include "tool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Running the tool with its output captured ---------------------------- */

typedef struct captured {
    int status;
    char out[1 << 16];
    char err[4096];
} captured;

static void read_back(FILE *f, char *text, size_t size) {
    fflush(f);
    rewind(f);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* Runs `heisenfuzz WORDS...` (the command's name split at spaces, then the
 * extra arguments) in this process, stdout and stderr going to *c. */
static void run_tool(captured *c, const char *name, const char *extra1, const char *extra2) {
    char words[128];
    snprintf(words, sizeof words, "%s", name);
    char *argv[8] = {"heisenfuzz"};
    int argc = 1;
    for (char *w = strtok(words, " "); w && argc < 5; w = strtok(NULL, " ")) argv[argc++] = w;
    if (extra1) argv[argc++] = (char *)extra1;
    if (extra2) argv[argc++] = (char *)extra2;
    argv[argc] = NULL;

    FILE *out = tmpfile(), *err = tmpfile();
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(fileno(out), 1);
    dup2(fileno(err), 2);
    c->status = hf_tool_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    read_back(out, c->out, sizeof c->out);
    read_back(err, c->err, sizeof c->err);
}

/* Does TEXT hold WORD as a whole word (not a prefix of a longer option)? */
static bool has_word(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool starts = p == text || strchr(" [\n", p[-1]);
        bool ends = strchr(" ]\n", p[n]) != NULL;
        if (starts && ends) return true;
    }
    return false;
}

static void check_command_help(const hf_command_spec *spec) {
    static captured c;
    run_tool(&c, spec->name, "--help", NULL);
    char usage[160];
    snprintf(usage, sizeof usage, "usage: heisenfuzz %s", spec->name);
    CHECK(c.status == 0 && strstr(c.out, usage), "%s --help: exit 0 and its usage line", spec->name);
    const char *options = strstr(c.out, "\noptions:\n");
    CHECK(options != NULL, "%s --help: an options section", spec->name);
    if (!options) return;
    size_t missing = 0;
    for (size_t k = 0; k < spec->option_count; k++) {
        const hf_option *o = &spec->options[k];
        char label[64], in_usage[80];
        if (o->name) snprintf(label, sizeof label, "--%s", o->name);
        else snprintf(label, sizeof label, "-%c", o->short_name);
        /* The usage line shows the short form when there is one. */
        if (o->short_name) snprintf(in_usage, sizeof in_usage, "[-%c", o->short_name);
        else snprintf(in_usage, sizeof in_usage, "[--%s", o->name);
        /* The help's first words, as the help prints them. */
        char help_start[24];
        snprintf(help_start, sizeof help_start, "%.*s", (int)strcspn(o->help, " "), o->help);
        bool listed = has_word(options, label) && strstr(options, help_start) && strstr(c.out, in_usage);
        if (!listed) {
            missing++;
            printf("# %s --help does not list %s\n", spec->name, label);
        }
    }
    CHECK(missing == 0, "%s --help lists all %zu options of its table, in the usage line and with their help",
          spec->name, spec->option_count);
}

/* A whole-number option given "x12": exit 2, one line naming it and the value. */
static void check_bad_numbers(const hf_command_spec *spec) {
    static captured c;
    for (size_t k = 0; k < spec->option_count; k++) {
        const hf_option *o = &spec->options[k];
        if (o->kind != HF_OPTION_UINT) continue;
        char arg[96], label[64];
        snprintf(label, sizeof label, "--%s", o->name);
        snprintf(arg, sizeof arg, "--%s=x12", o->name);
        run_tool(&c, spec->name, arg, NULL);
        bool one_line = strchr(c.err, '\n') == c.err + strlen(c.err) - 1;
        CHECK(c.status == 2 && one_line && has_word(c.err, label) && strstr(c.err, "'x12'"),
              "%s %s: exit 2, one line naming the option and the value", spec->name, arg);
        if (o->max != UINT64_MAX) {   /* and one past the range, in the other form */
            char value[32];
            snprintf(value, sizeof value, "%llu", (unsigned long long)o->max + 1);
            run_tool(&c, spec->name, label, value);
            char range[64];
            snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)o->min, (unsigned long long)o->max);
            CHECK(c.status == 2 && has_word(c.err, label) && strstr(c.err, range),
                  "%s %s %s: exit 2 naming the range %s", spec->name, label, value, range);
        }
    }
}

/* ---- The parser on a table of every kind ---------------------------------- */

typedef struct sample {
    bool flag;
    uint64_t count;
    bool count_given;
    double seconds;
    const char *name;
    int colour;
} sample;

static const char *const colours[] = {"red", "green", "blue", NULL};
static const sample sample_defaults = {.count = 7, .seconds = 1.5, .name = "anon", .colour = 1};
static const hf_option sample_table[] = {
    {.name = "flag", .short_name = 'f', HF_FLAG(sample, flag), .help = "a flag"},
    {.name = "count", .short_name = 'c', HF_UINT(sample, count, 2, 9), HF_GIVEN(sample, count_given),
     .value_name = "N", .help = "a count"},
    {.name = "time", HF_SECONDS(sample, seconds), .value_name = "S", .help = "seconds"},
    {.short_name = 'o', HF_STRING(sample, name), .value_name = "FILE", .help = "a name"},
    {.name = "colour", HF_WORD(sample, colour, colours), .help = "a colour"},
};
static const hf_command_spec sample_spec = {
    .name = "sample", .operands = "THING...", .summary = "a test", HF_OPTION_TABLE(sample_table),
    .defaults = &sample_defaults, .size = sizeof(sample),
};
static const hf_command_spec sample_first_spec = {
    .name = "sample", .operands = "THING...", .summary = "a test", .options_first = true,
    HF_OPTION_TABLE(sample_table), .defaults = &sample_defaults, .size = sizeof(sample),
};

/* Parses the words of LINE (at most 15) with SPEC; errors go to /dev/null. */
static int parse_line(const hf_command_spec *spec, const char *line, sample *s, char ***operands, int *count) {
    static char words[512];
    static char *argv[16];
    snprintf(words, sizeof words, "sample %s", line);
    int argc = 0;
    for (char *w = strtok(words, " "); w && argc < 15; w = strtok(NULL, " ")) argv[argc++] = w;
    argv[argc] = NULL;
    fflush(stderr);
    int saved = dup(2);
    FILE *null = fopen("/dev/null", "w");
    dup2(fileno(null), 2);
    int status = hf_options_parse(spec, argc, argv, s, operands, count);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(null);
    return status;
}

static void check_parser(void) {
    sample s;
    char **ops;
    int n;
    int rc = parse_line(&sample_spec, "a", &s, &ops, &n);
    CHECK(rc == HF_PARSED && n == 1 && !strcmp(ops[0], "a") && s.count == 7 && !s.count_given && s.seconds == 1.5 &&
              !strcmp(s.name, "anon") && s.colour == 1 && !s.flag,
          "no options: the defaults, the operand");
    rc = parse_line(&sample_spec, "--count=3 --time 0.25 -o out -f --colour blue a b", &s, &ops, &n);
    CHECK(rc == HF_PARSED && s.count == 3 && s.count_given && s.seconds == 0.25 && !strcmp(s.name, "out") &&
              s.flag && s.colour == 2 && n == 2 && !strcmp(ops[1], "b"),
          "--opt=value, --opt value, -o value, a flag, a word");
    rc = parse_line(&sample_spec, "-fc4 -ofile a", &s, &ops, &n);
    CHECK(rc == HF_PARSED && s.flag && s.count == 4 && !strcmp(s.name, "file") && n == 1,
          "short options joined: -fc4 -ofile");
    rc = parse_line(&sample_spec, "a --count 9 b", &s, &ops, &n);
    CHECK(rc == HF_PARSED && s.count == 9 && n == 2 && !strcmp(ops[0], "a") && !strcmp(ops[1], "b"),
          "options after operands, operands kept in order");
    rc = parse_line(&sample_spec, "--count 5 -- --flag -x", &s, &ops, &n);
    CHECK(rc == HF_PARSED && !s.flag && n == 2 && !strcmp(ops[0], "--flag") && !strcmp(ops[1], "-x"),
          "after --, everything is an operand");
    rc = parse_line(&sample_first_spec, "--flag a --count 3 -- b", &s, &ops, &n);
    CHECK(rc == HF_PARSED && s.flag && s.count == 7 && n == 5 && !strcmp(ops[1], "--count") && !strcmp(ops[3], "--"),
          "options first: the first operand ends the options, -- after it stays");
    CHECK(parse_line(&sample_spec, "--count 1 a", &s, &ops, &n) == 2, "below the range: exit 2");
    CHECK(parse_line(&sample_spec, "--count 10 a", &s, &ops, &n) == 2, "above the range: exit 2");
    CHECK(parse_line(&sample_spec, "--count -3 a", &s, &ops, &n) == 2, "a negative number: exit 2");
    CHECK(parse_line(&sample_spec, "--count +3 a", &s, &ops, &n) == 2, "not a number: exit 2");
    CHECK(parse_line(&sample_spec, "--count 99999999999999999999999 a", &s, &ops, &n) == 2, "too large: exit 2");
    CHECK(parse_line(&sample_spec, "--time 0 a", &s, &ops, &n) == 2 &&
              parse_line(&sample_spec, "--time -1 a", &s, &ops, &n) == 2 &&
              parse_line(&sample_spec, "--time nan a", &s, &ops, &n) == 2 &&
              parse_line(&sample_spec, "--time 2s a", &s, &ops, &n) == 2,
          "seconds must be a number greater than 0");
    CHECK(parse_line(&sample_spec, "--colour mauve a", &s, &ops, &n) == 2, "an unknown word: exit 2");
    CHECK(parse_line(&sample_spec, "--flag=yes a", &s, &ops, &n) == 2, "a flag given a value: exit 2");
    CHECK(parse_line(&sample_spec, "a --count", &s, &ops, &n) == 2, "a value missing at the end: exit 2");
    CHECK(parse_line(&sample_spec, "--nope a", &s, &ops, &n) == 2 &&
              parse_line(&sample_spec, "-z a", &s, &ops, &n) == 2,
          "unknown long and short options: exit 2");
    /* The same spec again: getopt starts afresh and the defaults come back. */
    rc = parse_line(&sample_spec, "b", &s, &ops, &n);
    CHECK(rc == HF_PARSED && s.count == 7 && !s.count_given && !s.flag && n == 1 && !strcmp(ops[0], "b"),
          "a second parse starts from the defaults");

    static captured c;
    FILE *out = tmpfile();
    hf_options_print_help(out, &sample_spec);
    read_back(out, c.out, sizeof c.out);
    CHECK(strstr(c.out, "usage: heisenfuzz sample [-f] [-c N] [--time S] [-o FILE] [--colour red|green|blue] "
                        "THING...") &&
              strstr(c.out, "(default 7)") && strstr(c.out, "(default green)") && strstr(c.out, "(default anon)") &&
              strstr(c.out, "-c, --count N"),
          "the help: the usage line, each option with its default");
}

int main(void) {
    check_parser();
    size_t specs = 0;
    for (const hf_command_spec *const *s = hf_tool_command_specs(); *s; s++, specs++) {
        check_command_help(*s);
        check_bad_numbers(*s);
    }
    CHECK(specs >= 10, "%zu commands have option tables", specs);
    return check_exit();
}
