/*
 * producer.c — an idempotent producer (enable.idempotence=true) writing to
 * input-topic-0.
 *
 * The application fills a batch every batch_fill_ns; each batch gets its
 * base sequence when first sent (the sequence counts records, so batches of
 * 1458 and 1365 records start at 0, 1458, 2823, 4188, 5553, as in the
 * issue).  Up to max_in_flight batches may be unacknowledged at once: the
 * leader remembers that many per producer to recognise retries.
 *
 * Responses:
 *   success                     the batch's records are acknowledged
 *   NotLeaderOrFollower         refresh metadata, retry after retry_backoff_ns
 *   NotEnoughReplicas, timeout  retry after retry_backoff_ns, same sequence
 *   OutOfOrderSequence          for a batch behind an unacknowledged one, a
 *                               consequence of that one's failure: retry;
 *                               for the oldest unacknowledged batch, the
 *                               leader and the producer disagree on the
 *                               sequence: bump the epoch and give the
 *                               unacknowledged batches new sequences from 0
 *                               (the Java client's idempotent epoch bump)
 */
#include "kafka.h"

#include <assert.h>

enum { PRODUCER_MAX_BATCHES = 32 };

typedef enum batch_state { BATCH_WAITING, BATCH_IN_FLIGHT, BATCH_ACKED } batch_state;

typedef struct producer_batch {
    kafka_batch b;
    bool sequenced;                 /* has a base sequence in the current epoch */
    batch_state state;
    uint64_t send_at;               /* WAITING: filled, or backed off, until then (node clock) */
    uint64_t deadline;              /* IN_FLIGHT: request timeout (node clock) */
    int32_t correlation_id;         /* IN_FLIGHT: of the current attempt */
} producer_batch;

typedef struct producer {
    kafka_cluster *cluster;
    const kafka_options *o;
    int leader;
    int64_t producer_id;
    int32_t epoch;
    int32_t next_sequence;
    int32_t next_correlation_id;
    producer_batch batches[PRODUCER_MAX_BATCHES];
    int batch_count;
    int in_flight;
} producer;

static void refresh_metadata(producer *p) {
    hf_msg reply;
    while (!hf_call(p->cluster->controller, KAFKA_METADATA, NULL, 0, p->o->request_timeout_ns, &reply)) {}
    const kafka_metadata_response *r = reply.data;
    p->leader = r->leader;
}

static void init_producer_id(producer *p) {
    kafka_init_producer_id req = {p->producer_id, p->epoch};
    hf_msg reply;
    while (!hf_call(p->cluster->controller, KAFKA_INIT_PRODUCER_ID, &req, sizeof req, p->o->request_timeout_ns,
                    &reply)) {}
    const kafka_init_producer_id *r = reply.data;
    p->producer_id = r->producer_id;
    p->epoch = r->producer_epoch;
}

static int oldest_unacked(const producer *p) {
    for (int i = 0; i < p->batch_count; i++)
        if (p->batches[i].state != BATCH_ACKED) return i;
    return -1;
}

static void send_batch(producer *p, producer_batch *pb) {
    if (!pb->sequenced) {
        pb->b.producer_id = p->producer_id;
        pb->b.producer_epoch = p->epoch;
        pb->b.base_sequence = p->next_sequence;
        p->next_sequence += pb->b.record_count;
        pb->sequenced = true;
    }
    pb->correlation_id = p->next_correlation_id++;
    pb->state = BATCH_IN_FLIGHT;
    pb->deadline = hf_clock() + p->o->request_timeout_ns;
    p->in_flight++;
    kafka_produce_request req = {pb->correlation_id, pb->b};
    hf_note("send Produce corrId=%d baseSeq=%d epoch=%d (records %lld..%lld)", pb->correlation_id,
            pb->b.base_sequence, pb->b.producer_epoch, (long long)pb->b.first_record,
            (long long)(pb->b.first_record + pb->b.record_count - 1));
    hf_send(p->leader, KAFKA_PRODUCE, &req, sizeof req);
}

static void back_off(producer *p, producer_batch *pb) {
    assert(pb->state == BATCH_IN_FLIGHT);
    pb->state = BATCH_WAITING;
    pb->send_at = hf_clock() + p->o->retry_backoff_ns;
    p->in_flight--;
}

/* The leader has no record of the oldest unacknowledged batch's sequence:
 * start a new epoch, and sequence what is unacknowledged afresh from 0. */
static void bump_epoch(producer *p) {
    int32_t old = p->epoch;
    init_producer_id(p);
    hf_note("epoch bump %d -> %d: unacknowledged batches get new sequences from 0", old, p->epoch);
    p->next_sequence = 0;
    for (int i = 0; i < p->batch_count; i++) {
        producer_batch *pb = &p->batches[i];
        if (pb->state == BATCH_ACKED || !pb->sequenced) continue;
        if (pb->state == BATCH_IN_FLIGHT) {   /* its answer, if any, is for the old epoch */
            pb->state = BATCH_WAITING;
            p->in_flight--;
        }
        pb->send_at = hf_clock();
        pb->b.producer_epoch = p->epoch;
        pb->b.base_sequence = p->next_sequence;
        p->next_sequence += pb->b.record_count;
    }
}

static void handle_response(producer *p, const kafka_produce_response *r) {
    producer_batch *pb = NULL;
    for (int i = 0; i < p->batch_count && !pb; i++)
        if (p->batches[i].state == BATCH_IN_FLIGHT && p->batches[i].correlation_id == r->correlation_id)
            pb = &p->batches[i];
    if (!pb) {
        hf_note("Produce corrId=%d -> %s (no longer awaited)", r->correlation_id, kafka_error_name(r->error));
        return;
    }
    hf_note("Produce corrId=%d baseSeq=%d -> %s", r->correlation_id, pb->b.base_sequence,
            r->error == KAFKA_NONE ? "success" : kafka_error_name(r->error));
    switch (r->error) {
    case KAFKA_NONE:
        pb->state = BATCH_ACKED;
        p->in_flight--;
        p->cluster->oracle.records_acked += pb->b.record_count;
        break;
    case KAFKA_NOT_LEADER_OR_FOLLOWER:
        back_off(p, pb);
        refresh_metadata(p);
        break;
    case KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER:
        if (pb == &p->batches[oldest_unacked(p)]) bump_epoch(p);
        else back_off(p, pb);
        break;
    default:
        back_off(p, pb);
        break;
    }
}

static void expire_requests(producer *p) {
    uint64_t now = hf_clock();
    for (int i = 0; i < p->batch_count; i++) {
        producer_batch *pb = &p->batches[i];
        if (pb->state != BATCH_IN_FLIGHT || pb->deadline > now) continue;
        hf_note("Produce corrId=%d baseSeq=%d -> %s", pb->correlation_id, pb->b.base_sequence,
                kafka_error_name(KAFKA_REQUEST_TIMED_OUT));
        back_off(p, pb);
    }
}

/* Sends what may go now; returns the clock reading at which something next
 * falls due (a batch to send, a request to time out), or 0 for nothing. */
static uint64_t send_due(producer *p) {
    uint64_t now = hf_clock(), next = 0;
    int oldest = oldest_unacked(p);
    if (oldest < 0) return 0;
    int window_end = oldest + p->o->max_in_flight;
    if (window_end > p->batch_count) window_end = p->batch_count;
    for (int i = oldest; i < window_end; i++) {
        producer_batch *pb = &p->batches[i];
        if (pb->state == BATCH_WAITING && pb->send_at <= now && p->in_flight < p->o->max_in_flight)
            send_batch(p, pb);
        uint64_t due = pb->state == BATCH_WAITING ? pb->send_at : pb->state == BATCH_IN_FLIGHT ? pb->deadline : 0;
        if (due && (next == 0 || due < next)) next = due;
    }
    return next;
}

void kafka_producer(void *arg) {
    producer *p = hf_alloc(sizeof *p);
    p->cluster = arg;
    p->o = &p->cluster->options;
    p->producer_id = -1;
    p->epoch = KAFKA_NO_PRODUCER_EPOCH;
    p->next_correlation_id = p->o->first_correlation_id;
    assert(p->o->batches <= PRODUCER_MAX_BATCHES);

    refresh_metadata(p);
    init_producer_id(p);
    hf_note("producer id %lld, epoch %d; max.in.flight.requests.per.connection=%d", (long long)p->producer_id,
            p->epoch, p->o->max_in_flight);
    uint64_t start = hf_clock();
    int64_t record = 0;
    for (int i = 0; i < p->o->batches; i++) {
        producer_batch *pb = &p->batches[p->batch_count++];
        pb->b.record_count = i == 0 ? p->o->first_batch_records : p->o->batch_records;
        pb->b.first_record = record;
        record += pb->b.record_count;
        pb->state = BATCH_WAITING;
        pb->send_at = start + (uint64_t)(i + 1) * p->o->batch_fill_ns;
    }
    assert(record == p->cluster->oracle.records_total);

    for (;;) {
        expire_requests(p);
        uint64_t next = send_due(p);
        if (oldest_unacked(p) < 0) break;
        assert(next != 0 && "an unacknowledged batch is always due for something");
        uint64_t now = hf_clock();
        hf_msg m;
        if (!hf_recv(&m, next > now ? next - now : 1)) continue;
        assert(m.kind == KAFKA_PRODUCE_RESPONSE);
        handle_response(p, m.data);
    }
    hf_note("all %lld records acknowledged", (long long)record);
}
