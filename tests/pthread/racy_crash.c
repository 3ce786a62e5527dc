/*
 * racy_crash.c — a check-then-use race that crashes: main tests a pointer,
 * then reads through it again, and a thread that clears it in between
 * makes the read a null dereference.  The calm schedule passes; only a
 * preemption between the test and the use crashes the process, so a
 * crashing schedule has something to minimize to.
 */
#include <pthread.h>
#include <stddef.h>

static int value = 7;
static int *volatile shared = &value;
static volatile int sum;

static void *clearer(void *arg) {
    (void)arg;
    shared = NULL;
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, clearer, NULL);
    for (int i = 0; i < 4; i++) sum += i;   /* accesses where a preemption changes nothing */
    if (shared) sum += *shared;
    pthread_join(t, NULL);
    return 0;
}
