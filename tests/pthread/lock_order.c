/*
 * lock_order.c — a bug that one ordering constraint between two lock
 * calls finds, and none between two memory accesses can: four writers
 * each set `ready` under one lock, then `done` under another; a reader
 * created after them must see `ready` set and `done` not yet.  The
 * writers' store to `done` is made holding `done_lock`, so a constraint
 * that holds them at that store (until the reader has read `done`) holds
 * threads that own the lock the reader waits for, and gives up; one that
 * holds them at their call to lock `done_lock` (until the reader has
 * taken it) is met.  The test (tests/test_pthread.sh) tries every
 * constraint between the first sites the calm run numbers.
 */
#include <assert.h>
#include <pthread.h>

enum { WRITERS = 4 };

static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static int ready, done;

static void *writer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&ready_lock);
    ready = 1;
    pthread_mutex_unlock(&ready_lock);
    pthread_mutex_lock(&done_lock);
    done = ready + 1;
    pthread_mutex_unlock(&done_lock);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    pthread_mutex_lock(&ready_lock);
    int seen_ready = ready;
    pthread_mutex_unlock(&ready_lock);
    pthread_mutex_lock(&done_lock);
    int seen_done = done;
    pthread_mutex_unlock(&done_lock);
    assert(!seen_ready || seen_done == seen_ready + 1);
    return NULL;
}

int main(void) {
    pthread_t writers[WRITERS], checker;
    for (int i = 0; i < WRITERS; i++) pthread_create(&writers[i], NULL, writer, NULL);
    pthread_create(&checker, NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++) pthread_join(writers[i], NULL);
    pthread_join(checker, NULL);
    return 0;
}
