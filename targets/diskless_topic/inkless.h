/*
 * inkless.h — what the parts of the diskless_topic model share: the wire,
 * the object format, the options and the oracle.
 *
 * A diskless topic (KIP-1150, Aiven's Inkless): brokers keep no log of
 * their own.  A broker gathers produce requests for a while, uploads them
 * as one object to the object store, and has the batch coordinator (a
 * database) commit the object's batches: the coordinator gives them their
 * offsets, in commit order, per partition.  To serve a fetch a broker asks
 * the coordinator where the batches are, and reads them from the objects.
 */
#ifndef INKLESS_H
#define INKLESS_H

#include "sim.h"

enum {
    INKLESS_PARTITIONS = 3,
    INKLESS_PRODUCERS = 2,
    INKLESS_MAX_MESSAGES = 64,          /* per producer */
    INKLESS_OBJECT_MAX_BATCHES = 16,
    INKLESS_FETCH_MAX = 8,              /* batches per fetch */
    INKLESS_MAX_BATCHES = 512,          /* committed batches the coordinator indexes */
};

typedef enum inkless_kind {
    INKLESS_PRODUCE, INKLESS_PRODUCE_REPLY,
    INKLESS_FETCH, INKLESS_FETCH_REPLY,
    INKLESS_METADATA, INKLESS_METADATA_REPLY,
    INKLESS_COMMIT_FILE, INKLESS_COMMIT_FILE_REPLY,
    INKLESS_FIND_BATCHES, INKLESS_FIND_BATCHES_REPLY,
    INKLESS_KIND_COUNT
} inkless_kind;

extern const char *const inkless_kind_names[INKLESS_KIND_COUNT];

/* A batch of one message (enough to check order and offsets). */
typedef struct inkless_batch {
    int partition;
    int producer;                       /* producer id */
    int32_t sequence;                   /* per producer and partition: 0, 1, 2, ... */
    int64_t message;                    /* the message's number: unique per producer */
} inkless_batch;

/* An object in the store: the batches a broker uploaded together. */
typedef struct inkless_object {
    int count;
    inkless_batch batches[INKLESS_OBJECT_MAX_BATCHES];
} inkless_object;

typedef enum inkless_error { INKLESS_OK, INKLESS_RETRY } inkless_error;

typedef struct inkless_produce_reply {
    inkless_error error;
    int64_t offset;
} inkless_produce_reply;

typedef struct inkless_commit_file {
    char key[32];
    inkless_object object;
} inkless_commit_file;

typedef struct inkless_commit_file_reply {
    int count;
    int64_t offsets[INKLESS_OBJECT_MAX_BATCHES];   /* -1: a duplicate, not appended */
} inkless_commit_file_reply;

/* Where a committed batch lives. */
typedef struct inkless_location {
    int64_t offset;
    char key[32];
    int index;                          /* in the object */
} inkless_location;

/* A fetch covers every partition, as a Kafka consumer's does. */
typedef struct inkless_fetch {
    int64_t offsets[INKLESS_PARTITIONS];   /* the next offset wanted, per partition */
} inkless_fetch;

typedef struct inkless_find_reply {
    int count[INKLESS_PARTITIONS];
    inkless_location locations[INKLESS_PARTITIONS][INKLESS_FETCH_MAX];
} inkless_find_reply;

typedef struct inkless_fetch_reply {
    inkless_error error;
    int count[INKLESS_PARTITIONS];
    int64_t offsets[INKLESS_PARTITIONS][INKLESS_FETCH_MAX];
    inkless_batch batches[INKLESS_PARTITIONS][INKLESS_FETCH_MAX];
} inkless_fetch_reply;

typedef struct inkless_metadata_reply {
    int partitions;
} inkless_metadata_reply;

typedef struct inkless_options {
    int brokers;
    int messages_per_producer;
    uint64_t produce_for_ns;            /* producers start no message after this long (then the test drains), ns */
    uint64_t produce_interval_ns;       /* between a producer's ack and its next message, ns */
    uint64_t request_timeout_ns;        /* a client request unanswered this long is retried, ns */
    uint64_t upload_interval_ns;        /* a broker gathers produce requests this long, ns */
    uint64_t store_timeout_ns;          /* an object-store request unanswered this long failed, ns */
    uint64_t retry_ns;                  /* after a failed upload or commit, ns */
    uint64_t call_timeout_ns;           /* a coordinator call unanswered this long is resent, ns */
    uint64_t fetch_interval_ns;         /* the consumer's pause after an empty round, ns */
} inkless_options;

/* What the test knows and no node does. */
typedef struct inkless_oracle {
    bool acked[INKLESS_PRODUCERS][INKLESS_MAX_MESSAGES];
    bool read[INKLESS_PRODUCERS][INKLESS_MAX_MESSAGES];
    int64_t acked_count, read_count;
} inkless_oracle;

typedef struct inkless_world {
    inkless_options options;
    int coordinator, producer, consumer;
    int brokers[4];
    inkless_oracle oracle;
} inkless_world;

void inkless_coordinator(void *arg);    /* arg: inkless_world */
void inkless_broker(void *arg);
void inkless_producer(void *arg);
void inkless_consumer(void *arg);

/* The consumer's checks (diskless_topic.c): a batch read at `offset` of
 * `partition`, given the next offset and each producer's last sequence
 * read so far (both updated); and the partition count a metadata answer
 * gave. */
void inkless_consumer_read(inkless_world *w, int partition, int64_t offset, const inkless_batch *b,
                           int64_t *next_offset, int32_t last_sequence[INKLESS_PRODUCERS][INKLESS_PARTITIONS]);
void inkless_consumer_partitions(int partitions);

#endif
