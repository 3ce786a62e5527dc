/*
 * prop.c — evaluating properties, and the catalogue the linker gathers in
 * section hf_props (see HF_PROP_ in hf.h).
 */
#include "prop.h"
#include "world.h"

#include <assert.h>

/* The linker defines these for a section named like a C identifier; weak,
 * so that a binary without any property still links. */
extern hf_prop *const __start_hf_props[] __attribute__((weak));
extern hf_prop *const __stop_hf_props[] __attribute__((weak));

const char *hf_prop_kind_name(hf_prop_kind kind) {
    switch (kind) {
    case HF_ALWAYS: return "always";
    case HF_ALWAYS_OR_UNREACHABLE: return "always_or_unreachable";
    case HF_SOMETIMES: return "sometimes";
    case HF_REACHABLE: return "reachable";
    case HF_UNREACHABLE: return "unreachable";
    case HF_EVENTUALLY: return "eventually";
    }
    return "?";
}

void hf_prop_eval(hf_prop *p, bool cond) {
    p->reached++;
    if (cond) p->held++;
    if (cond && (p->kind == HF_SOMETIMES || p->kind == HF_REACHABLE))
        hf_features_add(&hf_w.features, HF_FEAT_PROPERTY, hf_action_hash(p->kind, p->message), 0);
    /* An eventually property means "by the end of the quiet period": it is
     * evaluated only then (sim.c's end checks). */
    assert(p->kind != HF_EVENTUALLY || hf_w.in_end_checks);
    bool violated = (p->kind == HF_ALWAYS || p->kind == HF_ALWAYS_OR_UNREACHABLE ||
                     p->kind == HF_EVENTUALLY) ? !cond
                  : p->kind == HF_UNREACHABLE;
    if (violated) hf_fail(HF_FAIL_PROPERTY, p, "%s", p->message);
}

size_t hf_prop_count(void) {
    if (!__start_hf_props) return 0;
    return (size_t)(__stop_hf_props - __start_hf_props);
}

hf_prop *hf_prop_at(size_t i) {
    assert(i < hf_prop_count());
    return __start_hf_props[i];
}

bool hf_prop_unmet(const hf_prop *p) {
    switch (p->kind) {
    case HF_ALWAYS: case HF_REACHABLE: case HF_EVENTUALLY: return p->reached == 0;
    case HF_SOMETIMES: return p->held == 0;
    case HF_ALWAYS_OR_UNREACHABLE: return false;
    case HF_UNREACHABLE: return p->reached != 0;
    }
    return false;
}

size_t hf_prop_report(FILE *out) {
    size_t unmet = 0;
    for (size_t i = 0; i < hf_prop_count(); i++) {
        const hf_prop *p = hf_prop_at(i);
        bool bad = hf_prop_unmet(p);
        unmet += bad;
        fprintf(out, "%-6s %-21s reached %-10llu held %-10llu \"%s\" (%s:%d)\n",
                bad ? "UNMET" : "ok", hf_prop_kind_name(p->kind),
                (unsigned long long)p->reached, (unsigned long long)p->held,
                p->message, p->file, p->line);
    }
    return unmet;
}
