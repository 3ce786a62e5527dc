/*
 * exit_in_thread.c — a thread calls exit(3) while main waits: the run ends
 * there, as the process would, and the status makes it a failure.
 */
#include <pthread.h>
#include <stdlib.h>

static void *quitter(void *arg) {
    (void)arg;
    exit(3);
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, quitter, NULL);
    pthread_join(t, NULL);
    return 0;
}
