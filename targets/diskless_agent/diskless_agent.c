/*
 * diskless_agent — WarpStream's data-loss bug: a refactor that added
 * speculative retry to the agent's flush broke its error handling, so that
 * for a very brief window a file that had failed to flush looked flushed.
 *
 * Two producers send records to an agent; the agent buffers them for
 * 250 ms, writes each buffer as one file to the object store (with a
 * speculative twin PUT when the first is slow), and a committer polling
 * every 5 ms commits flushed files to a metadata store, after which the
 * records are acknowledged (agent.c).  A reader lists the metadata and
 * reads every committed file back (clients.c, metadata_store.c).
 *
 * Invariants:
 *   always      every acknowledged record is readable through metadata and
 *               object store, exactly once
 *   eventually  the reader has read back every acknowledged record
 *
 * The bug (buggy variant, agent.c's put_done): a failed PUT first marks
 * its file FLUSHED, then takes the mark back.  Two rare events must
 * coincide: a PUT fails (the fault profile allows store errors, and this
 * PUT gets one), and the committer, which polls at that very instant,
 * runs between the two state transitions (a preemption).  Depth 3.  The
 * file is committed and acknowledged, and never written.
 *
 * The fix: only a successful PUT marks the file FLUSHED.
 */
#include "diskless.h"

#include <assert.h>

const char *const diskless_kind_names[DISKLESS_KIND_COUNT] = {
    [DISKLESS_PRODUCE] = "Produce", [DISKLESS_PRODUCE_ACK] = "ProduceAck",
    [DISKLESS_COMMIT] = "Commit",   [DISKLESS_COMMIT_ACK] = "CommitAck",
    [DISKLESS_LIST] = "List",       [DISKLESS_LIST_REPLY] = "ListReply",
};

static const char *const exactly_once =
    "every acknowledged record is readable through metadata and object store, exactly once";

void diskless_check_file(diskless_world *w, const diskless_commit *c, const diskless_file *f) {
    diskless_oracle *o = &w->oracle;
    hf_note("read back %s: %d records", c->key, f->count);
    for (int i = 0; i < f->count; i++) {
        int64_t r = f->records[i];
        assert(r >= 0 && r < DISKLESS_MAX_RECORDS);
        if (++o->reads[r] == 1) o->read_count++;
        else hf_note("record %lld read a second time, in %s", (long long)r, c->key);
        hf_always(o->reads[r] == 1, exactly_once);
    }
}

void diskless_check_missing(diskless_world *w, const diskless_commit *c) {
    int acked = 0;
    for (int i = 0; i < c->count; i++) acked += w->oracle.acked[c->records[i]];
    hf_note("%s is committed but not in the object store; %d of its %d records acknowledged", c->key, acked,
            c->count);
    hf_always(acked == 0, exactly_once);
}

static void check_all_read(void *arg) {
    diskless_world *w = arg;
    bool all = true;
    for (int r = 0; r < DISKLESS_MAX_RECORDS; r++) all &= !w->oracle.acked[r] || w->oracle.reads[r] == 1;
    hf_note("%lld records sent, %lld acknowledged, %lld read back", (long long)w->oracle.records_sent,
            (long long)w->oracle.acked_count, (long long)w->oracle.read_count);
    hf_eventually(all, "the reader has read back every acknowledged record");
}

static void run_diskless(bool fixed) {
    hf_sim_options so;
    hf_sim_options_init(&so);
    so.faults = HF_FAULT_BIT(HF_FAULT_STORE_ERROR) | HF_FAULT_BIT(HF_FAULT_STORE_TIMEOUT) |
                HF_FAULT_BIT(HF_FAULT_STORE_REPLY_LOST) | HF_FAULT_BIT(HF_FAULT_STORE_LATENCY) |
                HF_FAULT_BIT(HF_FAULT_MSG_DELAY) | HF_FAULT_BIT(HF_FAULT_MSG_DROP);
    so.phase.chaos_ns = 1 * HF_SEC;
    so.phase.quiet_ns = 2 * HF_SEC;
    so.store.latency_max_ns = 500 * HF_MS;
    so.net.kind_names = diskless_kind_names;
    so.net.kind_count = DISKLESS_KIND_COUNT;
    hf_sim_start(&so);

    diskless_world *w = hf_alloc(sizeof *w);
    w->options = (diskless_options){
        .put_errors_checked_first = fixed,
        .producers = 2,
        .records_per_producer = 16,
        .produce_interval_ns = 30 * HF_MS,
        .buffer_ns = 250 * HF_MS,
        .put_timeout_ns = 300 * HF_MS,
        .hedge_after_ns = 100 * HF_MS,
        .put_retry_ns = 50 * HF_MS,
        .commit_poll_ns = 5 * HF_MS,
        .call_timeout_ns = 50 * HF_MS,
        .read_poll_ns = 100 * HF_MS,
    };
    assert(w->options.producers * w->options.records_per_producer <= DISKLESS_MAX_RECORDS);
    w->agent = hf_node_add("agent", diskless_agent, w, HF_NODE_NEVER_CRASHES);
    w->metadata = hf_node_add("metadata", diskless_metadata, w, HF_NODE_NEVER_CRASHES);
    for (int i = 0; i < w->options.producers; i++) {
        diskless_producer_arg *a = hf_alloc(sizeof *a);
        *a = (diskless_producer_arg){w, i};
        w->producer_nodes[i] = hf_node_add(hf_printf("producer%d", i + 1), diskless_producer, a,
                                           HF_NODE_NEVER_CRASHES);
    }
    w->reader = hf_node_add("reader", diskless_reader, w, HF_NODE_NEVER_CRASHES);
    hf_sim_at_end(check_all_read, w);
}

static void diskless_buggy_main(void *arg) { (void)arg; run_diskless(false); }
static void diskless_fixed_main(void *arg) { (void)arg; run_diskless(true); }

HF_DEFINE_TARGET_PAIR(diskless_agent,
    "WarpStream's agent: a failed PUT briefly marks its file flushed; the committer may commit it", diskless_buggy_main,
    "WarpStream's agent, fixed: only a successful PUT marks a file flushed", diskless_fixed_main);
