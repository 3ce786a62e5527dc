/*
 * explain.c — naming the deviations of the last run from its trace.
 *
 * Every deviation leaves exactly one event marked HF_EV_DEVIATED, in the
 * order the decisions were taken: a scheduling pick the RUN of the task it
 * chose, a workload decision its DECIDE event.  So the i-th marked event
 * explains the i-th deviation — provided the counts agree, which is
 * checked rather than assumed.
 */
#include "explain.h"
#include "run.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>

/* What the task running before a pick was last seen doing, or "". */
static void context_of(char *out, size_t size, const hf_event *before) {
    out[0] = '\0';
    if (!before || !before->task) return;
    const char *who = hf_task_name(before->task);
    switch ((hf_event_kind)before->kind) {
    case HF_EV_NOTE:  snprintf(out, size, " (after %s: %s)", who, before->text); break;
    case HF_EV_BLOCK: snprintf(out, size, " (after %s waits for %s)", who, before->text); break;
    case HF_EV_EXIT:  snprintf(out, size, " (after %s exits)", who); break;
    default: break;
    }
}

static void describe(char *out, const hf_event *e, const hf_event *before) {
    char when[48];
    snprintf(when, sizeof when, "%" PRIu64 ".%09" PRIu64 " s", (uint64_t)(e->time / HF_SEC),
             (uint64_t)(e->time % HF_SEC));
    switch ((hf_event_kind)e->kind) {
    case HF_EV_RUN:
    {
        char context[HF_EXPLAIN_SIZE];
        context_of(context, sizeof context, before);
        snprintf(out, HF_EXPLAIN_SIZE, "scheduling pick at %s: %s runs%s", when, hf_task_name(e->task), context);
        break;
    }
    case HF_EV_DECIDE:
        snprintf(out, HF_EXPLAIN_SIZE, "workload decision at %s: %s = %" PRId64 " (default %" PRId64 ")",
                 when, e->text, e->a, e->b);
        break;
    default:
        snprintf(out, HF_EXPLAIN_SIZE, "decision at %s in %s", when,
                 e->task ? hf_task_name(e->task) : "the runtime");
        break;
    }
}

bool hf_explain_deviations(char (*what)[HF_EXPLAIN_SIZE], size_t count) {
    const hf_trace *t = hf_last_trace();
    const hf_decider *d = hf_last_decisions();
    assert(count <= d->deviations);
    size_t marked = 0;
    bool whole = t->count <= HF_TRACE_CAPACITY;
    for (uint64_t i = 0; whole && i < t->count; i++) {
        const hf_event *e = hf_trace_event(t, i);
        if (!(e->flags & HF_EV_DEVIATED)) continue;
        if (marked < count) describe(what[marked], e, i > 0 ? hf_trace_event(t, i - 1) : NULL);
        marked++;
    }
    if (whole && marked == d->deviations) return true;
    for (size_t i = 0; i < count; i++) snprintf(what[i], HF_EXPLAIN_SIZE, "decision (not traced)");
    return false;
}
