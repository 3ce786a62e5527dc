/*
 * atomicity_buggy.c — an atomicity violation across two critical sections:
 * each withdrawal checks the balance under the lock, lets go, and takes the
 * lock again to withdraw.  Two withdrawals can both pass the check, and the
 * balance goes below zero.  Fewest preemptions: 1 (between the two
 * critical sections of one withdrawal).
 */
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>

static long balance = 100;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool can_withdraw(long amount) {
    pthread_mutex_lock(&lock);
    bool ok = balance >= amount;
    pthread_mutex_unlock(&lock);
    return ok;
}

static void withdraw(long amount) {
    pthread_mutex_lock(&lock);
    balance -= amount;
    pthread_mutex_unlock(&lock);
}

static void *customer(void *arg) {
    (void)arg;
    if (can_withdraw(80)) withdraw(80);
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
