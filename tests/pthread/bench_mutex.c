/*
 * bench_mutex.c — LOOPS uncontended lock+unlock pairs of one mutex on one
 * thread (LOOPS is given with -DLOOPS=N).  tests/bench_pthread.sh times it
 * built natively and built by build-pthread, against the same program with
 * LOOPS=0, for the cost of one interposed pair.
 */
#include <pthread.h>

#ifndef LOOPS
#define LOOPS 1000000
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
    for (long i = 0; i < LOOPS; i++) {
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
    }
    return 0;
}
