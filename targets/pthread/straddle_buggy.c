/*
 * straddle_buggy.c — a torn read among many writers: twenty publisher
 * threads each publish the same record as two plain stores, the body and
 * then its seal, and an auditor started after them reads the two and
 * checks that they agree.  The auditor sees a torn record only when its two
 * reads straddle a publisher's two stores: it reads the body after some
 * publisher wrote it and the seal before any publisher sealed (or the
 * reverse).  Fewest preemptions: 1 (a publisher stopped between its
 * stores until the auditor has read both), but only after every publisher
 * but the stopped one has been kept from running as well: a uniform
 * random choice among threads lets the publishers finish as soon as they
 * are created, long before the auditor exists.
 */
#include <assert.h>
#include <pthread.h>

enum { PUBLISHERS = 20, RECORD = 42 };

static int body, seal;

static void *publish(void *arg) {
    (void)arg;
    body = RECORD;
    seal = RECORD;
    return NULL;
}

static void *audit(void *arg) {
    (void)arg;
    int seen_body = body;
    int seen_seal = seal;
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
