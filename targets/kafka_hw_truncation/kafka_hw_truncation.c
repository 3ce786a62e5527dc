/*
 * kafka_hw_truncation — KAFKA-1211, KIP-101's scenario 1: "High Watermark
 * Truncation followed by Immediate Leader Election".
 *
 * One partition on two brokers, broker-b leading and broker-a following
 * (the KIP's A and B); a controller with broker sessions and clean leader
 * election; a producer with acks=all sending 12 records, one every 20 ms
 * (broker.c, controller.c, producer.c).  Only process crashes are faults
 * here, besides lost and slow messages: a crashed broker's disk keeps what
 * it wrote.
 *
 * Invariants:
 *   always      every record acknowledged to the producer is in the log of
 *               a broker that becomes leader (checked as it takes over)
 *   eventually  the partition has a leader whose log holds every
 *               acknowledged record
 *
 * The bug (buggy variant, broker.c's become_follower): a broker that
 * becomes follower truncates its log to its own high watermark.  The
 * follower learns the HW that its fetch of a record advanced only from the
 * next fetch response, which the leader holds until the next record comes
 * (or replica.fetch.wait.max.ms passes).  As the KIP tells it: A fetches
 * m2; A restarts and truncates to its HW, cutting m2, which B has already
 * acknowledged; B fails before A has fetched m2 again; A is elected.  Two
 * faults, each at its moment: broker-a crashes while its HW lags (while
 * records flow) and comes back within the session timeout, so that it is
 * still in sync; broker-b crashes before broker-a has fetched again —
 * while broker-a is still down, or in the fetch round trip after it is
 * back — yet late enough that its session is still alive when broker-a
 * registers.  Depth 3 with the fault profile.  More faults mask it: a
 * broker down for longer than the session leaves the ISR and cannot be
 * elected; lost heartbeats expire sessions and shrink the ISR; a producer
 * that gives up has nothing acknowledged to lose.
 *
 * The fix (KIP-101): the follower truncates where the leader says its own
 * last leader epoch ends, and keeps its log until the leader has said so.
 */
#include "replication.h"

#include <assert.h>

const char *const repl_kind_names[REPL_KIND_COUNT] = {
    [REPL_PRODUCE] = "Produce", [REPL_PRODUCE_RESPONSE] = "ProduceResponse",
    [REPL_FETCH] = "Fetch", [REPL_FETCH_RESPONSE] = "FetchResponse",
    [REPL_EPOCH_QUERY] = "OffsetsForLeaderEpoch", [REPL_EPOCH_RESPONSE] = "OffsetsForLeaderEpochResponse",
    [REPL_HEARTBEAT] = "Heartbeat", [REPL_LEADER_AND_ISR] = "LeaderAndIsr",
    [REPL_ISR_EXPAND] = "AlterIsr", [REPL_METADATA] = "Metadata",
    [REPL_METADATA_RESPONSE] = "MetadataResponse",
};

static bool holds_every_acked(const repl_world *w, const repl_record *log, int64_t log_end) {
    for (int k = 0; k < w->oracle.acked; k++) {
        int64_t at = w->oracle.acked_offset[k];
        if (at < 0 || at >= log_end || log[at].value != w->oracle.acked_value[k]) {
            hf_note("acknowledged record %d (offset %lld) is not in this log (%lld records)",
                    (int)w->oracle.acked_value[k], (long long)at, (long long)log_end);
            return false;
        }
    }
    return true;
}

void repl_check_new_leader(repl_world *w, int broker, const repl_record *log, int64_t log_end) {
    if (broker == 0) hf_reachable("broker-a became the leader");
    hf_always(holds_every_acked(w, log, log_end),
              "every record acknowledged to the producer is in the log of a broker that becomes leader");
}

static void check_end(void *arg) {
    repl_world *w = arg;
    hf_note("%d records acknowledged, %d given up", w->oracle.acked, w->oracle.given_up);
    bool ok = w->leader >= 0 && w->log_of[w->leader] &&
              holds_every_acked(w, w->log_of[w->leader], *w->log_end_of[w->leader]);
    hf_eventually(ok, "the partition has a leader whose log holds every acknowledged record");
}

static void run(bool fixed) {
    hf_sim_options so;
    hf_sim_options_init(&so);
    so.faults = HF_FAULT_BIT(HF_FAULT_CRASH) | HF_FAULT_BIT(HF_FAULT_MSG_DROP) | HF_FAULT_BIT(HF_FAULT_MSG_DELAY);
    so.phase.chaos_ns = 1 * HF_SEC;
    so.phase.quiet_ns = 1 * HF_SEC;
    so.node.down_min_ns = 5 * HF_MS;
    so.node.down_max_ns = 2 * HF_SEC;       /* or one that takes its time: the session expires */
    so.node.down_default_ns = 20 * HF_MS;   /* a supervisor restarts the process at once */
    so.net.delay_max_ns = 10 * HF_MS;
    so.net.kind_names = repl_kind_names;
    so.net.kind_count = REPL_KIND_COUNT;
    hf_sim_start(&so);

    repl_world *w = hf_alloc(sizeof *w);
    w->options = (repl_options){
        .leader_epoch_truncation = fixed,
        .heartbeat_ns = 10 * HF_MS,
        .session_timeout_ns = 60 * HF_MS,
        .fetch_wait_max_ns = 100 * HF_MS,
        .fetch_timeout_ns = 150 * HF_MS,
        .produce_interval_ns = 20 * HF_MS,
        .request_timeout_ns = 100 * HF_MS,
        .produce_attempts = 5,
    };
    /* broker-a first: a crash picks its victim among the nodes in order. */
    for (int b = 0; b < REPL_BROKERS; b++) {
        repl_broker_arg *a = hf_alloc(sizeof *a);
        *a = (repl_broker_arg){w, b};
        w->broker_node[b] = hf_node_add(b ? "broker-b" : "broker-a", repl_broker, a, 0);
    }
    w->controller = hf_node_add("controller", repl_controller, w, HF_NODE_NEVER_CRASHES);
    w->producer = hf_node_add("producer", repl_producer, w, HF_NODE_NEVER_CRASHES);
    hf_sim_at_end(check_end, w);
}

static void buggy_main(void *arg) { (void)arg; run(false); }
static void fixed_main(void *arg) { (void)arg; run(true); }

HF_DEFINE_TARGET_PAIR(kafka_hw_truncation,
    "KAFKA-1211 / KIP-101: a restarted follower truncates to its lagging HW, then is elected", buggy_main,
    "KAFKA-1211, fixed by KIP-101: a follower truncates where the leader's epoch ends", fixed_main);
