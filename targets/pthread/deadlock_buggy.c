/*
 * deadlock_buggy.c — a lock-order deadlock: one thread takes the accounts
 * lock then the log lock, the other the log lock then the accounts lock.
 * Fewest preemptions: 1 (the first thread, holding one lock, is preempted
 * before the second).
 */
#include <pthread.h>

static pthread_mutex_t accounts = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int transfers, entries;

static void *transfer(void *arg) {
    (void)arg;
    pthread_mutex_lock(&accounts);
    pthread_mutex_lock(&log_lock);
    transfers++;
    entries++;
    pthread_mutex_unlock(&log_lock);
    pthread_mutex_unlock(&accounts);
    return NULL;
}

static void *audit(void *arg) {
    (void)arg;
    pthread_mutex_lock(&log_lock);
    pthread_mutex_lock(&accounts);
    entries++;
    pthread_mutex_unlock(&accounts);
    pthread_mutex_unlock(&log_lock);
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, transfer, NULL);
    pthread_create(&b, NULL, audit, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return transfers == 1 && entries == 2 ? 0 : 1;
}
