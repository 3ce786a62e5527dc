/*
 * options.c — the commands' one option parser and --help printer, both
 * driven by a command's table (options.h).
 *
 * getopt_long does the scanning, so the command line behaves as with any
 * GNU tool; what this file adds is the values' kinds and ranges, errors in
 * the tool's one-line form, and help generated from the table.
 */
#define _GNU_SOURCE   /* getopt_long */
#include "options.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* One line: the message, then where the help is that would have helped. */
static int usage_error(const char *command, const char *fmt, va_list ap) {
    fputs("heisenfuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    if (command) fprintf(stderr, " (see 'heisenfuzz %s --help')\n", command);
    else fputs(" (see 'heisenfuzz --help')\n", stderr);
    return 2;
}

int hf_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int status = usage_error(NULL, fmt, ap);
    va_end(ap);
    return status;
}

int hf_command_usage_error(const char *command, const char *fmt, ...) {
    assert(command && *command);
    va_list ap;
    va_start(ap, fmt);
    int status = usage_error(command, fmt, ap);
    va_end(ap);
    return status;
}

enum {
    MAX_OPTIONS = 48,     /* per command; more would not fit a --help screen */
    LONG_VALUE = 256,     /* getopt_long returns LONG_VALUE + index for a long option */
    HELP_WIDTH = 100,     /* columns of --help */
    HELP_COLUMN = 26,     /* where an option's help starts */
};

static void *field(void *values, size_t offset) { return (char *)values + offset; }
static const void *const_field(const void *values, size_t offset) { return (const char *)values + offset; }

/* A bad option of this command: "COMMAND: <message>", pointing at the
 * command's own --help, which lists its options. */
static int option_error(const hf_command_spec *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int option_error(const hf_command_spec *spec, const char *fmt, ...) {
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return hf_command_usage_error(spec->name, "%s: %s", spec->name, message);
}

/* ---- Parsing ------------------------------------------------------------- */

/* The option as the user wrote it: "-o" for a short one, else "--name". */
static void option_label(const hf_option *o, bool as_short, char *label, size_t size) {
    if (as_short || !o->name) snprintf(label, size, "-%c", o->short_name);
    else snprintf(label, size, "--%s", o->name);
}

/* The words joined: "a, b or c" (JOIN ", ", LAST " or "), or "a|b|c". */
static void word_list(const char *const *words, const char *join_with, const char *last_join, char *text,
                      size_t size) {
    size_t used = 0;
    text[0] = '\0';
    for (size_t w = 0; words[w]; w++) {
        const char *join = w == 0 ? "" : words[w + 1] ? join_with : last_join;
        int n = snprintf(text + used, size - used, "%s%s", join, words[w]);
        if (n < 0 || (size_t)n >= size - used) return;
        used += (size_t)n;
    }
}

static int parse_uint(const hf_command_spec *spec, const hf_option *o, const char *label, const char *text,
                      uint64_t *out) {
    /* strtoull alone would take " 5", "+5" and "-5" (as a huge number). */
    bool digits = isdigit((unsigned char)text[0]);
    char *end = NULL;
    errno = 0;
    unsigned long long v = digits ? strtoull(text, &end, 10) : 0;
    if (digits && !errno && !*end && v >= o->min && v <= o->max) {
        *out = v;
        return 0;
    }
    if (o->max == UINT64_MAX && o->min == 0)
        return option_error(spec, "%s needs a whole number, not '%s'", label, text);
    if (o->max == UINT64_MAX && o->min == 1)
        return option_error(spec, "%s needs a positive whole number, not '%s'", label, text);
    if (o->max == UINT64_MAX)
        return option_error(spec, "%s needs a whole number of at least %" PRIu64 ", not '%s'", label, o->min, text);
    return option_error(spec, "%s needs a whole number in %" PRIu64 "..%" PRIu64 ", not '%s'", label, o->min, o->max,
                        text);
}

static int parse_seconds(const hf_command_spec *spec, const char *label, const char *text, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || isnan(v) || !(v > 0) || isspace((unsigned char)text[0]))
        return option_error(spec, "%s needs a positive number of seconds, not '%s'", label, text);
    *out = v;
    return 0;
}

static int parse_word(const hf_command_spec *spec, const hf_option *o, const char *label, const char *text,
                      int *out) {
    for (int w = 0; o->words[w]; w++) {
        if (!strcmp(o->words[w], text)) {
            *out = w;
            return 0;
        }
    }
    char words[512];
    word_list(o->words, ", ", " or ", words, sizeof words);
    return option_error(spec, "%s is %s, not '%s'", label, words, text);
}

/* Stores one option's value; 0, or 2 after the error. */
static int store(const hf_command_spec *spec, const hf_option *o, bool as_short, const char *text, void *values) {
    char label[64];
    option_label(o, as_short, label, sizeof label);
    if (o->marks_given) *(bool *)field(values, o->given_offset) = true;
    switch (o->kind) {
    case HF_OPTION_FLAG: *(bool *)field(values, o->offset) = true; return 0;
    case HF_OPTION_UINT: return parse_uint(spec, o, label, text, field(values, o->offset));
    case HF_OPTION_SECONDS: return parse_seconds(spec, label, text, field(values, o->offset));
    case HF_OPTION_STRING: *(const char **)field(values, o->offset) = text; return 0;
    case HF_OPTION_WORD: return parse_word(spec, o, label, text, field(values, o->offset));
    }
    assert(!"an option kind without a parser");
    return 2;
}

static const hf_option *by_short_name(const hf_command_spec *spec, int c) {
    for (size_t k = 0; k < spec->option_count; k++)
        if (spec->options[k].short_name == c) return &spec->options[k];
    return NULL;
}

int hf_options_parse(const hf_command_spec *spec, int argc, char **argv, void *values, char ***operands,
                     int *operand_count) {
    assert(spec && spec->option_count <= MAX_OPTIONS && argc >= 1 && argv && values && operands && operand_count);
    assert(spec->defaults && spec->size);
    memcpy(values, spec->defaults, spec->size);

    /* '+': stop at the first operand when the rest is not ours; ':': report a
     * missing value as ':' rather than print getopt's own message. */
    struct option longs[MAX_OPTIONS + 2];
    char shorts[3 * MAX_OPTIONS + 8] = "";
    size_t n_long = 0, n_short = 0;
    if (spec->options_first) shorts[n_short++] = '+';
    shorts[n_short++] = ':';
    shorts[n_short++] = 'h';
    for (size_t k = 0; k < spec->option_count; k++) {
        const hf_option *o = &spec->options[k];
        assert((o->name || o->short_name) && o->short_name != 'h' && "-h is --help");
        assert(o->kind != HF_OPTION_WORD || o->words);
        int has_arg = o->kind == HF_OPTION_FLAG ? no_argument : required_argument;
        if (o->name) longs[n_long++] = (struct option){o->name, has_arg, NULL, LONG_VALUE + (int)k};
        if (o->short_name) {
            shorts[n_short++] = o->short_name;
            if (has_arg == required_argument) shorts[n_short++] = ':';
        }
    }
    longs[n_long++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[n_long] = (struct option){NULL, 0, NULL, 0};
    shorts[n_short] = '\0';

    /* optind 0 starts getopt afresh: commands run one another (fuzz draws
     * its chart) and the self-fuzzers run one command many times. */
    optind = 0;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        if (c == 'h') {
            hf_options_print_help(stdout, spec);
            return 0;
        }
        if (c == ':' || c == '?') {
            const hf_option *o = optopt >= LONG_VALUE ? &spec->options[optopt - LONG_VALUE]
                                 : optopt ? by_short_name(spec, optopt) : NULL;
            char label[64];
            if (o) option_label(o, optopt < LONG_VALUE, label, sizeof label);
            if (c == ':') return option_error(spec, "%s needs a value", label);
            if (o) return option_error(spec, "%s takes no value", label);
            if (optopt) return option_error(spec, "unknown option '-%c'", optopt);
            return option_error(spec, "unknown option '%s'", argv[optind - 1]);
        }
        const hf_option *o = c >= LONG_VALUE ? &spec->options[c - LONG_VALUE] : by_short_name(spec, c);
        assert(o && "getopt_long returns only the options it was given");
        if (store(spec, o, c < LONG_VALUE, optarg, values) != 0) return 2;
    }
    *operands = argv + optind;
    *operand_count = argc - optind;
    return HF_PARSED;
}

/* ---- Help ----------------------------------------------------------------- */

/* Words are separated by spaces (two after a sentence stay two); '\1' is a
 * space that does not break a line; '\n' starts a new line. */
static void print_wrapped(FILE *f, const char *text, int column, int indent) {
    bool line_empty = true;
    while (*text) {
        if (*text == '\n') {
            fprintf(f, "\n%*s", indent, "");
            column = indent;
            line_empty = true;
            text++;
            continue;
        }
        int spaces = (int)strspn(text, " ");
        text += spaces;
        if (!*text || *text == '\n') continue;
        size_t len = strcspn(text, " \n");
        if (!line_empty && column + spaces + (int)len > HELP_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            column = indent;
            line_empty = true;
        }
        if (!line_empty) {
            fprintf(f, "%*s", spaces ? spaces : 1, "");
            column += spaces ? spaces : 1;
        }
        for (size_t i = 0; i < len; i++) fputc(text[i] == '\1' ? ' ' : text[i], f);
        column += (int)len;
        line_empty = false;
        text += len;
    }
}

void hf_options_print_wrapped(FILE *f, const char *text, int first_column, int indent) {
    print_wrapped(f, text, first_column, indent);
    fputc('\n', f);
}

/* The value in a usage or help line: N, FILE, or the words a|b|c. */
static void value_text(const hf_option *o, char *text, size_t size) {
    if (o->kind == HF_OPTION_WORD) word_list(o->words, "|", "|", text, size);
    else snprintf(text, size, "%s", o->value_name ? o->value_name : "VALUE");
}

/* NAME [--opt VALUE]... OPERANDS (none when NULL). */
static void print_usage(FILE *f, const hf_command_spec *spec, const char *name, const char *operands,
                        int first_column) {
    char line[4096];
    size_t used = (size_t)snprintf(line, sizeof line, "%s", name);
    for (size_t k = 0; k < spec->option_count && used < sizeof line; k++) {
        const hf_option *o = &spec->options[k];
        char label[64], value[512] = "";
        option_label(o, o->short_name != 0, label, sizeof label);
        if (o->kind != HF_OPTION_FLAG) value_text(o, value, sizeof value);
        used += (size_t)snprintf(line + used, sizeof line - used, " [%s%s%s]", label, value[0] ? "\1" : "", value);
    }
    if (operands && used < sizeof line) snprintf(line + used, sizeof line - used, " %s", operands);
    /* Continuation lines start under the first option. */
    hf_options_print_wrapped(f, line, first_column, first_column + (int)strlen(name) + 1);
}

void hf_options_print_usage(FILE *f, const hf_command_spec *spec, int first_column) {
    print_usage(f, spec, spec->name, spec->operands, first_column);
}

/* " (default X)" from the command's defaults, or "" (flags, no default). */
static void default_text(const hf_option *o, const void *defaults, char *text, size_t size) {
    const void *v = const_field(defaults, o->offset);
    text[0] = '\0';
    switch (o->kind) {
    case HF_OPTION_FLAG: return;
    case HF_OPTION_UINT: snprintf(text, size, " (default %" PRIu64 ")", *(const uint64_t *)v); return;
    case HF_OPTION_SECONDS: snprintf(text, size, " (default %g)", *(const double *)v); return;
    case HF_OPTION_STRING:
        if (*(const char *const *)v) snprintf(text, size, " (default %s)", *(const char *const *)v);
        return;
    case HF_OPTION_WORD: snprintf(text, size, " (default %s)", o->words[*(const int *)v]); return;
    }
}

void hf_options_print_help(FILE *f, const hf_command_spec *spec) {
    char name[256];
    snprintf(name, sizeof name, "heisenfuzz %s", spec->name);
    hf_options_print_help_as(f, spec, name, spec->operands);
}

void hf_options_print_help_as(FILE *f, const hf_command_spec *spec, const char *command, const char *operands) {
    assert(spec && command);
    fputs("usage: ", f);
    print_usage(f, spec, command, operands, (int)strlen("usage: "));
    fputs("\n  ", f);
    hf_options_print_wrapped(f, spec->summary, 2, 2);
    fputs("\noptions:\n", f);
    for (size_t k = 0; k < spec->option_count; k++) {
        const hf_option *o = &spec->options[k];
        char left[600], value[512] = "";
        if (o->kind != HF_OPTION_FLAG) value_text(o, value, sizeof value);
        if (o->short_name && o->name)
            snprintf(left, sizeof left, "  -%c, --%s%s%s", o->short_name, o->name, value[0] ? " " : "", value);
        else if (o->name)
            snprintf(left, sizeof left, "      --%s%s%s", o->name, value[0] ? " " : "", value);
        else
            snprintf(left, sizeof left, "  -%c%s%s", o->short_name, value[0] ? " " : "", value);
        int width = (int)strlen(left);
        if (width + 2 > HELP_COLUMN) fprintf(f, "%s\n%*s", left, HELP_COLUMN, "");
        else fprintf(f, "%s%*s", left, HELP_COLUMN - width, "");
        /* The help and its default wrap as one text. */
        char deflt[256], text[1024];
        default_text(o, spec->defaults, deflt, sizeof deflt);
        snprintf(text, sizeof text, "%s%s", o->help, deflt);
        hf_options_print_wrapped(f, text, HELP_COLUMN, HELP_COLUMN);
    }
    fprintf(f, "  -h, --help%*sthis text\n", HELP_COLUMN - 12, "");
}
