/*
 * lost_update.c — the twin of lost_update_buggy.c: the increment holds a
 * mutex, so no schedule loses one.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 2, INCREMENTS = 3 };

static long counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *arg) {
    (void)arg;
    for (int i = 0; i < INCREMENTS; i++) {
        pthread_mutex_lock(&lock);
        counter = counter + 1;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    printf("counter = %ld\n", counter);
    assert(counter == THREADS * INCREMENTS);
    return 0;
}
