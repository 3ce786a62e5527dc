/*
 * three_preemptions_buggy.c — a handshake that breaks only under one
 * alternation: the writer's first step, the reader's first, the writer's
 * second, the reader's second, all before the writer's third.  Running
 * one thread to its end never shows it; fewest preemptions: 3.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int started, acknowledged, committed, closed;

static void *writer(void *arg) {
    (void)arg;
    atomic_store(&started, 1);
    if (atomic_load(&acknowledged)) atomic_store(&committed, 1);
    atomic_store(&closed, 1);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    if (atomic_load(&started)) atomic_store(&acknowledged, 1);
    /* A commit is only ever seen once the writer has closed. */
    if (atomic_load(&committed)) assert(atomic_load(&closed));
    return NULL;
}

int main(void) {
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
