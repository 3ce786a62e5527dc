/*
 * targets.c — the table of targets for the tool.
 */
#include "targets.h"
#include "tool.h"

#include <stdio.h>
#include <string.h>

#define HF_TARGET_ENTRY(sym) &sym,
const hf_target *const hf_targets[] = { HF_FOR_EACH_TARGET(HF_TARGET_ENTRY) NULL };
#undef HF_TARGET_ENTRY

const hf_target *hf_target_find(const char *name) {
    for (const hf_target *const *t = hf_targets; *t; t++)
        if (strcmp((*t)->name, name) == 0) return *t;
    return NULL;
}

const hf_target *hf_tool_target(const char *name) {
    const hf_target *t = hf_target_find(name);
    if (!t) fprintf(stderr, "heisenfuzz: unknown target '%s' (see 'heisenfuzz list')\n", name);
    return t;
}

static const char buggy_suffix[] = "_buggy";

bool hf_target_is_buggy(const hf_target *t) {
    size_t n = strlen(t->name), s = sizeof buggy_suffix - 1;
    return n > s && strcmp(t->name + n - s, buggy_suffix) == 0;
}

void hf_target_family(const hf_target *t, char *out, size_t size) {
    size_t n = strlen(t->name);
    if (hf_target_is_buggy(t)) n -= sizeof buggy_suffix - 1;
    snprintf(out, size, "%.*s", (int)n, t->name);
}
