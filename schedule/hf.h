/*
 * hf.h — the API a target is written against.
 *
 * A target is ordinary C whose concurrency goes through this runtime: tasks
 * (fibers) instead of threads, hf_sleep instead of the real clock, the mutex,
 * condition, semaphore and channel here instead of pthread's, hf_pick
 * instead of rand().  Every choice the real world would make at random is a
 * decision taken from the fuzzer's input bytes (decide.h), so one input file
 * is exactly one run, replayable forever.
 *
 * The runtime is single-threaded and runs one run at a time; the functions
 * below act on the current run and must be called from one of its tasks.
 */
#ifndef HF_H
#define HF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Time: logical nanoseconds since the run began ---------------------- */

#define HF_US 1000ull
#define HF_MS 1000000ull
#define HF_SEC 1000000000ull

uint64_t hf_now(void);
void hf_sleep(uint64_t ns);

/* ---- Tasks -------------------------------------------------------------- */

typedef void hf_task_fn(void *arg);

enum {
    HF_TASK_DAEMON = 1,   /* the run may end while this task still waits (a server loop) */
};

/* Starts a task; returns its id (1, 2, ...).  The name shows in the
 * timeline and must outlive the run (a literal, or hf_strdup). */
int hf_spawn(const char *name, hf_task_fn *fn, void *arg);
int hf_spawn_flags(const char *name, hf_task_fn *fn, void *arg, unsigned flags);

int hf_self(void);
const char *hf_task_name(int id);

/* A place where a real thread could be preempted: the scheduler may switch
 * to another runnable task.  By default the current task goes on. */
void hf_switch_point(void);

/* Gives way: by default the next runnable task (in id order) runs. */
void hf_yield(void);

/* Waits for task `id` to return. */
void hf_join(int id);

/* ---- The workload's own randomness (each call is a decision) ------------ */

/* A value in [lo, hi]; `dflt` on the undisturbed schedule. `what` names the
 * decision in the timeline when it deviates. */
uint64_t hf_pick(const char *what, uint64_t lo, uint64_t hi, uint64_t dflt);
bool hf_chance(const char *what, bool dflt);
uint64_t hf_random64(const char *what, uint64_t dflt);

/* ---- Memory and trace ---------------------------------------------------- */

/* Zeroed memory that lives until the run ends. */
void *hf_alloc(size_t size);
char *hf_strdup(const char *s);
char *hf_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *hf_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A line of the target's own in the timeline. */
void hf_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reports a variable of the target's abstract state (a role, an epoch, a
 * log length...).  Each change of value is a behaviour feature, so the
 * search is drawn to states it has not reached before. */
void hf_state(const char *what, int64_t value);

/* ---- Synchronisation: every blocking call is a scheduling point ---------- */

typedef struct hf_waitq { struct hf_task *head, *tail; } hf_waitq;

typedef struct hf_mutex {
    const char *name;
    int owner;              /* task id, 0 when free */
    hf_waitq waiters;
} hf_mutex;

typedef struct hf_cond {
    const char *name;
    hf_waitq waiters;
} hf_cond;

typedef struct hf_sem {
    const char *name;
    uint64_t count;
    hf_waitq waiters;
} hf_sem;

typedef struct hf_chan hf_chan;   /* bounded FIFO of fixed-size items */

void hf_mutex_init(hf_mutex *m, const char *name);
void hf_mutex_lock(hf_mutex *m);
void hf_mutex_unlock(hf_mutex *m);

void hf_cond_init(hf_cond *c, const char *name);
void hf_cond_wait(hf_cond *c, hf_mutex *m);
/* Returns false when `timeout_ns` passed first. */
bool hf_cond_wait_for(hf_cond *c, hf_mutex *m, uint64_t timeout_ns);
void hf_cond_signal(hf_cond *c);
void hf_cond_broadcast(hf_cond *c);

void hf_sem_init(hf_sem *s, const char *name, uint64_t count);
void hf_sem_wait(hf_sem *s);
void hf_sem_post(hf_sem *s);

hf_chan *hf_chan_new(const char *name, size_t item_size, size_t capacity);
/* Blocks while full; returns false (sending nothing) once closed. */
bool hf_chan_send(hf_chan *c, const void *item);
/* Blocks while empty; returns false when closed and drained. */
bool hf_chan_recv(hf_chan *c, void *item);
/* As hf_chan_recv, but gives up after `timeout_ns` (returns false). */
bool hf_chan_recv_for(hf_chan *c, void *item, uint64_t timeout_ns);
void hf_chan_close(hf_chan *c);
size_t hf_chan_len(const hf_chan *c);

/* ---- Properties (the names of Antithesis' SDK) --------------------------- *
 *
 *   hf_always(cond, msg)                cond holds every time, and is reached
 *   hf_always_or_unreachable(cond, msg) cond holds every time it is reached
 *   hf_sometimes(cond, msg)             cond holds at least once in a campaign
 *   hf_reachable(msg)                   reached at least once in a campaign
 *   hf_unreachable(msg)                 never reached
 *   hf_eventually(cond, msg)            cond holds at the end of the quiet
 *                                       period (evaluated only in a check
 *                                       registered with hf_sim_at_end, sim.h)
 *
 * A false always/always_or_unreachable/eventually, or a reached
 * unreachable, ends the run as a failure.  The campaign-wide ones are counted in a catalogue of
 * every property compiled in (prop.h), so a campaign can list those that
 * never held — including those never even reached.  A sometimes or
 * reachable that held also steers the search: the fuzzer goes back to just
 * before the rarest one a campaign has seen and branches from there, so one
 * placed at each step a bug goes through helps the search take the next.
 */
typedef enum hf_prop_kind {
    HF_ALWAYS, HF_ALWAYS_OR_UNREACHABLE, HF_SOMETIMES, HF_REACHABLE, HF_UNREACHABLE,
    HF_EVENTUALLY,
} hf_prop_kind;

typedef struct hf_prop {
    hf_prop_kind kind;
    const char *message;
    const char *file;
    int line;
    uint64_t reached;       /* evaluations, over the whole process */
    uint64_t held;          /* evaluations where cond was true */
} hf_prop;

void hf_prop_eval(hf_prop *p, bool cond);

/* A property is a static record in section hf_props (a catalogue the linker
 * gathers) plus one evaluation.  ASan leaves globals in sections named like
 * C identifiers unpadded, so the section stays a plain array of pointers. */
#define HF_PROP_(kind, cond, msg) do {                                          \
        static hf_prop hf_prop_ = {kind, msg, __FILE__, __LINE__, 0, 0};        \
        static hf_prop *const hf_prop_entry_                                    \
            __attribute__((used, section("hf_props"))) = &hf_prop_;             \
        (void)hf_prop_entry_;                                                   \
        hf_prop_eval(&hf_prop_, (cond));                                        \
    } while (0)

#define hf_always(cond, msg)                HF_PROP_(HF_ALWAYS, (cond) ? true : false, msg)
#define hf_always_or_unreachable(cond, msg) HF_PROP_(HF_ALWAYS_OR_UNREACHABLE, (cond) ? true : false, msg)
#define hf_sometimes(cond, msg)             HF_PROP_(HF_SOMETIMES, (cond) ? true : false, msg)
#define hf_reachable(msg)                   HF_PROP_(HF_REACHABLE, true, msg)
#define hf_unreachable(msg)                 HF_PROP_(HF_UNREACHABLE, false, msg)
#define hf_eventually(cond, msg)            HF_PROP_(HF_EVENTUALLY, (cond) ? true : false, msg)

/* ---- A target ------------------------------------------------------------ */

typedef struct hf_target {
    const char *name;          /* e.g. "counter_buggy" */
    const char *summary;       /* one line for `heisenfuzz list` */
    hf_task_fn *main;          /* the first task: builds the world, spawns the rest */
    uint64_t max_steps;        /* scheduling steps before "never finished"; 0 = default */
    uint64_t max_time_ns;      /* logical time before "never finished"; 0 = default */
    /* Every load and store of the target's code that may touch shared memory
     * (not the task's own stack, not read-only data) is a switch point, as
     * hf_switch_point() is: the runtime, not the author, picks where a task
     * may be preempted.  Needs code built with load/store tracing (spin.c). */
    bool preempt_at_accesses;
    /* A variant with a bug: its fixed twin, the control group (minimize
     * --emit-test asserts the failure's absence there).  NULL otherwise;
     * HF_DEFINE_TARGET_PAIR sets it. */
    const struct hf_target *fixed;
} hf_target;

/* Defines a target and enters it in the registry the linker gathers in
 * section hf_targets, as properties are (no central list to edit):
 *
 *     HF_DEFINE_TARGET(ring_buggy_target) = {
 *         .name = "ring_buggy", .summary = "...", .main = ring_buggy_main,
 *     };
 *
 * Any binary that links the definition (the tool, a fuzzer, a test) knows
 * the target by name.  The symbol is the name plus "_target" by
 * convention. */
#define HF_DEFINE_TARGET(sym)                                                   \
    extern const hf_target sym;                                                 \
    static const hf_target *const hf_target_entry_##sym                         \
        __attribute__((used, section("hf_targets"))) = &sym;                    \
    const hf_target sym

/* Defines a target with a bug and its fixed twin in one declaration:
 *
 *     HF_DEFINE_TARGET_PAIR(ring,
 *         "a reader may see a slot half-written", ring_buggy_main,
 *         "slots are published once written", ring_fixed_main);
 *
 * is ring_buggy (symbol ring_buggy_target) and ring (ring_target), the
 * same but for summary and main, the buggy one naming its twin in .fixed.
 * A pair that needs more (max_steps, ...) is two HF_DEFINE_TARGETs, the
 * buggy one with .fixed = &NAME_target. */
#define HF_DEFINE_TARGET_PAIR(family, buggy_summary, buggy_main, fixed_summary, fixed_main)     \
    HF_DEFINE_TARGET(family##_target) = {                                                       \
        .name = #family, .summary = fixed_summary, .main = fixed_main,                          \
    };                                                                                          \
    HF_DEFINE_TARGET(family##_buggy_target) = {                                                 \
        .name = #family "_buggy", .summary = buggy_summary, .main = buggy_main,                 \
        .fixed = &family##_target,                                                              \
    }

#endif
