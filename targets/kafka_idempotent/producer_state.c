/*
 * producer_state.c — the sequence checks a partition leader makes before it
 * appends an idempotent producer's batch, after Kafka's
 * ProducerAppendInfo.checkSequence.
 *
 * A batch in the producer's current epoch must start right after the last
 * batch appended (or repeat one of the last five: a retry, answered with
 * the original offset).  A batch of a newer epoch must start at sequence 0 —
 * unless nothing is known of the producer.
 *
 * The bug (KAFKA-19880): when the producer state is empty, the first batch
 * of an epoch is accepted whatever its base sequence, because "no epoch
 * known" is taken to mean the state was cleaned up (retention, DeleteRecords)
 * and any sequence must be allowed to continue.  On a fresh partition whose
 * first requests fail, a later batch becomes the first one written.
 *
 * The fix (as KAFKA-14312 proposed): an unknown producer's first batch must
 * start at sequence 0, else OutOfOrderSequence; the producer retries it
 * after the batches before it.
 */
#include "producer_state.h"

#include <assert.h>
#include <string.h>

void producer_state_init(producer_state *s, bool reject_unknown_producer_gap) {
    memset(s, 0, sizeof *s);
    s->reject_unknown_producer_gap = reject_unknown_producer_gap;
}

static const producer_entry *find(const producer_state *s, int64_t producer_id) {
    for (int i = 0; i < s->entry_count; i++)
        if (s->entries[i].producer_id == producer_id) return &s->entries[i];
    return NULL;
}

static producer_verdict reject(kafka_error why, kafka_error *error) {
    *error = why;
    return PRODUCER_REJECT;
}

producer_verdict producer_state_check(const producer_state *s, const kafka_batch *b, int64_t *offset,
                                      kafka_error *error) {
    assert(s && b && offset && error && b->record_count > 0 && b->base_sequence >= 0);
    const producer_entry *e = find(s, b->producer_id);
    int32_t current_epoch = e ? e->epoch : KAFKA_NO_PRODUCER_EPOCH;
    int32_t last_sequence = b->base_sequence + b->record_count - 1;

    if (b->producer_epoch < current_epoch) return reject(KAFKA_INVALID_PRODUCER_EPOCH, error);

    if (b->producer_epoch == current_epoch) {
        for (int i = 0; i < e->batch_count; i++)
            if (e->batches[i].first_sequence == b->base_sequence &&
                e->batches[i].last_sequence == last_sequence) {
                *offset = e->batches[i].base_offset;
                return PRODUCER_DUPLICATE;
            }
        int32_t expected = e->batches[e->batch_count - 1].last_sequence + 1;
        if (b->base_sequence != expected) return reject(KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER, error);
        return PRODUCER_APPEND;
    }

    /* The first batch of a new epoch. */
    if (b->base_sequence != 0) {
        if (current_epoch != KAFKA_NO_PRODUCER_EPOCH) return reject(KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER, error);
        if (s->reject_unknown_producer_gap) {
            hf_sometimes(true, "the leader rejects an unknown producer's first batch that does not start at 0");
            return reject(KAFKA_OUT_OF_ORDER_SEQUENCE_NUMBER, error);
        }
        /* KAFKA-19880: nothing known of the producer, so any sequence goes. */
    }
    return PRODUCER_APPEND;
}

void producer_state_append(producer_state *s, const kafka_batch *b) {
    producer_entry *e = (producer_entry *)find(s, b->producer_id);
    if (!e) {
        assert(s->entry_count < PRODUCER_STATE_MAX);
        e = &s->entries[s->entry_count++];
        memset(e, 0, sizeof *e);
        e->producer_id = b->producer_id;
        e->epoch = KAFKA_NO_PRODUCER_EPOCH;
    }
    if (b->producer_epoch != e->epoch) {   /* a new epoch forgets the old one's batches */
        e->epoch = b->producer_epoch;
        e->batch_count = 0;
    }
    if (e->batch_count == PRODUCER_BATCHES_RETAINED) {
        memmove(&e->batches[0], &e->batches[1], (PRODUCER_BATCHES_RETAINED - 1) * sizeof e->batches[0]);
        e->batch_count--;
    }
    e->batches[e->batch_count++] = (producer_batch_meta){
        b->base_sequence, b->base_sequence + b->record_count - 1, b->base_offset,
    };
}
