/*
 * lock_server.c — the lock server.  It grants the lock to one client at a
 * time as a lease of lease_ns, measured on its own clock, and grants it
 * again once that lease has expired on its clock, released or not.  A
 * client that asks again while its own lease runs gets a fresh lease (its
 * earlier reply may have been lost).
 */
#include "lease.h"

#include <assert.h>

typedef struct lock_server {
    lease_world *world;
    int holder;                    /* node; 0 when free */
    uint64_t lease_id;
    uint64_t expires_at;           /* server clock, ns */
} lock_server;

static void acquire(lock_server *s, const hf_msg *m) {
    const lease_acquire *req = m->data;
    uint64_t now = hf_clock();
    lease_grant g = {.granted = false};
    if (s->holder == 0 || s->holder == req->client || now >= s->expires_at) {
        if (s->holder != 0 && s->holder != req->client)
            hf_note("lease %llu of %s expired on the server's clock", (unsigned long long)s->lease_id,
                    hf_node_name(s->holder));
        s->holder = req->client;
        s->lease_id++;
        s->expires_at = now + s->world->options.lease_ns;
        g = (lease_grant){true, s->lease_id, s->world->options.lease_ns, s->expires_at};
        hf_note("grant lease %llu to %s for %llu ms", (unsigned long long)s->lease_id, hf_node_name(req->client),
                (unsigned long long)(s->world->options.lease_ns / HF_MS));
    }
    hf_reply(m, LEASE_ACQUIRE_REPLY, &g, sizeof g);
}

static void release(lock_server *s, const hf_msg *m) {
    const lease_release *req = m->data;
    if (s->holder == req->client && s->lease_id == req->lease_id) {
        s->holder = 0;
        hf_note("%s released lease %llu", hf_node_name(req->client), (unsigned long long)req->lease_id);
    }
    hf_reply(m, LEASE_RELEASE_REPLY, NULL, 0);
}

void lease_server(void *arg) {
    lock_server *s = hf_alloc(sizeof *s);
    s->world = arg;
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        switch (m.kind) {
        case LEASE_ACQUIRE: acquire(s, &m); break;
        case LEASE_RELEASE: release(s, &m); break;
        default: assert(!"the lock server gets no such request");
        }
    }
}
