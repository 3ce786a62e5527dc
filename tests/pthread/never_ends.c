/*
 * never_ends.c — main joins a thread that waits, by busy-polling, for a
 * flag that nobody sets: the run never finishes, which is a failure.
 */
#include <pthread.h>
#include <stdatomic.h>

atomic_int go;   /* extern: the compiler cannot prove it stays 0 */

static void *poller(void *arg) {
    (void)arg;
    while (!atomic_load(&go)) {}
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, poller, NULL);
    pthread_join(t, NULL);
    return 0;
}
