/*
 * double_checked_buggy.c — broken double-checked locking: the singleton is
 * published (the pointer set) before it is initialised, so a thread that
 * sees the pointer without taking the lock reads a half-built object.  (On
 * real hardware the same bug also hides in the right source order without
 * a release store; the scheduler interleaves but does not reorder, so the
 * program shows the order the hardware could.)  Fewest preemptions: 1
 * (between publishing and initialising).
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

struct settings { int limit; };

static struct settings *instance;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct settings *settings(void) {
    if (!instance) {
        pthread_mutex_lock(&lock);
        if (!instance) {
            instance = calloc(1, sizeof *instance);
            if (instance) instance->limit = 64;
        }
        pthread_mutex_unlock(&lock);
    }
    return instance;
}

static void *client(void *arg) {
    (void)arg;
    struct settings *s = settings();
    assert(s && s->limit == 64);
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, client, NULL);
    pthread_create(&b, NULL, client, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    free(instance);
    return 0;
}
