/*
 * atomicity.c — the twin of atomicity_buggy.c: the check and the
 * withdrawal are one critical section.
 */
#include <assert.h>
#include <pthread.h>

static long balance = 100;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *customer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&lock);
    if (balance >= 80) balance -= 80;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, customer, NULL);
    pthread_create(&b, NULL, customer, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(balance >= 0);
    return 0;
}
