/*
 * pthread_thread.c — the pthread layer's threads and process: the program's
 * main as the run's first task, pthread_create/join/detach/exit/self/
 * equal/once, keys, and the ways a process ends (main returning, exit,
 * abort, a failed assert).
 *
 * Threads are tasks named by creation order: main, thread1, thread2, ...
 * A pthread_t is the task id, so it means the same in every run.
 *
 * Process semantics are the real ones: main returning or exit() from any
 * thread ends the run whatever the other threads are doing (they are
 * unwound); a non-zero exit status, abort() and a failed assert are failures
 * of the run.  pthread_exit in main lets the other threads finish first.
 * With crashes on, a machine crash ends every thread at once and starts
 * the program again on what its files kept (hfp_machine_crash).
 */
#define _GNU_SOURCE
#include "pthread_layer.h"
#include "sim.h"   /* the fault kinds */

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

hfp_run hfp;

/* The program's main, renamed by the tool; absent from binaries that have
 * no program (the tool, the tests). */
extern int hfp_main(int argc, char **argv, char **envp) __attribute__((weak));

/* ---- Shared helpers ------------------------------------------------------ */

static const char *const kind_names[] = {"mutex", "cond", "rwlock", "barrier", "sem", "spinlock"};

const char *hfp_name(hfp_kind kind) {
    assert((size_t)kind < sizeof kind_names / sizeof *kind_names);
    return hf_printf("%s%d", kind_names[kind], ++hfp.objects[kind]);
}

hfp_thread *hfp_self(void) {
    hfp_thread *t = hfp.threads[hf_self()];
    assert(t && "a task the pthread layer did not start");
    return t;
}

/* Called by pthread_atomics.h before every atomic read-modify-write. */
void hfp_atomic_point(const volatile void *object);
/* An atomic operation reads and writes: a store, as far as races go.  Its
 * site is the caller's. */
void hfp_atomic_point(const volatile void *object) {
    hf_memory_access((const void *)(uintptr_t)object, true, (uintptr_t)__builtin_return_address(0));
}

bool hfp_block(hf_waitq *q, const char *what, uint64_t timeout_ns) {
    int saved_errno = errno;
    hf_block(q, what, timeout_ns);
    errno = saved_errno;
    return !hf_current()->timed_out;
}

void hfp_wake_one(hf_waitq *q) {
    hf_task *t = hf_waitq_pop(q);
    if (t) hf_wake(t);
}

void hfp_wake_all(hf_waitq *q) {
    hf_task *t;
    while ((t = hf_waitq_pop(q))) hf_wake(t);
}

/* ---- Keys ---------------------------------------------------------------- */

int hfp_pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int hfp_pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
    for (unsigned k = 0; k < HFP_KEYS; k++) {
        if (hfp.keys[k].used) continue;
        hfp.keys[k] = (hfp_key){true, destructor};
        hfp.keys_created++;
        for (int id = 1; id <= HF_MAX_TASKS; id++)
            if (hfp.threads[id]) hfp.threads[id]->key_values[k] = NULL;
        *key = k;
        return 0;
    }
    return EAGAIN;
}

int hfp_pthread_key_delete(pthread_key_t key);
int hfp_pthread_key_delete(pthread_key_t key) {
    if (key >= HFP_KEYS || !hfp.keys[key].used) return EINVAL;
    hfp.keys[key].used = false;
    return 0;
}

void *hfp_pthread_getspecific(pthread_key_t key);
void *hfp_pthread_getspecific(pthread_key_t key) {
    return key < HFP_KEYS && hfp.keys[key].used ? hfp_self()->key_values[key] : NULL;
}

int hfp_pthread_setspecific(pthread_key_t key, const void *value);
int hfp_pthread_setspecific(pthread_key_t key, const void *value) {
    if (key >= HFP_KEYS || !hfp.keys[key].used) return EINVAL;
    hfp_self()->key_values[key] = (void *)(uintptr_t)value;
    return 0;
}

/* As POSIX says: destructors of non-NULL values, repeated while some are set. */
static void run_key_destructors(hfp_thread *t) {
    if (!hfp.keys_created) return;
    for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
        bool called = false;
        for (unsigned k = 0; k < HFP_KEYS; k++) {
            void *v = t->key_values[k];
            if (!v || !hfp.keys[k].used || !hfp.keys[k].destructor) continue;
            t->key_values[k] = NULL;
            hfp.keys[k].destructor(v);
            called = true;
        }
        if (!called) return;
    }
}

/* ---- Threads ------------------------------------------------------------- */

static void thread_entry(void *arg) {
    hfp_thread *t = arg;
    if (setjmp(t->exit_env) == 0) t->retval = t->start(t->arg);
    hfp_cxx_thread_ends(t);
    run_key_destructors(t);
}

int hfp_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int hfp_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    assert(thread && start);
    hf_task_facts *facts = &hf_current()->facts;
    facts->creating = true;   /* for SURW (generate.c): these points are no interaction */
    hfp_point();
    if (hf_w.task_count >= HF_MAX_TASKS) {
        facts->creating = false;
        return EAGAIN;
    }
    hfp_thread *t = hf_alloc(sizeof *t);
    t->start = start;
    t->arg = arg;
    int detach_state = PTHREAD_CREATE_JOINABLE;
    if (attr) pthread_attr_getdetachstate(attr, &detach_state);
    t->detached = detach_state == PTHREAD_CREATE_DETACHED;
    t->signals_blocked = hfp_self()->signals_blocked;
    int id = hf_spawn(hf_printf("thread%d", ++hfp.threads_created), thread_entry, t);
    hfp.threads[id] = t;
    *thread = (pthread_t)id;
    /* The new thread may run before its creator goes on. */
    hfp_point();
    facts->creating = false;
    return 0;
}

hfp_thread *hfp_thread_of(pthread_t thread) {
    return thread >= 1 && thread <= (pthread_t)hf_w.task_count ? hfp.threads[thread] : NULL;
}

int hfp_pthread_join(pthread_t thread, void **retval);
int hfp_pthread_join(pthread_t thread, void **retval) {
    hfp_thread *t = hfp_thread_of(thread);
    if (!t) return ESRCH;
    if (t->detached || t->joined) return EINVAL;
    if ((int)thread == hf_self()) return EDEADLK;
    hfp_point();
    int saved_errno = errno;
    hf_join((int)thread);
    errno = saved_errno;
    t->joined = true;
    if (retval) *retval = t->retval;
    return 0;
}

int hfp_pthread_detach(pthread_t thread);
int hfp_pthread_detach(pthread_t thread) {
    hfp_thread *t = hfp_thread_of(thread);
    if (!t) return ESRCH;
    if (t->detached) return EINVAL;
    t->detached = true;
    return 0;
}

void hfp_pthread_exit(void *retval) __attribute__((noreturn));
void hfp_pthread_exit(void *retval) {
    hfp_thread *t = hfp_self();
    t->retval = retval;
    longjmp(t->exit_env, 1);
}

pthread_t hfp_pthread_self(void);
pthread_t hfp_pthread_self(void) { return (pthread_t)hf_self(); }

int hfp_pthread_equal(pthread_t a, pthread_t b);
int hfp_pthread_equal(pthread_t a, pthread_t b) { return a == b; }

/* 0: not run; 1: running in some thread; 2: done. */
int hfp_pthread_once(pthread_once_t *once, void (*init)(void));
int hfp_pthread_once(pthread_once_t *once, void (*init)(void)) {
    hfp_point();
    while (*once == 1) hfp_block(&hfp.once_waiters, "once", 0);
    if (*once == 2) return 0;
    *once = 1;
    init();
    *once = 2;
    hfp_wake_all(&hfp.once_waiters);
    return 0;
}

int hfp_sched_yield(void);
int hfp_sched_yield(void) {
    int saved_errno = errno;
    hf_yield();
    errno = saved_errno;
    return 0;
}

int hfp_pthread_yield(void);
int hfp_pthread_yield(void) { return hfp_sched_yield(); }

/* Names and affinity mean nothing to a task; cancellation and signals are
 * not modelled, and a real one would act on a pthread_t that is a task id:
 * the run fails saying so instead. */
int hfp_pthread_setname_np(pthread_t thread, const char *name);
int hfp_pthread_setname_np(pthread_t thread, const char *name) {
    (void)thread;
    return name && strlen(name) < 16 ? 0 : ERANGE;
}

int hfp_pthread_getname_np(pthread_t thread, char *name, size_t size);
int hfp_pthread_getname_np(pthread_t thread, char *name, size_t size) {
    if (!hfp_thread_of(thread)) return ESRCH;
    int n = snprintf(name, size, "%s", hf_task_name((int)thread));
    return n < 0 || (size_t)n >= size ? ERANGE : 0;
}

int hfp_pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set);
int hfp_pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set) {
    (void)size;
    (void)set;
    return hfp_thread_of(thread) ? 0 : ESRCH;
}

static void unsupported(const char *call) __attribute__((noreturn));
static void unsupported(const char *call) {
    hf_fail(HF_FAIL_CONFIG, NULL, "%s in %s: not supported by the pthread layer", call, hf_task_name(hf_self()));
}

int hfp_pthread_cancel(pthread_t thread);
int hfp_pthread_cancel(pthread_t thread) { (void)thread; unsupported("pthread_cancel"); }

pid_t hfp_fork(void);
pid_t hfp_fork(void) { unsupported("fork"); }

/* ---- The process --------------------------------------------------------- */

/* Crashes in this run so far, and the step budget of each start of the
 * program (program_main sets both at the run's start). */
static int crashes_in_run;
static uint64_t steps_per_start;

void hfp_process_exit(int status) {
    if (status == 0) {
        hfp_files_exit_crash_point();
    } else {
        /* After a file fault, a program may refuse to go on: that is
         * handling the fault, not failing on it.  A crash is no such
         * fault: what it leaves, a program must take up again. */
        if (!hfp_file_fault_struck())
            hf_fail(HF_FAIL_PROGRAM, NULL, "the program exited with status %d (in %s)%s", status,
                    hf_task_name(hf_self()), crashes_in_run ? ", started again after a machine crash" : "");
        hf_emit(HF_EV_NOTE, 0, 0, hf_printf("the program exited with status %d after a file fault", status), 0);
    }
    hfp_files_keep();
    hf_end_run();
}

void hfp_fault(int kind, const char *text) {
    hf_emit(HF_EV_FAULT, kind, 0, text, HF_EV_DEVIATED);
    /* A behaviour, as a world's faults are: which fault struck what. */
    hf_features_add(&hf_w.features, HF_FEAT_FAULT, (unsigned)kind, hf_action_hash(HF_EV_FAULT, text));
}

/* Crashes a run may have.  One tries the program's recovery and a second
 * a crash during that recovery; each costs a whole run of the program
 * more, and a third mostly repeats what the second did. */
enum { HFP_MAX_CRASHES = 2 };

bool hfp_crash_decided(void) {
    return crashes_in_run < HFP_MAX_CRASHES &&
           hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_CRASH, false);
}

static void program_main(void *arg);
static int restarted;   /* program_main's argument for a start after a crash */

void hfp_machine_crash(const char *where) {
    crashes_in_run++;
    hfp_fault(HF_FAULT_CRASH, hf_printf("machine crash in %s, %s", hf_task_name(hf_self()), where));
    hfp_files_crash();
    hf_task *self = hf_current();
    for (int k = 0; k < hf_w.task_count; k++) {
        hf_task *t = &hf_w.tasks[k];
        if (t != self && t->state != TASK_DONE) hf_task_kill(t);
    }
    hf_emit(HF_EV_NOTE, 0, 0,
            hf_printf("the program starts again on what its files kept (crash %d of at most %d)", crashes_in_run,
                      HFP_MAX_CRASHES),
            0);
    /* Each start has the whole budget: a program that needs most of it
     * for one start is no livelock for running twice. */
    hf_w.max_steps = hf_w.steps + steps_per_start;
    hf_spawn("main", program_main, &restarted);
    hf_task_kill(self);
    abort();   /* hf_task_kill of the running task does not return */
}

void hfp_exit(int status) __attribute__((noreturn));
void hfp_exit(int status) { hfp_process_exit(status); }

void hfp__exit(int status) __attribute__((noreturn));
void hfp__exit(int status) { hfp_process_exit(status); }

void hfp_abort(void) __attribute__((noreturn));
void hfp_abort(void) {
    hf_fail(HF_FAIL_PROGRAM, NULL, "abort() in %s", hf_task_name(hf_self()));
}

void hfp___assert_fail(const char *assertion, const char *file, unsigned line, const char *function)
    __attribute__((noreturn));
void hfp___assert_fail(const char *assertion, const char *file, unsigned line, const char *function) {
    hf_fail(HF_FAIL_PROGRAM, NULL, "assertion failed in %s: %s (%s:%u, %s)", hf_task_name(hf_self()),
            assertion, file, line, function);
}

/* The run's first task, and after a machine crash the new one: the
 * program's process from its start.  Each start has a number of its own,
 * so a crashed program's locks are as new to the next (hfp_state). */
static void program_main(void *arg) {
    if (!hfp_main) hf_fail(HF_FAIL_CONFIG, NULL, "no program: the binary was not built by build-pthread");
    memset(&hfp, 0, sizeof hfp);
    static uint32_t runs;
    if (++runs == 0) runs = 1;    /* 0 is what a static initializer reads as */
    hfp.run = runs;
    hfp.rand_state = 1;
    hfp_restore_globals();
    if (arg == &restarted) {
        hfp_files_restart();
    } else {
        crashes_in_run = 0;
        steps_per_start = hf_w.max_steps;
        hfp_files_run_starts();
    }
    hfp_cxx_run_starts();
    hfp_thread *t = hf_alloc(sizeof *t);
    hfp.threads[hf_self()] = t;
    char **argv, **envp;
    int argc = hfp_invocation(&argv, &envp);
    if (setjmp(t->exit_env) == 0) {
        int status = hfp_main(argc, argv, envp);
        hfp_cxx_thread_ends(t);
        run_key_destructors(t);
        hfp_process_exit(status);
    }
    /* pthread_exit in main: the process lives on while other threads do. */
    hfp_cxx_thread_ends(t);
    run_key_destructors(t);
}

bool hf_pthread_program_linked(void) { return hfp_main != NULL; }

const hf_target hf_pthread_program_target = {
    .name = "pthread_program",
    .summary = "a pthread program built with heisenfuzz build-pthread",
    .main = program_main,
    .max_steps = 10000000,
    .preempt_at_accesses = true,
};
