/*
 * zab.h — the parts of zk_newleader_ack (ZOOKEEPER-4646): a ZooKeeper
 * leader, a follower that synchronises with it by DIFF, and a client.
 * The shared types, the quorum packets, and what each file provides.
 */
#ifndef ZK_ZAB_H
#define ZK_ZAB_H

#include "hf.h"
#include "sim.h"

enum {
    ZAB_HISTORY = 8,             /* transactions in the leader's log when the run begins */
    ZAB_FOLLOWER_HAS = 4,        /* of them, on the follower's disk (it was away) */
    ZAB_WRITES = 6,              /* the client's writes during the run */
    ZAB_MAX_TXNS = ZAB_HISTORY + ZAB_WRITES,
};

typedef enum zab_kind {
    ZAB_FOLLOWERINFO,            /* follower -> leader: its last logged zxid */
    ZAB_DIFF, ZAB_PROPOSAL, ZAB_COMMIT, ZAB_NEWLEADER, ZAB_UPTODATE,   /* leader -> follower */
    ZAB_ACK,                     /* follower -> leader: of NEWLEADER or of a proposal */
    ZAB_WRITE, ZAB_WRITE_RESPONSE,   /* client <-> leader */
    ZAB_KIND_COUNT
} zab_kind;

extern const char *const zab_kind_names[ZAB_KIND_COUNT];

typedef struct zab_options {
    bool persist_before_ack;     /* the fix: NEWLEADER is acknowledged once its txns are on disk */
    uint64_t write_interval_ns;  /* between two writes of the client */
    uint64_t request_timeout_ns; /* the client's */
} zab_options;

/* A transaction: zxid (1, 2, ...) and its payload. */
typedef struct zab_txn {
    int64_t zxid;
    int64_t value;
} zab_txn;

/* Every quorum packet names the follower's incarnation it belongs to (its
 * connection): a packet of an earlier connection is ignored. */
typedef struct zab_packet {
    uint32_t connection;
    int64_t zxid;                /* FOLLOWERINFO: last logged; NEWLEADER, ACK, COMMIT: the zxid */
    zab_txn txn;                 /* PROPOSAL */
} zab_packet;

typedef struct zab_oracle {
    int64_t acknowledged;        /* the highest zxid the follower has acknowledged (a promise of durability) */
    int64_t committed;           /* the leader's commit point */
    int writes_committed;
} zab_oracle;

typedef struct zab_world {
    zab_options options;
    int leader, follower, client;    /* node ids */
    zab_oracle oracle;
    const int64_t *follower_log_end; /* what the follower's memory holds, for the end check */
} zab_world;

void zab_leader(void *arg);      /* leader.c: a node's start function */
void zab_follower(void *arg);    /* follower.c */
void zab_client(void *arg);      /* zk_newleader_ack.c */

/* zk_newleader_ack.c: the oracle, called by a follower that restarted and
 * read its log back (`logged` transactions). */
void zab_check_recovered(zab_world *w, int64_t logged);

#endif
