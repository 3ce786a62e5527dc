/*
 * kafka.h — what the parts of the kafka_idempotent model share: the wire
 * (message kinds, requests and responses, error codes), the record batch,
 * the cluster's options and its oracle.
 *
 * One partition, input-topic-0, freshly created: replicas on broker1 (the
 * leader to be) and broker2, min.insync.replicas=2; a controller that
 * propagates the partition's leadership to the brokers over the network
 * and answers metadata and producer-id requests; one idempotent producer.
 */
#ifndef KAFKA_H
#define KAFKA_H

#include "sim.h"

/* ---- Wire ----------------------------------------------------------------- */

typedef enum kafka_kind {
    KAFKA_METADATA, KAFKA_METADATA_RESPONSE,
    KAFKA_INIT_PRODUCER_ID, KAFKA_INIT_PRODUCER_ID_RESPONSE,
    KAFKA_PRODUCE, KAFKA_PRODUCE_RESPONSE,
    KAFKA_FETCH, KAFKA_FETCH_RESPONSE,
    KAFKA_LEADER_AND_ISR, KAFKA_LEADER_AND_ISR_RESPONSE,
    KAFKA_KIND_COUNT
} kafka_kind;

extern const char *const kafka_kind_names[KAFKA_KIND_COUNT];

typedef enum kafka_error {
    KAFKA_NONE,
    KAFKA_NOT_LEADER_OR_FOLLOWER,        /* this broker does not (yet) lead the partition */
    KAFKA_NOT_ENOUGH_REPLICAS,           /* the ISR is below min.insync.replicas */
    KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER,  /* the batch does not follow the producer's last one */
    KAFKA_INVALID_PRODUCER_EPOCH,        /* the batch's epoch is older than the producer's */
    KAFKA_REQUEST_TIMED_OUT,             /* the client's own verdict: no response in time */
    KAFKA_ERROR_COUNT
} kafka_error;

const char *kafka_error_name(kafka_error e);

enum { KAFKA_NO_PRODUCER_EPOCH = -1 };

/* A record batch.  The records themselves are only numbers: record k is
 * the producer's k-th record, so order and duplicates can be checked. */
typedef struct kafka_batch {
    int64_t producer_id;
    int32_t producer_epoch;
    int32_t base_sequence;
    int32_t record_count;
    int64_t first_record;       /* the workload's number of its first record */
    int64_t base_offset;        /* in the partition, set by the leader on append */
} kafka_batch;

typedef struct kafka_produce_request {
    int32_t correlation_id;
    kafka_batch batch;
} kafka_produce_request;

typedef struct kafka_produce_response {
    int32_t correlation_id;
    kafka_error error;
    int64_t base_offset;
} kafka_produce_response;

enum { KAFKA_FETCH_MAX_BATCHES = 8 };

typedef struct kafka_fetch_request {
    int replica;                /* the follower's node */
    int64_t fetch_offset;       /* the first offset it lacks: all before are in its log */
} kafka_fetch_request;

typedef struct kafka_fetch_response {
    kafka_error error;
    int count;
    kafka_batch batches[KAFKA_FETCH_MAX_BATCHES];
} kafka_fetch_response;

typedef struct kafka_leader_and_isr {
    int leader;                 /* node */
    int follower;               /* node */
    int32_t leader_epoch;
} kafka_leader_and_isr;

typedef struct kafka_metadata_response {
    int leader;                 /* node, as the controller knows it */
} kafka_metadata_response;

typedef struct kafka_init_producer_id {
    int64_t producer_id;        /* -1: a new producer */
    int32_t producer_epoch;     /* the epoch to bump from; -1 for a new producer */
} kafka_init_producer_id;

/* ---- The cluster ---------------------------------------------------------- */

typedef struct kafka_options {
    bool reject_unknown_producer_gap;  /* the fix: an unknown producer's first batch must start at 0 */
    int min_insync_replicas;           /* min.insync.replicas */
    int max_in_flight;                 /* max.in.flight.requests.per.connection */
    int batches;                       /* batches the producer sends in all */
    int32_t first_batch_records;       /* records in the first batch */
    int32_t batch_records;             /* records in each later batch */
    int32_t first_correlation_id;      /* of the first Produce (the connection's earlier requests used the rest) */
    uint64_t batch_fill_ns;            /* the application fills one batch in this time, ns */
    uint64_t request_timeout_ns;       /* request.timeout.ms, ns */
    uint64_t retry_backoff_ns;         /* retry.backoff.ms, ns */
    uint64_t replica_fetch_backoff_ns; /* replica.fetch.backoff.ms: after a failed fetch, ns */
    uint64_t replica_fetch_wait_ns;    /* replica.fetch.wait.max.ms: a fetch waits this long for data, ns */
    uint64_t controller_retry_ns;      /* the controller resends an unanswered LeaderAndIsr after, ns */
} kafka_options;

/* What the test knows and no node does: it lives outside every node. */
typedef struct kafka_oracle {
    int64_t records_total;             /* the workload: records the producer sends */
    int64_t records_acked;             /* acknowledged to the application, counted once each */
    int64_t last_record_in_log;        /* highest record number appended so far; -1 none */
    int64_t appended_batches;
} kafka_oracle;

typedef struct kafka_cluster {
    kafka_options options;
    int controller, leader, follower, producer;   /* node ids */
    kafka_oracle oracle;
} kafka_cluster;

/* Node start functions (arg: the kafka_cluster). */
void kafka_controller(void *arg);
void kafka_broker(void *arg);
void kafka_producer(void *arg);

/* The invariant, checked by the leader at every append (kafka_idempotent.c). */
void kafka_check_append(kafka_cluster *c, const kafka_batch *b);

#endif
