/*
 * records.h — an input's records as the search edits them: each record
 * decoded into an item (an explicit deviation, or a generator with its
 * mode, seed and stretch), items encoded back into bytes, and the fresh
 * generator record a random schedule starts from.  The mutator (mutate.h)
 * edits items; the `generators` baseline (strategy.h) draws its runs as
 * the mutator draws a fresh generator.
 */
#ifndef HF_RECORDS_H
#define HF_RECORDS_H

#include "decide.h"
#include "rng.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One record of an input, decoded: an explicit deviation, or a generator. */
typedef struct hf_item {
    uint64_t index;      /* the decision it deviates, or where its generator starts */
    bool generator;
    uint8_t width;       /* explicit: value bytes */
    uint64_t value;      /* explicit: raw value */
    uint8_t mode;        /* generator: kind | level << 4 */
    uint16_t seed;       /* generator */
    uint8_t stretch;     /* generator: 0 = the rest of the run */
} hf_item;

enum { HF_ITEMS_MAX = HF_DEVIATIONS_KEPT + HF_LOG_RECORDS };

/* Decodes the records of an input from its run's log (the last
 * hf_run_logged of it); returns the count, or -1 when the log could not
 * keep them all. */
int hf_items_parse(const hf_decision_log *log, const uint8_t *data, size_t size, hf_item *items, int max);

/* Whether an item is an ordering constraint (a generator of kind
 * HF_GEN_ORDER: it holds all run, wherever it is placed). */
bool hf_item_is_order(const hf_item *it);

/* Items in the order they are encoded, for qsort: by decision; at one
 * index the generator first, so that an explicit record there overrides
 * its first decision, and ordering constraints before it (by their keys:
 * several may share an index). */
int hf_item_order(const void *a, const void *b);

/* Encodes items (any order) into bytes; returns the size, 0 when it does
 * not fit in max_size (or there is nothing to encode). */
size_t hf_items_encode(hf_item *items, int count, uint8_t *out, size_t max_size);

/* A fresh generator record starting at decision `index`, drawn as the
 * mutator draws one for a new random schedule (its kinds and intensities
 * in records.c) on a target that does or does not preempt at its shared
 * memory accesses; the `generators` baseline (strategy.h) draws its runs so. */
hf_item hf_fresh_generator(hf_rng *r, bool shared_memory, uint64_t index);

#endif
