/*
 * main_returns.c — main returns while one thread polls forever and another
 * is blocked on a lock main holds: the process ends all the same, a success.
 * A spin-wait with a setter (ready) ends too: the time slice lets the
 * setter run.
 */
#include <pthread.h>
#include <stdatomic.h>

atomic_int go, ready;   /* extern: the compiler cannot prove go stays 0 */
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

static void *poller(void *arg) {
    (void)arg;
    while (!atomic_load(&go)) {}
    return NULL;
}

static void *blocked(void *arg) {
    (void)arg;
    pthread_mutex_lock(&held);
    return NULL;
}

static void *setter(void *arg) {
    (void)arg;
    atomic_store(&ready, 1);
    return NULL;
}

int main(void) {
    pthread_t a, b, c;
    pthread_mutex_lock(&held);
    pthread_create(&c, NULL, setter, NULL);
    while (!atomic_load(&ready)) {}
    pthread_create(&a, NULL, poller, NULL);
    pthread_detach(a);
    pthread_create(&b, NULL, blocked, NULL);
    return 0;
}
