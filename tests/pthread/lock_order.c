/*
 * lock_order.c — a bug that one ordering constraint between two lock
 * calls finds, and none between two memory accesses can: four writers
 * each set `ready` under one lock, then `done` under another; a reader
 * created after them must see `ready` set and `done` not yet.  The
 * writers' store to `done` is made holding `done_lock`, so a constraint
 * that holds them at that store (until the reader has read `done`) holds
 * threads that own the lock the reader waits for, and gives up; one that
 * holds them at their call to take `done_lock` (until the reader has
 * taken it) is met.  The locks are mutexes, or with -DORDER_RWLOCK
 * rwlocks taken for writing, or with -DORDER_SEMAPHORE semaphores of
 * count 1.  The test (tests/test_pthread.sh) tries every constraint
 * between the first sites the calm run numbers.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>

enum { WRITERS = 4 };

#if defined(ORDER_RWLOCK)
static pthread_rwlock_t ready_lock = PTHREAD_RWLOCK_INITIALIZER, done_lock = PTHREAD_RWLOCK_INITIALIZER;
#define TAKE(lock) pthread_rwlock_wrlock(&lock)
#define GIVE(lock) pthread_rwlock_unlock(&lock)
#elif defined(ORDER_SEMAPHORE)
static sem_t ready_lock, done_lock;
#define TAKE(lock) sem_wait(&lock)
#define GIVE(lock) sem_post(&lock)
#else
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER, done_lock = PTHREAD_MUTEX_INITIALIZER;
#define TAKE(lock) pthread_mutex_lock(&lock)
#define GIVE(lock) pthread_mutex_unlock(&lock)
#endif
static int ready, done;

static void *writer(void *arg) {
    (void)arg;
    TAKE(ready_lock);
    ready = 1;
    GIVE(ready_lock);
    TAKE(done_lock);
    done = ready + 1;
    GIVE(done_lock);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    TAKE(ready_lock);
    int seen_ready = ready;
    GIVE(ready_lock);
    TAKE(done_lock);
    int seen_done = done;
    GIVE(done_lock);
    assert(!seen_ready || seen_done == seen_ready + 1);
    return NULL;
}

int main(void) {
    pthread_t writers[WRITERS], checker;
#if defined(ORDER_SEMAPHORE)
    sem_init(&ready_lock, 0, 1);
    sem_init(&done_lock, 0, 1);
#endif
    for (int i = 0; i < WRITERS; i++) pthread_create(&writers[i], NULL, writer, NULL);
    pthread_create(&checker, NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++) pthread_join(writers[i], NULL);
    pthread_join(checker, NULL);
    return 0;
}
