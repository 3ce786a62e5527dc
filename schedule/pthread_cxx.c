/*
 * pthread_cxx.c — the parts of a C++ program's threads that libstdc++
 * keeps in its shared library, where the renaming of the program's own
 * references (pthread.syms) cannot reach the pthread calls they make.
 *
 * std::thread's constructor calls std::thread::_M_start_thread, in
 * libstdc++.so, which calls pthread_create there: a call the tool's
 * renaming never sees, so the thread would be a real one.  The program's
 * references to that function (and to join, detach, hardware_concurrency,
 * condition_variable's wait and notify, the chrono clocks, the static-local
 * guards, call_once's proxy and thread-locals, thread_local destructors)
 * are renamed instead, to the functions below, which do what the library
 * does, on the layer's threads.  What the library keeps per OS thread and
 * a program needs per thread, the exceptions being handled, is swapped at
 * every switch (hf_switch_hook); what would block the OS thread on a futex
 * (C++20's waits, std::future) fails the run, naming it.
 *
 * Why not export a pthread_create of our own from the executable, for the
 * library's PLT to bind to: libFuzzer and the sanitizers create real
 * threads through that same symbol (ASan's is an interceptor of that
 * name), and a pthread_create that had to tell them apart by the caller
 * would be wrong the day libstdc++ makes a thread of its own.  Why not libstdc++ linked statically and renamed: the
 * library's objects would then be renamed for libFuzzer too, which is C++.
 *
 * Written in C against the Itanium C++ ABI and libstdc++'s layouts (GCC
 * 12): a std::thread is its pthread_t; _M_start_thread takes `this`, a
 * unique_ptr<_State> by invisible reference (one pointer, released here)
 * and an unused function pointer; _State's vtable holds the complete and
 * deleting destructors, then _M_run; a condition_variable starts with its
 * pthread_cond_t, a std::mutex with its pthread_mutex_t, a unique_lock with
 * the mutex's address.  The names are mangled in pthread.syms, not here.
 */
#define _GNU_SOURCE
#include "pthread_layer.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int hfp_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int hfp_pthread_join(pthread_t thread, void **retval);
int hfp_pthread_detach(pthread_t thread);
int hfp_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int hfp_pthread_cond_signal(pthread_cond_t *c);
int hfp_pthread_cond_broadcast(pthread_cond_t *c);
int hfp_nanosleep(const struct timespec *req, struct timespec *rem);

/* std::__throw_system_error(int), which a C++ program always links; weak,
 * so the binaries with no C++ in them (the tool, the tests) link too. */
extern void hfp_cxx_throw_system_error(int error) __asm__("_ZSt20__throw_system_errori")
    __attribute__((weak, noreturn));

static void system_error(const char *call, int error) __attribute__((noreturn));
static void system_error(const char *call, int error) {
    if (hfp_cxx_throw_system_error) hfp_cxx_throw_system_error(error);
    hf_fail(HF_FAIL_PROGRAM, NULL, "%s in %s: %s", call, hf_task_name(hf_self()), strerror(error));
}

/* ---- std::thread ------------------------------------------------------------ */

typedef struct cxx_state {
    void (*const *vtable)(struct cxx_state *);   /* [0] ~_State, [1] deleting ~_State, [2] _M_run */
} cxx_state;

static void *run_state(void *arg) {
    cxx_state *state = arg;
    state->vtable[2](state);
    state->vtable[1](state);
    return NULL;
}

void hfp_cxx_thread_start(pthread_t *self, cxx_state **state, void (*unused)(void));
void hfp_cxx_thread_start(pthread_t *self, cxx_state **state, void (*unused)(void)) {
    (void)unused;
    int error = hfp_pthread_create(self, NULL, run_state, *state);
    if (error) system_error("std::thread", error);
    *state = NULL;   /* the thread owns it now, as the library's release() says */
}

void hfp_cxx_thread_join(pthread_t *self);
void hfp_cxx_thread_join(pthread_t *self) {
    int error = *self ? hfp_pthread_join(*self, NULL) : EINVAL;
    if (error) system_error("std::thread::join", error);
    *self = 0;
}

void hfp_cxx_thread_detach(pthread_t *self);
void hfp_cxx_thread_detach(pthread_t *self) {
    int error = *self ? hfp_pthread_detach(*self) : EINVAL;
    if (error) system_error("std::thread::detach", error);
    *self = 0;
}

/* A fixed number: the machine's differs from one machine to the next. */
unsigned hfp_cxx_hardware_concurrency(void);
unsigned hfp_cxx_hardware_concurrency(void) { return HFP_PROCESSORS; }

/* std::this_thread::__sleep_for(seconds, nanoseconds): two integers. */
void hfp_cxx_sleep_for(int64_t seconds, int64_t nanoseconds);
void hfp_cxx_sleep_for(int64_t seconds, int64_t nanoseconds) {
    struct timespec ts = {(time_t)seconds, (long)nanoseconds};
    hfp_nanosleep(&ts, NULL);
}

/* ---- The chrono clocks: a time_point is nanoseconds since the epoch ---------- */

static int64_t now_ns(clockid_t clock) {
    struct timespec ts;
    hfp_clock_now(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t hfp_cxx_system_clock_now(void);
int64_t hfp_cxx_system_clock_now(void) { return now_ns(CLOCK_REALTIME); }

int64_t hfp_cxx_steady_clock_now(void);
int64_t hfp_cxx_steady_clock_now(void) { return now_ns(CLOCK_MONOTONIC); }

/* ---- std::condition_variable ------------------------------------------------- */

void hfp_cxx_cond_wait(pthread_cond_t *self, pthread_mutex_t **lock);
void hfp_cxx_cond_wait(pthread_cond_t *self, pthread_mutex_t **lock) { hfp_pthread_cond_wait(self, *lock); }

void hfp_cxx_cond_notify_one(pthread_cond_t *self);
void hfp_cxx_cond_notify_one(pthread_cond_t *self) { hfp_pthread_cond_signal(self); }

void hfp_cxx_cond_notify_all(pthread_cond_t *self);
void hfp_cxx_cond_notify_all(pthread_cond_t *self) { hfp_pthread_cond_broadcast(self); }

/* The library's destructor would hand glibc the layer's handle. */
void hfp_cxx_cond_destroy(pthread_cond_t *self);
void hfp_cxx_cond_destroy(pthread_cond_t *self) { (void)self; }
/* The base-object destructor: the same (objcopy maps each name to its own). */
void hfp_cxx_cond_destroy_base(pthread_cond_t *self);
void hfp_cxx_cond_destroy_base(pthread_cond_t *self) { (void)self; }

/* ---- Function-local statics: the guard's first byte says "done" --------------- */

/* The library's guards wait on a real futex for a thread that, here, runs
 * on the same OS thread: they would hang the process.  These wait on the
 * scheduler.  Byte 1 of the 64-bit guard: initialisation under way. */
int hfp___cxa_guard_acquire(uint64_t *guard);
int hfp___cxa_guard_acquire(uint64_t *guard) {
    volatile unsigned char *g = (volatile unsigned char *)guard;
    if (!hf_w.current || !hfp.run) {        /* a constructor, before any run */
        if (g[0]) return 0;
        g[1] = 1;
        return 1;
    }
    hfp_point();
    while (g[1] && !g[0]) hfp_block(&hfp.once_waiters, "static", 0);
    if (g[0]) return 0;
    g[1] = 1;
    return 1;
}

void hfp___cxa_guard_release(uint64_t *guard);
void hfp___cxa_guard_release(uint64_t *guard) {
    volatile unsigned char *g = (volatile unsigned char *)guard;
    g[0] = 1;
    g[1] = 0;
    if (hf_w.current && hfp.run) hfp_wake_all(&hfp.once_waiters);
}

void hfp___cxa_guard_abort(uint64_t *guard);
void hfp___cxa_guard_abort(uint64_t *guard) {
    ((volatile unsigned char *)guard)[1] = 0;
    if (hf_w.current && hfp.run) hfp_wake_all(&hfp.once_waiters);
}

/* glibc's flag that no second thread was ever made: libstdc++'s shared_ptr
 * then counts with plain loads and stores, each a preemption point here,
 * and two threads could lose a count.  The program's threads are threads. */
char hfp___libc_single_threaded = 0;

/* ---- Exceptions: what each thread is handling ---------------------------------- */

/* libstdc++'s per-thread exception state (the Itanium ABI's
 * __cxa_eh_globals: the stack of exceptions caught and not yet finished
 * with, and the count of those thrown and not yet caught) is one per OS
 * thread, and every task runs on one: a thread switched out inside a
 * catch block would find another's exception on top when it came back.
 * So the state is each task's own, swapped on every switch. */
typedef struct cxx_eh_globals {
    void *caught;
    unsigned uncaught;
} cxx_eh_globals;

extern cxx_eh_globals *hfp_cxx_get_globals(void) __asm__("__cxa_get_globals") __attribute__((weak));

static cxx_eh_globals *eh_globals;

static void swap_eh_state(hf_task *from, hf_task *to) {
    hfp_thread *f = from && hfp.run ? hfp.threads[from->id] : NULL;
    if (f) {
        f->eh_caught = eh_globals->caught;
        f->eh_uncaught = eh_globals->uncaught;
    }
    hfp_thread *t = to && hfp.run ? hfp.threads[to->id] : NULL;
    /* The main context (the engine) handles no exception while a run goes on. */
    eh_globals->caught = t ? t->eh_caught : NULL;
    eh_globals->uncaught = t ? t->eh_uncaught : 0;
}

/* ---- std::call_once ------------------------------------------------------------- */

/* call_once stores the callable's address and a caller in two thread-locals
 * of libstdc++ (__once_callable, __once_call), then calls pthread_once with
 * the library's __once_proxy, which calls __once_call.  Compiled with
 * -femulated-tls the program names them through emulated-TLS control
 * objects the library has not got, so they are here: one copy per thread
 * (the layer's __emutls_get_address), so that a thread switched out
 * between storing them and pthread_once cannot hand another its callable.
 * The layout is the emulated-TLS ABI's (pthread_libc.c). */
typedef struct cxx_emutls_control {
    size_t size, align;
    uintptr_t index;
    void *value;
} cxx_emutls_control;

void *hfp___emutls_get_address(cxx_emutls_control *c);

cxx_emutls_control hfp_cxx_once_callable = {sizeof(void *), sizeof(void *), 0, NULL};
cxx_emutls_control hfp_cxx_once_call = {sizeof(void (*)(void)), sizeof(void (*)(void)), 0, NULL};

void hfp_cxx_once_proxy(void);
void hfp_cxx_once_proxy(void) {
    void (**call)(void) = hfp___emutls_get_address(&hfp_cxx_once_call);
    (*call)();
}

/* ---- thread_local objects with destructors ------------------------------------- */

/* The compiler registers each with __cxa_thread_atexit, which would run it
 * at the end of the OS thread, on memory of a run long gone; the layer runs
 * it when the task's thread ends, before its pthread key destructors, as
 * glibc does. */
typedef struct hfp_tls_dtor {
    void (*destructor)(void *);
    void *object;
    struct hfp_tls_dtor *next;
} hfp_tls_dtor;

/* Outside a run (a constructor): the real thread's list. */
extern int hfp_cxx_real_thread_atexit(void (*destructor)(void *), void *object, void *dso)
    __asm__("__cxa_thread_atexit") __attribute__((weak));

int hfp___cxa_thread_atexit(void (*destructor)(void *), void *object, void *dso);
int hfp___cxa_thread_atexit(void (*destructor)(void *), void *object, void *dso) {
    if (!hf_w.current || !hfp.run)
        return hfp_cxx_real_thread_atexit ? hfp_cxx_real_thread_atexit(destructor, object, dso) : 0;
    hfp_thread *t = hfp_self();
    hfp_tls_dtor *d = hf_alloc(sizeof *d);
    *d = (hfp_tls_dtor){destructor, object, t->tls_dtors};
    t->tls_dtors = d;
    return 0;
}

void hfp_cxx_thread_ends(hfp_thread *t) {
    /* A destructor may make thread_locals of its own: those run too. */
    while (t->tls_dtors) {
        hfp_tls_dtor *d = t->tls_dtors;
        t->tls_dtors = d->next;
        d->destructor(d->object);
    }
}

void hfp_cxx_run_starts(void) {
    /* The control objects are the layer's, not the program's data that is
     * put back before every run, and variables are numbered per run. */
    hfp_cxx_once_callable.index = hfp_cxx_once_call.index = 0;
    if (hfp_cxx_get_globals && !hf_switch_hook) {
        eh_globals = hfp_cxx_get_globals();
        hf_switch_hook = swap_eh_state;
    }
}

/* ---- What the layer does not cover: the run fails, naming it ------------------- */

static void unsupported(const char *what) __attribute__((noreturn));
static void unsupported(const char *what) {
    hf_fail(HF_FAIL_CONFIG, NULL, "%s in %s: not supported by the pthread layer", what,
            hf_task_name(hf_self()));
}

/* A futex wait would block the one OS thread every task runs on.  The
 * program's futex calls are C++20's waits, inline in its code
 * (std::atomic::wait, counting_semaphore, latch, barrier, the stop
 * tokens of std::jthread); other system calls go through. */
long hfp_syscall(long number, ...);
long hfp_syscall(long number, ...) {
    if (number == SYS_futex)
        unsupported("a futex (std::atomic::wait, std::counting_semaphore, std::latch, std::barrier or std::jthread)");
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* std::future waits on a futex inside the library (a future already
 * ready is read without one). */
void hfp_cxx_futex_wait(void);
void hfp_cxx_futex_wait(void) { unsupported("std::future (a wait for its value)"); }
/* Its steady_clock twin (objcopy maps each name to its own). */
void hfp_cxx_futex_wait_steady(void);
void hfp_cxx_futex_wait_steady(void) { unsupported("std::future (a wait for its value)"); }

/* Kept in libstdc++'s per-OS-thread list, for an OS thread's end. */
void hfp_cxx_at_thread_exit(void);
void hfp_cxx_at_thread_exit(void) { unsupported("std::notify_all_at_thread_exit"); }
