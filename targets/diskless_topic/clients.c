/*
 * clients.c — Aiven's produce/consume test (inkless_produce_consume_test):
 * producers keep producing to the diskless topic, one message in flight
 * each, retrying through the other broker when a request goes unanswered;
 * a consumer keeps reading every partition from the start, checking what
 * it reads (diskless_topic.c holds the invariants).
 */
#include "inkless.h"

#include <assert.h>

/* ---- Producers -------------------------------------------------------------- */

typedef struct producer_task {
    inkless_world *world;
    int id;
} producer_task;

static void produce(void *arg) {
    producer_task *p = arg;
    const inkless_options *o = &p->world->options;
    int32_t next_sequence[INKLESS_PARTITIONS] = {0};
    int attempt = 0;
    uint64_t stop_at = hf_clock() + o->produce_for_ns;
    for (int i = 0; i < o->messages_per_producer && hf_clock() < stop_at; i++) {
        int partition = i % INKLESS_PARTITIONS;
        inkless_batch b = {partition, p->id, next_sequence[partition]++, i};
        for (;;) {
            int broker = p->world->brokers[attempt % o->brokers];
            hf_msg reply;
            if (hf_call(broker, INKLESS_PRODUCE, &b, sizeof b, o->request_timeout_ns, &reply) &&
                ((const inkless_produce_reply *)reply.data)->error == INKLESS_OK)
                break;
            attempt++;   /* try the other broker */
            hf_sometimes(true, "a producer retried a message through the other broker");
            hf_sleep(o->retry_ns);
        }
        inkless_oracle *or = &p->world->oracle;
        or->acked[p->id][i] = true;
        or->acked_count++;
        hf_sleep(o->produce_interval_ns);
    }
}

void inkless_producer(void *arg) {
    inkless_world *w = arg;
    for (int id = 0; id < INKLESS_PRODUCERS; id++) {
        producer_task *p = hf_alloc(sizeof *p);
        *p = (producer_task){w, id};
        hf_spawn(hf_printf("producer%d", id + 1), produce, p);
    }
}

/* ---- Consumer ------------------------------------------------------------------- */

void inkless_consumer(void *arg) {
    inkless_world *w = arg;
    const inkless_options *o = &w->options;
    int64_t next_offset[INKLESS_PARTITIONS] = {0};
    int32_t last_sequence[INKLESS_PRODUCERS][INKLESS_PARTITIONS];
    for (int p = 0; p < INKLESS_PRODUCERS; p++)
        for (int q = 0; q < INKLESS_PARTITIONS; q++) last_sequence[p][q] = -1;
    for (int round = 0;; round++) {
        int broker = w->brokers[round % o->brokers];
        hf_msg reply;
        if (round % 8 == 0 && hf_call(broker, INKLESS_METADATA, NULL, 0, o->request_timeout_ns, &reply))
            inkless_consumer_partitions(((const inkless_metadata_reply *)reply.data)->partitions);
        int got = 0;
        inkless_fetch f;
        for (int p = 0; p < INKLESS_PARTITIONS; p++) f.offsets[p] = next_offset[p];
        if (hf_call(broker, INKLESS_FETCH, &f, sizeof f, o->request_timeout_ns, &reply)) {
            const inkless_fetch_reply *r = reply.data;
            for (int p = 0; p < INKLESS_PARTITIONS; p++) {
                for (int i = 0; i < r->count[p]; i++)
                    inkless_consumer_read(w, p, r->offsets[p][i], &r->batches[p][i], &next_offset[p], last_sequence);
                got += r->count[p];
            }
        }
        if (got == 0) hf_sleep(o->fetch_interval_ns);
    }
}
