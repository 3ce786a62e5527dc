/*
 * bench_mutex.c — LOOPS uncontended lock+unlock pairs of one mutex on one
 * thread (LOOPS is given with -DLOOPS=N; -DLOCKS=0 keeps the loop and drops
 * the pair).  tests/bench_pthread.sh times it built natively and built by
 * build-pthread: against the same loop without the pair, for the cost of
 * one interposed pair; against LOOPS=0, for the loop as a whole, the
 * instrumentation of a program built by build-pthread included.
 */
#include <pthread.h>

#ifndef LOOPS
#define LOOPS 1000000
#endif
#ifndef LOCKS
#define LOCKS 1
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int main(void) {
    for (long i = 0; i < LOOPS; i++) {
#if LOCKS
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
#else
        /* An empty body the optimiser keeps: the loop itself is timed. */
        __asm__ volatile("" ::: "memory");
#endif
    }
    return 0;
}
