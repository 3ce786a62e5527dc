/*
 * pthread_sync.c — the pthread layer's synchronisation objects: mutexes
 * (normal, recursive, error-checking; trylock, timedlock), condition
 * variables (with spurious wake-ups as decisions), rwlocks, barriers,
 * spinlocks and POSIX semaphores.
 *
 * Every operation begins at a preemption point, so the scheduler may let
 * another thread in first, where a real thread could lose the race.  Each
 * object is named by order of first use in the run (mutex1, cond1, ...):
 * the timeline never shows an address.  Misuse that POSIX leaves undefined
 * and that real programs get wrong (unlocking a mutex one does not hold) is
 * a failure of the run, since it is a bug whatever glibc makes of it.
 * Taking a mutex or rwlock, and posting or taking a semaphore, are also
 * reads-from events at the program's call (event_ran).
 */
#define _GNU_SOURCE
#include "pthread_layer.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

/* ---- Reads-from events of the objects ----------------------------------- */

/* An object's reads-from events (event_ran): the site number of the call
 * that made its last one (0: none yet), the return address of the last
 * call and that call's site number, and the last pair handed over, which
 * a loop that takes the object again and again need not hand over each
 * time. */
typedef struct sync_events {
    uintptr_t caller;
    uint32_t caller_site, last_site, pair_site, pair_from;
    hf_epoch last_epoch;   /* when the last event ran (happens.c) */
    bool pair_racy;
} sync_events;

/* The program image's start (weak: defined by the linker), from which a
 * call site is an offset, the same in every run of one binary. */
extern char __executable_start[] __attribute__((weak));

#define CALLER ((uintptr_t)__builtin_return_address(0))

/* The site number (hf_profile_call_site) of a call that returns to the
 * program's instruction at `caller`; 0 for a program with no profile. */
static uint32_t event_site(sync_events *e, uintptr_t caller) {
    if (caller != e->caller) {
        e->caller = caller;
        e->caller_site = hf_profile_call_site(caller - (uintptr_t)__executable_start);
    }
    return e->caller_site;
}

/* An event of the object at site number `site` ran: it read from the
 * object's event before it (hf_reads_from_event), as an atomic
 * read-modify-write of the object would, and the ordering constraints
 * waiting for its site are met.  For a lock the events are its takings,
 * not its releases, because a constraint holds a thread at its `after`
 * site (decide.h, kind 9): held at its lock call, a thread owns nothing
 * the others wait for, where held at its unlock it would own the lock
 * they wait for, and the constraint could never be met (SCTBench's
 * twostage_N: the reader must take the second lock before every writer).
 * A semaphore's posts and waits are all events: a thread at either owns
 * nothing. */
static void event_ran(sync_events *e, uint32_t site) {
    if (!site) return;
    hf_decider_site_ran(&hf_w.decider, site);
    bool racy = !hf_happened_before(e->last_epoch);
    if (site != e->pair_site || e->last_site != e->pair_from || racy != e->pair_racy) {
        e->pair_site = site;
        e->pair_from = e->last_site;
        e->pair_racy = racy;
        hf_reads_from_event(site, e->last_site, racy);
    }
    e->last_site = site;
    e->last_epoch = hf_happens_now();
}

/* Until event_left, the running thread stands at site number `site` of
 * `object`, where an ordering constraint can hold it back, with the
 * object as its location: SURW lets a thread at a site with none go on
 * (an access that cannot race), and POS compares it only with the
 * locations of memory accesses, never an object's, so both choose here as
 * at any pthread call.  Returns the thread's facts. */
static hf_task_facts *event_stand(uint32_t site, const void *object) {
    hf_task_facts *facts = &hf_current()->facts;
    if (site) {
        facts->next_site = site;
        facts->next_location = (uintptr_t)object;
    }
    return facts;
}

static void event_left(hf_task_facts *facts) { facts->next_site = facts->next_location = 0; }

/* ---- Mutex --------------------------------------------------------------- */

typedef struct mutex_state {
    const char *name, *lock_note, *unlock_note;
    int type;                   /* PTHREAD_MUTEX_NORMAL, _RECURSIVE, _ERRORCHECK */
    int owner;                  /* task id; 0 = free */
    unsigned depth;             /* recursive locks held */
    hf_waitq waiters;
    sync_events events;         /* its takings */
} mutex_state;

_Static_assert(sizeof(hfp_handle) <= offsetof(pthread_mutex_t, __data.__kind),
               "the handle must leave glibc's mutex kind (set by static initializers) alone");

static mutex_state *mutex_of(pthread_mutex_t *m) {
    bool fresh;
    mutex_state *s = hfp_state(m, sizeof *s, &fresh);
    if (fresh) {
        /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP and friends set the kind. */
        s->type = m->__data.__kind & 3;
        s->name = hfp_name(HFP_MUTEX);
        s->lock_note = hf_printf("lock %s", s->name);
        s->unlock_note = hf_printf("unlock %s", s->name);
    }
    return s;
}

int hfp_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int hfp_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr) {
    memset(m, 0, sizeof *m);
    int type = PTHREAD_MUTEX_NORMAL;
    if (attr) pthread_mutexattr_gettype(attr, &type);
    m->__data.__kind = type;
    mutex_of(m);
    return 0;
}

int hfp_pthread_mutex_destroy(pthread_mutex_t *m);
int hfp_pthread_mutex_destroy(pthread_mutex_t *m) {
    mutex_state *s = mutex_of(m);
    return s->owner ? EBUSY : 0;
}

/* Only a contended acquisition or release is traced: an event per
 * uncontended lock would cost more than the lock itself, and the timeline
 * already shows who ran; a wait is where a lock tells the story. */
static void mutex_take(mutex_state *s, bool waited) {
    s->owner = hfp_self_id();
    s->depth = 1;
    if (waited) hf_emit(HF_EV_NOTE, 0, 0, s->lock_note, 0);
}

/* Locks, waiting at most until `abstime` (NULL: forever) unless `try`. */
static int mutex_acquire(mutex_state *s, bool try, const struct timespec *abstime) {
    hfp_point();
    int self = hfp_self_id();
    if (s->owner == self) {
        if (s->type == PTHREAD_MUTEX_RECURSIVE) { s->depth++; return 0; }
        if (s->type == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
        if (try) return EBUSY;
        /* A normal mutex locked twice by its owner: the thread deadlocks. */
    }
    bool waited = false;
    while (s->owner != 0) {
        if (try) return EBUSY;
        uint64_t timeout = 0;
        if (abstime && (timeout = hfp_until(CLOCK_REALTIME, abstime)) == 0) return ETIMEDOUT;
        hfp_block(&s->waiters, s->name, timeout);
        waited = true;
    }
    mutex_take(s, waited);
    return 0;
}

/* mutex_acquire, for a call that returns to the program's instruction at
 * `caller`: a reads-from event once the mutex is taken. */
static int mutex_lock(pthread_mutex_t *m, bool try, const struct timespec *abstime, uintptr_t caller) {
    mutex_state *s = mutex_of(m);
    uint32_t site = event_site(&s->events, caller);
    hf_task_facts *facts = event_stand(site, m);
    int result = mutex_acquire(s, try, abstime);
    event_left(facts);
    if (result == 0) event_ran(&s->events, site);
    return result;
}

/* The state of `m` when the lock or unlock about to be made can be made at
 * once: the mutex is known to this run and no other thread can run, so its
 * preemption point chooses nothing.  NULL otherwise.  The fast paths of
 * lock and unlock test this and their own condition before any effect, and
 * leave every other case to the general path from the start; they do what
 * it would do, with no call, since a program's every lock comes here. */
static inline mutex_state *mutex_alone(pthread_mutex_t *m) {
    const hfp_handle *h = (const hfp_handle *)m;
    return h->run == hfp.run && hf_w.runnable_count == 1 ? h->state : NULL;
}

int hfp_pthread_mutex_lock(pthread_mutex_t *m);
int hfp_pthread_mutex_lock(pthread_mutex_t *m) {
    mutex_state *s = mutex_alone(m);
    if (s && s->owner == 0) {
        hf_preemption_point_alone();
        mutex_take(s, false);
        event_ran(&s->events, event_site(&s->events, CALLER));
        return 0;
    }
    return mutex_lock(m, false, NULL, CALLER);
}

int hfp_pthread_mutex_trylock(pthread_mutex_t *m);
int hfp_pthread_mutex_trylock(pthread_mutex_t *m) { return mutex_lock(m, true, NULL, CALLER); }

int hfp_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime);
int hfp_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) return EINVAL;
    return mutex_lock(m, false, abstime, CALLER);
}

/* A deadline on another clock than CLOCK_REALTIME's (C++'s steady_clock). */
int hfp_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime);
int hfp_pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) return EINVAL;
    struct timespec realtime;
    hfp_retime(clock, abstime, CLOCK_REALTIME, &realtime);
    return mutex_lock(m, false, &realtime, CALLER);
}

static int mutex_release(mutex_state *s) {
    if (s->owner != hfp_self_id()) {
        if (s->type != PTHREAD_MUTEX_NORMAL) return EPERM;
        hf_fail(HF_FAIL_PROGRAM, NULL, "%s unlocked %s, which %s", hf_task_name(hfp_self_id()), s->name,
                s->owner ? "another thread holds" : "is not locked");
    }
    if (--s->depth > 0) return 0;
    s->owner = 0;
    if (s->waiters.head) {
        hf_emit(HF_EV_NOTE, 0, 0, s->unlock_note, 0);
        hfp_wake_one(&s->waiters);
    }
    return 0;
}

int hfp_pthread_mutex_unlock(pthread_mutex_t *m);
int hfp_pthread_mutex_unlock(pthread_mutex_t *m) {
    mutex_state *s = mutex_alone(m);
    if (s && s->owner == hfp_self_id() && s->depth == 1 && !s->waiters.head) {
        hf_preemption_point_alone();
        s->owner = 0;
        s->depth = 0;
        return 0;
    }
    s = mutex_of(m);
    hfp_point();
    return mutex_release(s);
}

/* ---- Condition variable -------------------------------------------------- */

typedef struct cond_state {
    const char *name;
    clockid_t clock;            /* of timed waits' deadlines */
    hf_waitq waiters;
} cond_state;

static cond_state *cond_of(pthread_cond_t *c) {
    bool fresh;
    cond_state *s = hfp_state(c, sizeof *s, &fresh);
    if (fresh) {
        s->name = hfp_name(HFP_COND);
        s->clock = CLOCK_REALTIME;
    }
    return s;
}

int hfp_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int hfp_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr) {
    memset(c, 0, sizeof *c);
    cond_state *s = cond_of(c);
    if (attr) pthread_condattr_getclock(attr, &s->clock);
    return 0;
}

int hfp_pthread_cond_destroy(pthread_cond_t *c);
int hfp_pthread_cond_destroy(pthread_cond_t *c) {
    cond_state *s = cond_of(c);
    return s->waiters.head ? EBUSY : 0;
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime, uintptr_t caller) {
    cond_state *s = cond_of(c);
    mutex_state *ms = mutex_of(m);
    if (ms->owner != hfp_self_id()) {
        if (ms->type != PTHREAD_MUTEX_NORMAL) return EPERM;
        hf_fail(HF_FAIL_PROGRAM, NULL, "%s waits for %s without holding %s", hf_task_name(hfp_self_id()), s->name,
                ms->name);
    }
    hfp_point();
    unsigned depth = ms->depth;
    ms->depth = 1;
    mutex_release(ms);
    int result = 0;
    /* POSIX allows a wait to return with nobody having signalled. */
    if (hf_chance("spurious wake-up", false)) {
        hf_emit(HF_EV_NOTE, 0, 0, "spurious wake-up", 0);
        hfp_point();
    } else {
        uint64_t timeout = 0;
        if (abstime && (timeout = hfp_until(s->clock, abstime)) == 0) result = ETIMEDOUT;
        else if (!hfp_block(&s->waiters, s->name, timeout)) result = ETIMEDOUT;
    }
    bool waited = false;
    while (ms->owner != 0) {
        hfp_block(&ms->waiters, ms->name, 0);
        waited = true;
    }
    mutex_take(ms, waited);
    event_ran(&ms->events, event_site(&ms->events, caller));   /* taken again, at the wait's call */
    ms->depth = depth;
    return result;
}

int hfp_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int hfp_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) { return cond_wait(c, m, NULL, CALLER); }

int hfp_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime);
int hfp_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) return EINVAL;
    return cond_wait(c, m, abstime, CALLER);
}

int hfp_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime);
int hfp_pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) return EINVAL;
    struct timespec own;
    hfp_retime(clock, abstime, cond_of(c)->clock, &own);
    return cond_wait(c, m, &own, CALLER);
}

int hfp_pthread_cond_signal(pthread_cond_t *c);
int hfp_pthread_cond_signal(pthread_cond_t *c) {
    cond_state *s = cond_of(c);
    hfp_point();
    hfp_wake_one(&s->waiters);
    return 0;
}

int hfp_pthread_cond_broadcast(pthread_cond_t *c);
int hfp_pthread_cond_broadcast(pthread_cond_t *c) {
    cond_state *s = cond_of(c);
    hfp_point();
    hfp_wake_all(&s->waiters);
    return 0;
}

/* ---- Read-write lock ----------------------------------------------------- *
 * glibc's default: readers are not held back by waiting writers. */

typedef struct rwlock_state {
    const char *name;
    int writer;                 /* task id holding it for writing; 0 = none */
    int readers;
    hf_waitq waiting_readers, waiting_writers;
    sync_events events;         /* its takings, for reading or writing */
} rwlock_state;

static rwlock_state *rwlock_of(pthread_rwlock_t *l) {
    bool fresh;
    rwlock_state *s = hfp_state(l, sizeof *s, &fresh);
    if (fresh) s->name = hfp_name(HFP_RWLOCK);
    return s;
}

int hfp_pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr);
int hfp_pthread_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *attr) {
    (void)attr;
    memset(l, 0, sizeof *l);
    rwlock_of(l);
    return 0;
}

int hfp_pthread_rwlock_destroy(pthread_rwlock_t *l);
int hfp_pthread_rwlock_destroy(pthread_rwlock_t *l) {
    rwlock_state *s = rwlock_of(l);
    return s->writer || s->readers ? EBUSY : 0;
}

static int rwlock_acquire(rwlock_state *s, bool write, bool try, const struct timespec *abstime) {
    hfp_point();
    if (s->writer == hfp_self_id()) return EDEADLK;
    for (;;) {
        bool busy = write ? s->writer || s->readers : s->writer;
        if (!busy) break;
        if (try) return EBUSY;
        uint64_t timeout = 0;
        if (abstime && (timeout = hfp_until(CLOCK_REALTIME, abstime)) == 0) return ETIMEDOUT;
        hfp_block(write ? &s->waiting_writers : &s->waiting_readers, s->name, timeout);
    }
    if (write) s->writer = hfp_self_id();
    else s->readers++;
    return 0;
}

/* rwlock_acquire, for a call that returns to the program's instruction at
 * `caller`: a reads-from event once the lock is taken. */
static int rwlock_lock(pthread_rwlock_t *l, bool write, bool try, const struct timespec *abstime, uintptr_t caller) {
    rwlock_state *s = rwlock_of(l);
    uint32_t site = event_site(&s->events, caller);
    hf_task_facts *facts = event_stand(site, l);
    int result = rwlock_acquire(s, write, try, abstime);
    event_left(facts);
    if (result == 0) event_ran(&s->events, site);
    return result;
}

int hfp_pthread_rwlock_rdlock(pthread_rwlock_t *l);
int hfp_pthread_rwlock_rdlock(pthread_rwlock_t *l) { return rwlock_lock(l, false, false, NULL, CALLER); }
int hfp_pthread_rwlock_wrlock(pthread_rwlock_t *l);
int hfp_pthread_rwlock_wrlock(pthread_rwlock_t *l) { return rwlock_lock(l, true, false, NULL, CALLER); }
int hfp_pthread_rwlock_tryrdlock(pthread_rwlock_t *l);
int hfp_pthread_rwlock_tryrdlock(pthread_rwlock_t *l) { return rwlock_lock(l, false, true, NULL, CALLER); }
int hfp_pthread_rwlock_trywrlock(pthread_rwlock_t *l);
int hfp_pthread_rwlock_trywrlock(pthread_rwlock_t *l) { return rwlock_lock(l, true, true, NULL, CALLER); }
int hfp_pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime);
int hfp_pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *abstime) {
    return rwlock_lock(l, false, false, abstime, CALLER);
}
int hfp_pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime);
int hfp_pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *abstime) {
    return rwlock_lock(l, true, false, abstime, CALLER);
}

int hfp_pthread_rwlock_unlock(pthread_rwlock_t *l);
int hfp_pthread_rwlock_unlock(pthread_rwlock_t *l) {
    rwlock_state *s = rwlock_of(l);
    hfp_point();
    if (s->writer == hfp_self_id()) s->writer = 0;
    else if (s->readers > 0) s->readers--;
    else return EPERM;
    hfp_wake_all(&s->waiting_readers);
    hfp_wake_one(&s->waiting_writers);
    return 0;
}

/* ---- Barrier ------------------------------------------------------------- */

typedef struct barrier_state {
    const char *name;
    unsigned count, arrived;
    uint64_t generation;
    hf_waitq waiters;
} barrier_state;

static barrier_state *barrier_of(pthread_barrier_t *b) {
    bool fresh;
    barrier_state *s = hfp_state(b, sizeof *s, &fresh);
    if (fresh) s->name = hfp_name(HFP_BARRIER);
    return s;
}

int hfp_pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count);
int hfp_pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count) {
    (void)attr;
    if (count == 0) return EINVAL;
    memset(b, 0, sizeof *b);
    barrier_of(b)->count = count;
    return 0;
}

int hfp_pthread_barrier_destroy(pthread_barrier_t *b);
int hfp_pthread_barrier_destroy(pthread_barrier_t *b) {
    barrier_state *s = barrier_of(b);
    return s->arrived ? EBUSY : 0;
}

int hfp_pthread_barrier_wait(pthread_barrier_t *b);
int hfp_pthread_barrier_wait(pthread_barrier_t *b) {
    barrier_state *s = barrier_of(b);
    if (s->count == 0) hf_fail(HF_FAIL_PROGRAM, NULL, "%s waits at an uninitialised barrier", hf_task_name(hfp_self_id()));
    hfp_point();
    if (++s->arrived == s->count) {
        s->arrived = 0;
        s->generation++;
        hfp_wake_all(&s->waiters);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    uint64_t generation = s->generation;
    while (generation == s->generation) hfp_block(&s->waiters, s->name, 0);
    return 0;
}

/* ---- Spinlock: the holder's task id in the int itself -------------------- */

int hfp_pthread_spin_init(pthread_spinlock_t *l, int pshared);
int hfp_pthread_spin_init(pthread_spinlock_t *l, int pshared) {
    (void)pshared;
    *l = 0;
    return 0;
}

int hfp_pthread_spin_destroy(pthread_spinlock_t *l);
int hfp_pthread_spin_destroy(pthread_spinlock_t *l) { return *l ? EBUSY : 0; }

int hfp_pthread_spin_lock(pthread_spinlock_t *l);
int hfp_pthread_spin_lock(pthread_spinlock_t *l) {
    hfp_point();
    if (*l == hfp_self_id()) return EDEADLK;
    /* A spinner waits for the holder, and nothing it does meanwhile is
     * seen by another thread, so it waits as a blocked thread: spinning
     * in place would never end here, and yielding in a loop let two
     * spinners take turns for ever under a walk that ranked them both
     * above the holder (POS: tests/pthread/features.c).  A spin that can
     * never end is then a deadlock the run names. */
    while (*l) hfp_block(&hfp.spin_waiters, "a spinlock", 0);
    *l = hfp_self_id();
    return 0;
}

int hfp_pthread_spin_trylock(pthread_spinlock_t *l);
int hfp_pthread_spin_trylock(pthread_spinlock_t *l) {
    hfp_point();
    if (*l) return EBUSY;
    *l = hfp_self_id();
    return 0;
}

int hfp_pthread_spin_unlock(pthread_spinlock_t *l);
int hfp_pthread_spin_unlock(pthread_spinlock_t *l) {
    hfp_point();
    *l = 0;
    hfp_wake_all(&hfp.spin_waiters);   /* each waiter looks at its own lock again */
    return 0;
}

/* ---- POSIX semaphores (unnamed) ------------------------------------------ */

typedef struct sem_state {
    const char *name;
    unsigned value;
    hf_waitq waiters;
    sync_events events;         /* its posts and takings */
} sem_state;

_Static_assert(sizeof(hfp_handle) <= sizeof(sem_t), "a handle fits a sem_t");

static sem_state *sem_of(sem_t *sem) {
    bool fresh;
    sem_state *s = hfp_state(sem, sizeof *s, &fresh);
    if (fresh) s->name = hfp_name(HFP_SEM);
    return s;
}

int hfp_sem_init(sem_t *sem, int pshared, unsigned value);
int hfp_sem_init(sem_t *sem, int pshared, unsigned value) {
    (void)pshared;
    memset(sem, 0, sizeof *sem);
    sem_of(sem)->value = value;
    return 0;
}

int hfp_sem_destroy(sem_t *sem);
int hfp_sem_destroy(sem_t *sem) { (void)sem_of(sem); return 0; }

/* Takes one of the semaphore's count, at a call that returns to the
 * program's instruction at `caller` (a reads-from event once taken). */
static int sem_wait_until(sem_t *sem, bool try, const struct timespec *abstime, uintptr_t caller) {
    sem_state *s = sem_of(sem);
    uint32_t site = event_site(&s->events, caller);
    hf_task_facts *facts = event_stand(site, sem);
    hfp_point();
    int result = 0;
    while (s->value == 0) {
        uint64_t timeout = 0;
        int error = try ? EAGAIN : abstime && (timeout = hfp_until(CLOCK_REALTIME, abstime)) == 0 ? ETIMEDOUT : 0;
        if (error) {
            errno = error;
            result = -1;
            break;
        }
        hfp_block(&s->waiters, s->name, timeout);
    }
    event_left(facts);
    if (result == 0) {
        s->value--;
        event_ran(&s->events, site);
    }
    return result;
}

int hfp_sem_wait(sem_t *sem);
int hfp_sem_wait(sem_t *sem) { return sem_wait_until(sem, false, NULL, CALLER); }
int hfp_sem_trywait(sem_t *sem);
int hfp_sem_trywait(sem_t *sem) { return sem_wait_until(sem, true, NULL, CALLER); }
int hfp_sem_timedwait(sem_t *sem, const struct timespec *abstime);
int hfp_sem_timedwait(sem_t *sem, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) { errno = EINVAL; return -1; }
    return sem_wait_until(sem, false, abstime, CALLER);
}

int hfp_sem_post(sem_t *sem);
int hfp_sem_post(sem_t *sem) {
    sem_state *s = sem_of(sem);
    uint32_t site = event_site(&s->events, CALLER);
    hf_task_facts *facts = event_stand(site, sem);
    hfp_point();
    event_left(facts);
    s->value++;
    event_ran(&s->events, site);
    hfp_wake_one(&s->waiters);
    return 0;
}

int hfp_sem_getvalue(sem_t *sem, int *value);
int hfp_sem_getvalue(sem_t *sem, int *value) {
    *value = (int)sem_of(sem)->value;
    return 0;
}

int hfp_pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime);
int hfp_pthread_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) return EINVAL;
    struct timespec realtime;
    hfp_retime(clock, abstime, CLOCK_REALTIME, &realtime);
    return rwlock_lock(l, false, false, &realtime, CALLER);
}

int hfp_pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime);
int hfp_pthread_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime) {
    if (!abstime || abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000) return EINVAL;
    struct timespec realtime;
    hfp_retime(clock, abstime, CLOCK_REALTIME, &realtime);
    return rwlock_lock(l, true, false, &realtime, CALLER);
}
