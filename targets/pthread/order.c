/*
 * order.c — the twin of order_buggy.c: the configuration is filled in
 * before the worker starts.
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
    config.size = 10;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    assert(result == 20);
    return 0;
}
