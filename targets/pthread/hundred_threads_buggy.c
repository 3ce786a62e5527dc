/*
 * hundred_threads_buggy.c — a bug among a hundred threads: each worker
 * counts itself under a lock, but records the highest worker number seen
 * with an unlocked check-then-store.  A worker preempted between its check
 * and its store, while the last worker stores 100, overwrites 100 with
 * its own smaller number.  Fewest preemptions: 1, but the search must pick
 * worker 100 among the hundred runnable threads at that moment.
 */
#include <assert.h>
#include <pthread.h>

enum { WORKERS = 100 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int finished, highest;

static void *worker(void *arg) {
    int number = (int)(long)arg;
    pthread_mutex_lock(&lock);
    finished++;
    pthread_mutex_unlock(&lock);
    if (number > highest) highest = number;
    return NULL;
}

int main(void) {
    static pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
    assert(finished == WORKERS);
    assert(highest == WORKERS);
    return 0;
}
