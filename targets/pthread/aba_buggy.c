/*
 * aba_buggy.c — ABA on a lock-free stack (a Treiber stack) with C11
 * atomics.  A pop reads the top node A and its successor B, and swaps A for
 * B with a compare-and-swap.  If meanwhile another thread pops A, pops B and
 * pushes A back, the swap still succeeds (the top is A again) and makes B,
 * which that thread holds, the top: B is then handed out twice.  Nodes come
 * from a fixed pool, so the same node comes back, as memory reuse would
 * bring it back.  Fewest preemptions: 1 (the first pop, just before its
 * compare-and-swap; the other thread then runs to its end).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

enum { NODES = 3 };

struct node {
    struct node *next;
    bool taken;              /* held by a thread, not in the stack */
};

static struct node pool[NODES];
static _Atomic(struct node *) top;

static void push(struct node *n) {
    n->taken = false;
    struct node *old = atomic_load(&top);
    do n->next = old;
    while (!atomic_compare_exchange_weak(&top, &old, n));
}

static struct node *pop(void) {
    struct node *old = atomic_load(&top);
    struct node *next;
    do {
        if (!old) return NULL;
        next = old->next;
    } while (!atomic_compare_exchange_weak(&top, &old, next));
    assert(!old->taken && "a node was handed out twice");
    old->taken = true;
    return old;
}

static void *consumer(void *arg) {
    (void)arg;
    pop();
    pop();
    return NULL;
}

static void *recycler(void *arg) {
    (void)arg;
    struct node *a = pop();
    pop();                   /* kept */
    if (a) push(a);
    return NULL;
}

int main(void) {
    for (int i = NODES - 1; i >= 0; i--) push(&pool[i]);
    pthread_t c, r;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&r, NULL, recycler, NULL);
    pthread_join(c, NULL);
    pthread_join(r, NULL);
    return 0;
}
