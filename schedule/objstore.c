/*
 * objstore.c — one object store for the world (S3, MinIO): PUT, GET, LIST
 * and DELETE, strongly consistent, each with a latency and, in the chaos
 * period, the faults that make diskless systems hard:
 *
 *   error        the request fails at once and changes nothing
 *   timeout      the request is lost (changes nothing), or is slow and
 *                takes effect after the caller has given up
 *   reply lost   the request takes effect, the reply never comes
 *
 * A request takes effect at the store halfway through its latency and its
 * reply arrives at the end, both as timer callbacks: a request whose caller
 * crashed or timed out in the meantime still takes effect.
 */
#include "sim_state.h"

#include <assert.h>
#include <string.h>

typedef enum { OP_PUT, OP_GET, OP_LIST, OP_DELETE } op_kind;

static const char *const op_names[] = {"put", "get", "list", "delete"};
static const char *const op_calls[] = {"hf_store_put", "hf_store_get", "hf_store_list", "hf_store_delete"};

typedef struct store_op {
    op_kind kind;
    int node;
    const char *key;                  /* or the prefix, for LIST */
    const void *data;                 /* PUT: the object */
    size_t size;
    bool replies;                     /* a reply is sent once it took effect */
    uint64_t reply_at;
    bool replied;
    hf_store_status status;
    const void *got;                  /* GET */
    size_t got_size;
    const char **keys;                /* LIST */
    size_t key_count;
    hf_waitq waiter;
} store_op;

const char *hf_store_status_name(hf_store_status s) {
    switch (s) {
    case HF_STORE_OK: return "ok";
    case HF_STORE_NOT_FOUND: return "not found";
    case HF_STORE_ERROR: return "error";
    case HF_STORE_TIMEOUT: return "timeout";
    }
    return "?";
}

/* ---- The store itself (callbacks: outside any task) -------------------------- */

static sim_object **object_link(hf_sim *s, const char *key) {
    sim_object **link = &s->objects;
    while (*link && strcmp((*link)->key, key) < 0) link = &(*link)->next;
    return link;
}

static void reply(void *arg) {
    store_op *op = arg;
    op->replied = true;
    hf_task *caller = hf_waitq_pop(&op->waiter);
    if (caller) hf_wake(caller);
}

static void take_effect(void *arg) {
    store_op *op = arg;
    hf_sim *s = hf_w.sim;
    sim_object **link = object_link(s, op->key);
    bool found = *link && strcmp((*link)->key, op->key) == 0;
    op->status = HF_STORE_OK;
    switch (op->kind) {
    case OP_PUT:
        if (!found) {
            sim_object *o = hf_alloc(sizeof *o);
            o->key = op->key;
            o->next = *link;
            *link = o;
        }
        (*link)->data = op->data;
        (*link)->size = op->size;
        break;
    case OP_GET:
        if (!found) { op->status = HF_STORE_NOT_FOUND; break; }
        op->got = (*link)->data;
        op->got_size = (*link)->size;
        break;
    case OP_LIST: {
        size_t len = strlen(op->key), count = 0;
        for (sim_object *o = *link; o && strncmp(o->key, op->key, len) == 0; o = o->next) count++;
        op->keys = hf_alloc((count ? count : 1) * sizeof *op->keys);
        for (sim_object *o = *link; o && strncmp(o->key, op->key, len) == 0; o = o->next)
            op->keys[op->key_count++] = o->key;
        break;
    }
    case OP_DELETE:
        if (found) *link = (*link)->next;   /* deleting a missing key is no error, as in S3 */
        break;
    }
    if (!op->replies) sim_note(false, "store %s %s by n%d took effect (no reply will come)", op_names[op->kind],
                               op->key, op->node);
    else hf_at(op->reply_at, reply, op);
}

/* ---- Requests ---------------------------------------------------------------- */

typedef enum { GOES_WELL, FAILS, GETS_LOST, LANDS_LATE, LOSES_REPLY } op_fate;

static op_fate decide_fate(void) {
    op_fate options[4] = {GOES_WELL};
    int n = 1;
    if (sim_fault_possible(HF_FAULT_STORE_ERROR)) options[n++] = FAILS;
    if (sim_fault_possible(HF_FAULT_STORE_TIMEOUT)) options[n++] = GETS_LOST;
    if (sim_fault_possible(HF_FAULT_STORE_REPLY_LOST)) options[n++] = LOSES_REPLY;
    op_fate fate = options[hf_decide_range(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_STORE_ERROR, 0, (uint64_t)n - 1, 0)];
    if (fate == GETS_LOST && hf_decide_bool(&hf_w.decider, HF_DECISION_DETAIL, false)) fate = LANDS_LATE;
    return fate;
}

static hf_store_status request(store_op *op, uint64_t timeout_ns) {
    assert(timeout_ns > 0);
    hf_sim *s = hf_w.sim;
    const hf_store_options *o = &s->o.store;
    sim_node *self = sim_self_node(op_calls[op->kind]);
    op->node = self->id;
    const char *what = hf_printf("%s %s by n%d", op_names[op->kind], op->key, self->id);
    if (op->kind == OP_PUT) sim_note(false, "store %s (%zu B)", what, op->size);
    else sim_note(false, "store %s", what);

    op_fate fate = decide_fate();
    uint64_t latency = o->latency_default_ns;
    if (sim_fault_possible(HF_FAULT_STORE_LATENCY)) {
        latency = hf_decide_range(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_STORE_LATENCY, o->latency_min_ns, o->latency_max_ns, latency);
        if (latency != o->latency_default_ns)
            sim_fault(HF_FAULT_STORE_LATENCY, "store latency: %s takes %s", what, sim_duration(latency));
    }
    uint64_t now = hf_w.now, deadline = now + timeout_ns;
    op->reply_at = now + latency;
    switch (fate) {
    case GOES_WELL:
        op->replies = true;
        hf_at(now + latency / 2, take_effect, op);
        break;
    case FAILS:
        sim_fault(HF_FAULT_STORE_ERROR, "store error: %s fails", what);
        op->status = HF_STORE_ERROR;
        hf_at(op->reply_at, reply, op);
        break;
    case GETS_LOST:
        sim_fault(HF_FAULT_STORE_TIMEOUT, "store timeout: %s is lost and changes nothing", what);
        break;
    case LANDS_LATE:
        sim_fault(HF_FAULT_STORE_TIMEOUT, "store timeout: %s is slow, takes effect %s after the timeout", what,
                  sim_duration(latency / 2));
        hf_at(deadline + latency / 2, take_effect, op);
        break;
    case LOSES_REPLY:
        sim_fault(HF_FAULT_STORE_REPLY_LOST, "store reply lost: %s takes effect, its reply is lost", what);
        hf_at(now + latency / 2, take_effect, op);
        break;
    }
    while (!op->replied)
        if (!sim_wait_until(&op->waiter, what, deadline)) break;
    hf_store_status status = op->replied ? op->status : HF_STORE_TIMEOUT;
    sim_note(false, "store %s: %s", what, hf_store_status_name(status));
    return status;
}

static store_op *new_op(op_kind kind, const char *key) {
    assert(key);
    store_op *op = hf_alloc(sizeof *op);
    op->kind = kind;
    op->key = hf_strdup(key);
    return op;
}

hf_store_status hf_store_put(const char *key, const void *data, size_t size, uint64_t timeout_ns) {
    assert(data || size == 0);
    store_op *op = new_op(OP_PUT, key);
    op->data = size ? memcpy(hf_alloc(size), data, size) : NULL;
    op->size = size;
    return request(op, timeout_ns);
}

hf_store_status hf_store_get(const char *key, const void **data, size_t *size, uint64_t timeout_ns) {
    assert(data && size);
    store_op *op = new_op(OP_GET, key);
    hf_store_status status = request(op, timeout_ns);
    *data = status == HF_STORE_OK ? op->got : NULL;
    *size = status == HF_STORE_OK ? op->got_size : 0;
    return status;
}

hf_store_status hf_store_list(const char *prefix, const char *const **keys, size_t *count, uint64_t timeout_ns) {
    assert(keys && count);
    store_op *op = new_op(OP_LIST, prefix);
    hf_store_status status = request(op, timeout_ns);
    *keys = status == HF_STORE_OK ? op->keys : NULL;
    *count = status == HF_STORE_OK ? op->key_count : 0;
    return status;
}

hf_store_status hf_store_delete(const char *key, uint64_t timeout_ns) {
    return request(new_op(OP_DELETE, key), timeout_ns);
}
