/*
 * minimize.c — delta debugging over a run's deviations (see minimize.h).
 *
 * The search keeps one current schedule: the deviations its last run
 * actually took, re-read from the decider after every accepted edit.  An
 * edit to an early decision can shift what later decision indices mean, so
 * the run that follows an edit may take deviations the edit did not ask
 * for; re-reading them keeps the current schedule exact, and the rule
 * "accept only what is simpler" keeps the search from going round in
 * circles.  Simpler means, in this order: fewer deviations, fewer bytes,
 * smaller values (first difference wins), earlier indices.  Each is a
 * natural number or a tuple of a fixed length, so no chain of simpler
 * schedules is infinite and the search ends even without a budget.
 *
 * Undoing deviations may change the story of the run (that is the point:
 * the faults that do not matter go).  Lowering a value may not: a smaller
 * delay or count is kept only when the run tells the same story, the same
 * events in the same order, numbers aside.  Smaller numbers should make a
 * reproduction easier to read, not turn it into another one (a shorter
 * delay of the same message can fail the same property through other
 * errors, and then the minimized timeline no longer shows what the crash
 * showed).
 */
#include "minimize.h"
#include "behaviour.h"
#include "contain.h"
#include "tool.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- Goals --------------------------------------------------------------- */

void hf_goal_from_result(hf_goal *g, const hf_result *r) {
    assert(r->outcome != HF_OK);
    memset(g, 0, sizeof *g);
    g->outcome = r->outcome;
    snprintf(g->message, sizeof g->message, "%s", r->message);
}

bool hf_goal_met(const hf_goal *g, const hf_result *r) {
    if (r->outcome == HF_OK) return false;
    if (!g->any_outcome && r->outcome != g->outcome) return false;
    return strcmp(r->message, g->message) == 0;
}

void hf_goal_describe(const hf_goal *g, char *out, size_t size) {
    snprintf(out, size, "%s \"%s\"", g->any_outcome ? "failure" : hf_outcome_name(g->outcome), g->message);
}

/* ---- The search's state ---------------------------------------------------- */

/* What a deviation is about, so that it can be found again in a run that
 * took other paths before it: the kind of decision (decide.h's tag) and
 * how many decisions of that kind the run took before it ("the fault of
 * the second write").  Not known past the end of the decision log. */
typedef struct meaning {
    bool known;
    hf_decision_tag tag;
    uint32_t rank;
} meaning;

typedef struct search {
    const hf_target *target;
    const hf_goal *goal;
    const hf_minimize_options *options;
    hf_deviation *current;      /* the schedule to beat: HF_DEVIATIONS_KEPT slots */
    size_t count;
    size_t size;                /* its encoded length */
    bool reproduced;            /* current meets the goal */
    uint64_t story;             /* current's story (story_of) */
    uint64_t runs;
    double started;
    double last_report;
    bool stopped;               /* the budget ran out */
    uint8_t *buffer;            /* for encoding candidates */
    size_t buffer_cap;
    hf_deviation *candidate;    /* HF_DEVIATIONS_KEPT slots */
    meaning *meaning;           /* of each current deviation: HF_DEVIATIONS_KEPT slots */
    hf_decision_log *log;       /* the decisions of the last run, by kind */
    const char *phase;          /* for the progress line */
    /* Until the goal is reproduced, the part of the input its run never
     * reached (the next deviation's index, the bytes after its skip) goes
     * after every candidate: under a later build the input may fail
     * before the decisions that made its original failure, and undoing an
     * early deviation can bring them back into play. */
    bool has_tail;
    uint64_t tail_next;
    uint8_t *tail;
    size_t tail_size;
    uint32_t original_deviations;
    size_t original_size;
    struct run_view *view;      /* the last run's */
} search;

static void *must_alloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "heisenfuzz: out of memory while minimizing\n");
        exit(2);
    }
    return p;
}

enum { SKIP_ONLY = 255 };   /* decide.h: a skip byte that names no deviation */

/* Bytes missing at the end of an input read as 0 (decide.h), so the high
 * zero bytes of the last value need not be written. */
static size_t droppable_zeros(const hf_deviation *devs, size_t count) {
    if (count == 0) return 0;
    const hf_deviation *last = &devs[count - 1];
    unsigned used = 0;
    for (uint64_t v = last->value; v && used < last->width; v >>= 8) used++;
    return last->width - used;
}

static size_t encoded_size(const hf_deviation *devs, size_t count) {
    return hf_encode_deviations(devs, count, NULL, 0) - droppable_zeros(devs, count);
}

/* Encodes `devs` (and the tail, while it applies) into s->buffer, growing
 * it as needed; returns the length. */
static size_t encode(search *s, const hf_deviation *devs, size_t count) {
    bool with_tail = s->has_tail && !s->reproduced;
    uint64_t at = count ? devs[count - 1].index + 1 : 0;   /* where the tail's gap starts */
    assert(!with_tail || s->tail_next >= at);
    size_t need = hf_encode_deviations(devs, count, NULL, 0);
    size_t total = need + (with_tail ? (s->tail_next - at) / SKIP_ONLY + 1 + s->tail_size : 0);
    if (total > s->buffer_cap) {
        free(s->buffer);
        s->buffer_cap = total * 2;
        s->buffer = must_alloc(s->buffer_cap);
    }
    hf_encode_deviations(devs, count, s->buffer, s->buffer_cap);
    if (with_tail) {
        size_t len = need;
        uint64_t gap = s->tail_next - at;
        for (; gap >= SKIP_ONLY; gap -= SKIP_ONLY) s->buffer[len++] = SKIP_ONLY;
        s->buffer[len++] = (uint8_t)gap;
        memcpy(s->buffer + len, s->tail, s->tail_size);
        assert(len + s->tail_size == total);
        return total;
    }
    return total - droppable_zeros(devs, count);
}

static void report(search *s, bool always) {
    if (!s->options->progress) return;
    double now = hf_wall_seconds();
    if (!always && now - s->last_report < 1.0) return;
    s->last_report = now;
    fprintf(s->options->progress,
            "minimize: #%llu runs  deviations %zu (from %u)  bytes %zu (from %zu)  %s  %.1f s\n",
            (unsigned long long)s->runs, s->count, s->original_deviations, s->size, s->original_size,
            s->phase, now - s->started);
    fflush(s->options->progress);
}

static bool budget_left(search *s) {
    if (s->stopped) return false;
    const hf_minimize_options *o = s->options;
    if ((o->max_runs && s->runs >= o->max_runs) ||
        (o->max_seconds > 0 && hf_wall_seconds() - s->started >= o->max_seconds))
        s->stopped = true;
    return !s->stopped;
}

/* ---- Simpler ------------------------------------------------------------- */

static bool simpler(const hf_deviation *a, size_t a_count, size_t a_size,
                    const hf_deviation *b, size_t b_count, size_t b_size) {
    if (a_count != b_count) return a_count < b_count;
    if (a_size != b_size) return a_size < b_size;
    for (size_t i = 0; i < a_count; i++)
        if (a[i].value != b[i].value) return a[i].value < b[i].value;
    for (size_t i = 0; i < a_count; i++)
        if (a[i].index != b[i].index) return a[i].index < b[i].index;
    return false;
}

/* ---- Story ----------------------------------------------------------------- */

/* A hash of what happened in a run, in order, numbers aside: who did what
 * (task, event kind, text without its digits) and between whom (message
 * endpoints, fault kinds, task ids), but no time, no value of a decision,
 * no number in a note.  A run longer than the trace ring is told by its
 * length and the events the ring kept. */
static uint64_t story_of(const hf_trace *t) {
    uint64_t h = hf_mix64(t->count);
    uint64_t first = t->count > HF_TRACE_CAPACITY ? t->count - HF_TRACE_CAPACITY : 0;
    for (uint64_t i = first; i < t->count; i++) {
        const hf_event *e = hf_trace_event(t, i);
        assert(e);
        int64_t who = 0;
        switch (e->kind) {
        case HF_EV_SPAWN: case HF_EV_WAKE: case HF_EV_FAULT: who = e->a; break;
        case HF_EV_MSG: who = e->b; break;
        default: break;
        }
        h = hf_mix64(h ^ hf_action_hash(e->kind, e->text) ^ (uint64_t)e->task << 48 ^ (uint64_t)who);
    }
    return h;
}

/* ---- Running a schedule ----------------------------------------------------- */

/* What the search reads of a run.  In-process it is read from the runtime
 * after the run; with options->contain, in the child that made the run,
 * or from the run as it stood when the child crashed. */
struct run_view {
    hf_result result;
    uint32_t decisions;                      /* the run's; only the first HF_LOG_DECISIONS have a tag */
    hf_decision_tag tag[HF_LOG_DECISIONS];
    uint8_t width[HF_LOG_DECISIONS];
    uint32_t deviations;                     /* all the run took; only the first HF_DEVIATIONS_KEPT kept */
    hf_deviation taken[HF_DEVIATIONS_KEPT];
    uint64_t next_deviation;                 /* the decider's position when the run ended (decide.h) */
    size_t pos;
    uint64_t story;
};
typedef struct run_view run_view;

static void view_last_run(run_view *v, const hf_result *r) {
    const hf_decider *d = hf_last_decisions();
    v->result = *r;
    v->deviations = d->deviations;
    memcpy(v->taken, d->taken, (d->deviations < HF_DEVIATIONS_KEPT ? d->deviations : HF_DEVIATIONS_KEPT)
                                   * sizeof *d->taken);
    v->next_deviation = d->next_deviation;
    v->pos = d->pos;
    v->story = story_of(hf_last_trace());
    const hf_decision_log *log = d->log;
    assert(log);
    v->decisions = log->decisions;
    uint32_t tagged = log->decisions < HF_LOG_DECISIONS ? log->decisions : HF_LOG_DECISIONS;
    memcpy(v->tag, log->tag, tagged * sizeof *log->tag);
    memcpy(v->width, log->width, tagged * sizeof *log->width);
}

/* The meaning of each of `devs` (in increasing index order) in run v. */
static void mean(const run_view *v, const hf_deviation *devs, size_t count, meaning *out) {
    uint32_t seen[256] = {0};   /* decisions of each tag so far */
    uint64_t at = 0;
    for (size_t i = 0; i < count; i++) {
        assert(i == 0 || devs[i].index > devs[i - 1].index);
        out[i].known = devs[i].index < v->decisions && devs[i].index < HF_LOG_DECISIONS;
        if (!out[i].known) continue;
        for (; at < devs[i].index; at++) seen[v->tag[at]]++;
        out[i].tag = v->tag[at];
        out[i].rank = seen[out[i].tag];
    }
}

/* The index of the decision of run v that means m, or UINT64_MAX. */
static uint64_t find_meaning(const run_view *v, meaning m) {
    uint32_t tagged = v->decisions < HF_LOG_DECISIONS ? v->decisions : HF_LOG_DECISIONS;
    uint32_t rank = 0;
    for (uint32_t at = 0; at < tagged; at++)
        if (v->tag[at] == m.tag && rank++ == m.rank) return at;
    return UINT64_MAX;
}

typedef struct run_request {
    const hf_target *target;
    const uint8_t *data;
    size_t size;
    hf_decision_log *log;
} run_request;

static void view_run(void *context, void *shared) {
    const run_request *c = context;
    hf_result r;
    hf_run_logged(c->target, c->data, c->size, c->log, &r);
    view_last_run(shared, &r);
}

/* A crash is the run's failure (hf_tool_crash_result), with the decisions
 * taken up to it. */
static void view_crash(void *context, void *shared, const char *what) {
    (void)context;
    hf_result r;
    hf_tool_crash_result(&r, what);
    view_last_run(shared, &r);
}

/* Runs data[0..size) into `v`; false when a contained run was lost. */
static bool run_viewed(search *s, const uint8_t *data, size_t size) {
    run_request c = {s->target, data, size, s->log};
    return hf_contain_if(s->options->contain, view_run, view_crash, &c, s->view, sizeof *s->view) !=
           HF_CONTAINED_LOST;
}

/* ---- Trying a candidate -------------------------------------------------- */

/* Runs the schedule `devs` into s->view, counted; false when a contained
 * run was lost. */
static bool run_counted(search *s, const hf_deviation *devs, size_t count) {
    bool ran = run_viewed(s, s->buffer, encode(s, devs, count));
    s->runs++;
    report(s, false);
    return ran;
}

/* Runs the schedule `devs`.  When it meets the goal (and, with
 * `same_story`, tells the current schedule's story) and what the run took
 * is simpler than the current schedule, that becomes the current one. */
static bool run_schedule(search *s, const hf_deviation *devs, size_t count, bool same_story) {
    run_view *v = s->view;
    if (!run_counted(s, devs, count) || !hf_goal_met(s->goal, &v->result)) return false;
    if (v->deviations > HF_DEVIATIONS_KEPT) return false;   /* not re-encodable */
    size_t taken_size = encoded_size(v->taken, v->deviations);
    if (s->reproduced && !simpler(v->taken, v->deviations, taken_size, s->current, s->count, s->size))
        return false;
    if (same_story && v->story != s->story) return false;
    s->story = v->story;
    memcpy(s->current, v->taken, v->deviations * sizeof *v->taken);
    s->count = v->deviations;
    mean(v, s->current, s->count, s->meaning);
    s->size = taken_size;
    s->reproduced = true;
    report(s, true);
    return true;
}

/* As run_schedule, within the budget. */
static bool try_schedule(search *s, const hf_deviation *devs, size_t count, bool same_story) {
    return budget_left(s) && run_schedule(s, devs, count, same_story);
}

/* ---- Delta debugging over the deviations ---------------------------------- */

/* The candidate: the current deviations in [from, to) only (keep = true),
 * or all but those. */
static size_t take_chunk(search *s, size_t from, size_t to, bool keep) {
    size_t n = 0;
    for (size_t i = 0; i < s->count; i++)
        if ((i >= from && i < to) == keep) s->candidate[n++] = s->current[i];
    return n;
}

/* Zeller's ddmin: split the deviations into `chunks` parts, try each part
 * alone, then everything but each part; on success go on with the smaller
 * schedule, else split finer, down to single deviations.  Later chunks go
 * first: undoing a late decision leaves the meaning of the earlier ones
 * alone.  Sets *proven when the last round tried undoing every single
 * deviation, in vain. */
static void ddmin(search *s, bool *proven) {
    size_t chunks = 2;
    *proven = false;
    while (!s->stopped) {
        size_t n = s->count;
        if (n == 0) { *proven = s->reproduced; break; }
        if (chunks > n) chunks = n;
        bool removed = false;
        s->phase = chunks == n ? "undoing single deviations" : "undoing groups of deviations";
        if (chunks > 2) {
            for (size_t c = chunks; c-- > 0 && !removed && !s->stopped;) {
                size_t k = take_chunk(s, c * n / chunks, (c + 1) * n / chunks, true);
                if (try_schedule(s, s->candidate, k, false)) { removed = true; chunks = 2; }
            }
        }
        for (size_t c = chunks; c-- > 0 && !removed && !s->stopped;) {
            size_t k = take_chunk(s, c * n / chunks, (c + 1) * n / chunks, false);
            if (try_schedule(s, s->candidate, k, false)) {
                removed = true;
                chunks = chunks > 2 ? chunks - 1 : 2;
            }
        }
        if (removed) continue;
        if (s->stopped) break;
        if (chunks >= n) { *proven = s->reproduced; break; }
        chunks = chunks * 2 < n ? chunks * 2 : n;
    }
}

/* ---- Undoing a deviation, re-aiming the later ones ------------------------- */

enum { REAIM_MAX = 3 };   /* decisions a later deviation may move either way */

/* Deviation i undone, the later ones moved to the decisions that mean what
 * they meant (meaning, above), as a run with only the deviations before i
 * takes them. */
static bool undo_and_reaim_by_meaning(search *s, size_t i) {
    if (!budget_left(s) || !run_counted(s, s->current, i)) return false;
    memcpy(s->candidate, s->current, i * sizeof *s->current);
    size_t n = i;
    for (size_t j = i + 1; j < s->count; j++) {
        if (!s->meaning[j].known) return false;
        uint64_t at = find_meaning(s->view, s->meaning[j]);
        if (at == UINT64_MAX || (n > 0 && at <= s->candidate[n - 1].index)) return false;
        hf_deviation d = s->current[j];
        d.index = at;
        d.width = s->view->width[at];
        if (d.width < 8) d.value &= (UINT64_C(1) << (8 * d.width)) - 1;   /* what that decision reads */
        s->candidate[n++] = d;
    }
    return try_schedule(s, s->candidate, n, false);
}

/* Undoing a deviation, a scheduling pick above all, can change how many
 * decisions come before a later one, so that the later deviation's index
 * now names another decision (the delay of another message) and the
 * failure seems to need the first.  For each deviation but the last, from
 * the last, tries undoing it with every later deviation moved to the
 * decision that means what it meant, then moved by the same few
 * decisions, -1, +1, -2, +2, -3, +3. */
static bool undo_and_reaim(search *s) {
    s->phase = "undoing deviations, re-aiming later ones";
    for (size_t i = s->count ? s->count - 1 : 0; i-- > 0 && !s->stopped;) {
        if (undo_and_reaim_by_meaning(s, i)) return true;
        for (int k = 1; k <= 2 * REAIM_MAX && !s->stopped; k++) {
            int64_t shift = k % 2 ? -(int64_t)(k + 1) / 2 : k / 2;
            size_t n = 0;
            bool fits = true;
            for (size_t j = 0; j < s->count && fits; j++) {
                if (j == i) continue;
                hf_deviation d = s->current[j];
                if (j > i) {
                    if (shift < 0 && d.index < (uint64_t)-shift) fits = false;
                    d.index += (uint64_t)shift;   /* wraps back for a negative shift */
                }
                if (n > 0 && d.index <= s->candidate[n - 1].index) fits = false;   /* indices increase */
                s->candidate[n++] = d;
            }
            if (fits && try_schedule(s, s->candidate, n, false)) return true;
        }
    }
    return false;
}

/* ---- Lowering values ----------------------------------------------------- */

/* Deviation i of the current schedule with another value: kept when the
 * goal and the story hold and it is simpler. */
static bool try_value(search *s, size_t i, uint64_t value) {
    memcpy(s->candidate, s->current, s->count * sizeof *s->current);
    s->candidate[i].value = value;
    return try_schedule(s, s->candidate, s->count, true);
}

/* The value v = 0 is the nearest choice past the default; smaller values
 * are less far from the undisturbed schedule.  For each deviation, from the
 * last, tries 0, 1, then v with its low bits cut (v>>k ... v>>1), smallest
 * first; the first that keeps the goal and the story, and the one tried
 * before it, bracket the smallest value that does, which bisection finds. */
static bool lower_values(search *s) {
    bool changed = false;
    s->phase = "lowering values";
    for (size_t i = s->count; i-- > 0 && !s->stopped;) {
        if (i >= s->count) continue;   /* an accepted edit shortened the schedule */
        uint64_t v = s->current[i].value;
        if (s->current[i].width == 0 || v == 0) continue;
        int top = 63;
        while (!(v >> top)) top--;
        uint64_t works = v, fails = 0;
        for (int k = top + 1; k >= 1 && !s->stopped; k--) {
            uint64_t lower = k > top ? 0 : v >> k;
            if (try_value(s, i, lower)) { changed = true; works = lower; break; }
            fails = lower;
        }
        /* An accepted run is re-read, so deviation i may have moved. */
        while (works - fails > 1 && !s->stopped && i < s->count && s->current[i].value == works) {
            uint64_t mid = fails + (works - fails) / 2;
            if (try_value(s, i, mid)) { changed = true; works = mid; }
            else fails = mid;
        }
    }
    return changed;
}

/* ---- The whole search ----------------------------------------------------- */

hf_minimize_status hf_minimize(const hf_target *t, const hf_goal *goal, const uint8_t *data, size_t size,
                               const hf_minimize_options *options, hf_minimized *out) {
    assert(t && goal && options && out);
    assert(data || size == 0);
    memset(out, 0, sizeof *out);
    search s = {.target = t, .goal = goal, .options = options, .phase = "replaying the input"};
    s.started = s.last_report = hf_wall_seconds();
    s.current = must_alloc(HF_DEVIATIONS_KEPT * sizeof *s.current);
    s.candidate = must_alloc(HF_DEVIATIONS_KEPT * sizeof *s.candidate);
    s.meaning = must_alloc(HF_DEVIATIONS_KEPT * sizeof *s.meaning);
    s.log = must_alloc(sizeof *s.log);

    /* The input as given, then as re-encoded: what its run took, which
     * drops bytes the run never read. */
    s.view = must_alloc(sizeof *s.view);
    run_view *v = s.view;
    bool ran = run_viewed(&s, data, size);
    s.runs = 1;
    out->goal_was_met = ran && hf_goal_met(goal, &v->result);
    s.original_deviations = ran ? v->deviations : 0;
    s.original_size = size;
    s.count = s.original_deviations < HF_DEVIATIONS_KEPT ? s.original_deviations : HF_DEVIATIONS_KEPT;
    memcpy(s.current, v->taken, s.count * sizeof *s.current);
    mean(v, s.current, s.count, s.meaning);
    /* The tail: only when every deviation before it was recorded. */
    if (ran && v->deviations <= HF_DEVIATIONS_KEPT && v->next_deviation != UINT64_MAX) {
        assert(v->pos <= size);
        s.has_tail = true;
        s.tail_next = v->next_deviation;
        s.tail_size = size - v->pos;
        s.tail = must_alloc(s.tail_size);
        memcpy(s.tail, data + v->pos, s.tail_size);
    }
    s.size = encode(&s, s.current, s.count);
    memcpy(s.candidate, s.current, s.count * sizeof *s.current);
    run_schedule(&s, s.candidate, s.count, false);

    /* If the input fails some other way, ddmin doubles as the search for a
     * reduction that fails the goal's way: the first one found is kept. */
    bool proven = false;
    for (;;) {
        ddmin(&s, &proven);
        if (!s.reproduced || s.stopped) break;
        /* Re-aiming, or a lowered value, can make a deviation removable:
         * ddmin again. */
        if (undo_and_reaim(&s)) continue;
        if (s.stopped || !lower_values(&s) || s.stopped) break;
    }
    hf_minimize_status status = s.reproduced ? HF_MINIMIZED : HF_NOT_REPRODUCED;
    if (s.reproduced) {
        /* Leave the minimized run as the last one, for its trace (a
         * contained run leaves nothing here to read). */
        size_t n = encode(&s, s.current, s.count);
        if (!options->contain) {
            hf_result r;
            hf_run(t, s.buffer, n, &r);
            assert(hf_goal_met(goal, &r));
        }
        out->deviations = must_alloc(s.count * sizeof *s.current);
        memcpy(out->deviations, s.current, s.count * sizeof *s.current);
        out->count = s.count;
        out->bytes = must_alloc(n);
        if (n) memcpy(out->bytes, s.buffer, n);   /* with n == 0 the buffer may be NULL */
        out->size = n;
    }
    out->original_deviations = s.original_deviations;
    out->runs = s.runs;
    out->seconds = hf_wall_seconds() - s.started;
    out->budget_ran_out = s.stopped;
    out->one_minimal = s.reproduced && proven && !s.stopped;
    s.phase = status == HF_MINIMIZED ? (out->one_minimal ? "done, 1-minimal" : "stopped: budget ran out")
                                     : "goal not reproduced";
    report(&s, true);
    free(s.current);
    free(s.candidate);
    free(s.meaning);
    free(s.log);
    free(s.buffer);
    free(s.tail);
    free(s.view);
    return status;
}

void hf_minimized_free(hf_minimized *m) {
    free(m->deviations);
    free(m->bytes);
    memset(m, 0, sizeof *m);
}
