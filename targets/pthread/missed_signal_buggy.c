/*
 * missed_signal_buggy.c — a missed condition-variable signal: the consumer
 * waits without a predicate loop, so a signal sent before it waits is lost
 * and it waits forever.  Fewest preemptions: 1 (the producer runs first).
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int item;

static void *consumer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    pthread_cond_wait(&ready_cond, &lock);
    printf("consumed %d\n", item);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *producer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    item = 42;
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
