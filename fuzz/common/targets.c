/*
 * targets.c — the registry of targets: what the linker gathered in section
 * hf_targets (HF_DEFINE_TARGET), sorted by name so that listings do not
 * depend on link order.
 */
#include "targets.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Weak, so that a binary without any target (a runtime fuzzer) still links. */
extern const hf_target *const __start_hf_targets[] __attribute__((weak));
extern const hf_target *const __stop_hf_targets[] __attribute__((weak));

static int by_name(const void *a, const void *b) {
    return strcmp((*(const hf_target *const *)a)->name, (*(const hf_target *const *)b)->name);
}

/* Built once; reachable until exit, so never reported as a leak. */
static const hf_target **sorted;
static size_t sorted_count;

const hf_target *const *hf_target_list(void) {
    if (sorted) return sorted;
    size_t n = __start_hf_targets ? (size_t)(__stop_hf_targets - __start_hf_targets) : 0;
    sorted = calloc(n + 1, sizeof *sorted);
    if (!sorted) {
        fprintf(stderr, "heisenfuzz: out of memory listing %zu targets\n", n);
        exit(2);
    }
    for (size_t i = 0; i < n; i++) sorted[i] = __start_hf_targets[i];
    qsort(sorted, n, sizeof *sorted, by_name);
    for (size_t i = 1; i < n; i++) {
        if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0) {
            /* Replay and minimize find a target by name: two would be ambiguous. */
            fprintf(stderr, "heisenfuzz: two targets are named '%s' (HF_DEFINE_TARGET)\n", sorted[i]->name);
            exit(2);
        }
    }
    sorted_count = n;
    return sorted;
}

size_t hf_target_count(void) {
    hf_target_list();
    return sorted_count;
}

/* A target known only at run time (a pthread program's fuzzer holds its
 * program outside the registry, which every binary with the runtime shares). */
static const hf_target *added;

void hf_target_add(const hf_target *t) { added = t; }

const hf_target *hf_target_added(void) { return added; }

const hf_target *hf_target_find(const char *name) {
    if (added && strcmp(added->name, name) == 0) return added;
    for (const hf_target *const *t = hf_target_list(); *t; t++)
        if (strcmp((*t)->name, name) == 0) return *t;
    return NULL;
}

/* What a binary built for a target is named: NAME and one of these. */
static const char *const endings[] = {"_bytes_fuzzer", "_fuzzer", "_afl_mutator.so", "_afl", "_replay"};

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The length of endings[e] when `base` is a name followed by it, else 0. */
static size_t ending_length(const char *base, size_t e) {
    size_t n = strlen(base), k = strlen(endings[e]);
    return n > k && strcmp(base + n - k, endings[e]) == 0 ? k : 0;
}

const hf_target *hf_target_for_program(const char *program, char *error, size_t error_size) {
    const char *named = getenv("HEISENFUZZ_TARGET");
    if (named && *named) {
        const hf_target *t = hf_target_find(named);
        if (!t) snprintf(error, error_size, "HEISENFUZZ_TARGET: no target '%s' in %s", named, program);
        return t;
    }
    if (added) return added;   /* the binary's own target (a pthread program's fuzzer) */
    if (hf_target_count() == 1) return hf_target_list()[0];
    if (hf_target_count() == 0 && hf_pthread_program_linked()) return &hf_pthread_program_target;
    if (hf_target_count() == 0) {
        snprintf(error, error_size, "%s defines no target (HF_DEFINE_TARGET)", program);
        return NULL;
    }
    const char *base = base_name(program);
    for (size_t e = 0; e < sizeof endings / sizeof *endings; e++) {
        size_t k = ending_length(base, e);
        if (k == 0) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - k), base);
        const hf_target *t = hf_target_find(name);
        if (t) return t;
    }
    snprintf(error, error_size, "%s holds %zu targets and its name picks none: name it NAME_fuzzer or set "
             "HEISENFUZZ_TARGET=NAME", program, hf_target_count());
    return NULL;
}

void hf_target_log_name(const hf_target *t, const char *program, char *name, size_t size) {
    assert(t && program && name && size > 1);
    snprintf(name, size, "%s", t->name);
    if (!hf_target_is_pthread_program(t)) return;
    const char *base = base_name(program);
    size_t n = strlen(base);
    for (size_t e = 0; e < sizeof endings / sizeof *endings; e++) {
        size_t k = ending_length(base, e);
        if (k > 0) {
            n -= k;
            break;
        }
    }
    if (n == 0) return;
    if (n > size - 1) n = size - 1;
    /* A log's TARGET is one word of printable bytes (discovery.h). */
    for (size_t i = 0; i < n; i++) name[i] = base[i] > ' ' && base[i] <= '~' ? base[i] : '_';
    name[n] = '\0';
}

static const char buggy_suffix[] = "_buggy";

bool hf_target_is_pthread_program(const hf_target *t) { return t == &hf_pthread_program_target; }

bool hf_target_is_buggy(const hf_target *t) {
    size_t n = strlen(t->name), s = sizeof buggy_suffix - 1;
    return n > s && strcmp(t->name + n - s, buggy_suffix) == 0;
}

void hf_target_family(const hf_target *t, char *out, size_t size) {
    size_t n = strlen(t->name);
    if (hf_target_is_buggy(t)) n -= sizeof buggy_suffix - 1;
    snprintf(out, size, "%.*s", (int)n, t->name);
}
