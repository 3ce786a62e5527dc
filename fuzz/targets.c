/*
 * targets.c — the table of targets for the tool.
 */
#include "targets.h"

#include <string.h>

#define HF_TARGET_ENTRY(sym) &sym,
const hf_target *const hf_targets[] = { HF_FOR_EACH_TARGET(HF_TARGET_ENTRY) NULL };
#undef HF_TARGET_ENTRY

const hf_target *hf_target_find(const char *name) {
    for (const hf_target *const *t = hf_targets; *t; t++)
        if (strcmp((*t)->name, name) == 0) return *t;
    return NULL;
}
