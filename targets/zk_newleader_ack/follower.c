/*
 * follower.c — the ZooKeeper follower: its QuorumPeer thread, which talks
 * to the leader, and its SyncThread (SyncRequestProcessor), which writes
 * transactions to the log on disk.
 *
 * The SyncThread appends each transaction it is handed, and when it finds
 * its queue empty it flushes (fsync) what it appended — group commit.  In
 * the broadcast phase it acknowledges every transaction once flushed, so
 * an ACK promises that the transaction is on disk.
 *
 * Synchronisation (Learner.syncWithLeader): after DIFF the QuorumPeer
 * thread gathers the PROPOSALs; at NEWLEADER it hands them to the
 * SyncThread (logRequest), updates its currentEpoch file (write, fsync,
 * rename) and acknowledges NEWLEADER; at UPTODATE it begins to follow.
 *
 * The bug (buggy variant, on_newleader; ZOOKEEPER-4646): the hand-over is
 * asynchronous and nothing waits for it, so the ACK of NEWLEADER — which
 * commits those transactions at the leader — may go out before they are on
 * disk.  On the undisturbed schedule the SyncThread, woken as the
 * QuorumPeer thread waits for its currentEpoch fsync, appends them all and
 * flushes them together with it.  If instead the SyncThread runs the
 * moment the first is handed over, it finds its queue empty after it and
 * flushes that one alone; the others wait behind that fsync, and the ACK
 * goes out while they are still being flushed.  A power loss then loses
 * transactions the follower acknowledged.  The fix (as proposed in
 * ZOOKEEPER-4646): NEWLEADER is acknowledged only once the SyncThread has
 * flushed everything handed to it.
 */
#include "zab.h"

#include <assert.h>

typedef enum phase { PHASE_CONNECTING, PHASE_SYNCING, PHASE_ACKED, PHASE_BROADCAST } phase;

typedef struct follower {
    zab_world *world;
    uint32_t connection;                 /* this incarnation */
    phase phase;
    zab_txn pending[ZAB_MAX_TXNS];       /* PROPOSALs gathered during the sync */
    int pending_count;
    /* The SyncThread's queue and progress. */
    hf_mutex lock;
    hf_cond work;                        /* the queue has something */
    hf_cond flushed_cond;                /* `flushed` moved */
    zab_txn queue[ZAB_MAX_TXNS * 2];
    int queue_head, queue_tail;
    int64_t log_end;                     /* zxid of the last transaction appended */
    int64_t flushed;                     /* ... and of the last one flushed */
    int sync_flushes;                    /* fsyncs begun before the broadcast phase */
} follower;

static void must(hf_io io) { assert(io == HF_IO_OK && "the target allows no disk errors"); (void)io; }

static void to_leader(follower *f, int kind, int64_t zxid) {
    zab_packet p = {.connection = f->connection, .zxid = zxid};
    hf_send(f->world->leader, kind, &p, sizeof p);
}

static void acknowledge(follower *f, int64_t zxid) {
    zab_oracle *o = &f->world->oracle;
    if (zxid > o->acknowledged) o->acknowledged = zxid;
    to_leader(f, ZAB_ACK, zxid);
}

/* ---- The SyncThread ---------------------------------------------------------- */

static void flush(follower *f) {
    int64_t upto = f->log_end;
    if (f->phase != PHASE_BROADCAST) {
        /* One on the undisturbed schedule; two when the SyncThread ran as
         * the first transaction was handed to it. */
        f->sync_flushes++;
        hf_state("fsyncs of the synchronisation", f->sync_flushes > 3 ? 3 : f->sync_flushes);
    }
    hf_mutex_unlock(&f->lock);
    must(hf_disk_fsync("log"));
    hf_mutex_lock(&f->lock);
    int64_t from = f->flushed;
    f->flushed = upto;
    hf_cond_broadcast(&f->flushed_cond);
    if (f->phase == PHASE_BROADCAST)   /* SendAckRequestProcessor */
        for (int64_t z = from + 1; z <= upto; z++) acknowledge(f, z);
}

static void sync_thread(void *arg) {
    follower *f = arg;
    hf_mutex_lock(&f->lock);
    for (;;) {
        if (f->queue_head == f->queue_tail) {
            if (f->flushed < f->log_end) flush(f);
            else hf_cond_wait(&f->work, &f->lock);
            continue;
        }
        zab_txn t = f->queue[f->queue_head++ % (int)(sizeof f->queue / sizeof *f->queue)];
        hf_mutex_unlock(&f->lock);
        must(hf_disk_append("log", &t, sizeof t, NULL));
        hf_mutex_lock(&f->lock);
        assert(t.zxid == f->log_end + 1);
        f->log_end = t.zxid;
    }
}

/* FollowerZooKeeperServer.logRequest: hand a transaction to the SyncThread. */
static void log_request(follower *f, const zab_txn *t) {
    hf_mutex_lock(&f->lock);
    f->queue[f->queue_tail++ % (int)(sizeof f->queue / sizeof *f->queue)] = *t;
    hf_cond_signal(&f->work);
    hf_mutex_unlock(&f->lock);
    hf_switch_point();   /* the SyncThread may run at once */
}

/* ---- The QuorumPeer thread --------------------------------------------------- */

static void set_current_epoch(void) {
    static const int64_t epoch = 2;
    must(hf_disk_write("currentEpoch.tmp", 0, &epoch, sizeof epoch));
    must(hf_disk_fsync("currentEpoch.tmp"));
    must(hf_disk_rename("currentEpoch.tmp", "currentEpoch"));
}

static void on_newleader(follower *f, int64_t zxid) {
    for (int i = 0; i < f->pending_count; i++) log_request(f, &f->pending[i]);
    f->pending_count = 0;
    if (f->world->options.persist_before_ack) {
        hf_mutex_lock(&f->lock);
        while (f->flushed < zxid) hf_cond_wait(&f->flushed_cond, &f->lock);
        hf_mutex_unlock(&f->lock);
    }
    set_current_epoch();
    hf_mutex_lock(&f->lock);
    int64_t unflushed = zxid - f->flushed;
    hf_mutex_unlock(&f->lock);
    if (unflushed > 0)
        hf_note("ACK of NEWLEADER %lld with %lld of its transactions not yet flushed", (long long)zxid,
                (long long)unflushed);
    f->phase = PHASE_ACKED;
    acknowledge(f, zxid);
}

static void on_packet(follower *f, const hf_msg *m) {
    const zab_packet *p = m->data;
    if (p->connection != f->connection) return;   /* for an earlier incarnation */
    switch (m->kind) {
    case ZAB_DIFF: f->phase = PHASE_SYNCING; break;
    case ZAB_PROPOSAL:
        if (f->phase == PHASE_SYNCING) {
            assert(f->pending_count < ZAB_MAX_TXNS);
            f->pending[f->pending_count++] = p->txn;
        } else {
            log_request(f, &p->txn);
        }
        break;
    case ZAB_NEWLEADER: on_newleader(f, p->zxid); break;
    case ZAB_UPTODATE:
        hf_mutex_lock(&f->lock);
        f->phase = PHASE_BROADCAST;
        hf_mutex_unlock(&f->lock);
        break;
    case ZAB_COMMIT: break;   /* the transactions are applied to memory: nothing to model */
    default: assert(!"a follower gets no such packet");
    }
    hf_state("follower phase", f->phase);
}

/* The log on disk: its transactions in zxid order (a torn or lost tail
 * simply ends it). */
static int64_t recover(void) {
    uint64_t size = 0;
    if (hf_disk_size("log", &size) != HF_IO_OK) return 0;
    return (int64_t)(size / sizeof(zab_txn));
}

/* The follower's state from before the run: it was away after zxid 4. */
static void install_history(void) {
    zab_txn history[ZAB_FOLLOWER_HAS];
    for (int i = 0; i < ZAB_FOLLOWER_HAS; i++) history[i] = (zab_txn){i + 1, 1000 + i};
    must(hf_disk_write("log", 0, history, sizeof history));
    must(hf_disk_fsync("log"));
}

void zab_follower(void *arg) {
    follower *f = hf_alloc(sizeof *f);
    f->world = arg;
    f->connection = hf_node_incarnation(hf_node_self());
    if (f->connection == 1) install_history();
    f->log_end = f->flushed = recover();
    f->world->follower_log_end = &f->log_end;
    if (f->connection > 1) zab_check_recovered(f->world, f->log_end);
    hf_mutex_init(&f->lock, "follower log");
    hf_cond_init(&f->work, "sync queue");
    hf_cond_init(&f->flushed_cond, "flushed");
    hf_spawn("follower.sync", sync_thread, f);
    to_leader(f, ZAB_FOLLOWERINFO, f->log_end);
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        on_packet(f, &m);
    }
}
