/*
 * options.h — a command's options, declared once in a table.
 *
 * Each command describes its options (long name, short name, the kind of
 * value and the field of the command's options struct it goes to, a line of
 * help) and the values they start from.  hf_options_parse fills the struct
 * from the command line with getopt_long, so `--opt=value`, `--opt value`,
 * `-o value` and `--` work as usual; hf_options_help prints --help from the
 * same table, so the two cannot disagree.
 */
#ifndef HF_OPTIONS_H
#define HF_OPTIONS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum hf_option_kind {
    HF_OPTION_FLAG,     /* bool: true when given */
    HF_OPTION_UINT,     /* uint64_t, a whole number in [min, max] */
    HF_OPTION_SECONDS,  /* double, a number of seconds greater than 0 */
    HF_OPTION_STRING,   /* const char *: the argument as given */
    HF_OPTION_WORD,     /* int: the argument's index in words */
} hf_option_kind;

typedef struct hf_option {
    const char *name;            /* long name without "--", or NULL: short only */
    char short_name;             /* 0: long only */
    hf_option_kind kind;
    size_t offset;               /* of the value in the options struct (HF_FIELD) */
    uint64_t min, max;           /* HF_OPTION_UINT: the range allowed */
    const char *const *words;    /* HF_OPTION_WORD: the words allowed, NULL-terminated */
    bool marks_given;            /* also set the bool at given_offset when the option is given */
    size_t given_offset;
    const char *value_name;      /* the value in --help: N, FILE, DIR (not for words) */
    const char *help;            /* one line */
} hf_option;

/* The offset of FIELD in TYPE, refusing to compile unless the field is a CTYPE. */
#define HF_FIELD(type, field, ctype) \
    (offsetof(type, field) + 0 * sizeof(*(ctype **)0 = &((type *)0)->field))

/* The kind and place of an option's value, for a table entry. */
#define HF_FLAG(type, field) .kind = HF_OPTION_FLAG, .offset = HF_FIELD(type, field, bool)
#define HF_UINT(type, field, lo, hi) \
    .kind = HF_OPTION_UINT, .offset = HF_FIELD(type, field, uint64_t), .min = (lo), .max = (hi)
#define HF_SECONDS(type, field) .kind = HF_OPTION_SECONDS, .offset = HF_FIELD(type, field, double)
#define HF_STRING(type, field) .kind = HF_OPTION_STRING, .offset = HF_FIELD(type, field, const char *)
#define HF_WORD(type, field, list) .kind = HF_OPTION_WORD, .offset = HF_FIELD(type, field, int), .words = (list)
/* Also records that the option was given (when its default cannot say). */
#define HF_GIVEN(type, field) .marks_given = true, .given_offset = HF_FIELD(type, field, bool)

typedef struct hf_command_spec {
    const char *name;          /* "explore", "bench --search": what usage lines and errors start with */
    const char *operands;      /* what follows the options in the usage line: "TARGET FILE..." */
    const char *summary;       /* what the command does, for --help */
    bool options_first;        /* the options end at the first operand (what follows it is not ours) */
    const hf_option *options;
    size_t option_count;
    const void *defaults;      /* the options struct before the command line, shown in --help */
    size_t size;               /* of the options struct */
} hf_command_spec;

/* .options and .option_count from a table. */
#define HF_OPTION_TABLE(table) .options = (table), .option_count = sizeof(table) / sizeof *(table)

/* Prints "heisenfuzz: <message> (see 'heisenfuzz --help')"; returns 2.  For
 * a command line that names no command the tool knows. */
int hf_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same for a command's options or operands: the pointer is to that
 * command's own help, which lists them ("see 'heisenfuzz COMMAND --help'",
 * COMMAND as its table names it: "explore", "bench --plateau"). */
int hf_command_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* hf_options_parse's answer when the command should go on. */
enum { HF_PARSED = -1 };

/* Fills *values (spec->size bytes) with spec->defaults, then with the options
 * of argv[1..argc-1] (argv[0] is the command's name).  Returns HF_PARSED and
 * the arguments that are not options, in order, in *operands (pointers into
 * argv, whose order getopt may change) and *operand_count.  Otherwise returns
 * the exit status: 0 after printing --help to stdout, 2 after a one-line error
 * naming the option and the bad value. */
int hf_options_parse(const hf_command_spec *spec, int argc, char **argv, void *values, char ***operands,
                     int *operand_count);

/* "NAME [--opt VALUE]... OPERANDS", wrapped at the help's width, continuation
 * lines under the first option; FIRST_COLUMN is where the cursor already is. */
void hf_options_print_usage(FILE *f, const hf_command_spec *spec, int first_column);

/* The command's --help: usage line, summary, then each option with its help
 * and default. */
void hf_options_print_help(FILE *f, const hf_command_spec *spec);

/* The same help for the command run another way: COMMAND in the usage line
 * in place of "heisenfuzz NAME", and OPERANDS (NULL: none) in place of the
 * command's (a pthread program's fuzzer runs explore on itself: "./prog_fuzzer
 * --explore", no TARGET). */
void hf_options_print_help_as(FILE *f, const hf_command_spec *spec, const char *command, const char *operands);

/* Prints TEXT wrapped at the help's width, every line indented by INDENT
 * (the first from FIRST_COLUMN on). */
void hf_options_print_wrapped(FILE *f, const char *text, int first_column, int indent);

#endif
