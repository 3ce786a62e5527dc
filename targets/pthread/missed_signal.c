/*
 * missed_signal.c — the twin of missed_signal_buggy.c: the consumer waits
 * in a loop on a predicate the producer sets under the lock, which also
 * makes it immune to spurious wake-ups.
 */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static bool ready;
static int item;

static void *consumer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!ready) pthread_cond_wait(&ready_cond, &lock);
    assert(item == 42);
    printf("consumed %d\n", item);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *producer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    item = 42;
    ready = true;
    pthread_cond_signal(&ready_cond);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void) {
    pthread_t c, p;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(c, NULL);
    pthread_join(p, NULL);
    return 0;
}
