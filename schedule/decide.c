/*
 * decide.c — decoding of the decision stream (format in decide.h).
 */
#include "decide.h"

#include <assert.h>
#include <string.h>

enum { SKIP_ONLY = 255 };

/* Reads skip bytes until one names a deviation, and sets next_deviation. */
static void read_next_record(hf_decider *d) {
    uint64_t at = d->index;
    while (d->pos < d->size) {
        uint8_t skip = d->data[d->pos++];
        at += skip;
        if (skip != SKIP_ONLY) {
            d->next_deviation = at;
            return;
        }
    }
    d->next_deviation = UINT64_MAX;
}

void hf_decider_init(hf_decider *d, const uint8_t *data, size_t size) {
    assert(data || size == 0);
    d->data = data;
    d->size = size;
    d->pos = 0;
    d->index = 0;
    d->deviations = 0;
    d->strategy = NULL;
    d->task_options = NULL;
    read_next_record(d);
}

void hf_decider_init_strategy(hf_decider *d, hf_strategy *strategy) {
    assert(strategy && strategy->decide);
    hf_decider_init(d, NULL, 0);
    d->strategy = strategy;
}

size_t hf_decider_encode(const hf_decider *d, uint8_t *out, size_t cap) {
    uint32_t kept = d->deviations < HF_DEVIATIONS_KEPT ? d->deviations : HF_DEVIATIONS_KEPT;
    return hf_encode_deviations(d->taken, kept, out, cap);
}

static unsigned width_for(uint64_t span) {
    unsigned w = 1;
    while (w < 8 && (span >> (8 * w)) != 0) w++;
    return w;
}

static void record(hf_decider *d, unsigned width, uint64_t raw) {
    if (d->deviations < HF_DEVIATIONS_KEPT)
        d->taken[d->deviations] = (hf_deviation){d->index, raw, (uint8_t)width};
    d->deviations++;
}

/* Takes decision number d->index from the bytes.  Returns true when it
 * deviates, with its raw value (read from `width` bytes) in *value. */
static bool take(hf_decider *d, unsigned width, uint64_t *value) {
    bool deviates = d->index == d->next_deviation;
    if (deviates) {
        uint64_t v = 0;
        for (unsigned i = 0; i < width; i++) {
            uint64_t byte = d->pos < d->size ? d->data[d->pos] : 0;
            if (d->pos < d->size) d->pos++;
            v |= byte << (8 * i);
        }
        *value = v;
        record(d, width, v);
    }
    d->index++;
    if (deviates) read_next_record(d);
    return deviates;
}

/* A strategy's choice in [lo, hi], recorded with the raw value that the
 * byte format would need to make the same choice (the inverse of the
 * mapping in hf_decide_range). */
static uint64_t strategy_range(hf_decider *d, uint64_t lo, uint64_t hi, uint64_t dflt) {
    uint64_t v = d->strategy->decide(d->strategy, lo, hi, dflt, d->task_options);
    assert(lo <= v && v <= hi);
    if (v != dflt) {
        uint64_t options = hi - lo + 1;   /* hi - lo < UINT64_MAX for ranges reaching here */
        uint64_t step = ((v - lo) + options - (dflt - lo)) % options;   /* 1 .. options-1 */
        record(d, width_for(hi - lo), step - 1);
    }
    d->index++;
    return v;
}

uint64_t hf_decide_range(hf_decider *d, uint64_t lo, uint64_t hi, uint64_t dflt) {
    assert(lo <= hi);
    assert(lo <= dflt && dflt <= hi);
    if (lo == hi) return lo;
    if (d->strategy && hi - lo < UINT64_MAX) return strategy_range(d, lo, hi, dflt);
    uint64_t span = hi - lo;          /* options minus one; >= 1 */
    uint64_t v;
    if (!take(d, width_for(span), &v)) return dflt;
    /* Step 1..span places past the default, wrapping within the range. */
    uint64_t step = 1 + v % span;
    uint64_t offset = dflt - lo;
    uint64_t room = span - offset;    /* places above the default */
    return step <= room ? dflt + step : lo + (step - room - 1);
}

bool hf_decide_bool(hf_decider *d, bool dflt) {
    if (d->strategy) {
        bool v = d->strategy->decide(d->strategy, 0, 1, dflt, NULL) != 0;
        if (v != dflt) record(d, 0, 0);
        d->index++;
        return v;
    }
    uint64_t unused;
    return take(d, 0, &unused) ? !dflt : dflt;
}

uint64_t hf_decide_u64(hf_decider *d, uint64_t dflt) {
    if (d->strategy) {
        uint64_t v = d->strategy->decide(d->strategy, 0, UINT64_MAX, dflt, NULL);
        if (v != dflt) record(d, 8, v);
        d->index++;
        return v;
    }
    uint64_t v;
    return take(d, 8, &v) ? v : dflt;
}

size_t hf_encode_deviations(const hf_deviation *devs, size_t count, uint8_t *out, size_t cap) {
    size_t len = 0;
    uint64_t at = 0;   /* index of the next decision the encoding reaches */
#define PUT(byte) do { if (len < cap) out[len] = (uint8_t)(byte); len++; } while (0)
    for (size_t i = 0; i < count; i++) {
        assert(devs[i].index >= at);
        assert(devs[i].width <= 8);
        uint64_t gap = devs[i].index - at;
        while (gap >= SKIP_ONLY) { PUT(SKIP_ONLY); gap -= SKIP_ONLY; }
        PUT(gap);
        for (unsigned b = 0; b < devs[i].width; b++) PUT(devs[i].value >> (8 * b));
        at = devs[i].index + 1;
    }
#undef PUT
    return len;
}
