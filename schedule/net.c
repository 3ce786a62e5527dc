/*
 * net.c — the simulated network: messages between nodes, request/response
 * calls with a timeout, and the faults of the wire.
 *
 * A message is a packet with an arrival time; a timer callback hands it
 * over when logical time reaches it, so a message costs no task.  Links
 * are FIFO on the undisturbed schedule (a message never arrives before one
 * sent earlier on the same link), like a TCP connection.  Per message, when
 * the run's fault profile allows it and the chaos period lasts, decisions
 * may drop it, change its delay within the bounds, let it overtake the
 * messages in flight ahead of it, or deliver it twice.  Partitions (cut
 * links) lose what is sent or arrives across them; a clogged link holds
 * arrivals until it clears; a crashed node loses what arrives for it.
 *
 * Counting (hf_sim_stats): every original message is, at any moment,
 * exactly one of delivered, dropped or in flight; the network's copies are
 * counted apart the same way.
 */
#include "behaviour.h"
#include "sim_state.h"

#include <assert.h>
#include <string.h>

const char *hf_msg_kind_name(int kind) {
    hf_sim *s = sim_get();
    if (kind >= 0 && kind < s->o.net.kind_count) return s->o.net.kind_names[kind];
    return hf_printf("kind %d", kind);
}

/* The name carried by the message's trace events (hashed by content). */
static const char *kind_text(hf_sim *s, int kind) {
    return kind >= 0 && kind < s->o.net.kind_count ? s->o.net.kind_names[kind] : "message";
}

static void trace_msg(hf_sim *s, hf_msg_event what, const sim_packet *p) {
    hf_emit(HF_EV_MSG, (int64_t)p->m.id, HF_MSG_EVENT(what, p->m.from, p->m.to, p->copy),
            kind_text(s, p->m.kind), 0);
}

/* A behaviour: what happened to a message on its link, and after which kind
 * of message its node last received — so an order of arrival that is new
 * (a Read before the Write it follows) counts as new. */
static void message_feature(hf_msg_event what, sim_node *to, const sim_packet *p) {
    uint64_t order = (uint64_t)what << 48 | (uint64_t)(uint32_t)to->last_kind_in << 24 | (uint32_t)p->m.kind;
    uint64_t link = (uint64_t)p->m.from << 16 | (uint64_t)p->m.to << 8 | p->copy;
    hf_features_add(&hf_w.features, HF_FEAT_MESSAGE, order, link);
}

static const char *describe(hf_sim *s, const hf_msg *m) {
    return hf_printf("msg#%llu n%d->n%d %s", (unsigned long long)m->id, m->from, m->to, kind_text(s, m->kind));
}

/* ---- Packets ------------------------------------------------------------- */

static sim_packet *packet_new(hf_sim *s) {
    sim_packet *p = s->free_packets;
    if (p) s->free_packets = p->next;
    else p = hf_alloc(sizeof *p);
    memset(p, 0, sizeof *p);
    return p;
}

static void packet_free(hf_sim *s, sim_packet *p) {
    p->next = s->free_packets;
    s->free_packets = p;
}

static void count_delivered(hf_sim *s, const sim_packet *p) {
    if (p->copy) { s->stats.dup_in_flight--; s->stats.dup_delivered++; }
    else { s->stats.in_flight--; s->stats.delivered++; }
}

static void count_dropped_in_flight(hf_sim *s, const sim_packet *p) {
    if (p->copy) { s->stats.dup_in_flight--; s->stats.dup_dropped++; }
    else { s->stats.in_flight--; s->stats.dropped++; }
}

/* ---- Arrival (a timer callback: runs outside any task) ------------------- */

static void hand_to_call(hf_sim *s, sim_node *to, sim_packet *p) {
    for (sim_call **link = &to->calls; *link; link = &(*link)->next) {
        sim_call *c = *link;
        if (c->id != p->m.call) continue;
        *link = c->next;
        c->answered = true;
        c->reply = p->m;
        hf_task *waiter = hf_waitq_pop(&c->waiter);
        if (waiter) hf_wake(waiter);
        packet_free(s, p);
        return;
    }
    trace_msg(s, HF_MSG_UNMATCHED, p);
    packet_free(s, p);
}

static void arrive(void *arg) {
    sim_packet *p = arg;
    hf_sim *s = hf_w.sim;
    sim_link *link = &s->links[p->m.from][p->m.to];
    if (link->clogged_until > hf_w.now) {   /* held until the link clears */
        hf_at(link->clogged_until, arrive, p);
        return;
    }
    sim_node *to = &s->nodes[p->m.to];
    if (link->cut || !to->up) {
        hf_msg_event lost = link->cut ? HF_MSG_LOST_PARTITION : HF_MSG_LOST_DOWN;
        count_dropped_in_flight(s, p);
        trace_msg(s, lost, p);
        message_feature(lost, to, p);
        packet_free(s, p);
        return;
    }
    count_delivered(s, p);
    trace_msg(s, HF_MSG_DELIVER, p);
    message_feature(HF_MSG_DELIVER, to, p);
    to->last_kind_in = p->m.kind + 1;
    if (p->is_reply) {
        hand_to_call(s, to, p);
        return;
    }
    p->next = NULL;
    if (to->inbox_tail) to->inbox_tail->next = p; else to->inbox_head = p;
    to->inbox_tail = p;
    hf_task *receiver = hf_waitq_pop(&to->receivers);
    if (receiver) hf_wake(receiver);
}

/* ---- Sending ------------------------------------------------------------- */

static uint64_t decide_delay(hf_sim *s, const hf_msg *m) {
    const hf_net_options *o = &s->o.net;
    if (!sim_fault_possible(HF_FAULT_MSG_DELAY)) return o->delay_default_ns;
    uint64_t d = hf_decide_range(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_MSG_DELAY, o->delay_min_ns, o->delay_max_ns, o->delay_default_ns);
    if (d != o->delay_default_ns)
        sim_fault(HF_FAULT_MSG_DELAY, "delay %s by %s", describe(s, m), sim_duration(d));
    return d;
}

static uint64_t send_packet(int to, int kind, uint64_t call, bool is_reply, const void *data, size_t size) {
    sim_node *self = sim_self_node(is_reply ? "hf_reply" : call ? "hf_call" : "hf_send");
    hf_sim *s = hf_w.sim;
    assert(to >= 1 && to <= s->node_count && "no such node");
    assert(data || size == 0);
    hf_switch_point();   /* a send is a system call: others may run first */

    sim_packet *p = packet_new(s);
    p->m = (hf_msg){.id = ++s->last_msg_id, .from = self->id, .to = to, .kind = kind, .call = call,
                    .size = size};
    if (size) p->m.data = memcpy(hf_alloc(size), data, size);
    p->is_reply = is_reply;
    s->stats.sent++;
    trace_msg(s, HF_MSG_SEND, p);

    uint64_t id = p->m.id;
    sim_link *link = &s->links[self->id][to];
    if (link->cut) {
        s->stats.dropped++;
        trace_msg(s, HF_MSG_LOST_PARTITION, p);
        packet_free(s, p);
        return id;
    }
    if (sim_fault_possible(HF_FAULT_MSG_DROP) &&
        hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_MSG_DROP, false)) {
        s->stats.dropped++;
        sim_fault(HF_FAULT_MSG_DROP, "drop %s", describe(s, &p->m));
        packet_free(s, p);
        return id;
    }
    uint64_t now = hf_w.now, arrival = now + decide_delay(s, &p->m);
    /* FIFO: a message waits for those ahead of it on the link, unless it
     * overtakes them — possible while one of them arrives later than the
     * quickest delivery would. */
    bool room_to_overtake = link->last_arrival > now + s->o.net.delay_min_ns;
    if (room_to_overtake && sim_fault_possible(HF_FAULT_MSG_REORDER) &&
        hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_MSG_REORDER, false)) {
        if (arrival >= link->last_arrival) arrival = now + s->o.net.delay_min_ns;
        sim_fault(HF_FAULT_MSG_REORDER, "reorder %s ahead of msg#%llu", describe(s, &p->m),
                  (unsigned long long)link->last_id);
    } else if (arrival < link->last_arrival) {
        arrival = link->last_arrival;
    }
    if (arrival >= link->last_arrival) {
        link->last_arrival = arrival;
        link->last_id = id;
    }
    s->stats.in_flight++;
    hf_at(arrival, arrive, p);

    if (sim_fault_possible(HF_FAULT_MSG_DUPLICATE) &&
        hf_decide_bool(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_MSG_DUPLICATE, false)) {
        sim_packet *twin = packet_new(s);
        *twin = *p;
        twin->copy = true;
        uint64_t extra = hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, s->o.net.delay_max_ns, s->o.net.delay_default_ns);
        s->stats.duplicates++;
        s->stats.dup_in_flight++;
        sim_fault(HF_FAULT_MSG_DUPLICATE, "duplicate %s (the copy %s later)", describe(s, &p->m),
                  sim_duration(extra));
        hf_at(arrival + extra, arrive, twin);
    }
    return id;
}

void hf_send(int to, int kind, const void *data, size_t size) {
    send_packet(to, kind, 0, false, data, size);
}

void hf_reply(const hf_msg *request, int kind, const void *data, size_t size) {
    assert(request && request->call != 0 && "hf_reply answers a request from hf_call");
    assert(request->to == hf_node_self() && "a request is answered by the node it was sent to");
    send_packet(request->from, kind, request->call, true, data, size);
}

/* ---- Receiving ----------------------------------------------------------- */

bool hf_recv(hf_msg *m, uint64_t timeout_ns) {
    sim_node *self = sim_self_node("hf_recv");
    hf_switch_point();
    uint64_t deadline = timeout_ns ? hf_w.now + timeout_ns : SIM_NEVER;
    while (!self->inbox_head)
        if (!sim_wait_until(&self->receivers, "a message", deadline) && !self->inbox_head) return false;
    sim_packet *p = self->inbox_head;
    self->inbox_head = p->next;
    if (!self->inbox_head) self->inbox_tail = NULL;
    *m = p->m;
    packet_free(hf_w.sim, p);
    return true;
}

bool hf_call(int to, int kind, const void *data, size_t size, uint64_t timeout_ns, hf_msg *reply) {
    assert(timeout_ns > 0 && reply);
    sim_node *self = sim_self_node("hf_call");
    hf_sim *s = hf_w.sim;
    sim_call call = {.id = ++s->last_call_id};
    call.next = self->calls;
    self->calls = &call;
    uint64_t deadline = hf_w.now + timeout_ns;
    send_packet(to, kind, call.id, false, data, size);
    while (!call.answered)
        if (!sim_wait_until(&call.waiter, "a reply", deadline)) break;
    if (!call.answered) {   /* timed out: no reply may find it any more */
        for (sim_call **link = &self->calls; *link; link = &(*link)->next)
            if (*link == &call) { *link = call.next; break; }
        return false;
    }
    *reply = call.reply;
    return true;
}

/* ---- Crash and quiet ------------------------------------------------------ */

void sim_net_crash(hf_sim *s, sim_node *n) {
    /* The inbox was process memory: what it held is gone.  The callers
     * waiting in hf_call were killed with their node. */
    sim_packet *p = n->inbox_head;
    while (p) {
        sim_packet *next = p->next;
        trace_msg(s, HF_MSG_LOST_DOWN, p);
        packet_free(s, p);
        p = next;
    }
    n->inbox_head = n->inbox_tail = NULL;
    n->calls = NULL;
}

void sim_net_quiet(hf_sim *s) {
    for (int i = 1; i <= s->node_count; i++)
        for (int j = 1; j <= s->node_count; j++) {
            s->links[i][j].cut = false;
            if (s->links[i][j].clogged_until > hf_w.now) s->links[i][j].clogged_until = hf_w.now;
        }
}
