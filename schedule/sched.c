/*
 * sched.c — tasks, the scheduler, the logical clock and the run itself.
 *
 * The scheduler runs in whichever context gives up the processor: a task
 * that yields or blocks chooses its successor and switches straight to it,
 * so a scheduling step costs one context switch, and none at all when the
 * decision is "go on".  The OS thread's own context (main) only starts the
 * run and receives control back when the run is over, by completion or
 * failure.  Tasks still suspended then are unwound (resumed with `killed`
 * set, which longjmps to the bottom of their stack), so every fiber ends
 * properly and ASan's fake stacks are released.
 *
 * Choosing the next task is a decision over the runnable tasks in id order.
 * The default is the undisturbed schedule: at a switch point the running
 * task goes on; otherwise the next runnable task after it, round robin.
 * Time only moves when nothing is runnable: it jumps to the earliest timer.
 */
#include "prop.h"
#include "world.h"

#include <assert.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

hf_world hf_w;
void (*hf_switch_hook)(hf_task *from, hf_task *to);

static jmp_buf main_env;     /* where a failure noticed in the main context lands */

static void task_entry(void);

/* ---- Events -------------------------------------------------------------- */

static void emit_as(int task, hf_event_kind kind, int64_t a, int64_t b, const char *text, uint8_t flags) {
    hf_event e = {hf_w.now, a, b, text, (uint16_t)task, (uint8_t)kind, flags};
    hf_trace_add(&hf_w.trace, &e);
    if (task && kind != HF_EV_RUN) hf_w.tasks[task - 1].action = hf_action_hash(kind, text);
}

void hf_emit(hf_event_kind kind, int64_t a, int64_t b, const char *text, uint8_t flags) {
    emit_as(hf_w.current && !hf_w.in_callback ? hf_w.current->id : 0, kind, a, b, text, flags);
}

/* ---- Failure ------------------------------------------------------------- */

static void transfer(hf_task *self, hf_task *next);
static void waitq_remove(hf_waitq *q, hf_task *t);

void hf_fail(hf_outcome outcome, const hf_prop *p, const char *fmt, ...) {
    assert(outcome != HF_OK);
    assert(!hf_w.stopping);
    hf_result *r = &hf_w.result;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    r->outcome = outcome;
    r->property = p;
    r->failed_task = hf_w.current ? hf_w.current->id : 0;
    hf_emit(HF_EV_FAIL, 0, 0, hf_strdup(r->message), 0);
    hf_w.stopping = true;
    if (hf_w.current) transfer(hf_w.current, NULL);   /* resumed only to unwind */
    else longjmp(main_env, 1);
    abort();
}

/* ---- Timers: a binary min-heap on (deadline, seq) ------------------------ */

static bool timer_before(const hf_timer *a, const hf_timer *b) {
    return a->deadline != b->deadline ? a->deadline < b->deadline : a->seq < b->seq;
}

static void timer_swap(size_t i, size_t j) {
    hf_timer tmp = hf_w.timers[i];
    hf_w.timers[i] = hf_w.timers[j];
    hf_w.timers[j] = tmp;
}

static void timer_push(uint64_t deadline, hf_task *t, hf_timer_fn *fn, void *arg) {
    if (hf_w.timer_count == hf_w.timer_cap) {
        size_t cap = hf_w.timer_cap ? 2 * hf_w.timer_cap : 64;
        hf_timer *grown = realloc(hf_w.timers, cap * sizeof *grown);
        if (!grown) { fprintf(stderr, "heisenfuzz: out of memory for timers\n"); abort(); }
        hf_w.timers = grown;
        hf_w.timer_cap = cap;
    }
    size_t i = hf_w.timer_count++;
    hf_w.timers[i] = (hf_timer){deadline, hf_w.timer_seq++, t, t ? t->timer_gen : 0, fn, arg};
    while (i > 0 && timer_before(&hf_w.timers[i], &hf_w.timers[(i - 1) / 2])) {
        timer_swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static hf_timer timer_pop(void) {
    assert(hf_w.timer_count > 0);
    hf_timer top = hf_w.timers[0];
    hf_w.timers[0] = hf_w.timers[--hf_w.timer_count];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < hf_w.timer_count && timer_before(&hf_w.timers[l], &hf_w.timers[m])) m = l;
        if (r < hf_w.timer_count && timer_before(&hf_w.timers[r], &hf_w.timers[m])) m = r;
        if (m == i) break;
        timer_swap(i, m);
        i = m;
    }
    return top;
}

static bool timer_is_live(const hf_timer *t) {
    return !t->task || (t->gen == t->task->timer_gen && t->task->state == TASK_BLOCKED);
}

void hf_at(uint64_t when, hf_timer_fn *fn, void *arg) {
    assert(fn && when >= hf_w.now);
    timer_push(when, NULL, fn, arg);
}

/* A task woken before its deadline leaves its timer behind; it must not make
 * time jump, so stale timers are dropped before the earliest is looked at. */
static bool live_timer_pending(void) {
    while (hf_w.timer_count && !timer_is_live(&hf_w.timers[0])) timer_pop();
    return hf_w.timer_count > 0;
}

/* Nothing is runnable: jump to the earliest deadline and fire every timer
 * due then. */
static void advance_time(void) {
    uint64_t deadline = hf_w.timers[0].deadline;
    if (deadline > hf_w.max_time)
        hf_fail(HF_FAIL_TIME, NULL, "the workload never finished: logical time budget of %.3f s ran out",
                (double)hf_w.max_time / HF_SEC);
    if (deadline > hf_w.now) hf_w.now = deadline;
    while (hf_w.timer_count && hf_w.timers[0].deadline <= hf_w.now) {
        hf_timer t = timer_pop();
        if (!timer_is_live(&t)) continue;
        if (!t.task) {
            hf_w.in_callback = true;
            t.fn(t.arg);
            hf_w.in_callback = false;
            continue;
        }
        t.task->timed_out = true;
        if (t.task->waiting_in) emit_as(t.task->id, HF_EV_TIMEOUT, 0, 0, t.task->waiting_for, 0);
        hf_wake(t.task);
    }
}

/* ---- Choosing the next task ---------------------------------------------- */

/* Every change of a task's state goes through here, so that the count of
 * runnable tasks is always at hand: a point where only the running task can
 * run is no decision, and then costs no scan of the tasks. */
static void set_state(hf_task *t, hf_task_state state) {
    hf_w.runnable_count += (state == TASK_RUNNABLE) - (t->state == TASK_RUNNABLE);
    uint64_t bit = 1ull << ((t->id - 1) % 64);
    if (state == TASK_RUNNABLE) hf_w.runnable_bits[(t->id - 1) / 64] |= bit;
    else hf_w.runnable_bits[(t->id - 1) / 64] &= ~bit;
    t->state = state;
    assert(hf_w.runnable_count >= 0 && hf_w.runnable_count <= hf_w.task_count);
}

static int live_tasks;   /* tasks not done and not daemons: the run's work */

static const char *deadlock_report(void) {
    static char report[sizeof hf_w.result.message];
    size_t used = (size_t)snprintf(report, sizeof report, "deadlock:");
    for (int i = 0; i < hf_w.task_count && used < sizeof report; i++) {
        const hf_task *t = &hf_w.tasks[i];
        if (t->state == TASK_BLOCKED)
            used += (size_t)snprintf(report + used, sizeof report - used, " %s waits for %s;",
                                     t->name, t->waiting_for);
    }
    return report;
}

void hf_fail_step_budget(void) {
    hf_fail(HF_FAIL_STEPS, NULL, "the workload never finished: step budget of %llu ran out",
            (unsigned long long)hf_w.max_steps);
}

/* The index, among the runnable tasks (in id order), that the undisturbed
 * schedule would run. */
static int default_choice(hf_task *const *runnable, int n, const hf_task *self, hf_why why) {
    if (why == WHY_POINT) {
        for (int i = 0; i < n; i++) if (runnable[i] == self) return i;
        assert(!"a task at a switch point must be runnable");
    }
    if (self)
        for (int i = 0; i < n; i++) if (runnable[i]->id > self->id) return i;
    return 0;   /* wrap around to the lowest id */
}

/* Returns the task to run next, or NULL when the run is over (all work
 * done).  Fails the run on deadlock or an exhausted budget. */
static hf_task *choose_next(hf_why why) {
    hf_task *self = hf_w.current;
    hf_w.accesses = 0;
    if (hf_w.runnable_count == 1 && self && self->state == TASK_RUNNABLE) {
        hf_step_alone();   /* whatever the reason, the running task goes on */
        return self;
    }
    for (;;) {
        /* In the world, not on the stack: a 3 KiB frame on every step is
         * expensive under ASan's stack-use-after-return checking. */
        hf_task **runnable = hf_w.runnable;
        int n = 0;
        /* In id order, from the bits: a task is a few hundred bytes, and
         * reading every one's state was most of a step with many tasks. */
        for (int w = 0; w * 64 < hf_w.task_count; w++)
            for (uint64_t bits = hf_w.runnable_bits[w]; bits; bits &= bits - 1)
                runnable[n++] = &hf_w.tasks[w * 64 + __builtin_ctzll(bits)];
        assert(n == hf_w.runnable_count);
        if (n > 0) {
            if (++hf_w.steps > hf_w.max_steps) hf_fail_step_budget();
            int dflt = default_choice(runnable, n, self, why);
            /* PCT (a strategy or a generator) needs to know which tasks these
             * are; POS, SURW and ordering constraints what they are about to
             * access, which only a target that preempts at accesses knows. */
            bool facts = hf_w.target->preempt_at_accesses;
            for (int i = 0; i < n; i++) {
                hf_w.runnable_ids[i] = runnable[i]->id;
                if (!facts) continue;
                hf_w.runnable_facts[i] = runnable[i]->facts;
                hf_w.runnable_facts[i].calm_events = hf_profile_calm_events(runnable[i]->id, runnable[i]->spawned);
                hf_w.runnable_facts[i].running = why == WHY_POINT && runnable[i] == self;
            }
            hf_w.decider.task_options = hf_w.runnable_ids;
            hf_w.decider.task_facts = facts ? hf_w.runnable_facts : NULL;
            int pick = (int)hf_decide_task(&hf_w.decider, (uint64_t)n, (uint64_t)dflt);
            hf_w.decider.task_options = NULL;
            hf_w.decider.task_facts = NULL;
            hf_w.last_pick_deviated = pick != dflt;
            return runnable[pick];
        }
        if (live_timer_pending()) { advance_time(); continue; }
        if (live_tasks == 0) return NULL;
        hf_fail(HF_FAIL_DEADLOCK, NULL, "%s", deadlock_report());
    }
}

/* Leaves `self` (NULL: the main context) for `next` (NULL: back to main,
 * the run is over).  Returns when `self` is scheduled again. */
static void transfer(hf_task *self, hf_task *next) {
    if (next == self) return;
    if (next && next != hf_w.last_run && !hf_w.stopping && !next->killed) {
        hf_features_add(&hf_w.features, HF_FEAT_INTERLEAVING,
                        hf_w.last_run ? hf_w.last_run->action : 0, next->action);
        emit_as(next->id, HF_EV_RUN, 0, 0, NULL, hf_w.last_pick_deviated ? HF_EV_DEVIATED : 0);
        hf_w.last_run = next;
    }
    if (next && !next->started) {
        if (!hf_fiber_create(&next->fiber, task_entry))
            hf_fail(HF_FAIL_LIMIT, NULL, "no memory for the stack of task %s", next->name);
        next->started = true;
    }
    hf_fiber *from = self ? &self->fiber : &hf_w.main_fiber;
    hf_fiber *to = next ? &next->fiber : &hf_w.main_fiber;
    hf_w.current = next;
    if (hf_switch_hook) hf_switch_hook(self, next);
    if (self && self->state == TASK_DONE) hf_fiber_switch_final(from, to);
    hf_fiber_switch(from, to);
    if (self && self->killed) longjmp(self->exit_env, 1);
}

static void reschedule(hf_why why) {
    hf_task *self = hf_current();
    transfer(self, choose_next(why));
}

/* ---- Tasks --------------------------------------------------------------- */

static void finish_task(hf_task *t) {
    set_state(t, TASK_DONE);
    if (!(t->flags & HF_TASK_DAEMON)) live_tasks--;
    if (hf_w.stopping) return;
    emit_as(t->id, t->killed ? HF_EV_KILL : HF_EV_EXIT, 0, 0, NULL, 0);
    hf_task *joiner;
    while ((joiner = hf_waitq_pop(&t->joiners))) hf_wake(joiner);
}

static void task_entry(void) {
    hf_task *self = hf_w.current;
    if (setjmp(self->exit_env) == 0) self->fn(self->arg);
    finish_task(self);
    hf_task *next;
    if (hf_w.stopping) next = NULL;
    else if (self->killed && hf_w.killer) next = hf_w.killer;   /* unwound by hf_task_kill */
    else next = choose_next(WHY_EXIT);
    transfer(self, next);
}

void hf_task_kill(hf_task *t) {
    assert(!hf_w.in_callback && "a timer callback cannot kill a task");
    hf_task *self = hf_current();
    if (t->state == TASK_DONE) return;
    if (t->waiting_in) waitq_remove(t->waiting_in, t);
    t->timer_gen++;              /* its timers are void */
    t->killed = true;
    if (t == self) {
        hf_w.killer = NULL;      /* nobody to return to: schedule as on exit */
        longjmp(self->exit_env, 1);
    }
    if (!t->started) {
        finish_task(t);
        return;
    }
    hf_w.killer = self;
    transfer(self, t);           /* t unwinds, then switches straight back */
    hf_w.killer = NULL;
}

void hf_end_run(void) {
    hf_task *self = hf_current();
    assert(!hf_w.stopping && !hf_w.in_callback);
    hf_w.stopping = true;
    transfer(self, NULL);   /* resumed only to unwind */
    abort();
}

hf_task *hf_current(void) {
    assert(hf_w.current && "this call needs a running task of a run");
    return hf_w.current;
}

int hf_spawn_flags(const char *name, hf_task_fn *fn, void *arg, unsigned flags) {
    assert(name && fn);
    if (hf_w.task_count == HF_MAX_TASKS)
        hf_fail(HF_FAIL_LIMIT, NULL, "more than %d tasks in one run", HF_MAX_TASKS);
    hf_task *t = &hf_w.tasks[hf_w.task_count];
    memset(t, 0, sizeof *t);
    t->id = ++hf_w.task_count;
    t->node = hf_w.current && !hf_w.in_callback ? hf_w.current->node : 0;
    if (hf_w.current && !hf_w.in_callback) {
        t->parent = hf_w.current->id;
        hf_w.current->spawned++;
    }
    hf_happens_spawn(t->parent ? hf_w.current : NULL, t);
    t->name = name;
    t->fn = fn;
    t->arg = arg;
    t->flags = flags;
    t->state = TASK_DONE;        /* not counted until it is set runnable */
    set_state(t, TASK_RUNNABLE);
    if (!(flags & HF_TASK_DAEMON)) live_tasks++;
    hf_emit(HF_EV_SPAWN, t->id, 0, name, 0);
    return t->id;
}

int hf_spawn(const char *name, hf_task_fn *fn, void *arg) {
    return hf_spawn_flags(name, fn, arg, 0);
}

int hf_self(void) { return hf_current()->id; }

hf_task *hf_task_by_id(int id) {
    assert(id >= 1 && id <= hf_w.task_count);
    return &hf_w.tasks[id - 1];
}

const char *hf_task_name(int id) {
    return id >= 1 && id <= hf_w.task_count ? hf_w.tasks[id - 1].name : "?";
}

void hf_switch_point(void) { reschedule(WHY_POINT); }
void hf_yield(void) { reschedule(WHY_YIELD); }

void hf_join(int id) {
    hf_task *t = hf_task_by_id(id);
    assert(t != hf_current());
    if (t->state != TASK_DONE) hf_block(&t->joiners, hf_printf("join %s", t->name), 0);
    assert(t->state == TASK_DONE);
    hf_happens_join(hf_current(), t);
}

/* ---- Blocking and waking ------------------------------------------------- */

static void waitq_remove(hf_waitq *q, hf_task *t) {
    hf_task **link = &q->head, *prev = NULL;
    while (*link && *link != t) { prev = *link; link = &(*link)->wait_next; }
    assert(*link == t);
    *link = t->wait_next;
    if (q->tail == t) q->tail = prev;
    t->wait_next = NULL;
    t->waiting_in = NULL;
}

hf_task *hf_waitq_pop(hf_waitq *q) {
    hf_task *t = q->head;
    if (t) waitq_remove(q, t);
    return t;
}

static void block_self(hf_waitq *q, const char *waiting_for, uint64_t timeout_ns, bool traced) {
    assert(!hf_w.in_callback && "a timer callback cannot block");
    hf_task *self = hf_current();
    set_state(self, TASK_BLOCKED);
    self->waiting_for = waiting_for;
    self->timed_out = false;
    self->waiting_in = q;
    if (q) {
        if (q->tail) q->tail->wait_next = self; else q->head = self;
        q->tail = self;
        self->wait_next = NULL;
    }
    if (timeout_ns) timer_push(hf_w.now + timeout_ns, self, NULL, NULL);
    if (traced) hf_emit(HF_EV_BLOCK, 0, 0, waiting_for, 0);
    reschedule(WHY_BLOCK);
}

void hf_block(hf_waitq *q, const char *waiting_for, uint64_t timeout_ns) {
    block_self(q, waiting_for, timeout_ns, true);
}

void hf_wake(hf_task *t) {
    assert(t->state == TASK_BLOCKED);
    if (t->waiting_in) waitq_remove(t->waiting_in, t);
    t->waiting_for = NULL;
    set_state(t, TASK_RUNNABLE);
    t->timer_gen++;
}

uint64_t hf_now(void) { return hf_w.now; }

void hf_sleep(uint64_t ns) {
    hf_emit(HF_EV_SLEEP, (int64_t)ns, 0, NULL, 0);
    if (ns == 0) { hf_yield(); return; }
    block_self(NULL, "sleep", ns, false);
}

/* ---- Workload decisions -------------------------------------------------- */

static void trace_decision(const char *what, uint32_t deviations_before, uint64_t value, uint64_t dflt) {
    if (hf_w.decider.deviations != deviations_before)
        hf_emit(HF_EV_DECIDE, (int64_t)value, (int64_t)dflt, what, HF_EV_DEVIATED);
}

uint64_t hf_pick(const char *what, uint64_t lo, uint64_t hi, uint64_t dflt) {
    uint32_t before = hf_w.decider.deviations;
    uint64_t v = hf_decide_range(&hf_w.decider, HF_DECISION_WORKLOAD, lo, hi, dflt);
    trace_decision(what, before, v, dflt);
    return v;
}

bool hf_chance(const char *what, bool dflt) {
    uint32_t before = hf_w.decider.deviations;
    bool v = hf_decide_bool(&hf_w.decider, HF_DECISION_WORKLOAD, dflt);
    trace_decision(what, before, v, dflt);
    return v;
}

uint64_t hf_random64(const char *what, uint64_t dflt) {
    uint32_t before = hf_w.decider.deviations;
    uint64_t v = hf_decide_u64(&hf_w.decider, HF_DECISION_WORKLOAD, dflt);
    trace_decision(what, before, v, dflt);
    return v;
}

/* ---- Memory and notes ---------------------------------------------------- */

void *hf_alloc(size_t size) { return hf_arena_alloc(&hf_w.arena, size); }

char *hf_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(hf_alloc(n), s, n);
}

char *hf_vprintf(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = hf_alloc((size_t)(n < 0 ? 0 : n) + 1);
    vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

char *hf_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = hf_vprintf(fmt, ap);
    va_end(ap);
    return s;
}

void hf_note(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = hf_vprintf(fmt, ap);
    va_end(ap);
    hf_emit(HF_EV_NOTE, 0, 0, s, 0);
}

/* ---- The run ------------------------------------------------------------- */

static void reset_world(const hf_target *t, const uint8_t *data, size_t size, hf_strategy *strategy,
                        hf_decision_log *log) {
    hf_arena_reset(&hf_w.arena);
    hf_w.target = t;
    hf_w.task_count = 0;
    hf_w.runnable_count = 0;
    memset(hf_w.runnable_bits, 0, sizeof hf_w.runnable_bits);
    hf_w.current = NULL;
    hf_w.last_run = NULL;
    hf_w.killer = NULL;
    hf_w.now = 0;
    hf_w.steps = 0;
    hf_w.max_steps = t->max_steps ? t->max_steps : HF_DEFAULT_MAX_STEPS;
    hf_w.max_time = t->max_time_ns ? t->max_time_ns : HF_DEFAULT_MAX_TIME_NS;
    hf_w.accesses = 0;
    hf_w.slice_task = 0;
    hf_w.slice_points = 0;
    hf_w.timer_count = 0;
    hf_w.timer_seq = 0;
    hf_w.stopping = false;
    hf_w.in_callback = false;
    hf_w.in_end_checks = false;
    hf_w.sim = NULL;
    live_tasks = 0;
    hf_w.last_pick_deviated = false;
    memset(&hf_w.result, 0, sizeof hf_w.result);
    if (strategy) hf_decider_init_strategy(&hf_w.decider, strategy);
    else hf_decider_init_logged(&hf_w.decider, data, size, log);
    hf_w.decider.clock = &hf_w.now;
    hf_trace_reset(&hf_w.trace);
    hf_features_reset(&hf_w.features);
    hf_w.stores = NULL;
    hf_w.store_slots = hf_w.store_count = 0;
    hf_w.pairs = NULL;
    hf_w.pair_index = NULL;
    hf_w.pair_count = 0;
    hf_fiber_init_main(&hf_w.main_fiber);
}

/* Unwinds every task still suspended, so that each fiber ends by returning
 * through its entry function, then gives the stacks back. */
static void tear_down(void) {
    hf_w.stopping = true;
    for (int i = 0; i < hf_w.task_count; i++) {
        hf_task *t = &hf_w.tasks[i];
        if (t->started && t->state != TASK_DONE) {
            t->killed = true;
            hf_w.current = t;
            hf_fiber_switch(&hf_w.main_fiber, &t->fiber);
        }
    }
    hf_w.current = NULL;
    for (int i = 0; i < hf_w.task_count; i++)
        if (hf_w.tasks[i].started) hf_fiber_release(&hf_w.tasks[i].fiber);
}

static void run(const hf_target *t, const uint8_t *data, size_t size, hf_strategy *strategy,
                hf_decision_log *log, hf_result *out) {
    assert(t && t->main && t->name);
    assert(!hf_w.current && "hf_run cannot be nested");
    hf_profile_run_starts(t, size == 0 && !strategy);   /* the empty input is the calm run */
    reset_world(t, data, size, strategy, log);
    hf_spawn("main", t->main, NULL);
    if (setjmp(main_env) == 0) transfer(NULL, choose_next(WHY_START));
    tear_down();
    if (hf_switch_hook) hf_switch_hook(NULL, NULL);
    hf_profile_run_ends();
    hf_result *r = &hf_w.result;
    r->time_ns = hf_w.now;
    r->steps = hf_w.steps;
    r->decisions = hf_w.decider.index;
    r->deviations = hf_w.decider.deviations;
    r->trace_hash = hf_trace_hash(&hf_w.trace);
    *out = *r;
}

void hf_run(const hf_target *t, const uint8_t *data, size_t size, hf_result *out) {
    run(t, data, size, NULL, NULL, out);
}

void hf_run_logged(const hf_target *t, const uint8_t *data, size_t size, hf_decision_log *log, hf_result *out) {
    run(t, data, size, NULL, log, out);
}

void hf_run_strategy(const hf_target *t, hf_strategy *strategy, hf_result *out) {
    run(t, NULL, 0, strategy, NULL, out);
}

const hf_trace *hf_last_trace(void) { return &hf_w.trace; }
const hf_decider *hf_last_decisions(void) { return &hf_w.decider; }

const char *hf_outcome_name(hf_outcome o) {
    switch (o) {
    case HF_OK: return "ok";
    case HF_FAIL_PROPERTY: return "property";
    case HF_FAIL_DEADLOCK: return "deadlock";
    case HF_FAIL_STEPS: return "step budget";
    case HF_FAIL_TIME: return "time budget";
    case HF_FAIL_SPIN: return "spin";
    case HF_FAIL_LIMIT: return "limit";
    case HF_FAIL_CONFIG: return "config";
    case HF_FAIL_PROGRAM: return "program";
    }
    return "?";
}

void hf_print_timeline(FILE *out, uint64_t last) {
    hf_trace_print(out, &hf_w.trace, last, hf_task_name);
}

void hf_print_failure(FILE *out, const hf_result *r) {
    if (r->outcome == HF_OK) return;
    fprintf(out, "heisenfuzz: run failed (%s): %s\n", hf_outcome_name(r->outcome), r->message);
    if (r->property)
        fprintf(out, "  property: %s \"%s\" (%s:%d)\n", hf_prop_kind_name(r->property->kind),
                r->property->message, r->property->file, r->property->line);
    fprintf(out, "  at logical time %.9f s, in task %s, after %llu steps and %llu decisions (%u non-default)\n",
            (double)r->time_ns / HF_SEC, r->failed_task ? hf_task_name(r->failed_task) : "-",
            (unsigned long long)r->steps, (unsigned long long)r->decisions, r->deviations);
    fprintf(out, "  last events:\n");
    hf_print_timeline(out, 20);
}

void hf_runtime_free(void) {
    hf_profile_free();
    hf_arena_free(&hf_w.arena);
    free(hf_w.timers);
    hf_w.timers = NULL;
    hf_w.timer_cap = hf_w.timer_count = 0;
    hf_fiber_pool_drain();
}
