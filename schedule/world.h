/*
 * world.h — the state of the current run, shared by the runtime's own files
 * (sched.c, sync.c, prop.c).  Targets never include it.
 */
#ifndef HF_WORLD_H
#define HF_WORLD_H

#include "arena.h"
#include "decide.h"
#include "behaviour.h"
#include "fiber.h"
#include "run.h"
#include "trace.h"

#include <assert.h>
#include <setjmp.h>

enum { HF_MAX_TASKS = 256 };
_Static_assert(HF_MAX_TASKS % 64 == 0, "runnable_bits holds whole words");

typedef enum { TASK_RUNNABLE, TASK_BLOCKED, TASK_DONE } hf_task_state;

typedef struct hf_task {
    int id;
    int node;                    /* the simulated node it belongs to; 0 = none (inherited by spawn) */
    const char *name;
    hf_task_fn *fn;
    void *arg;
    unsigned flags;              /* HF_TASK_* */
    hf_task_state state;
    bool started;                /* has a fiber and has run */
    bool killed;                 /* must unwind when next resumed */
    hf_fiber fiber;
    jmp_buf exit_env;            /* where a killed task unwinds to */
    const char *waiting_for;     /* while blocked: for the deadlock report */
    struct hf_task *wait_next;   /* link in a wait queue */
    hf_waitq *waiting_in;        /* the queue it is in, if any */
    bool timed_out;              /* its last timed wait ended by the deadline */
    uint64_t timer_gen;          /* bumped on every wake: stale timers are ignored */
    hf_waitq joiners;
    uint64_t action;             /* what it last did (behaviour.h), for interleaving features */
    hf_task_facts facts;         /* its shared accesses, for POS and SURW (decide.h) */
    int parent;                  /* the task that spawned it (0: none) */
    int spawned;                 /* the tasks it has spawned so far */
    uint32_t *clock;             /* happens-before by spawn and join, per task id - 1 (happens.c) */
} hf_task;

/* Work the runtime does at a logical time, outside any task (a message
 * arriving, say).  It may wake and spawn tasks, never block or kill. */
typedef void hf_timer_fn(void *arg);

typedef struct hf_timer {
    uint64_t deadline;
    uint64_t seq;                /* ties at one instant fire in arming order */
    hf_task *task;               /* the task to wake; NULL for a callback */
    uint64_t gen;                /* task->timer_gen when armed */
    hf_timer_fn *fn;             /* the callback, when task is NULL */
    void *arg;
} hf_timer;

typedef enum { WHY_START, WHY_POINT, WHY_YIELD, WHY_BLOCK, WHY_EXIT } hf_why;

typedef struct hf_world {
    const hf_target *target;
    hf_fiber main_fiber;         /* the OS thread's own context */
    hf_task tasks[HF_MAX_TASKS]; /* index id - 1 */
    int task_count;
    int runnable_count;          /* tasks in state TASK_RUNNABLE (sched.c keeps it) ... */
    uint64_t runnable_bits[HF_MAX_TASKS / 64];   /* ... and which: bit id - 1 */
    hf_task *current;            /* NULL while the main context runs */
    hf_task *runnable[HF_MAX_TASKS];   /* scratch for choose_next */
    int runnable_ids[HF_MAX_TASKS];
    hf_task_facts runnable_facts[HF_MAX_TASKS];
    hf_task *last_run;           /* for RUN events: only changes are traced */
    bool last_pick_deviated;     /* the last choice of a task was not the default */
    hf_task *killer;             /* the task a killed task hands control back to */
    uint64_t now;
    uint64_t steps, max_steps, max_time;
    uint64_t accesses;           /* since the last scheduling point */
    int slice_task;              /* the task whose time slice is counted (spin.c) */
    uint64_t slice_points;       /* switch points it went on at, in a row */
    hf_timer *timers;            /* binary min-heap */
    size_t timer_count, timer_cap;
    uint64_t timer_seq;
    bool stopping;               /* the run has ended; tasks are being unwound */
    bool in_callback;            /* a timer callback runs: events belong to the runtime */
    bool in_end_checks;          /* the simulated world's end checks run (hf_eventually) */
    struct hf_sim *sim;          /* the simulated world of the run (sim.h), or NULL */
    hf_decider decider;
    struct hf_last_store *stores;   /* reads-from: the last store to each location (readsfrom.c) */
    uint32_t store_slots, store_count;
    hf_reads_from_pair *pairs;      /* the run's distinct reads-from pairs (readsfrom.c), */
    uint16_t *pair_index;           /* and where each is in the list, plus one */
    uint32_t pair_count;
    hf_trace trace;
    hf_features features;
    hf_arena arena;
    hf_result result;
} hf_world;

extern hf_world hf_w;
/* Called on every switch between tasks, before it (`from` or `to` NULL:
 * the main context), and with both NULL when a run's tasks are gone: the
 * pthread layer keeps there what a C++ runtime holds per OS thread and
 * must hold per task (the exceptions being handled).  NULL: none. */
extern void (*hf_switch_hook)(hf_task *from, hf_task *to);

/* sched.c, for sync.c and prop.c */
void hf_emit(hf_event_kind kind, int64_t a, int64_t b, const char *text, uint8_t flags);
void hf_block(hf_waitq *q, const char *waiting_for, uint64_t timeout_ns);  /* timeout 0 = none */
void hf_wake(hf_task *t);
hf_task *hf_waitq_pop(hf_waitq *q);
void hf_fail(hf_outcome outcome, const hf_prop *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
hf_task *hf_current(void);   /* asserts that a task is running */
/* Calls fn(arg) when logical time reaches `when` (not before now).  Timers
 * due at one instant fire in the order they were armed, once no task is
 * runnable. */
void hf_at(uint64_t when, hf_timer_fn *fn, void *arg);
/* Ends the run now, as a success, from a task: every other task is unwound
 * as at the end of a run.  For the simulated world's end. */
void hf_end_run(void) __attribute__((noreturn));
hf_task *hf_task_by_id(int id);
/* sched.c: fails the run, its step budget spent. */
void hf_fail_step_budget(void) __attribute__((noreturn));
/* A scheduling step at which only the running task can run: no decision (a
 * choice of one option reads nothing) and no switch, only the step counted,
 * as choose_next would count it.  Inline: with one thread, every pthread
 * call and shared access of a program comes here. */
static inline void hf_step_alone(void) {
    assert(hf_w.runnable_count == 1 && hf_w.current && hf_w.current->state == TASK_RUNNABLE);
    hf_w.accesses = 0;
    if (++hf_w.steps > hf_w.max_steps) hf_fail_step_budget();
    hf_w.last_pick_deviated = false;
}
/* Switch points a task may go on at, in a row, before its slice ends. */
enum { HF_SLICE_POINTS = 1000 };
/* The whole of a preemption point (below) when only the running task can
 * run: it goes on whether its slice ends or not (a yield would choose it
 * again), so the point is its slice counted and a step.  Returns false,
 * having done nothing, when another task could run.  Inline, for the
 * pthread layer's calls: most points of a program come here, in its
 * single-threaded parts and whenever the others are blocked. */
static inline bool hf_preemption_point_alone(void) {
    if (hf_w.runnable_count != 1) return false;
    hf_task *self = hf_w.current;
    assert(self && "a preemption point outside a task");
    if (hf_w.slice_task != self->id) {
        hf_w.slice_task = self->id;
        hf_w.slice_points = 0;
    }
    if (++hf_w.slice_points >= HF_SLICE_POINTS) hf_w.slice_points = 0;
    hf_step_alone();
    return true;
}
/* spin.c: a preemption point the runtime chose (a shared memory access, a
 * pthread call).  By default the task goes on, but after a time slice of
 * HF_SLICE_POINTS such points in a row it gives way, as a timer interrupt
 * would, so a busy-waiting task cannot starve the one it waits for.  errno
 * is the task's own across the switch. */
void hf_preemption_point(void);
/* spin.c: an access of target code to memory at `addr`, a store or a load,
 * from the instruction at `site` (the load/store hooks call it; so do the
 * pthread layer's atomics, as stores). */
void hf_memory_access(const void *addr, bool store, uintptr_t site);
/* profile.c: a run of `t` starts (`calm_run`: it is the calm run).  Once
 * per process and target, when the target preempts at its accesses, the
 * profile is learnt from the calm run: this one, or one made first.  Sites
 * the calm run never ran are numbered anew in every run. */
void hf_profile_run_starts(const hf_target *t, bool calm_run);
/* profile.c: the run ended (the profile learnt, if it was learning). */
void hf_profile_run_ends(void);
void hf_profile_free(void);
/* profile.c: the number of the access site at image offset `site` (to
 * `location`, by task `task`), and in *may_race whether an access there
 * can race, as the calm run tells; while that run is made, notes the
 * access.  0 for a target without a profile. */
uint32_t hf_profile_site(uintptr_t site, uintptr_t location, bool store, int task, bool *may_race);
/* profile.c: the number of the call site at image offset `site` (a pthread
 * call's), numbered with the access sites; 0 for a target without a
 * profile. */
uint32_t hf_profile_call_site(uintptr_t site);
/* profile.c: the access at image offset `site` by task `task` has run. */
void hf_profile_access_ran(uintptr_t site, int task);
/* profile.c: the accesses at sites that can race that the task of id `id`
 * made in the calm run of the target now running, and the tasks it spawned
 * there after its first `spawned` (and theirs, and so on); 0: none such. */
uint32_t hf_profile_calm_events(int id, int spawned);
/* happens.c: a moment of a task's own order (task 0: of none), and the
 * edges that order moments whatever the schedule: the task's own order,
 * spawns and joins. */
typedef struct hf_epoch { int task; uint32_t tick; } hf_epoch;
void hf_happens_spawn(hf_task *parent, hf_task *child);   /* parent NULL: none */
void hf_happens_join(hf_task *joiner, const hf_task *joined);
hf_epoch hf_happens_now(void);        /* the running task's present */
bool hf_happened_before(hf_epoch e);   /* e is ordered before the running task's present */
/* readsfrom.c: a load from `addr` at site number `site` (profile.c) about
 * to run: its reads-from pair (the last store's site, or none) becomes a
 * behaviour feature. */
void hf_reads_from_load(uintptr_t addr, uintptr_t site);
/* readsfrom.c: an event at site number `site` read from one at site
 * `from` (0: from nothing before it): a behaviour feature.  `racy`: the
 * two are not ordered whatever the schedule (hf_happened_before). */
void hf_reads_from_event(uintptr_t site, uintptr_t from, bool racy);
/* readsfrom.c: a store to `addr` at site number `site` about to run. */
void hf_reads_from_store(uintptr_t addr, uintptr_t site);
/* Ends task `t` at once, wherever it is suspended: it unwinds (no more of
 * its code runs), its joiners wake, and control comes straight back to the
 * caller with no scheduling decision.  A task may kill itself, which does
 * not return.  For crashes of simulated nodes. */
void hf_task_kill(hf_task *t);

#endif
