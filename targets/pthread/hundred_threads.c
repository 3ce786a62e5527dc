/*
 * hundred_threads.c — the twin of hundred_threads_buggy.c: the highest
 * number is recorded under the lock too.
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
    if (number > highest) highest = number;
    pthread_mutex_unlock(&lock);
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
