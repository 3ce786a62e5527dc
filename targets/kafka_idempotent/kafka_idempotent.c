/*
 * kafka_idempotent — KAFKA-19880: "First batch in producer epoch can be
 * appended out-of-order even for idempotent producer".
 *
 * A freshly created topic, input-topic-0, on two brokers with
 * min.insync.replicas=2; a controller whose LeaderAndIsr reaches the
 * brokers over the network; an idempotent producer with
 * max.in.flight.requests.per.connection=5 sending batches as the
 * application fills them (controller.c, broker.c, producer.c).
 *
 * Invariants:
 *   always      for each producer, the records in the log appear in send
 *               order, without duplicates (checked at every append)
 *   eventually  every record is acknowledged (at the end of the quiet
 *               period, when the network has healed)
 *
 * The bug (buggy variant, producer_state.c): with the producer state
 * empty, the leader accepts the first batch of an epoch whatever its base
 * sequence.  On the undisturbed schedule the LeaderAndIsr reaches broker1
 * before the first Produce and broker2 joins the ISR at once, so batch 0
 * is written first.  When the network slows the controller's word to
 * broker1, the first requests fail — NotLeaderOrFollower while broker1
 * does not know it leads, NotEnoughReplicas while broker2 has not caught
 * up — and a later batch (baseSeq 4188, say) becomes the first one
 * written.  Retrying the first batch then meets OutOfOrderSequence; the
 * producer bumps its epoch and its records land after the later ones.
 * Depth 2: the fault profile allows delays, and one message — the
 * LeaderAndIsr to broker1 — is delayed by a few milliseconds.
 *
 * The fix: an unknown producer's first batch must start at sequence 0
 * (KAFKA-14312's proposal); the out-of-order batch is refused and retried
 * after the ones before it.
 */
#include "kafka.h"

#include <assert.h>

const char *const kafka_kind_names[KAFKA_KIND_COUNT] = {
    [KAFKA_METADATA] = "Metadata",
    [KAFKA_METADATA_RESPONSE] = "MetadataResponse",
    [KAFKA_INIT_PRODUCER_ID] = "InitProducerId",
    [KAFKA_INIT_PRODUCER_ID_RESPONSE] = "InitProducerIdResponse",
    [KAFKA_PRODUCE] = "Produce",
    [KAFKA_PRODUCE_RESPONSE] = "ProduceResponse",
    [KAFKA_FETCH] = "Fetch",
    [KAFKA_FETCH_RESPONSE] = "FetchResponse",
    [KAFKA_LEADER_AND_ISR] = "LeaderAndIsr",
    [KAFKA_LEADER_AND_ISR_RESPONSE] = "LeaderAndIsrResponse",
};

const char *kafka_error_name(kafka_error e) {
    static const char *const names[KAFKA_ERROR_COUNT] = {
        [KAFKA_NONE] = "NONE",
        [KAFKA_NOT_LEADER_OR_FOLLOWER] = "NotLeaderOrFollower",
        [KAFKA_NOT_ENOUGH_REPLICAS] = "NotEnoughReplicas",
        [KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER] = "OutOfOrderSequence",
        [KAFKA_INVALID_PRODUCER_EPOCH] = "InvalidProducerEpoch",
        [KAFKA_REQUEST_TIMED_OUT] = "timed out",
    };
    return e < KAFKA_ERROR_COUNT ? names[e] : "?";
}

void kafka_check_append(kafka_cluster *c, const kafka_batch *b) {
    kafka_oracle *o = &c->oracle;
    hf_always(b->first_record > o->last_record_in_log,
              "for each producer, the records in the log appear in send order, without duplicates");
    o->last_record_in_log = b->first_record + b->record_count - 1;
    o->appended_batches++;
}

static void check_all_acknowledged(void *arg) {
    kafka_cluster *c = arg;
    hf_note("acknowledged %lld of %lld records", (long long)c->oracle.records_acked,
            (long long)c->oracle.records_total);
    hf_eventually(c->oracle.records_acked == c->oracle.records_total, "every record is acknowledged");
}

static void run_kafka(bool fixed) {
    hf_sim_options so;
    hf_sim_options_init(&so);
    /* Only the network misbehaves, and as a TCP connection does: a message
     * is late (delayed, or held by a clogged link) but never lost alone,
     * duplicated or reordered.  Nodes, disks and clocks behave. */
    so.faults = HF_FAULT_BIT(HF_FAULT_MSG_DELAY) | HF_FAULT_BIT(HF_FAULT_CLOG);
    so.phase.chaos_ns = 200 * HF_MS;
    so.phase.quiet_ns = 2 * HF_SEC;
    so.net.delay_max_ns = 200 * HF_MS;
    so.net.kind_names = kafka_kind_names;
    so.net.kind_count = KAFKA_KIND_COUNT;
    hf_sim_start(&so);

    kafka_cluster *c = hf_alloc(sizeof *c);
    c->options = (kafka_options){
        .reject_unknown_producer_gap = fixed,
        .min_insync_replicas = 2,
        .max_in_flight = 5,
        .batches = 8,
        .first_batch_records = 1458,
        .batch_records = 1365,
        .first_correlation_id = 21,
        .batch_fill_ns = 2 * HF_MS,
        .request_timeout_ns = 300 * HF_MS,
        .retry_backoff_ns = 100 * HF_MS,
        .replica_fetch_backoff_ns = 7 * HF_MS,
        .replica_fetch_wait_ns = 500 * HF_MS,
        .controller_retry_ns = 50 * HF_MS,
    };
    c->oracle.records_total = c->options.first_batch_records +
                              (int64_t)(c->options.batches - 1) * c->options.batch_records;
    c->oracle.last_record_in_log = -1;
    /* Node ids follow the order of hf_node_add. */
    c->controller = 1;
    c->leader = 2;
    c->follower = 3;
    c->producer = 4;
    int id = hf_node_add("controller", kafka_controller, c, 0);
    assert(id == c->controller);
    id = hf_node_add("broker1", kafka_broker, c, 0);
    assert(id == c->leader);
    id = hf_node_add("broker2", kafka_broker, c, 0);
    assert(id == c->follower);
    id = hf_node_add("producer", kafka_producer, c, HF_NODE_NEVER_CRASHES);
    assert(id == c->producer);
    (void)id;
    hf_sim_at_end(check_all_acknowledged, c);
}

static void kafka_buggy_main(void *arg) { (void)arg; run_kafka(false); }
static void kafka_fixed_main(void *arg) { (void)arg; run_kafka(true); }

HF_DEFINE_TARGET_PAIR(kafka_idempotent,
    "KAFKA-19880: an unknown producer's first batch is accepted whatever its sequence", kafka_buggy_main,
    "KAFKA-19880 fixed: an unknown producer's first batch must start at sequence 0", kafka_fixed_main);
