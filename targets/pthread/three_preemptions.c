/*
 * three_preemptions.c — the twin of three_preemptions_buggy.c: the writer
 * closes before it commits, so a reader that sees the commit sees the
 * close.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int started, acknowledged, committed, closed;

static void *writer(void *arg) {
    (void)arg;
    atomic_store(&started, 1);
    atomic_store(&closed, 1);
    if (atomic_load(&acknowledged)) atomic_store(&committed, 1);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    if (atomic_load(&started)) atomic_store(&acknowledged, 1);
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
