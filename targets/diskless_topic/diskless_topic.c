/*
 * diskless_topic — Aiven's produce/consume test of Inkless (KIP-1150), the
 * long-run control: the test that ran for 2,200 logical hours under
 * Antithesis and found nothing.  Two producers write to a three-partition
 * diskless topic through two brokers, a batch coordinator and the object
 * store; a consumer reads everything (coordinator.c, broker.c, clients.c).
 * Brokers crash and restart, the network and the object store misbehave.
 *
 * Invariants, Aiven's three:
 *   reachable    the test never halts: it reaches the end of the run
 *   eventually   every message written (acknowledged) is read
 *   unreachable  nothing bad happens: a message read out of order, a
 *                duplicate offset, a change in the partition set
 *
 * There is no planted bug and no buggy variant: a failure here is a false
 * alarm of the fuzzer or a bug of the world.
 */
#include "inkless.h"

#include <assert.h>

const char *const inkless_kind_names[INKLESS_KIND_COUNT] = {
    [INKLESS_PRODUCE] = "Produce",           [INKLESS_PRODUCE_REPLY] = "ProduceReply",
    [INKLESS_FETCH] = "Fetch",               [INKLESS_FETCH_REPLY] = "FetchReply",
    [INKLESS_METADATA] = "Metadata",         [INKLESS_METADATA_REPLY] = "MetadataReply",
    [INKLESS_COMMIT_FILE] = "CommitFile",    [INKLESS_COMMIT_FILE_REPLY] = "CommitFileReply",
    [INKLESS_FIND_BATCHES] = "FindBatches",  [INKLESS_FIND_BATCHES_REPLY] = "FindBatchesReply",
};

void inkless_consumer_read(inkless_world *w, int partition, int64_t offset, const inkless_batch *b,
                           int64_t *next_offset, int32_t last_sequence[INKLESS_PRODUCERS][INKLESS_PARTITIONS]) {
    assert(b->partition == partition && b->producer >= 0 && b->producer < INKLESS_PRODUCERS);
    if (offset < *next_offset) {
        hf_note("partition %d: offset %lld again (expected %lld)", partition, (long long)offset,
                (long long)*next_offset);
        hf_unreachable("a duplicate offset");
    }
    *next_offset = offset + 1;
    int32_t *last = &last_sequence[b->producer][partition];
    if (b->sequence <= *last) {
        hf_note("partition %d offset %lld: producer%d's sequence %d after %d", partition, (long long)offset,
                b->producer + 1, b->sequence, *last);
        hf_unreachable("a message read out of order");
    }
    *last = b->sequence;
    inkless_oracle *o = &w->oracle;
    if (!o->read[b->producer][b->message]) {
        o->read[b->producer][b->message] = true;
        o->read_count++;
    }
}

void inkless_consumer_partitions(int partitions) {
    if (partitions != INKLESS_PARTITIONS) hf_unreachable("the partition set changed");
}

static void check_end(void *arg) {
    inkless_world *w = arg;
    hf_reachable("the produce/consume test ran to its end");
    bool all = true;
    for (int p = 0; p < INKLESS_PRODUCERS; p++)
        for (int i = 0; i < w->options.messages_per_producer; i++) all &= !w->oracle.acked[p][i] || w->oracle.read[p][i];
    hf_note("%lld messages acknowledged, %lld read", (long long)w->oracle.acked_count, (long long)w->oracle.read_count);
    hf_eventually(all, "every message written is read");
}

static void diskless_topic_main(void *arg) {
    (void)arg;
    hf_sim_options so;
    hf_sim_options_init(&so);
    so.faults = HF_FAULT_BIT(HF_FAULT_MSG_DROP) | HF_FAULT_BIT(HF_FAULT_MSG_DELAY) |
                HF_FAULT_BIT(HF_FAULT_MSG_DUPLICATE) | HF_FAULT_BIT(HF_FAULT_MSG_REORDER) |
                HF_FAULT_BIT(HF_FAULT_PARTITION) | HF_FAULT_BIT(HF_FAULT_CLOG) | HF_FAULT_BIT(HF_FAULT_CRASH) |
                HF_FAULT_BIT(HF_FAULT_STORE_ERROR) | HF_FAULT_BIT(HF_FAULT_STORE_TIMEOUT) |
                HF_FAULT_BIT(HF_FAULT_STORE_REPLY_LOST) | HF_FAULT_BIT(HF_FAULT_STORE_LATENCY);
    so.phase.chaos_ns = 3 * HF_SEC;
    so.phase.quiet_ns = 3 * HF_SEC;
    so.store.latency_max_ns = 500 * HF_MS;
    so.net.kind_names = inkless_kind_names;
    so.net.kind_count = INKLESS_KIND_COUNT;
    hf_sim_start(&so);

    inkless_world *w = hf_alloc(sizeof *w);
    w->options = (inkless_options){
        .brokers = 2,
        .messages_per_producer = 24,
        .produce_for_ns = 4 * HF_SEC,   /* the chaos, then 1 s of quiet; 2 s are left to drain */
        .produce_interval_ns = 40 * HF_MS,
        .request_timeout_ns = 1 * HF_SEC,
        .upload_interval_ns = 50 * HF_MS,
        .store_timeout_ns = 300 * HF_MS,
        .retry_ns = 50 * HF_MS,
        .call_timeout_ns = 100 * HF_MS,
        .fetch_interval_ns = 100 * HF_MS,
    };
    assert(w->options.messages_per_producer <= INKLESS_MAX_MESSAGES);
    w->coordinator = hf_node_add("coordinator", inkless_coordinator, w, HF_NODE_NEVER_CRASHES);
    for (int i = 0; i < w->options.brokers; i++) w->brokers[i] = hf_node_add(hf_printf("broker%d", i + 1), inkless_broker, w, 0);
    w->producer = hf_node_add("producers", inkless_producer, w, HF_NODE_NEVER_CRASHES);
    w->consumer = hf_node_add("consumer", inkless_consumer, w, HF_NODE_NEVER_CRASHES);
    hf_sim_at_end(check_end, w);
}

HF_DEFINE_TARGET(diskless_topic_target) = {
    .name = "diskless_topic",
    .summary = "Aiven's Inkless produce/consume test: a diskless topic under every fault, the long-run control",
    .main = diskless_topic_main,
};
