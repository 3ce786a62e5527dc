/*
 * order_buggy.c — an order violation (use before initialisation): main
 * starts the worker, then fills in the configuration the worker reads.
 * When the worker runs first it works with a size of 0.  Fewest
 * preemptions: 1 (the worker runs right after its creation).
 */
#include <assert.h>
#include <pthread.h>

struct config { int size; };

static struct config config;
static int result;

static void *worker(void *arg) {
    (void)arg;
    result = config.size * 2;
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    config.size = 10;
    pthread_join(t, NULL);
    assert(result == 20);
    return 0;
}
