/*
 * controller.c — the controller (ZooKeeper and Kafka's controller in one):
 * broker sessions, the partition's leader, leader epoch and ISR.
 *
 * A broker's session lives while its heartbeats arrive; one silent for
 * session_timeout_ns expires.  A broker that comes back (a heartbeat after
 * expiry, or from a new incarnation: it restarted) registers again and is
 * sent the partition's state.  When the leader's session expires, the
 * controller elects another in-sync replica whose session is alive (clean
 * election only: unclean.leader.election.enable=false), with the next
 * leader epoch; with none, the partition is offline until an in-sync
 * replica registers.  A follower whose session expires leaves the ISR; the
 * leader asks for a caught-up follower to be added back.
 *
 * Every heartbeat that reports an older state than the controller's is
 * answered with the current LeaderAndIsr, so a lost one is sent again.
 */
#include "replication.h"

#include <assert.h>

typedef struct session {
    bool alive;
    uint32_t incarnation;
    uint64_t last_heartbeat;
} session;

typedef struct controller {
    repl_world *world;
    const repl_options *o;
    session sessions[REPL_BROKERS];
    repl_leader_and_isr state;
} controller;

static void send_state(controller *c, int broker) {
    hf_send(c->world->broker_node[broker], REPL_LEADER_AND_ISR, &c->state, sizeof c->state);
}

static void publish(controller *c) {
    c->world->leader = c->state.leader;
    hf_state("leader epoch", c->state.leader_epoch);
    hf_state("ISR", c->state.isr);
    for (int b = 0; b < REPL_BROKERS; b++)
        if (c->sessions[b].alive) send_state(c, b);
}

static void elect(controller *c, int leader) {
    c->state.leader = leader;
    c->state.leader_epoch++;
    c->state.isr_version++;
    if (leader >= 0) c->state.isr = 1u << leader | (c->state.isr & ~(1u << leader));
    hf_note("controller: epoch %d, leader %s, ISR 0x%x", (int)c->state.leader_epoch,
            leader < 0 ? "none (offline)" : hf_node_name(c->world->broker_node[leader]), c->state.isr);
    publish(c);
}

/* An in-sync replica with a live session, other than `except`; -1: none. */
static int electable(const controller *c, int except) {
    for (int b = 0; b < REPL_BROKERS; b++)
        if (b != except && (c->state.isr >> b & 1) && c->sessions[b].alive) return b;
    return -1;
}

static void expire(controller *c, int broker) {
    c->sessions[broker].alive = false;
    hf_note("controller: session of %s expired", hf_node_name(c->world->broker_node[broker]));
    if (c->state.leader == broker) {
        int next = electable(c, broker);
        if (next >= 0) {
            c->state.isr &= ~(1u << broker);
            hf_reachable("the leader's session expired and another in-sync replica was elected");
        }
        elect(c, next);
    } else if (c->state.isr >> broker & 1 && (c->state.isr & ~(1u << broker))) {
        c->state.isr &= ~(1u << broker);
        c->state.isr_version++;
        hf_sometimes(true, "a follower's session expired and it left the ISR");
        publish(c);
    }
}

static void on_heartbeat(controller *c, const repl_heartbeat *h) {
    session *s = &c->sessions[h->broker];
    bool registers = !s->alive || s->incarnation != h->incarnation;
    s->alive = true;
    s->incarnation = h->incarnation;
    s->last_heartbeat = hf_now();
    if (registers && c->state.leader < 0 && (c->state.isr >> h->broker & 1)) {
        elect(c, h->broker);
        return;
    }
    if (registers || h->leader_epoch != c->state.leader_epoch || h->isr_version != c->state.isr_version)
        send_state(c, h->broker);
}

static void on_isr_expand(controller *c, const repl_isr_expand *e) {
    if (e->leader_epoch != c->state.leader_epoch || !c->sessions[e->broker].alive) {
        /* Stale, or the follower is gone: the leader stops counting it. */
        c->state.isr_version++;
        publish(c);
        return;
    }
    if (c->state.isr >> e->broker & 1) return;
    c->state.isr |= 1u << e->broker;
    c->state.isr_version++;
    hf_sometimes(true, "a follower caught up and rejoined the ISR");
    publish(c);
}

void repl_controller(void *arg) {
    controller *c = hf_alloc(sizeof *c);
    c->world = arg;
    c->o = &c->world->options;
    /* The partition as created: broker-b leads epoch 1, both in sync. */
    c->state = (repl_leader_and_isr){.leader = 1, .leader_epoch = 1, .isr_version = 1, .isr = 3};
    c->world->leader = 1;
    for (int b = 0; b < REPL_BROKERS; b++) c->sessions[b] = (session){true, 1, 0};
    for (;;) {
        uint64_t now = hf_now(), wake = UINT64_MAX;
        for (int b = 0; b < REPL_BROKERS; b++) {
            session *s = &c->sessions[b];
            if (!s->alive) continue;
            uint64_t deadline = s->last_heartbeat + c->o->session_timeout_ns;
            if (deadline <= now) expire(c, b);
            else if (deadline < wake) wake = deadline;
        }
        hf_msg m;
        if (!hf_recv(&m, wake == UINT64_MAX ? 0 : wake - now)) continue;
        switch (m.kind) {
        case REPL_HEARTBEAT: on_heartbeat(c, m.data); break;
        case REPL_ISR_EXPAND: on_isr_expand(c, m.data); break;
        case REPL_METADATA: {
            repl_metadata_response r = {c->state.leader < 0 ? -1 : c->world->broker_node[c->state.leader]};
            hf_reply(&m, REPL_METADATA_RESPONSE, &r, sizeof r);
            break;
        }
        default: assert(!"the controller gets no such message");
        }
    }
}
