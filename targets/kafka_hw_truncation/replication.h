/*
 * replication.h — the parts of kafka_hw_truncation (KAFKA-1211, KIP-101
 * scenario 1): one partition replicated on two brokers, a controller that
 * elects its leader, and a producer with acks=all.  The shared types, the
 * messages between the parts, and what each file provides.
 */
#ifndef KAFKA_HW_REPLICATION_H
#define KAFKA_HW_REPLICATION_H

#include "hf.h"
#include "sim.h"

enum {
    REPL_BROKERS = 2,
    REPL_RECORDS = 12,            /* records the producer sends */
    REPL_MAX_LOG = 64,            /* records a log may hold (retries append duplicates) */
    REPL_FETCH_MAX = 8,           /* records per fetch response */
};

typedef enum repl_kind {
    REPL_PRODUCE, REPL_PRODUCE_RESPONSE,
    REPL_FETCH, REPL_FETCH_RESPONSE,
    REPL_EPOCH_QUERY, REPL_EPOCH_RESPONSE,    /* OffsetsForLeaderEpoch (the fix) */
    REPL_HEARTBEAT,                           /* broker -> controller: its session */
    REPL_LEADER_AND_ISR,                      /* controller -> broker */
    REPL_ISR_EXPAND,                          /* leader -> controller: a follower caught up */
    REPL_METADATA, REPL_METADATA_RESPONSE,
    REPL_KIND_COUNT
} repl_kind;

extern const char *const repl_kind_names[REPL_KIND_COUNT];

typedef struct repl_options {
    bool leader_epoch_truncation;  /* the fix: truncate by the leader's epoch end, not the HW */
    uint64_t heartbeat_ns;         /* a broker's session heartbeat period */
    uint64_t session_timeout_ns;   /* the controller expires a session silent this long */
    uint64_t fetch_wait_max_ns;    /* replica.fetch.wait.max.ms: the leader holds an empty fetch */
    uint64_t fetch_timeout_ns;     /* a follower resends a fetch unanswered this long */
    uint64_t produce_interval_ns;  /* between two records of the producer */
    uint64_t request_timeout_ns;   /* the producer's request.timeout.ms */
    int produce_attempts;          /* the producer gives a record up after this many */
} repl_options;

/* One record of a log: its value and the leader epoch it was written in. */
typedef struct repl_record {
    int32_t value;
    int32_t epoch;
} repl_record;

/* ---- Messages ------------------------------------------------------------- */

typedef struct repl_produce { int32_t value; } repl_produce;
typedef struct repl_produce_response { bool ok; int64_t offset; } repl_produce_response;

typedef struct repl_fetch {
    int broker;                    /* the follower */
    int32_t leader_epoch;          /* the epoch it follows */
    int64_t offset;                /* its log end: what it has */
} repl_fetch;

typedef struct repl_fetch_response {
    bool ok;                       /* false: not the leader of that epoch */
    int32_t leader_epoch;
    int64_t offset;                /* of the first record below */
    int64_t leader_log_end;
    int64_t high_watermark;
    int count;
    repl_record records[REPL_FETCH_MAX];
} repl_fetch_response;

typedef struct repl_epoch_query { int broker; int32_t leader_epoch; int32_t epoch; } repl_epoch_query;
typedef struct repl_epoch_response { bool ok; int32_t leader_epoch; int64_t end_offset; } repl_epoch_response;

typedef struct repl_heartbeat {
    int broker;
    uint32_t incarnation;
    int32_t leader_epoch;          /* the LeaderAndIsr it last applied */
    int32_t isr_version;
} repl_heartbeat;

typedef struct repl_leader_and_isr {
    int leader;                    /* broker index, -1: offline */
    int32_t leader_epoch;
    int32_t isr_version;
    unsigned isr;                  /* bit per broker index */
} repl_leader_and_isr;

typedef struct repl_isr_expand { int broker; int32_t leader_epoch; } repl_isr_expand;
typedef struct repl_metadata_response { int leader_node; } repl_metadata_response;

/* ---- The world -------------------------------------------------------------- */

typedef struct repl_oracle {
    int acked;                              /* records the producer got acknowledged */
    int32_t acked_value[REPL_RECORDS];
    int64_t acked_offset[REPL_RECORDS];
    int given_up;                           /* records the producer gave up on */
} repl_oracle;

typedef struct repl_world {
    repl_options options;
    int controller;                         /* node ids */
    int broker_node[REPL_BROKERS];
    int producer;
    repl_oracle oracle;
    /* What each broker's memory holds, for the oracle's end check: the
     * brokers keep it here rather than in a private struct. */
    const repl_record *log_of[REPL_BROKERS];
    const int64_t *log_end_of[REPL_BROKERS];
    int leader;                             /* the controller's choice, for the end check */
} repl_world;

typedef struct repl_broker_arg { repl_world *world; int index; } repl_broker_arg;

void repl_broker(void *arg);       /* broker.c: a node's start function */
void repl_controller(void *arg);   /* controller.c */
void repl_producer(void *arg);     /* producer.c */

/* kafka_hw_truncation.c: the oracle, called by a broker that becomes the
 * leader of a new epoch with this log. */
void repl_check_new_leader(repl_world *w, int broker, const repl_record *log, int64_t log_end);

#endif
