/*
 * leader.c — the ZooKeeper leader, as far as this incident needs it.
 *
 * A three-server ensemble with one server away for the whole run, so the
 * leader and the follower are the quorum: nothing commits without the
 * follower.  The leader never crashes here; its log lives in memory.
 *
 * When the follower connects (FOLLOWERINFO, with its last logged zxid), the
 * leader synchronises it by DIFF: the PROPOSALs it lacks, then NEWLEADER.
 * The follower's ACK of NEWLEADER commits every transaction up to it (the
 * leader "starts serving once it receives a quorum of NEWLEADER ACKs",
 * ZOOKEEPER-3911); UPTODATE follows, and from then on every new write is
 * broadcast as a PROPOSAL and committed at the follower's ACK.
 */
#include "zab.h"

#include <assert.h>

typedef struct pending_write { hf_msg request; int64_t zxid; } pending_write;

typedef struct leader {
    zab_world *world;
    zab_txn log[ZAB_MAX_TXNS];
    int64_t log_end;
    int64_t committed;
    uint32_t connection;                 /* the follower's current one, 0: none */
    bool synced;                         /* it acknowledged NEWLEADER */
    int64_t sent_to_follower;            /* proposals it has been sent up to */
    pending_write pending[ZAB_WRITES * 4];
    int pending_count;
} leader;

static void to_follower(leader *l, int kind, int64_t zxid, const zab_txn *txn) {
    zab_packet p = {.connection = l->connection, .zxid = zxid};
    if (txn) p.txn = *txn;
    hf_send(l->world->follower, kind, &p, sizeof p);
}

static void commit_to(leader *l, int64_t zxid) {
    if (zxid <= l->committed) return;
    l->committed = zxid;
    l->world->oracle.committed = zxid;
    int kept = 0;
    for (int i = 0; i < l->pending_count; i++) {
        if (l->pending[i].zxid <= zxid) {
            hf_reply(&l->pending[i].request, ZAB_WRITE_RESPONSE, &l->pending[i].zxid, sizeof(int64_t));
            l->world->oracle.writes_committed++;
        } else {
            l->pending[kept++] = l->pending[i];
        }
    }
    l->pending_count = kept;
}

static void on_followerinfo(leader *l, const zab_packet *p) {
    l->connection = p->connection;
    l->synced = false;
    hf_note("follower connects (connection %u), last zxid %lld: DIFF of %lld", p->connection,
            (long long)p->zxid, (long long)(l->log_end - p->zxid));
    assert(p->zxid <= l->log_end && "the follower never has what the leader lacks");
    if (p->zxid < l->log_end) hf_sometimes(true, "the follower lagged and was synchronised by DIFF");
    to_follower(l, ZAB_DIFF, p->zxid, NULL);
    for (int64_t z = p->zxid; z < l->log_end; z++) to_follower(l, ZAB_PROPOSAL, l->log[z].zxid, &l->log[z]);
    to_follower(l, ZAB_NEWLEADER, l->log_end, NULL);
    l->sent_to_follower = l->log_end;
}

static void on_ack(leader *l, const zab_packet *p) {
    if (p->connection != l->connection) return;
    if (!l->synced) {
        l->synced = true;
        hf_reachable("the follower acknowledged NEWLEADER");
        commit_to(l, p->zxid);
        to_follower(l, ZAB_UPTODATE, l->log_end, NULL);
        for (int64_t z = l->sent_to_follower; z < l->log_end; z++)   /* written while it synchronised */
            to_follower(l, ZAB_PROPOSAL, l->log[z].zxid, &l->log[z]);
        l->sent_to_follower = l->log_end;
        return;
    }
    commit_to(l, p->zxid);
    to_follower(l, ZAB_COMMIT, p->zxid, NULL);
}

static void on_write(leader *l, const hf_msg *m) {
    assert(l->log_end < ZAB_MAX_TXNS && l->pending_count < (int)(sizeof l->pending / sizeof *l->pending));
    zab_txn t = {l->log_end + 1, *(const int64_t *)m->data};
    l->log[l->log_end++] = t;
    l->pending[l->pending_count++] = (pending_write){*m, t.zxid};
    if (l->synced) {
        to_follower(l, ZAB_PROPOSAL, t.zxid, &t);
        l->sent_to_follower = l->log_end;
    }
}

void zab_leader(void *arg) {
    leader *l = hf_alloc(sizeof *l);
    l->world = arg;
    for (int i = 0; i < ZAB_HISTORY; i++) l->log[i] = (zab_txn){i + 1, 1000 + i};   /* before the run */
    /* With the server now away it committed all but the last two, which
     * were still proposals when that server left. */
    l->log_end = ZAB_HISTORY;
    l->committed = ZAB_HISTORY - 2;
    l->world->oracle.committed = l->committed;
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        switch (m.kind) {
        case ZAB_FOLLOWERINFO: on_followerinfo(l, m.data); break;
        case ZAB_ACK: on_ack(l, m.data); break;
        case ZAB_WRITE: on_write(l, &m); break;
        default: assert(!"the leader gets no such packet");
        }
    }
}
