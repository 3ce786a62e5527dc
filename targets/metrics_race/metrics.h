/*
 * metrics.h — a small instrumentation library, as a service links it: one
 * counter and one latency histogram, updated by every request handler and
 * read by an exporter that a scraper polls.
 *
 * Each field is a 64-bit word that several tasks update.  How an update is
 * made is the point of the target: as a plain read-modify-write (load, add,
 * store — a thread can be preempted between the load and the store), or
 * indivisibly (an atomic add, or a compare-and-swap loop that retries when
 * the word changed under it).
 */
#ifndef METRICS_H
#define METRICS_H

#include "hf.h"

/* Upper bounds of the latency buckets, in microseconds; the last is +Inf. */
enum { METRICS_BUCKETS = 5 };
extern const uint64_t metrics_bucket_bound_us[METRICS_BUCKETS];

typedef struct metrics_registry {
    bool indivisible_updates;                 /* false: the histogram's plain read-modify-write */
    bool unhinted;                            /* no hf_switch_point(): the runtime preempts at accesses */
    uint64_t requests_total;                  /* counter: requests served */
    uint64_t latency_bucket[METRICS_BUCKETS]; /* histogram: observations per bucket */
    uint64_t latency_count;                   /* histogram: observations */
    uint64_t latency_sum_us;                  /* histogram: sum of observed latencies, microseconds */
} metrics_registry;

/* What one scrape exports: each field read once, in turn (not a consistent
 * cut: handlers may update between two reads, as with the real library). */
typedef struct metrics_snapshot {
    uint64_t requests_total;
    uint64_t bucket_total;                    /* the buckets added up */
    uint64_t latency_count;
    uint64_t latency_sum_us;
} metrics_snapshot;

void metrics_init(metrics_registry *m, bool indivisible_updates);

/* A handler served a request that took `latency_us`: counts it and records
 * its latency in the histogram. */
void metrics_request_served(metrics_registry *m, uint64_t latency_us);

void metrics_scrape(const metrics_registry *m, metrics_snapshot *out);

#endif
