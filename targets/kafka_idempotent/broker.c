/*
 * broker.c — a broker hosting a replica of input-topic-0.
 *
 * It learns its role from the controller's LeaderAndIsr, which travels the
 * network like any message: until it arrives, the broker answers produce
 * and fetch requests with NotLeaderOrFollower, even though the controller
 * (and so the producer's metadata) already names it leader.
 *
 * As leader it checks min.insync.replicas, then the producer's sequence
 * (producer_state.c), appends, and answers once every in-sync replica has
 * the batch (acks=all).  The ISR starts as the leader alone; the follower
 * joins it when a fetch of its has caught up with the leader's log.
 *
 * As follower it fetches from the leader in a loop (a fetch waits at the
 * leader up to replica_fetch_wait_ns for data), backing off after an error.
 */
#include "producer_state.h"

#include <assert.h>

enum { LOG_MAX_BATCHES = 64, PENDING_MAX = 16 };

/* A produce request waiting for the ISR to replicate its batch. */
typedef struct pending_produce {
    int producer_node;
    int32_t correlation_id;
    int64_t base_offset, end_offset;
} pending_produce;

typedef struct broker {
    kafka_cluster *cluster;
    int self;
    bool leads, follows;            /* what the controller has told it */
    int leader_node;
    kafka_batch log[LOG_MAX_BATCHES];
    int log_batches;
    int64_t log_end_offset;         /* records */
    int64_t high_watermark;
    bool follower_in_isr;
    int64_t follower_end_offset;    /* what the follower's last fetch said it has */
    producer_state producers;
    pending_produce pending[PENDING_MAX];
    int pending_count;
    bool fetch_parked;              /* a follower fetch waits for data */
    hf_msg parked_fetch;
    uint64_t parked_until;          /* node clock, ns */
} broker;

/* ---- Leader ---------------------------------------------------------------- */

static int isr_size(const broker *b) { return 1 + (b->follower_in_isr ? 1 : 0); }

static void answer_produce(int to, int32_t correlation_id, kafka_error error, int64_t base_offset) {
    kafka_produce_response r = {correlation_id, error, base_offset};
    hf_send(to, KAFKA_PRODUCE_RESPONSE, &r, sizeof r);
}

/* acks=all: answer the produce requests whose batches every ISR member has. */
static void complete_replicated(broker *b) {
    int64_t hw = b->follower_in_isr && b->follower_end_offset < b->log_end_offset ? b->follower_end_offset
                                                                                   : b->log_end_offset;
    if (hw > b->high_watermark) b->high_watermark = hw;
    int kept = 0;
    for (int i = 0; i < b->pending_count; i++) {
        pending_produce p = b->pending[i];
        if (p.end_offset <= b->high_watermark) answer_produce(p.producer_node, p.correlation_id, KAFKA_NONE, p.base_offset);
        else b->pending[kept++] = p;
    }
    b->pending_count = kept;
}

static void answer_fetch(broker *b, const hf_msg *request, int64_t from_offset) {
    kafka_fetch_response r = {.error = KAFKA_NONE};
    for (int i = 0; i < b->log_batches && r.count < KAFKA_FETCH_MAX_BATCHES; i++)
        if (b->log[i].base_offset >= from_offset) r.batches[r.count++] = b->log[i];
    hf_reply(request, KAFKA_FETCH_RESPONSE, &r, sizeof r);
}

static void answer_parked_fetch(broker *b) {
    if (!b->fetch_parked) return;
    b->fetch_parked = false;
    const kafka_fetch_request *req = b->parked_fetch.data;
    answer_fetch(b, &b->parked_fetch, req->fetch_offset);
}

static void park_pending(broker *b, const hf_msg *m, int32_t correlation_id, int64_t base_offset, int64_t end_offset) {
    assert(b->pending_count < PENDING_MAX);
    b->pending[b->pending_count++] = (pending_produce){m->from, correlation_id, base_offset, end_offset};
}

static void handle_produce(broker *b, const hf_msg *m) {
    const kafka_produce_request *req = m->data;
    kafka_batch batch = req->batch;
    kafka_error error = KAFKA_NONE;
    int64_t offset = -1;
    if (!b->leads) {
        error = KAFKA_NOT_LEADER_OR_FOLLOWER;
        hf_note("no LeaderAndIsr for input-topic-0 yet: not its leader");
    } else if (isr_size(b) < b->cluster->options.min_insync_replicas) {
        error = KAFKA_NOT_ENOUGH_REPLICAS;
        hf_note("ISR size %d < min.insync.replicas %d", isr_size(b), b->cluster->options.min_insync_replicas);
    } else {
        switch (producer_state_check(&b->producers, &batch, &offset, &error)) {
        case PRODUCER_APPEND:
            assert(b->log_batches < LOG_MAX_BATCHES);
            batch.base_offset = b->log_end_offset;
            b->log[b->log_batches++] = batch;
            b->log_end_offset += batch.record_count;
            producer_state_append(&b->producers, &batch);
            hf_note("append offsets %lld..%lld: records %lld..%lld (epoch %d, baseSeq %d)",
                    (long long)batch.base_offset, (long long)(b->log_end_offset - 1),
                    (long long)batch.first_record, (long long)(batch.first_record + batch.record_count - 1),
                    batch.producer_epoch, batch.base_sequence);
            kafka_check_append(b->cluster, &batch);
            park_pending(b, m, req->correlation_id, batch.base_offset, b->log_end_offset);
            answer_parked_fetch(b);
            break;
        case PRODUCER_DUPLICATE:
            hf_note("duplicate of the batch at offset %lld", (long long)offset);
            park_pending(b, m, req->correlation_id, offset, offset + batch.record_count);
            break;
        case PRODUCER_REJECT:
            break;
        }
    }
    if (error != KAFKA_NONE) answer_produce(m->from, req->correlation_id, error, -1);
    complete_replicated(b);
}

static void handle_fetch(broker *b, const hf_msg *m) {
    const kafka_fetch_request *req = m->data;
    if (!b->leads) {
        kafka_fetch_response r = {.error = KAFKA_NOT_LEADER_OR_FOLLOWER};
        hf_reply(m, KAFKA_FETCH_RESPONSE, &r, sizeof r);
        return;
    }
    if (req->fetch_offset > b->follower_end_offset) b->follower_end_offset = req->fetch_offset;
    if (!b->follower_in_isr && req->fetch_offset >= b->log_end_offset) {
        b->follower_in_isr = true;
        hf_note("%s caught up: ISR is {%s, %s}", hf_node_name(req->replica), hf_node_name(b->self),
                hf_node_name(req->replica));
    }
    complete_replicated(b);
    answer_parked_fetch(b);   /* an older fetch of the same follower is superseded */
    if (req->fetch_offset < b->log_end_offset) {
        answer_fetch(b, m, req->fetch_offset);
    } else {
        b->fetch_parked = true;
        b->parked_fetch = *m;
        b->parked_until = hf_clock() + b->cluster->options.replica_fetch_wait_ns;
    }
}

/* ---- Follower ---------------------------------------------------------------- */

static void fetcher(void *arg) {
    broker *b = arg;
    const kafka_options *o = &b->cluster->options;
    for (;;) {
        kafka_fetch_request req = {b->self, b->log_end_offset};
        hf_msg reply;
        if (!hf_call(b->leader_node, KAFKA_FETCH, &req, sizeof req, o->replica_fetch_wait_ns + o->request_timeout_ns,
                     &reply))
            continue;
        const kafka_fetch_response *r = reply.data;
        if (r->error != KAFKA_NONE) {
            hf_note("fetch -> %s", kafka_error_name(r->error));
            hf_sleep(o->replica_fetch_backoff_ns);
            continue;
        }
        for (int i = 0; i < r->count; i++) {
            if (r->batches[i].base_offset != b->log_end_offset) continue;   /* already have it */
            assert(b->log_batches < LOG_MAX_BATCHES);
            b->log[b->log_batches++] = r->batches[i];
            b->log_end_offset += r->batches[i].record_count;
        }
    }
}

/* ---- Requests ---------------------------------------------------------------- */

static void handle_leader_and_isr(broker *b, const hf_msg *m) {
    const kafka_leader_and_isr *req = m->data;
    if (req->leader == b->self && !b->leads) {
        b->leads = true;
        hf_note("LeaderAndIsr: now leader of input-topic-0 (leader epoch %d), ISR {%s}", req->leader_epoch,
                hf_node_name(b->self));
    } else if (req->follower == b->self && !b->follows) {
        b->follows = true;
        b->leader_node = req->leader;
        hf_note("LeaderAndIsr: now follower of %s for input-topic-0", hf_node_name(req->leader));
        hf_spawn(hf_printf("%s.fetcher", hf_node_name(b->self)), fetcher, b);
    }
    hf_reply(m, KAFKA_LEADER_AND_ISR_RESPONSE, NULL, 0);
}

void kafka_broker(void *arg) {
    broker *b = hf_alloc(sizeof *b);
    b->cluster = arg;
    b->self = hf_node_self();
    producer_state_init(&b->producers, b->cluster->options.reject_unknown_producer_gap);
    for (;;) {
        uint64_t wait = 0;   /* for ever */
        if (b->fetch_parked) {
            uint64_t now = hf_clock();
            if (now >= b->parked_until) {
                answer_parked_fetch(b);
                continue;
            }
            wait = b->parked_until - now;
        }
        hf_msg m;
        if (!hf_recv(&m, wait)) continue;
        switch (m.kind) {
        case KAFKA_LEADER_AND_ISR: handle_leader_and_isr(b, &m); break;
        case KAFKA_PRODUCE: handle_produce(b, &m); break;
        case KAFKA_FETCH: handle_fetch(b, &m); break;
        default: assert(!"a broker gets no such request");
        }
    }
}
