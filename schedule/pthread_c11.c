/*
 * pthread_c11.c — C11 <threads.h> on the pthread layer: thrd_*, mtx_*,
 * cnd_*, call_once and tss_*.  glibc gives mtx_t, cnd_t and once_flag the
 * storage of their pthread twins, so each call is the pthread call on the
 * same object, with C11's result codes.
 */
#define _GNU_SOURCE
#include "pthread_layer.h"

#include <errno.h>
#include <pthread.h>
#include <threads.h>

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t is a pthread mutex");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t is a pthread condition");
_Static_assert(sizeof(once_flag) == sizeof(pthread_once_t), "once_flag is a pthread once");
_Static_assert(sizeof(tss_t) == sizeof(pthread_key_t), "tss_t is a pthread key");

/* The pthread layer's own calls (pthread_thread.c, pthread_sync.c). */
int hfp_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int hfp_pthread_join(pthread_t thread, void **retval);
int hfp_pthread_detach(pthread_t thread);
void hfp_pthread_exit(void *retval) __attribute__((noreturn));
pthread_t hfp_pthread_self(void);
int hfp_pthread_once(pthread_once_t *once, void (*init)(void));
int hfp_pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int hfp_pthread_key_delete(pthread_key_t key);
void *hfp_pthread_getspecific(pthread_key_t key);
int hfp_pthread_setspecific(pthread_key_t key, const void *value);
int hfp_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr);
int hfp_pthread_mutex_destroy(pthread_mutex_t *m);
int hfp_pthread_mutex_lock(pthread_mutex_t *m);
int hfp_pthread_mutex_trylock(pthread_mutex_t *m);
int hfp_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime);
int hfp_pthread_mutex_unlock(pthread_mutex_t *m);
int hfp_pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr);
int hfp_pthread_cond_destroy(pthread_cond_t *c);
int hfp_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int hfp_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime);
int hfp_pthread_cond_signal(pthread_cond_t *c);
int hfp_pthread_cond_broadcast(pthread_cond_t *c);
int hfp_nanosleep(const struct timespec *req, struct timespec *rem);

static int c11_result(int error) {
    switch (error) {
    case 0: return thrd_success;
    case EBUSY: return thrd_busy;
    case ETIMEDOUT: return thrd_timedout;
    case ENOMEM: return thrd_nomem;
    default: return thrd_error;
    }
}

/* ---- Threads ------------------------------------------------------------- */

typedef struct c11_start { thrd_start_t fn; void *arg; } c11_start;

static void *c11_entry(void *arg) {
    c11_start *s = arg;
    return (void *)(intptr_t)s->fn(s->arg);
}

int hfp_thrd_create(thrd_t *thr, thrd_start_t fn, void *arg);
int hfp_thrd_create(thrd_t *thr, thrd_start_t fn, void *arg) {
    c11_start *s = hf_alloc(sizeof *s);
    *s = (c11_start){fn, arg};
    pthread_t t;
    int error = hfp_pthread_create(&t, NULL, c11_entry, s);
    if (!error) *thr = (thrd_t)t;
    return c11_result(error);
}

int hfp_thrd_join(thrd_t thr, int *res);
int hfp_thrd_join(thrd_t thr, int *res) {
    void *value;
    int error = hfp_pthread_join((pthread_t)thr, &value);
    if (!error && res) *res = (int)(intptr_t)value;
    return c11_result(error);
}

int hfp_thrd_detach(thrd_t thr);
int hfp_thrd_detach(thrd_t thr) { return c11_result(hfp_pthread_detach((pthread_t)thr)); }

void hfp_thrd_exit(int res) __attribute__((noreturn));
void hfp_thrd_exit(int res) { hfp_pthread_exit((void *)(intptr_t)res); }

thrd_t hfp_thrd_current(void);
thrd_t hfp_thrd_current(void) { return (thrd_t)hfp_pthread_self(); }

int hfp_thrd_equal(thrd_t a, thrd_t b);
int hfp_thrd_equal(thrd_t a, thrd_t b) { return a == b; }

void hfp_thrd_yield(void);
void hfp_thrd_yield(void) { hfp_sched_yield(); }

int hfp_thrd_sleep(const struct timespec *duration, struct timespec *remaining);
int hfp_thrd_sleep(const struct timespec *duration, struct timespec *remaining) {
    return hfp_nanosleep(duration, remaining) == 0 ? 0 : -2;
}

/* ---- Mutexes and conditions ---------------------------------------------- */

int hfp_mtx_init(mtx_t *m, int type);
int hfp_mtx_init(mtx_t *m, int type) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, type & mtx_recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL);
    int error = hfp_pthread_mutex_init((pthread_mutex_t *)m, &attr);
    pthread_mutexattr_destroy(&attr);
    return c11_result(error);
}

void hfp_mtx_destroy(mtx_t *m);
void hfp_mtx_destroy(mtx_t *m) { hfp_pthread_mutex_destroy((pthread_mutex_t *)m); }
int hfp_mtx_lock(mtx_t *m);
int hfp_mtx_lock(mtx_t *m) { return c11_result(hfp_pthread_mutex_lock((pthread_mutex_t *)m)); }
int hfp_mtx_trylock(mtx_t *m);
int hfp_mtx_trylock(mtx_t *m) { return c11_result(hfp_pthread_mutex_trylock((pthread_mutex_t *)m)); }
int hfp_mtx_timedlock(mtx_t *m, const struct timespec *abstime);
int hfp_mtx_timedlock(mtx_t *m, const struct timespec *abstime) {
    return c11_result(hfp_pthread_mutex_timedlock((pthread_mutex_t *)m, abstime));
}
int hfp_mtx_unlock(mtx_t *m);
int hfp_mtx_unlock(mtx_t *m) { return c11_result(hfp_pthread_mutex_unlock((pthread_mutex_t *)m)); }

int hfp_cnd_init(cnd_t *c);
int hfp_cnd_init(cnd_t *c) { return c11_result(hfp_pthread_cond_init((pthread_cond_t *)c, NULL)); }
void hfp_cnd_destroy(cnd_t *c);
void hfp_cnd_destroy(cnd_t *c) { hfp_pthread_cond_destroy((pthread_cond_t *)c); }
int hfp_cnd_wait(cnd_t *c, mtx_t *m);
int hfp_cnd_wait(cnd_t *c, mtx_t *m) {
    return c11_result(hfp_pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}
int hfp_cnd_timedwait(cnd_t *c, mtx_t *m, const struct timespec *abstime);
int hfp_cnd_timedwait(cnd_t *c, mtx_t *m, const struct timespec *abstime) {
    return c11_result(hfp_pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m, abstime));
}
int hfp_cnd_signal(cnd_t *c);
int hfp_cnd_signal(cnd_t *c) { return c11_result(hfp_pthread_cond_signal((pthread_cond_t *)c)); }
int hfp_cnd_broadcast(cnd_t *c);
int hfp_cnd_broadcast(cnd_t *c) { return c11_result(hfp_pthread_cond_broadcast((pthread_cond_t *)c)); }

/* ---- call_once and thread-specific storage ------------------------------- */

void hfp_call_once(once_flag *flag, void (*fn)(void));
void hfp_call_once(once_flag *flag, void (*fn)(void)) { hfp_pthread_once((pthread_once_t *)flag, fn); }

int hfp_tss_create(tss_t *key, tss_dtor_t destructor);
int hfp_tss_create(tss_t *key, tss_dtor_t destructor) {
    return c11_result(hfp_pthread_key_create((pthread_key_t *)key, destructor));
}
void hfp_tss_delete(tss_t key);
void hfp_tss_delete(tss_t key) { hfp_pthread_key_delete((pthread_key_t)key); }
void *hfp_tss_get(tss_t key);
void *hfp_tss_get(tss_t key) { return hfp_pthread_getspecific((pthread_key_t)key); }
int hfp_tss_set(tss_t key, void *value);
int hfp_tss_set(tss_t key, void *value) { return c11_result(hfp_pthread_setspecific((pthread_key_t)key, value)); }
