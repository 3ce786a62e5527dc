/*
 * crash.c — a thread dereferences a null pointer: the process crashes, and
 * libFuzzer keeps the schedule that did it.
 */
#include <pthread.h>
#include <stddef.h>

static int *volatile table;

static void *reader(void *arg) {
    (void)arg;
    return (void *)(long)*table;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL);
    return 0;
}
