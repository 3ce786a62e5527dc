/*
 * invocation.c — a pthread program's arguments, stdin, file faults and crashes:
 * from the command line, the environment or the record beside a schedule
 * file, to the layer (invocation.h).
 */
#define _GNU_SOURCE   /* realpath */
#include "invocation.h"
#include "files.h"
#include "targets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Each switch: its option after `--` (its record line is the option
 * without the dashes), the variable that turns it on, and the layer's
 * setter. */
static const struct {
    const char *option, *variable;
    void (*apply)(bool on);
} switches[HF_SWITCHES] = {
    [HF_SWITCH_FILE_FAULTS] = {"--file-faults", "HEISENFUZZ_FILE_FAULTS", hf_program_set_file_faults},
    [HF_SWITCH_CRASHES] = {"--crashes", "HEISENFUZZ_CRASHES", hf_program_set_crashes},
};

/* The switch whose option (dashes 2) or record line (dashes 0) is `name`,
 * or -1. */
static int switch_named(const char *name, size_t dashes) {
    for (int k = 0; k < HF_SWITCHES; k++)
        if (!strcmp(name, switches[k].option + 2 - dashes)) return k;
    return -1;
}

bool hf_invocation_given(const hf_invocation *inv) {
    bool any = inv->argc > 0 || inv->stdin_path;
    for (int k = 0; k < HF_SWITCHES; k++) any = any || inv->on[k];
    return any;
}

static void clear(hf_invocation *inv) { memset(inv, 0, sizeof *inv); }

/* The absolute path of an existing stdin file, kept as given when it does
 * not exist (hf_invocation_apply names it then). */
static char *stdin_path(const char *path) {
    char resolved[PATH_MAX];
    return strdup(realpath(path, resolved) ? resolved : path);
}

int hf_invocation_from_command_line(int *argc, char **argv, hf_invocation *inv, const char *prog) {
    int dash = -1;
    for (int i = 1; i < *argc && dash < 0; i++)
        if (!strcmp(argv[i], "--")) dash = i;
    if (dash < 0) return 0;
    clear(inv);
    int i = dash + 1, k;
    for (; i < *argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "--stdin") || !strncmp(a, "--stdin=", 8)) {
            const char *file = a[7] == '=' ? a + 8 : (i + 1 < *argc ? argv[++i] : NULL);
            if (!file || !*file) {
                fprintf(stderr, "%s: --stdin needs a file (the program's stdin)\n", prog);
                return 2;
            }
            free(inv->stdin_path);
            inv->stdin_path = stdin_path(file);
        } else if ((k = switch_named(a, 2)) >= 0) {
            inv->on[k] = true;
        } else {
            break;
        }
    }
    for (; i < *argc; i++) {
        if (inv->argc == HF_INVOCATION_MAX_ARGS) {
            fprintf(stderr, "%s: more than %d arguments for the program\n", prog, HF_INVOCATION_MAX_ARGS);
            return 2;
        }
        if (strchr(argv[i], '\n')) {
            fprintf(stderr, "%s: the program's argument %d holds a newline, which a record cannot keep\n", prog,
                    inv->argc + 1);
            return 2;
        }
        inv->args[inv->argc++] = argv[i];
    }
    argv[dash] = NULL;
    *argc = dash;
    return 1;
}

/* Splits `text` (a copy is kept) at any of `separators` into inv's arguments. */
static void split_into(hf_invocation *inv, const char *text, const char *separators) {
    char *copy = strdup(text);
    if (!copy) return;
    char *saved;
    for (char *w = strtok_r(copy, separators, &saved); w && inv->argc < HF_INVOCATION_MAX_ARGS;
         w = strtok_r(NULL, separators, &saved))
        inv->args[inv->argc++] = w;
}

void hf_invocation_from_env(hf_invocation *inv) {
    clear(inv);
    const char *program_args = getenv("HEISENFUZZ_PROGRAM_ARGS"), *args = getenv("HEISENFUZZ_ARGS");
    if (program_args) split_into(inv, program_args, "\n");
    else if (args) split_into(inv, args, " \t");
    const char *in = getenv("HEISENFUZZ_STDIN");
    if (in && *in) inv->stdin_path = stdin_path(in);
    for (int k = 0; k < HF_SWITCHES; k++) {
        const char *value = getenv(switches[k].variable);
        inv->on[k] = value && !strcmp(value, "1");
    }
}

void hf_invocation_to_env(const hf_invocation *inv) {
    size_t length = 1;
    for (int i = 0; i < inv->argc; i++) length += strlen(inv->args[i]) + 1;
    char *joined = malloc(length);
    if (!joined) return;
    joined[0] = '\0';
    for (int i = 0; i < inv->argc; i++) {
        if (i) strcat(joined, "\n");
        strcat(joined, inv->args[i]);
    }
    /* An empty value still says "no arguments" over a HEISENFUZZ_ARGS set. */
    setenv("HEISENFUZZ_PROGRAM_ARGS", joined, 1);
    free(joined);
    if (inv->stdin_path) setenv("HEISENFUZZ_STDIN", inv->stdin_path, 1);
    else unsetenv("HEISENFUZZ_STDIN");
    for (int k = 0; k < HF_SWITCHES; k++) {
        if (inv->on[k]) setenv(switches[k].variable, "1", 1);
        else unsetenv(switches[k].variable);
    }
}

int hf_invocation_read_record(const char *schedule, hf_invocation *inv) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s.args", schedule) >= (int)sizeof path) return 0;
    if (access(path, F_OK) != 0) return 0;
    char error[PATH_MAX + 128];
    size_t size;
    uint8_t *bytes = hf_read_file(path, &size, error, sizeof error);
    char *text = bytes ? malloc(size + 1) : NULL;
    if (!text) {
        fprintf(stderr, "heisenfuzz: %s\n", bytes ? "out of memory" : error);
        free(bytes);
        return 2;
    }
    /* hf_read_file's bytes end with no NUL. */
    memcpy(text, bytes, size);
    text[size] = '\0';
    free(bytes);
    if (strlen(text) != size) {
        fprintf(stderr, "heisenfuzz: %s: not a record (it holds a NUL byte)\n", path);
        free(text);
        return 2;
    }
    hf_invocation read = {0};
    int k;
    char *saved, *line = strtok_r(text, "\n", &saved);
    for (int number = 1; line; line = strtok_r(NULL, "\n", &saved), number++) {
        if (line[0] == '#' || line[0] == '\0') continue;
        if (!strncmp(line, "arg ", 4) && read.argc < HF_INVOCATION_MAX_ARGS) {
            read.args[read.argc++] = line + 4;
        } else if (!strncmp(line, "stdin ", 6) && line[6]) {
            read.stdin_path = line + 6;
        } else if ((k = switch_named(line, 0)) >= 0) {
            read.on[k] = true;
        } else {
            fprintf(stderr, "heisenfuzz: %s: line %d is not 'arg VALUE', 'stdin PATH', 'file-faults' or 'crashes'\n",
                    path, number);
            free(text);
            return 2;
        }
    }
    /* The strings point into `text`, which lives as long as the invocation:
     * kept where LeakSanitizer sees it, at a replay's exit too. */
    static char **texts;
    static size_t text_count;
    char **grown = realloc(texts, (text_count + 1) * sizeof *grown);
    if (grown) {
        texts = grown;
        texts[text_count++] = text;
    }
    *inv = read;
    return 1;
}

bool hf_invocation_format(const hf_invocation *inv, char *text, size_t size) {
    size_t used = 0;
    int n = snprintf(text, size, "# heisenfuzz: what this schedule's program runs with: arguments, stdin, file faults, crashes\n");
    if (n < 0 || (size_t)n >= size) return false;
    used = (size_t)n;
    for (int i = 0; i < inv->argc; i++) {
        if (strchr(inv->args[i], '\n')) return false;
        n = snprintf(text + used, size - used, "arg %s\n", inv->args[i]);
        if (n < 0 || (size_t)n >= size - used) return false;
        used += (size_t)n;
    }
    if (inv->stdin_path) {
        n = snprintf(text + used, size - used, "stdin %s\n", inv->stdin_path);
        if (n < 0 || (size_t)n >= size - used) return false;
        used += (size_t)n;
    }
    for (int k = 0; k < HF_SWITCHES; k++) {
        if (!inv->on[k]) continue;
        n = snprintf(text + used, size - used, "%s\n", switches[k].option + 2);
        if (n < 0 || (size_t)n >= size - used) return false;
        used += (size_t)n;
    }
    return true;
}

int hf_invocation_write_record(const char *schedule, const hf_invocation *inv) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s.args", schedule) >= (int)sizeof path) {
        fprintf(stderr, "heisenfuzz: %s.args: the path is too long\n", schedule);
        return -1;
    }
    if (!hf_invocation_given(inv)) {
        /* A record left from another invocation would be wrong for this file. */
        unlink(path);
        return 0;
    }
    static char text[64 * 1024];
    if (!hf_invocation_format(inv, text, sizeof text)) {
        fprintf(stderr, "heisenfuzz: %s: the program's arguments do not fit a record\n", path);
        return -1;
    }
    char error[PATH_MAX + 128];
    if (hf_write_file(path, text, strlen(text), error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        return -1;
    }
    return 0;
}

int hf_invocation_apply(const hf_invocation *inv) {
    if (inv->stdin_path) {
        char error[PATH_MAX + 128];
        size_t size;
        uint8_t *data = hf_read_file(inv->stdin_path, &size, error, sizeof error);
        if (!data) {
            fprintf(stderr, "heisenfuzz: the program's stdin: %s\n", error);
            return 2;
        }
        hf_program_set_stdin(data, size);
        free(data);
    } else {
        hf_program_set_stdin(NULL, 0);
    }
    hf_program_set_args(inv->argc, inv->args);
    for (int k = 0; k < HF_SWITCHES; k++) switches[k].apply(inv->on[k]);
    return 0;
}
