/*
 * lost_update_buggy.c — two threads increment a shared counter without a
 * lock; one preemption between another thread's load and store loses an
 * increment.  Fewest preemptions: 1.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 2, INCREMENTS = 3 };

static long counter;

static void *work(void *arg) {
    (void)arg;
    for (int i = 0; i < INCREMENTS; i++) counter = counter + 1;
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
