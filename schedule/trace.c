/*
 * trace.c — recording, hashing and printing run events.
 */
#include "trace.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

void hf_trace_reset(hf_trace *t) {
    t->count = 0;
    t->staged = 0;
    XXH3_64bits_reset(&t->hash);
}

static void flush_stage(hf_trace *t) {
    XXH3_64bits_update(&t->hash, t->stage, t->staged);
    t->staged = 0;
}

static void stage(hf_trace *t, const void *bytes, size_t n) {
    if (t->staged + n > sizeof t->stage) flush_stage(t);
    if (n > sizeof t->stage) {
        XXH3_64bits_update(&t->hash, bytes, n);
        return;
    }
    memcpy(t->stage + t->staged, bytes, n);
    t->staged += n;
}

void hf_trace_add(hf_trace *t, const hf_event *e) {
    assert(e->kind < HF_EV_KIND_COUNT);
    t->ring[t->count % HF_TRACE_CAPACITY] = *e;
    t->count++;
    /* Hash the fields, never the text pointer: its address differs between
     * builds and runs, its content does not. */
    struct { uint64_t time; int64_t a, b; uint16_t task; uint8_t kind, flags; uint32_t pad; }
        packed = {e->time, e->a, e->b, e->task, e->kind, e->flags, 0};
    stage(t, &packed, sizeof packed);
    if (e->text) stage(t, e->text, strlen(e->text));
}

uint64_t hf_trace_hash(hf_trace *t) {
    flush_stage(t);
    return XXH3_64bits_digest(&t->hash);
}

const hf_event *hf_trace_event(const hf_trace *t, uint64_t i) {
    if (i >= t->count || t->count - i > HF_TRACE_CAPACITY) return NULL;
    return &t->ring[i % HF_TRACE_CAPACITY];
}

static const char *kind_word[HF_EV_KIND_COUNT] = {
    [HF_EV_SPAWN] = "spawn", [HF_EV_RUN] = "run", [HF_EV_BLOCK] = "wait",
    [HF_EV_WAKE] = "wake", [HF_EV_SLEEP] = "sleep", [HF_EV_TIMEOUT] = "timeout",
    [HF_EV_EXIT] = "exit", [HF_EV_KILL] = "killed", [HF_EV_DECIDE] = "decide", [HF_EV_NOTE] = "",
    [HF_EV_FAIL] = "FAIL", [HF_EV_MSG] = "message", [HF_EV_FAULT] = "fault",
};

static void print_message(FILE *out, const hf_event *e) {
    static const char *const what_word[] = {
        [HF_MSG_SEND] = "send", [HF_MSG_DELIVER] = "deliver", [HF_MSG_LOST_PARTITION] = "lost",
        [HF_MSG_LOST_DOWN] = "lost", [HF_MSG_UNMATCHED] = "discard",
    };
    hf_msg_event what = HF_MSG_EVENT_WHAT(e->b);
    int to = HF_MSG_EVENT_TO(e->b);
    fprintf(out, "%s %smsg#%" PRId64 " n%d->n%d %s", what <= HF_MSG_UNMATCHED ? what_word[what] : "?",
            HF_MSG_EVENT_COPY(e->b) ? "copy of " : "", e->a, HF_MSG_EVENT_FROM(e->b), to,
            e->text ? e->text : "?");
    if (what == HF_MSG_LOST_PARTITION) fprintf(out, " (partition)");
    else if (what == HF_MSG_LOST_DOWN) fprintf(out, " (n%d down)", to);
    else if (what == HF_MSG_UNMATCHED) fprintf(out, " (no call waits for it)");
    fputc('\n', out);
}

void hf_trace_print_event(FILE *out, const hf_event *e, const char *(*task_name)(int id)) {
    /* Decisive (non-default) events are marked in the margin. */
    fprintf(out, "%c %6" PRIu64 ".%09" PRIu64 "s  %-18s ",
            (e->flags & HF_EV_DEVIATED) ? '*' : ' ',
            e->time / 1000000000u, e->time % 1000000000u,
            e->task ? task_name(e->task) : "-");
    switch ((hf_event_kind)e->kind) {
    case HF_EV_SPAWN:   fprintf(out, "spawn %s\n", e->text); break;
    case HF_EV_WAKE:    fprintf(out, "wake %s\n", task_name((int)e->a)); break;
    case HF_EV_SLEEP:   fprintf(out, "sleep %" PRId64 " ns\n", e->a); break;
    case HF_EV_BLOCK:   fprintf(out, "wait %s\n", e->text); break;
    case HF_EV_TIMEOUT: fprintf(out, "timeout %s\n", e->text ? e->text : ""); break;
    case HF_EV_DECIDE:
        fprintf(out, "decide %s = %" PRId64 " (default %" PRId64 ")\n", e->text, e->a, e->b);
        break;
    case HF_EV_NOTE:    fprintf(out, "%s\n", e->text); break;
    case HF_EV_FAIL:    fprintf(out, "FAIL %s\n", e->text); break;
    case HF_EV_MSG:     print_message(out, e); break;
    case HF_EV_FAULT:   fprintf(out, "%s\n", e->text); break;
    default:            fprintf(out, "%s\n", kind_word[e->kind]); break;
    }
}

void hf_trace_print(FILE *out, const hf_trace *t, uint64_t last, const char *(*task_name)(int id)) {
    uint64_t kept = t->count < HF_TRACE_CAPACITY ? t->count : HF_TRACE_CAPACITY;
    if (last == 0 || last > kept) last = kept;
    uint64_t first = t->count - last;
    if (first > 0) fprintf(out, "  (%" PRIu64 " earlier events not shown)\n", first);
    for (uint64_t i = first; i < t->count; i++)
        hf_trace_print_event(out, hf_trace_event(t, i), task_name);
}
