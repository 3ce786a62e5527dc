/*
 * bench_mutex.c — the cost of an uncontended pthread_mutex_lock+unlock pair
 * on one thread, timed by the program itself so that both of its loops run
 * in the same process, in turn: ROUNDS rounds of PAIRS iterations with the
 * pair, then PAIRS without it, the least CPU time of each kept.  The pair
 * costs the difference over PAIRS; the loop with it, the whole loop.  A
 * change of machine load between the two loops would count as the pair's,
 * so they alternate in rounds of a millisecond or two.
 *
 * tests/bench_pthread.sh builds it natively and by build-pthread.  Under
 * the layer clock_gettime is the run's logical clock, so the program reads
 * the thread's CPU clock by the raw system call, which the layer leaves
 * alone: the bench times the layer itself, and the times only go to stdout
 * (shown with HEISENFUZZ_PROGRAM_OUTPUT=1), never into a decision.
 * ROUNDS * PAIRS pairs are 2 * ROUNDS * PAIRS preemption points, within
 * the program target's step budget of 10,000,000.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 40, PAIRS = 50000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static long long cpu_ns(void) {
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void with_pairs(long n) {
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&lock);
        pthread_mutex_unlock(&lock);
    }
}

static void without_pairs(long n) {
    /* An empty body the optimiser keeps. */
    for (long i = 0; i < n; i++) __asm__ volatile("" ::: "memory");
}

int main(void) {
    long long least_with = LLONG_MAX, least_without = LLONG_MAX;
    for (int round = 0; round < ROUNDS; round++) {
        long long start = cpu_ns();
        with_pairs(PAIRS);
        long long middle = cpu_ns();
        without_pairs(PAIRS);
        long long end = cpu_ns();
        if (middle - start < least_with) least_with = middle - start;
        if (end - middle < least_without) least_without = end - middle;
    }
    printf("bench_mutex: pair %.2f ns, loop %.2f ns\n", (double)(least_with - least_without) / PAIRS,
           (double)least_with / PAIRS);
    return 0;
}
