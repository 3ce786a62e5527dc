/*
 * producer_state.h — a partition leader's memory of each idempotent
 * producer: its epoch and the metadata of its last few batches, and the
 * checks an append must pass (Kafka's ProducerStateManager and
 * ProducerAppendInfo).
 */
#ifndef KAFKA_PRODUCER_STATE_H
#define KAFKA_PRODUCER_STATE_H

#include "kafka.h"

/* Batches remembered per producer for duplicate detection: as many as a
 * producer may have in flight (Kafka's NUM_BATCHES_TO_RETAIN). */
enum { PRODUCER_BATCHES_RETAINED = 5, PRODUCER_STATE_MAX = 4 };

typedef struct producer_batch_meta {
    int32_t first_sequence, last_sequence;
    int64_t base_offset;
} producer_batch_meta;

typedef struct producer_entry {
    int64_t producer_id;
    int32_t epoch;                       /* KAFKA_NO_PRODUCER_EPOCH: nothing known */
    producer_batch_meta batches[PRODUCER_BATCHES_RETAINED];   /* oldest first */
    int batch_count;
} producer_entry;

typedef struct producer_state {
    bool reject_unknown_producer_gap;    /* the fix (KAFKA-14312's proposal) */
    producer_entry entries[PRODUCER_STATE_MAX];
    int entry_count;
} producer_state;

typedef enum producer_verdict {
    PRODUCER_APPEND,                     /* in sequence: append it */
    PRODUCER_DUPLICATE,                  /* a retry of a batch already appended: answer its offset */
    PRODUCER_REJECT,                     /* answer the error */
} producer_verdict;

void producer_state_init(producer_state *s, bool reject_unknown_producer_gap);

/* Checks batch `b` against what is known of its producer.  On
 * PRODUCER_DUPLICATE, *offset is the batch's offset in the log; on
 * PRODUCER_REJECT, *error says why. */
producer_verdict producer_state_check(const producer_state *s, const kafka_batch *b, int64_t *offset,
                                      kafka_error *error);

/* Records an appended batch (which passed the check). */
void producer_state_append(producer_state *s, const kafka_batch *b);

#endif
