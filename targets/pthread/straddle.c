/*
 * straddle.c — the fixed twin of straddle_buggy.c: a publisher writes the
 * body and the seal under one lock, and the auditor reads them under it,
 * so no read can fall between the two stores.
 */
#include <assert.h>
#include <pthread.h>

enum { PUBLISHERS = 20, RECORD = 42 };

static int body, seal;
static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;

static void *publish(void *arg) {
    (void)arg;
    pthread_mutex_lock(&record_lock);
    body = RECORD;
    seal = RECORD;
    pthread_mutex_unlock(&record_lock);
    return NULL;
}

static void *audit(void *arg) {
    (void)arg;
    pthread_mutex_lock(&record_lock);
    int seen_body = body;
    int seen_seal = seal;
    pthread_mutex_unlock(&record_lock);
    assert(seen_body == seen_seal);
    return NULL;
}

int main(void) {
    pthread_t publishers[PUBLISHERS], auditor;
    for (int i = 0; i < PUBLISHERS; i++) pthread_create(&publishers[i], NULL, publish, NULL);
    pthread_create(&auditor, NULL, audit, NULL);
    for (int i = 0; i < PUBLISHERS; i++) pthread_join(publishers[i], NULL);
    pthread_join(auditor, NULL);
    return 0;
}
