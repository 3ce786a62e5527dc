/*
 * pthread_layer.h — what the pthread layer's files share (schedule/pthread_*.c).
 *
 * The layer runs an unmodified pthread program under the scheduler: each
 * thread is a task, each lock and condition a wait queue, the clock the
 * logical clock, rand() a decision.  It is interposed at link time: the
 * program's objects have their references to pthread_create, main,
 * __assert_fail, ... renamed to hfp_pthread_create, hfp_main,
 * hfp___assert_fail, ... (the list is pthread.syms, the tool does the
 * renaming), so libFuzzer's own threads and the runtime keep the real ones.
 *
 * Every synchronisation object keeps, where the program's pthread type
 * has its storage, a handle: the run it was first used in and its state
 * for that run (from the run's arena).  A handle from an earlier run (a
 * static initializer reads as run 0) is as good as fresh, so objects need
 * no destruction between runs and a static PTHREAD_MUTEX_INITIALIZER works.
 */
#ifndef HF_PTHREAD_LAYER_H
#define HF_PTHREAD_LAYER_H

#include "world.h"

#include <assert.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The processors a program is told it has (sysconf, get_nprocs,
 * std::thread::hardware_concurrency): the same on every machine. */
enum { HFP_PROCESSORS = 4 };

enum { HFP_KEYS = 128 };   /* pthread keys per run (POSIX asks for at least 128) */

/* One thread of the program; index = its task id. */
typedef struct hfp_thread {
    void *(*start)(void *);
    void *arg;
    void *retval;
    bool detached, joined;
    jmp_buf exit_env;              /* where pthread_exit lands */
    void *key_values[HFP_KEYS];
    void **tls;                    /* -femulated-tls blocks, by variable index */
    size_t tls_cap;
    /* C++ (pthread_cxx.c): the thread's thread_local destructors, last
     * registered first, and the exceptions it is handling, which
     * libstdc++ keeps per OS thread: saved here while it is switched out. */
    struct hfp_tls_dtor *tls_dtors;
    void *eh_caught;
    unsigned eh_uncaught;
    /* pthread_signals.c: the thread's mask, the signals sent to it and not
     * yet taken, and the set it waits for in sigwait (else NULL). */
    sigset_t signals_blocked, signals_pending;
    const sigset_t *signals_awaited;
    hf_waitq signal_waiters;
} hfp_thread;

typedef struct hfp_key {
    bool used;
    void (*destructor)(void *);
} hfp_key;

/* The layer's state for the current run; reset at the start of each. */
typedef struct hfp_run {
    uint32_t run;                  /* this run's number: never 0 */
    hfp_thread *threads[HF_MAX_TASKS + 1];
    int threads_created;           /* names thread1, thread2, ... */
    int objects[8];                /* per kind of object: how many were named */
    hfp_key keys[HFP_KEYS];
    int keys_created;              /* 0: no thread has destructors to run */
    hf_waitq once_waiters;         /* threads waiting for another's pthread_once */
    hf_waitq spin_waiters;         /* threads waiting for a spinlock another holds */
    uint64_t rand_state;           /* the default sequence of rand() / random() */
    uintptr_t tls_variables;       /* -femulated-tls variables numbered */
} hfp_run;

extern hfp_run hfp;

/* The storage every synchronisation object starts with. */
typedef struct hfp_handle {
    uint32_t run;
    uint32_t unused;
    void *state;
} hfp_handle;

/* The kinds of object, each numbered by order of first use in the run. */
typedef enum { HFP_MUTEX, HFP_COND, HFP_RWLOCK, HFP_BARRIER, HFP_SEM, HFP_SPIN } hfp_kind;

/* "mutex1", "cond2", ...: the next name of that kind, in the run's arena. */
const char *hfp_name(hfp_kind kind);

/* The state behind a handle: fresh (zeroed, `size` bytes) when the handle
 * is from another run, and then `*fresh` is set.  Inline, as the next two:
 * every lock and unlock goes through them. */
static inline void *hfp_state(void *object, size_t size, bool *fresh) {
    hfp_handle *h = object;
    *fresh = h->run != hfp.run;
    if (*fresh) {
        h->run = hfp.run;
        h->state = hf_alloc(size);
    }
    return h->state;
}

/* hf_self(), for the calls of the running thread. */
static inline int hfp_self_id(void) {
    assert(hf_w.current && "a pthread call outside a run");
    return hf_w.current->id;
}

/* A preemption point (hf_preemption_point) for a synchronisation call. */
static inline void hfp_point(void) {
    if (!hf_preemption_point_alone()) hf_preemption_point();
    /* An event of the thread, as a racing access is (POS draws it a new
     * priority, SURW counts it; decide.h), but for creating a thread,
     * which changes nothing another thread can see. */
    hf_task *self = hf_current();
    if (!self->facts.creating) self->facts.events++;
}

hfp_thread *hfp_self(void);
/* The thread of a pthread_t, or NULL when the run has none such. */
hfp_thread *hfp_thread_of(pthread_t thread);

/* pthread_cxx.c: a run starts (its C++ state set up for it); thread `t`
 * ends (its thread_local objects destroyed). */
void hfp_cxx_run_starts(void);
void hfp_cxx_thread_ends(hfp_thread *t);

/* sched_yield: gives way, keeping errno. */
int hfp_sched_yield(void);

/* Blocks on `q` (timeout 0 = none) keeping errno; returns false when the
 * timeout ended the wait. */
bool hfp_block(hf_waitq *q, const char *what, uint64_t timeout_ns);
void hfp_wake_one(hf_waitq *q);
void hfp_wake_all(hf_waitq *q);

/* Logical nanoseconds from now until `abstime` on `clock` (0 when past). */
uint64_t hfp_until(clockid_t clock, const struct timespec *abstime);
/* The deadline `abstime` on clock `from` as a deadline on clock `to`
 * (pthread_*_clock* calls: glibc 2.30's, which C++'s headers call). */
void hfp_retime(clockid_t from, const struct timespec *abstime, clockid_t to, struct timespec *out);
/* Logical time on `clock`, as clock_gettime gives it. */
void hfp_clock_now(clockid_t clock, struct timespec *ts);

/* The run's start: restores the program's globals to their first values and
 * resets the per-thread state of the C library parts (pthread_libc.c). */
void hfp_restore_globals(void);

/* The run's start: main's argc, with a copy of its arguments and the fixed
 * environment in the run's arena; stdin reopened on the set bytes. */
int hfp_invocation(char ***argv, char ***envp);

/* The program's stdin and its output (pthread_libc.c). */
extern FILE *hfp_stdin, *hfp_stdout, *hfp_stderr;

/* Before each run: its file system starts as the real one (pthread_files.c). */
void hfp_files_run_starts(void);
/* Whether a file fault (--file-faults) struck in this run. */
bool hfp_file_fault_struck(void);
/* At the program's exit: the run's files, to HEISENFUZZ_PROGRAM_FILES's
 * directory when it is set. */
void hfp_files_keep(void);

/* Ends the run as the process would end (exit status, from any thread). */
void hfp_process_exit(int status) __attribute__((noreturn));

/* A fault of the run's (an hf_fault_kind), described by `text`: in the
 * trace, and a behaviour feature. */
void hfp_fault(int kind, const char *text);

/* Machine crashes (--crashes; pthread_files.c says what survives one).
 * Whether one strikes here: a decision, while the run has crashes left. */
bool hfp_crash_decided(void);
/* The machine crashes (`where`: what the crashed thread was about to do):
 * the files keep what was synced, every thread ends, and the program's
 * main starts again (the same arguments, its globals at their first
 * values, no descriptor open) on those files. */
void hfp_machine_crash(const char *where) __attribute__((noreturn));
/* pthread_files.c: at the crash, every file loses what was not synced;
 * the new program's start: its descriptors and streams are gone; at its
 * exit: a crash may strike while writes are not all synced. */
void hfp_files_crash(void);
void hfp_files_restart(void);
void hfp_files_exit_crash_point(void);

#endif
