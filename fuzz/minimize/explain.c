/*
 * explain.c — naming the deviations of a schedule by what they changed.
 *
 * Not every decision leaves an event of its own (a network delay shows
 * only in when things happen later), and some leave several, so events
 * cannot simply be paired with deviations in order.  Instead the schedule
 * is run on growing prefixes of its deviation list: the runs with the first
 * k and the first k+1 deviations are identical up to where deviation k is
 * taken, and the first event where they part is what deviation k did.
 * That event then names it: a marked RUN is a scheduling pick, a marked
 * DECIDE a workload decision, another marked event a decision of the
 * simulated world, and an unmarked one an effect seen first there.
 */
#define _POSIX_C_SOURCE 200809L   /* open_memstream */
#include "explain.h"
#include "contain.h"
#include "run.h"

#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The events of one run as hashes, for finding where two runs part.
 * hash[i - first] is event i; events before `first` fell out of the ring. */
typedef struct digest {
    uint64_t first, count;
    uint64_t hash[HF_TRACE_CAPACITY];
} digest;

static uint64_t event_hash(const hf_event *e) {
    struct { uint64_t time; int64_t a, b; uint16_t task; uint8_t kind, flags; uint32_t pad; }
        packed = {e->time, e->a, e->b, e->task, e->kind, e->flags, 0};
    uint64_t h = XXH3_64bits(&packed, sizeof packed);
    return e->text ? XXH3_64bits_withSeed(e->text, strlen(e->text), h) : h;
}

static void digest_last_run(digest *d) {
    const hf_trace *t = hf_last_trace();
    d->count = t->count;
    d->first = t->count > HF_TRACE_CAPACITY ? t->count - HF_TRACE_CAPACITY : 0;
    for (uint64_t i = d->first; i < d->count; i++) d->hash[i - d->first] = event_hash(hf_trace_event(t, i));
}

/* The first event where run `b` differs from run `a`, or b.count when b
 * shows none (it is a prefix of a, or equal to it). */
static uint64_t parting(const digest *a, const digest *b) {
    uint64_t from = a->first > b->first ? a->first : b->first;
    uint64_t to = a->count < b->count ? a->count : b->count;
    for (uint64_t i = from; i < to; i++)
        if (a->hash[i - a->first] != b->hash[i - b->first]) return i;
    return a->count == b->count ? b->count : to;
}

/* An event as the timeline prints it, without the margin and the time. */
static void event_words(char *out, size_t size, const hf_event *e) {
    char *line = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&line, &length);
    if (!f) { snprintf(out, size, "?"); return; }
    hf_trace_print_event(f, e, hf_task_name);
    fclose(f);
    const char *p = line ? line + 1 : "";            /* past the '*' margin */
    while (*p == ' ') p++;
    while (*p && *p != ' ') p++;                      /* past the time */
    size_t n = 0;
    for (bool space = true; *p && *p != '\n' && n + 1 < size; p++) {
        if (*p == ' ' && space) continue;            /* columns become single spaces */
        space = *p == ' ';
        out[n++] = *p;
    }
    while (n > 0 && out[n - 1] == ' ') n--;
    out[n] = '\0';
    free(line);
}

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
    char when[48], words[HF_EXPLAIN_SIZE], context[HF_EXPLAIN_SIZE];
    snprintf(when, sizeof when, "%" PRIu64 ".%09" PRIu64 " s", (uint64_t)(e->time / HF_SEC),
             (uint64_t)(e->time % HF_SEC));
    bool marked = e->flags & HF_EV_DEVIATED;
    if (marked && e->kind == HF_EV_RUN) {
        context_of(context, sizeof context, before);
        snprintf(out, HF_EXPLAIN_SIZE, "scheduling pick at %s: %s runs%s", when, hf_task_name(e->task), context);
    } else if (marked && e->kind == HF_EV_DECIDE) {
        snprintf(out, HF_EXPLAIN_SIZE, "workload decision at %s: %s = %" PRId64 " (default %" PRId64 ")",
                 when, e->text, e->a, e->b);
    } else {
        event_words(words, sizeof words, e);
        snprintf(out, HF_EXPLAIN_SIZE, "%s at %s: %s", marked ? "world decision" : "decision, first seen", when,
                 words);
    }
}

/* One run of a prefix: its digest, and the words for where it parts from
 * the run before it (the prefix one deviation shorter), if any. */
typedef struct step {
    digest after;
    char what[HF_EXPLAIN_SIZE];
} step;

typedef struct step_run {
    const hf_target *target;
    const uint8_t *bytes;
    size_t size;
    const digest *before;   /* NULL for the first prefix, the empty one */
} step_run;

static void step_from_last_run(const digest *before, step *st) {
    digest_last_run(&st->after);
    if (!before) return;
    uint64_t i = parting(before, &st->after);
    const hf_trace *trace = hf_last_trace();
    const hf_event *e = hf_trace_event(trace, i);
    if (e) describe(st->what, e, i > 0 ? hf_trace_event(trace, i - 1) : NULL);
    else snprintf(st->what, HF_EXPLAIN_SIZE, "decision (no effect seen in the kept trace)");
}

static void step_work(void *context, void *shared) {
    const step_run *c = context;
    hf_result r;
    hf_run(c->target, c->bytes, c->size, &r);
    step_from_last_run(c->before, shared);
}

/* A crash ends the run where it stood, which still parts from the run
 * before it where the deviation took effect. */
static void step_crashed(void *context, void *shared, const char *what) {
    (void)what;
    step_from_last_run(((const step_run *)context)->before, shared);
}

static bool run_step(const step_run *c, bool contain, step *st) {
    return hf_contain_if(contain, step_work, step_crashed, (void *)c, st, sizeof *st) != HF_CONTAINED_LOST;
}

void hf_explain_deviations(const hf_target *t, const hf_deviation *devs, size_t count, bool contain,
                           char (*what)[HF_EXPLAIN_SIZE]) {
    assert(t && (devs || count == 0));
    size_t cap = hf_encode_deviations(devs, count, NULL, 0);
    uint8_t *bytes = malloc(cap ? cap : 1);
    step *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    if (!bytes || !a || !b) {
        for (size_t k = 0; k < count; k++) snprintf(what[k], HF_EXPLAIN_SIZE, "decision (out of memory)");
    } else if (!run_step(&(step_run){t, NULL, 0, NULL}, contain, a)) {
        for (size_t k = 0; k < count; k++) snprintf(what[k], HF_EXPLAIN_SIZE, "decision (its run was lost)");
    } else {
        for (size_t k = 0; k < count; k++) {
            size_t n = hf_encode_deviations(devs, k + 1, bytes, cap);
            if (!run_step(&(step_run){t, bytes, n, &a->after}, contain, b)) {
                snprintf(what[k], HF_EXPLAIN_SIZE, "decision (its run was lost)");
                continue;
            }
            snprintf(what[k], HF_EXPLAIN_SIZE, "%s", b->what);
            step *swap = a;
            a = b;
            b = swap;
        }
    }
    free(bytes);
    free(a);
    free(b);
}
