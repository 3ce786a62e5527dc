/*
 * zk_newleader_ack — ZOOKEEPER-4646: "Committed txns may still be lost if
 * followers crash after replying ACK of NEWLEADER but before writing txns
 * to disk".
 *
 * A ZooKeeper ensemble of three with one server away, so that the leader
 * and the follower are the quorum; the follower has been away too and
 * rejoins, the leader synchronising it by DIFF; a client writes six times,
 * one every 50 ms (leader.c, follower.c).  Faults: crashes of the follower
 * — a power loss when the profile also allows lost writes — and slow
 * messages.
 *
 * Invariants:
 *   always      after a restart, the follower's log holds every transaction
 *               it acknowledged (an ACK in Zab promises the transaction is
 *               on disk; checked as it reads its log back)
 *   eventually  the follower's log holds every committed transaction
 *
 * The bug (buggy variant, follower.c's on_newleader): the follower hands
 * the DIFF's transactions to its SyncThread and acknowledges NEWLEADER
 * without waiting for them to reach the disk (ZOOKEEPER-3911 moved the
 * logging before the ACK; the logging is asynchronous).  A fault and an
 * interleaving together: the profile allows crashes and lost writes; the
 * SyncThread runs the instant the first transaction is handed to it, so
 * that it flushes that one alone and the rest wait 5 ms behind its fsync
 * while the ACK goes out; and the follower loses power in those 5 ms.
 * Depth 4.  On the undisturbed interleaving the SyncThread appends them
 * all while the QuorumPeer thread waits for its currentEpoch fsync, and
 * their flush ends with it.
 *
 * The fix (ZOOKEEPER-4646's proposal): acknowledge NEWLEADER only after the
 * SyncThread has flushed every transaction handed to it.
 */
#include "zab.h"

#include <assert.h>

const char *const zab_kind_names[ZAB_KIND_COUNT] = {
    [ZAB_FOLLOWERINFO] = "FOLLOWERINFO", [ZAB_DIFF] = "DIFF",     [ZAB_PROPOSAL] = "PROPOSAL",
    [ZAB_COMMIT] = "COMMIT",             [ZAB_NEWLEADER] = "NEWLEADER", [ZAB_UPTODATE] = "UPTODATE",
    [ZAB_ACK] = "ACK",                   [ZAB_WRITE] = "Write",   [ZAB_WRITE_RESPONSE] = "WriteResponse",
};

void zab_check_recovered(zab_world *w, int64_t logged) {
    hf_sometimes(true, "the follower restarted and read its log back");
    if (logged < w->oracle.acknowledged)
        hf_note("the follower acknowledged up to zxid %lld but its log ends at %lld",
                (long long)w->oracle.acknowledged, (long long)logged);
    hf_always(logged >= w->oracle.acknowledged,
              "after a restart, the follower's log holds every transaction it acknowledged");
}

void zab_client(void *arg) {
    zab_world *w = arg;
    for (int i = 0; i < ZAB_WRITES; i++) {
        hf_sleep(w->options.write_interval_ns);
        int64_t value = 2000 + i;
        hf_msg reply;
        if (hf_call(w->leader, ZAB_WRITE, &value, sizeof value, w->options.request_timeout_ns, &reply))
            hf_note("write %lld committed as zxid %lld", (long long)value, (long long)*(const int64_t *)reply.data);
        else
            hf_note("write %lld: no answer in time", (long long)value);
    }
}

static void check_end(void *arg) {
    zab_world *w = arg;
    int64_t logged = w->follower_log_end ? *w->follower_log_end : 0;
    hf_note("committed up to zxid %lld; the follower has logged up to %lld", (long long)w->oracle.committed,
            (long long)logged);
    hf_eventually(logged >= w->oracle.committed, "the follower's log holds every committed transaction");
}

static void run(bool fixed) {
    hf_sim_options so;
    hf_sim_options_init(&so);
    so.faults = HF_FAULT_BIT(HF_FAULT_MSG_DELAY) | HF_FAULT_BIT(HF_FAULT_CRASH) |
                HF_FAULT_BIT(HF_FAULT_DISK_LOST_WRITES);
    so.phase.chaos_ns = 1 * HF_SEC;
    so.phase.quiet_ns = 1 * HF_SEC;
    so.node.down_default_ns = 50 * HF_MS;
    so.disk.write_ns = 0;                 /* into the page cache */
    so.disk.fsync_ns = 2 * HF_MS;         /* a disk with other work to do */
    so.net.delay_max_ns = 10 * HF_MS;
    so.net.kind_names = zab_kind_names;
    so.net.kind_count = ZAB_KIND_COUNT;
    hf_sim_start(&so);

    zab_world *w = hf_alloc(sizeof *w);
    w->options = (zab_options){
        .persist_before_ack = fixed,
        .write_interval_ns = 50 * HF_MS,
        .request_timeout_ns = 200 * HF_MS,
    };
    w->follower = hf_node_add("follower", zab_follower, w, 0);
    w->leader = hf_node_add("leader", zab_leader, w, HF_NODE_NEVER_CRASHES);
    w->client = hf_node_add("client", zab_client, w, HF_NODE_NEVER_CRASHES);
    hf_sim_at_end(check_end, w);
}

static void buggy_main(void *arg) { (void)arg; run(false); }
static void fixed_main(void *arg) { (void)arg; run(true); }

HF_DEFINE_TARGET_PAIR(zk_newleader_ack,
    "ZOOKEEPER-4646: a follower acknowledges NEWLEADER before its SyncThread has the txns on disk", buggy_main,
    "ZOOKEEPER-4646, fixed: NEWLEADER is acknowledged once its transactions are flushed", fixed_main);
