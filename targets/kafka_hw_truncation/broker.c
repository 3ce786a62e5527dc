/*
 * broker.c — a Kafka broker holding one replica of the partition.
 *
 * One task serves everything the broker receives (LeaderAndIsr from the
 * controller, Produce from the producer, Fetch and OffsetsForLeaderEpoch
 * from the other replica, and their answers), so its state changes in one
 * place; a second task keeps its controller session alive with heartbeats.
 *
 * The log and the high-watermark checkpoint are files on the node's disk:
 * a restart reads them back, and the rest of the broker's memory is gone.
 *
 * As leader, the broker appends what it is sent, stamped with its leader
 * epoch, and advances the high watermark (HW) to the lowest log end of the
 * in-sync replicas; a Produce is answered once the HW has passed its
 * record (acks=all).  A Fetch with nothing new is held for up to
 * fetch_wait_max_ns (replica.fetch.wait.max.ms), so a follower learns the
 * HW that its last fetch advanced only from the next response.
 *
 * As follower, it fetches from the leader, appends, and keeps
 * min(leader's HW, own log end) as its HW, checkpointed at every change.
 *
 * The bug (buggy variant, become_follower): a broker that becomes a
 * follower truncates its log to its own HW, as Kafka did before KIP-101.
 * That HW lags the leader's by one fetch round; after a restart the
 * truncation cuts records the leader has already acknowledged, and if the
 * leader fails before this follower fetches them again, the follower is
 * elected with a log that lacks them.  The fix (KIP-101): the follower
 * asks the leader where its last leader epoch ends (OffsetsForLeaderEpoch)
 * and truncates there; until the answer comes it keeps its log.
 */
#include "replication.h"

#include <assert.h>
#include <string.h>

typedef enum role { ROLE_NONE, ROLE_LEADER, ROLE_FOLLOWER } role;

typedef struct pending_produce {
    hf_msg request;
    int64_t offset;
} pending_produce;

typedef struct broker {
    repl_world *world;
    const repl_options *o;
    int index;                                  /* 0: broker-a, 1: broker-b */
    repl_record log[REPL_MAX_LOG];
    int64_t log_end;
    int64_t hw;
    role role;
    int leader;                                 /* broker index of the leader, -1: none */
    int32_t leader_epoch;
    int32_t isr_version;
    unsigned isr;
    /* As leader. */
    int64_t follower_end[REPL_BROKERS];         /* log end each follower last fetched from */
    unsigned isr_expanding;                     /* asked the controller to add: counted in the HW already */
    pending_produce pending[REPL_MAX_LOG];
    int pending_count;
    bool fetch_held;
    hf_msg held_fetch;
    uint64_t held_until;
    /* As follower. */
    bool truncated;                             /* ready to fetch */
    bool fetch_in_flight;
    uint64_t resend_at;                         /* of the fetch or the epoch query */
} broker;

static int node_of(broker *b, int index) { return b->world->broker_node[index]; }

/* ---- The disk ------------------------------------------------------------------ */

static void must(hf_io io) { assert(io == HF_IO_OK && "the target allows no disk faults"); (void)io; }

static void checkpoint_hw(broker *b, int64_t hw) {
    if (hw == b->hw) return;
    b->hw = hw;
    must(hf_disk_write("replication-offset-checkpoint", 0, &b->hw, sizeof b->hw));
}

static void append(broker *b, repl_record r) {
    assert(b->log_end < REPL_MAX_LOG);
    must(hf_disk_append("log", &r, sizeof r, NULL));
    b->log[b->log_end++] = r;
}

/* Rewrites the log without its records from `end` on, atomically. */
static void truncate_to(broker *b, int64_t end) {
    if (end >= b->log_end) return;
    hf_note("truncate log %lld -> %lld", (long long)b->log_end, (long long)end);
    if (end == 0) {   /* nothing to keep: no log, nor a log.tmp left by a crash mid-truncation */
        hf_disk_delete("log.tmp");
        must(hf_disk_delete("log"));
    } else {
        must(hf_disk_write("log.tmp", 0, b->log, (size_t)end * sizeof b->log[0]));
        must(hf_disk_rename("log.tmp", "log"));
    }
    b->log_end = end;
    if (b->hw > end) checkpoint_hw(b, end);
}

static void recover(broker *b) {
    uint64_t size = 0;
    if (hf_disk_size("log", &size) == HF_IO_OK && size) {
        size_t got;
        assert(size <= sizeof b->log);
        must(hf_disk_read("log", 0, b->log, size, &got));
        b->log_end = (int64_t)(got / sizeof b->log[0]);
    }
    if (hf_disk_size("replication-offset-checkpoint", &size) == HF_IO_OK && size == sizeof b->hw) {
        size_t got;
        must(hf_disk_read("replication-offset-checkpoint", 0, &b->hw, sizeof b->hw, &got));
    }
    if (b->log_end) hf_note("recovered %lld records, HW %lld", (long long)b->log_end, (long long)b->hw);
}

/* ---- As leader -------------------------------------------------------------------- */

static void answer_produce(const hf_msg *request, bool ok, int64_t offset) {
    repl_produce_response r = {ok, offset};
    hf_reply(request, REPL_PRODUCE_RESPONSE, &r, sizeof r);
}

static void drop_pending(broker *b) {
    for (int i = 0; i < b->pending_count; i++) answer_produce(&b->pending[i].request, false, -1);
    b->pending_count = 0;
    b->fetch_held = false;
}

/* The HW is the lowest log end of the in-sync replicas — counting a
 * follower the controller is being asked to add, so that nothing is
 * acknowledged without it once it may be elected. */
static void advance_hw(broker *b) {
    int64_t hw = b->log_end;
    unsigned isr = b->isr | b->isr_expanding;
    for (int j = 0; j < REPL_BROKERS; j++)
        if (j != b->index && (isr >> j & 1) && b->follower_end[j] < hw) hw = b->follower_end[j];
    if (hw <= b->hw) return;
    checkpoint_hw(b, hw);
    int kept = 0;
    for (int i = 0; i < b->pending_count; i++) {
        if (b->pending[i].offset < b->hw) answer_produce(&b->pending[i].request, true, b->pending[i].offset);
        else b->pending[kept++] = b->pending[i];
    }
    b->pending_count = kept;
}

static void send_fetch_response(broker *b, const hf_msg *m) {
    const repl_fetch *f = m->data;
    repl_fetch_response r = {.ok = true, .leader_epoch = b->leader_epoch, .offset = f->offset,
                             .leader_log_end = b->log_end, .high_watermark = b->hw};
    for (int64_t o = f->offset; o < b->log_end && r.count < REPL_FETCH_MAX; o++) r.records[r.count++] = b->log[o];
    hf_send(m->from, REPL_FETCH_RESPONSE, &r, sizeof r);
}

static void on_fetch(broker *b, const hf_msg *m) {
    const repl_fetch *f = m->data;
    if (b->role != ROLE_LEADER || f->leader_epoch != b->leader_epoch) {
        repl_fetch_response r = {.ok = false, .leader_epoch = f->leader_epoch};
        hf_send(m->from, REPL_FETCH_RESPONSE, &r, sizeof r);
        return;
    }
    if (f->offset <= b->log_end) b->follower_end[f->broker] = f->offset;
    if (!(b->isr >> f->broker & 1) && f->offset == b->log_end && !(b->isr_expanding >> f->broker & 1)) {
        b->isr_expanding |= 1u << f->broker;
        repl_isr_expand e = {f->broker, b->leader_epoch};
        hf_send(b->world->controller, REPL_ISR_EXPAND, &e, sizeof e);
    }
    advance_hw(b);
    if (f->offset == b->log_end) {      /* nothing new: hold it (a newer fetch replaces it) */
        b->fetch_held = true;
        b->held_fetch = *m;
        b->held_until = hf_now() + b->o->fetch_wait_max_ns;
        return;
    }
    send_fetch_response(b, m);
}

static void on_produce(broker *b, const hf_msg *m) {
    const repl_produce *p = m->data;
    if (b->role != ROLE_LEADER || b->log_end == REPL_MAX_LOG) {
        answer_produce(m, false, -1);
        return;
    }
    append(b, (repl_record){p->value, b->leader_epoch});
    assert(b->pending_count < REPL_MAX_LOG);
    b->pending[b->pending_count++] = (pending_produce){*m, b->log_end - 1};
    advance_hw(b);
    if (b->fetch_held) {
        b->fetch_held = false;
        send_fetch_response(b, &b->held_fetch);
    }
}

/* Where epoch `epoch` ends in this log: the first offset written in a
 * later epoch, or the log end. */
static int64_t epoch_end(const broker *b, int32_t epoch) {
    for (int64_t o = 0; o < b->log_end; o++)
        if (b->log[o].epoch > epoch) return o;
    return b->log_end;
}

static void on_epoch_query(broker *b, const hf_msg *m) {
    const repl_epoch_query *q = m->data;
    repl_epoch_response r = {.ok = b->role == ROLE_LEADER && q->leader_epoch == b->leader_epoch,
                             .leader_epoch = q->leader_epoch, .end_offset = epoch_end(b, q->epoch)};
    hf_send(m->from, REPL_EPOCH_RESPONSE, &r, sizeof r);
}

/* ---- As follower ------------------------------------------------------------------- */

static void send_fetch(broker *b) {
    repl_fetch f = {b->index, b->leader_epoch, b->log_end};
    hf_send(node_of(b, b->leader), REPL_FETCH, &f, sizeof f);
    b->fetch_in_flight = true;
    b->resend_at = hf_now() + b->o->fetch_timeout_ns;
}

static void send_epoch_query(broker *b) {
    repl_epoch_query q = {b->index, b->leader_epoch, b->log_end ? b->log[b->log_end - 1].epoch : 0};
    hf_send(node_of(b, b->leader), REPL_EPOCH_QUERY, &q, sizeof q);
    b->resend_at = hf_now() + b->o->fetch_timeout_ns;
}

static void start_fetching(broker *b) {
    b->truncated = true;
    send_fetch(b);
}

static void become_follower(broker *b) {
    b->role = ROLE_FOLLOWER;
    b->truncated = false;
    b->fetch_in_flight = false;
    hf_sometimes(b->log_end > b->hw, "a broker became follower with records beyond its high watermark");
    if (b->o->leader_epoch_truncation) {
        send_epoch_query(b);
        return;
    }
    int64_t cut = b->log_end - b->hw;
    hf_state("records the new follower truncates", cut > 2 ? 2 : cut);
    truncate_to(b, b->hw);   /* the bug: the HW lags the leader's */
    start_fetching(b);
}

static void on_epoch_response(broker *b, const hf_msg *m) {
    const repl_epoch_response *r = m->data;
    if (b->role != ROLE_FOLLOWER || b->truncated || r->leader_epoch != b->leader_epoch || !r->ok) return;
    int64_t cut = b->log_end - (r->end_offset < b->log_end ? r->end_offset : b->log_end);
    hf_state("records the new follower truncates", cut > 2 ? 2 : cut);
    truncate_to(b, r->end_offset);
    start_fetching(b);
}

static void on_fetch_response(broker *b, const hf_msg *m) {
    const repl_fetch_response *r = m->data;
    if (b->role != ROLE_FOLLOWER || !b->truncated || r->leader_epoch != b->leader_epoch) return;
    b->fetch_in_flight = false;
    if (!r->ok) {   /* the leader moved on: wait for the controller's word, then try again */
        b->resend_at = hf_now() + b->o->fetch_timeout_ns;
        return;
    }
    if (r->offset != b->log_end) {
        if (r->leader_log_end < b->log_end) truncate_to(b, r->leader_log_end);   /* OffsetOutOfRange */
    } else {
        for (int i = 0; i < r->count && b->log_end < REPL_MAX_LOG; i++) append(b, r->records[i]);
    }
    int64_t hw = r->high_watermark < b->log_end ? r->high_watermark : b->log_end;
    if (hw > b->hw) checkpoint_hw(b, hw);
    send_fetch(b);
}

/* ---- Roles --------------------------------------------------------------------------- */

static void become_leader(broker *b) {
    b->role = ROLE_LEADER;
    memset(b->follower_end, 0, sizeof b->follower_end);
    b->isr_expanding = 0;
    repl_check_new_leader(b->world, b->index, b->log, b->log_end);
    advance_hw(b);
}

static void on_leader_and_isr(broker *b, const hf_msg *m) {
    const repl_leader_and_isr *l = m->data;
    if (l->leader_epoch < b->leader_epoch) return;
    if (l->leader_epoch == b->leader_epoch && l->isr_version <= b->isr_version && b->role != ROLE_NONE) return;
    bool new_epoch = l->leader_epoch != b->leader_epoch || b->role == ROLE_NONE;
    b->isr = l->isr;
    b->isr_version = l->isr_version;
    b->isr_expanding = 0;   /* the controller answered: ask again if still caught up */
    if (!new_epoch) {
        if (b->role == ROLE_LEADER) advance_hw(b);
        return;
    }
    if (b->role == ROLE_LEADER) drop_pending(b);
    b->leader_epoch = l->leader_epoch;
    b->leader = l->leader;
    hf_note("epoch %d: leader %s, ISR 0x%x", (int)l->leader_epoch,
            l->leader < 0 ? "none" : hf_node_name(node_of(b, l->leader)), l->isr);
    if (l->leader == b->index) become_leader(b);
    else if (l->leader >= 0) become_follower(b);
    else b->role = ROLE_NONE;
    hf_state(b->index ? "broker-b role" : "broker-a role", b->role);
}

static void on_timer(broker *b) {
    uint64_t now = hf_now();
    if (b->role == ROLE_LEADER && b->fetch_held && now >= b->held_until) {
        b->fetch_held = false;
        send_fetch_response(b, &b->held_fetch);
    }
    if (b->role == ROLE_FOLLOWER && now >= b->resend_at) {
        if (!b->truncated) send_epoch_query(b);
        else send_fetch(b);
    }
}

static uint64_t next_timer(const broker *b) {
    uint64_t at = UINT64_MAX;
    if (b->role == ROLE_LEADER && b->fetch_held) at = b->held_until;
    if (b->role == ROLE_FOLLOWER && b->resend_at < at) at = b->resend_at;
    return at;
}

/* ---- The session ------------------------------------------------------------------------ */

static void heartbeat(void *arg) {
    broker *b = arg;
    for (;;) {
        repl_heartbeat h = {b->index, hf_node_incarnation(hf_node_self()), b->leader_epoch, b->isr_version};
        hf_send(b->world->controller, REPL_HEARTBEAT, &h, sizeof h);
        hf_sleep(b->o->heartbeat_ns);
    }
}

void repl_broker(void *arg) {
    const repl_broker_arg *a = arg;
    broker *b = hf_alloc(sizeof *b);
    b->world = a->world;
    b->o = &a->world->options;
    b->index = a->index;
    b->leader = -1;
    a->world->log_of[b->index] = b->log;
    a->world->log_end_of[b->index] = &b->log_end;
    recover(b);
    hf_spawn(hf_printf("%s.heartbeat", hf_node_name(hf_node_self())), heartbeat, b);
    for (;;) {
        uint64_t at = next_timer(b), now = hf_now();
        hf_msg m;
        if (at <= now || !hf_recv(&m, at == UINT64_MAX ? 0 : at - now)) {
            on_timer(b);
            continue;
        }
        switch (m.kind) {
        case REPL_LEADER_AND_ISR: on_leader_and_isr(b, &m); break;
        case REPL_PRODUCE: on_produce(b, &m); break;
        case REPL_FETCH: on_fetch(b, &m); break;
        case REPL_FETCH_RESPONSE: on_fetch_response(b, &m); break;
        case REPL_EPOCH_QUERY: on_epoch_query(b, &m); break;
        case REPL_EPOCH_RESPONSE: on_epoch_response(b, &m); break;
        default: assert(!"a broker gets no such message");
        }
    }
}
