/*
 * aba.c — the twin of aba_buggy.c: the top of the stack carries a version
 * that every successful swap bumps (a tagged pointer: node index and
 * counter in one 64-bit word), so a top that went away and came back no
 * longer compares equal.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { NODES = 3, NONE = 0xffffffffu };

struct node {
    uint32_t next;           /* index, NONE at the bottom */
    bool taken;
};

static struct node pool[NODES];
static _Atomic uint64_t top = NONE;   /* version << 32 | index */

static uint64_t tagged(uint64_t old, uint32_t index) { return ((old >> 32) + 1) << 32 | index; }

static void push(uint32_t i) {
    pool[i].taken = false;
    uint64_t old = atomic_load(&top);
    do pool[i].next = (uint32_t)old;
    while (!atomic_compare_exchange_weak(&top, &old, tagged(old, i)));
}

static uint32_t pop(void) {
    uint64_t old = atomic_load(&top);
    uint32_t i;
    do {
        i = (uint32_t)old;
        if (i == NONE) return NONE;
    } while (!atomic_compare_exchange_weak(&top, &old, tagged(old, pool[i].next)));
    assert(!pool[i].taken && "a node was handed out twice");
    pool[i].taken = true;
    return i;
}

static void *consumer(void *arg) {
    (void)arg;
    pop();
    pop();
    return NULL;
}

static void *recycler(void *arg) {
    (void)arg;
    uint32_t a = pop();
    pop();
    if (a != NONE) push(a);
    return NULL;
}

int main(void) {
    for (int i = NODES - 1; i >= 0; i--) push((uint32_t)i);
    pthread_t c, r;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&r, NULL, recycler, NULL);
    pthread_join(c, NULL);
    pthread_join(r, NULL);
    return 0;
}
