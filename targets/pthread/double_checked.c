/*
 * double_checked.c — the twin of double_checked_buggy.c: the object is
 * built first and published with a release store, read with an acquire
 * load.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct settings { int limit; };

static _Atomic(struct settings *) instance;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct settings *settings(void) {
    struct settings *s = atomic_load_explicit(&instance, memory_order_acquire);
    if (!s) {
        pthread_mutex_lock(&lock);
        s = atomic_load_explicit(&instance, memory_order_relaxed);
        if (!s) {
            s = calloc(1, sizeof *s);
            if (s) s->limit = 64;
            atomic_store_explicit(&instance, s, memory_order_release);
        }
        pthread_mutex_unlock(&lock);
    }
    return s;
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
    free(atomic_load(&instance));
    return 0;
}
