/*
 * sync.c — mutex, condition variable, semaphore and bounded channel for
 * tasks.  Each blocking call starts at a switch point, so the scheduler may
 * let another task in first, exactly where a real thread could lose the race.
 * Waiters queue in FIFO order; a woken task re-checks its condition, so a
 * third task may barge in between, as it can with real locks.
 */
#include "world.h"

#include <assert.h>
#include <string.h>

struct hf_chan {
    const char *send_wait, *recv_wait;   /* "send NAME", "recv NAME" for the timeline */
    size_t item_size, capacity;
    size_t head, len;
    bool closed;
    unsigned char *items;
    hf_waitq senders, receivers;
};

static void wake_one(hf_waitq *q) {
    hf_task *t = hf_waitq_pop(q);
    if (t) hf_wake(t);
}

static void wake_all(hf_waitq *q) {
    hf_task *t;
    while ((t = hf_waitq_pop(q))) hf_wake(t);
}

/* ---- Mutex --------------------------------------------------------------- */

void hf_mutex_init(hf_mutex *m, const char *name) {
    memset(m, 0, sizeof *m);
    m->name = hf_printf("mutex %s", name);
}

void hf_mutex_lock(hf_mutex *m) {
    hf_task *self = hf_current();
    assert(m->owner != self->id && "mutex is not recursive");
    hf_switch_point();
    while (m->owner != 0) hf_block(&m->waiters, m->name, 0);
    m->owner = self->id;
}

void hf_mutex_unlock(hf_mutex *m) {
    assert(m->owner == hf_self() && "unlock by a task that does not hold the mutex");
    m->owner = 0;
    wake_one(&m->waiters);
}

/* ---- Condition variable -------------------------------------------------- */

void hf_cond_init(hf_cond *c, const char *name) {
    memset(c, 0, sizeof *c);
    c->name = hf_printf("cond %s", name);
}

static bool cond_wait(hf_cond *c, hf_mutex *m, uint64_t timeout_ns) {
    hf_mutex_unlock(m);
    hf_block(&c->waiters, c->name, timeout_ns);
    bool timed_out = hf_current()->timed_out;
    hf_mutex_lock(m);
    return !timed_out;
}

void hf_cond_wait(hf_cond *c, hf_mutex *m) { cond_wait(c, m, 0); }

bool hf_cond_wait_for(hf_cond *c, hf_mutex *m, uint64_t timeout_ns) {
    assert(timeout_ns > 0);
    return cond_wait(c, m, timeout_ns);
}

void hf_cond_signal(hf_cond *c) { wake_one(&c->waiters); }
void hf_cond_broadcast(hf_cond *c) { wake_all(&c->waiters); }

/* ---- Semaphore ----------------------------------------------------------- */

void hf_sem_init(hf_sem *s, const char *name, uint64_t count) {
    memset(s, 0, sizeof *s);
    s->name = hf_printf("sem %s", name);
    s->count = count;
}

void hf_sem_wait(hf_sem *s) {
    hf_switch_point();
    while (s->count == 0) hf_block(&s->waiters, s->name, 0);
    s->count--;
}

void hf_sem_post(hf_sem *s) {
    s->count++;
    wake_one(&s->waiters);
}

/* ---- Channel ------------------------------------------------------------- */

hf_chan *hf_chan_new(const char *name, size_t item_size, size_t capacity) {
    assert(item_size > 0 && capacity > 0);
    hf_chan *c = hf_alloc(sizeof *c);
    c->send_wait = hf_printf("send %s", name);
    c->recv_wait = hf_printf("recv %s", name);
    c->item_size = item_size;
    c->capacity = capacity;
    c->items = hf_alloc(item_size * capacity);
    return c;
}

bool hf_chan_send(hf_chan *c, const void *item) {
    hf_switch_point();
    while (c->len == c->capacity && !c->closed) hf_block(&c->senders, c->send_wait, 0);
    if (c->closed) return false;
    size_t tail = (c->head + c->len) % c->capacity;
    memcpy(c->items + tail * c->item_size, item, c->item_size);
    c->len++;
    wake_one(&c->receivers);
    return true;
}

static bool chan_recv(hf_chan *c, void *item, uint64_t timeout_ns) {
    hf_switch_point();
    uint64_t deadline = hf_now() + timeout_ns;
    while (c->len == 0 && !c->closed) {
        if (timeout_ns && hf_now() >= deadline) return false;
        hf_block(&c->receivers, c->recv_wait, timeout_ns ? deadline - hf_now() : 0);
    }
    if (c->len == 0) return false;
    memcpy(item, c->items + c->head * c->item_size, c->item_size);
    c->head = (c->head + 1) % c->capacity;
    c->len--;
    wake_one(&c->senders);
    return true;
}

bool hf_chan_recv(hf_chan *c, void *item) { return chan_recv(c, item, 0); }

bool hf_chan_recv_for(hf_chan *c, void *item, uint64_t timeout_ns) {
    assert(timeout_ns > 0);
    return chan_recv(c, item, timeout_ns);
}

void hf_chan_close(hf_chan *c) {
    c->closed = true;
    wake_all(&c->senders);
    wake_all(&c->receivers);
}

size_t hf_chan_len(const hf_chan *c) { return c->len; }
