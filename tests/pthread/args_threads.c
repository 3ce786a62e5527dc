/*
 * args_threads.c — a program whose bug needs its argument: argv[1] threads
 * each add to a counter without a lock.  With one thread there is nothing
 * to race; with two or more an update may be lost.  Without an argument it
 * says how to run it and exits 2, as a benchmark program would (a fuzzer
 * that gave it none would report that exit as the bug).
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_THREADS = 16 };

static int counter;

static void *add(void *arg) {
    (void)arg;
    int seen = counter;
    counter = seen + 1;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s THREADS\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]);
    assert(threads >= 1 && threads <= MAX_THREADS);
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, add, NULL);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    assert(counter == threads);
    return 0;
}
