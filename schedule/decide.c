/*
 * decide.c — decoding of the decision stream (format in decide.h).
 */
#include "decide.h"

#include <assert.h>
#include <string.h>

enum { SKIP_ONLY = 255, SKIP_MAX = 253 };

static void log_record(hf_decider *d, size_t offset, uint64_t index, bool generator) {
    hf_decision_log *log = d->log;
    if (!log) return;
    if (log->records < HF_LOG_RECORDS)
        log->record[log->records] = (hf_record_info){(uint32_t)offset, 0, index, generator};
    log->records++;
}

/* The byte at `d->pos`, or 0 past the end; advances. */
static uint8_t next_byte(hf_decider *d) {
    if (d->pos >= d->size) return 0;
    return d->data[d->pos++];
}

uint64_t hf_stretch_decisions(uint8_t stretch) {
    /* ceil(2^(s/8)): 2^(r/8) * 2^16 rounded up, for r = 0..7. */
    static const uint32_t fraction[8] = {65536, 71468, 77936, 84990, 92682, 101070, 110218, 120194};
    if (stretch == 0) return UINT64_MAX;
    unsigned whole = stretch / 8u;
    uint64_t scaled = (uint64_t)fraction[stretch % 8u] << whole;
    return (scaled + 0xffff) >> 16;
}

/* Reads a generator record (its escape byte already read) into `pending`. */
static void read_generator(hf_decider *d, size_t offset) {
    uint8_t mode = next_byte(d);
    uint16_t seed = next_byte(d);
    seed |= (uint16_t)(next_byte(d) << 8);
    uint8_t stretch = next_byte(d);
    uint8_t gap = next_byte(d);
    d->at += gap;
    unsigned kind = mode & 15u;
    if (kind > HF_GEN_ORDER) kind = HF_GEN_CALM;
    log_record(d, offset, d->at, true);
    if (d->log && d->log->records <= HF_LOG_RECORDS)
        d->log->record[d->log->records - 1].size = HF_GENERATOR_RECORD_SIZE;
    if (kind == HF_GEN_ADVANCE) return;
    if (kind == HF_GEN_ORDER) {
        if (d->orders == HF_ORDERS_MAX) return;
        uint32_t keys = seed | (uint32_t)stretch << 16;
        d->order_before[d->orders] = keys & 0xfff;
        d->order_after[d->orders] = (uint16_t)(keys >> 12);
        d->orders++;
        return;
    }
    uint64_t length = hf_stretch_decisions(stretch);
    uint64_t end = length > UINT64_MAX - d->at ? UINT64_MAX : d->at + length;
    hf_generator_init(&d->pending, (hf_generator_kind)kind, mode >> 4, seed, d->at, end);
    d->next_generator = d->at;
}

/* Reads records until one names a deviation or starts a generator, and
 * sets next_deviation and next_generator. */
static void read_next_record(hf_decider *d) {
    d->next_deviation = UINT64_MAX;
    d->next_generator = UINT64_MAX;
    while (d->pos < d->size) {
        size_t offset = d->pos;
        uint8_t skip = d->data[d->pos++];
        if (skip == SKIP_ONLY) {
            d->at += SKIP_ONLY;
        } else if (skip == HF_GENERATOR_RECORD) {
            read_generator(d, offset);
            if (d->next_generator != UINT64_MAX) return;
        } else {
            d->at += skip;
            d->next_deviation = d->at;
            log_record(d, offset, d->at, false);
            return;
        }
    }
}

void hf_decider_init(hf_decider *d, const uint8_t *data, size_t size) {
    hf_decider_init_logged(d, data, size, NULL);
}

void hf_decider_init_logged(hf_decider *d, const uint8_t *data, size_t size, hf_decision_log *log) {
    assert(data || size == 0);
    d->log = log;
    d->clock = NULL;
    d->data = data;
    d->size = size;
    d->pos = 0;
    d->index = 0;
    d->ordinal[0] = d->ordinal[1] = 0;
    d->at = 0;
    d->deviations = 0;
    d->strategy = NULL;
    d->task_options = NULL;
    d->task_facts = NULL;
    d->generating = false;
    d->orders = d->orders_met = 0;
    d->holds = 0;
    if (log) log->records = log->decisions = log->moments = 0;
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

/* Notes what decision d->index is about, then moves past it. */
static void advance(hf_decider *d, hf_decision_tag tag, unsigned width) {
    hf_decision_log *log = d->log;
    if (log) {
        if (log->decisions < HF_LOG_DECISIONS) {
            log->tag[log->decisions] = tag;
            log->width[log->decisions] = (uint8_t)width;
            log->time_ns[log->decisions] = d->clock ? *d->clock : 0;
        }
        log->decisions++;
    }
    d->index++;
    d->ordinal[HF_DECISION_CLASS(tag) == HF_DECISION_TASK]++;
}

/* Starts a pending generator whose start has come, and ends the active one
 * once past its stretch; true when decision d->index is generated. */
static bool generated(hf_decider *d) {
    while (d->index == d->next_generator) {
        d->active = d->pending;
        d->generating = true;
        read_next_record(d);
    }
    if (d->generating && d->index >= d->active.end) d->generating = false;
    return d->generating && d->active.kind != HF_GEN_CALM;
}

uint64_t hf_raw_for_choice(uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t v) {
    assert(lo <= v && v <= hi && v != dflt);
    if (hi - lo == UINT64_MAX) return v - dflt - 1;   /* steps wrap around all 2^64 values */
    /* Step v - dflt above the default, or past hi and round from lo; each
     * term stays below the span, so nothing overflows however wide it is. */
    return v > dflt ? v - dflt - 1 : (hi - dflt) + (v - lo);
}

/* A value chosen other than by an explicit record: by the strategy, by
 * the active generator, or the default.  Recorded when it deviates. */
static uint64_t decide_otherwise(hf_decider *d, hf_decision_tag tag, uint64_t lo, uint64_t hi, uint64_t dflt,
                                 unsigned width, bool raw_value) {
    bool task = HF_DECISION_CLASS(tag) == HF_DECISION_TASK;
    uint64_t key = hf_draw_key(task, d->ordinal[task]), v = dflt;
    if (d->strategy) v = d->strategy->decide(d->strategy, tag, key, lo, hi, dflt, d->task_options, d->task_facts);
    else if (generated(d)) v = hf_generate(&d->active, tag, key, lo, hi, dflt, d->task_options, d->task_facts);
    assert(lo <= v && v <= hi);
    if (v != dflt) {
        if (width == 0) record(d, 0, 0);
        else if (raw_value) record(d, width, v);
        else record(d, width, hf_raw_for_choice(lo, hi, dflt, v));
    }
    advance(d, tag, width);
    return v;
}

/* Takes decision number d->index from an explicit record, if one names it.
 * Returns true when it does, with its raw value (read from `width` bytes) in
 * *value. */
static bool take_explicit(hf_decider *d, unsigned width, uint64_t *value) {
    if (!d->strategy) generated(d);   /* a generator may start here, under the explicit record */
    if (d->index != d->next_deviation) return false;
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++) v |= (uint64_t)next_byte(d) << (8 * i);
    if (d->log && d->log->records - 1 < HF_LOG_RECORDS)
        d->log->record[d->log->records - 1].size = 1 + width;
    *value = v;
    record(d, width, v);
    d->at = d->index + 1;
    read_next_record(d);
    return true;
}

/* True when decision d->index takes its default with nothing to read or
 * draw: no strategy, no generator active or starting here, no explicit
 * record naming it (the input's records name decisions at or past the
 * index, never before).  Most decisions of a long run are such; they cost
 * a counter bump, as the full path would come to the same. */
static bool plainly_default(const hf_decider *d) {
    return !d->strategy && !d->generating && d->index != d->next_deviation && d->index != d->next_generator;
}

uint64_t hf_decide_range(hf_decider *d, hf_decision_tag tag, uint64_t lo, uint64_t hi, uint64_t dflt) {
    assert(lo <= hi);
    assert(lo <= dflt && dflt <= hi);
    if (lo == hi) return lo;
    uint64_t span = hi - lo;          /* options minus one; >= 1 */
    unsigned width = width_for(span);
    if (plainly_default(d)) {
        advance(d, tag, width);
        return dflt;
    }
    uint64_t v;
    if (!take_explicit(d, width, &v)) return decide_otherwise(d, tag, lo, hi, dflt, width, false);
    advance(d, tag, width);
    /* Step 1..span places past the default, wrapping within the range. */
    uint64_t step = 1 + v % span;
    uint64_t offset = dflt - lo;
    uint64_t room = span - offset;    /* places above the default */
    return step <= room ? dflt + step : lo + (step - room - 1);
}

/* Whether an ordering constraint not yet met holds back the task whose
 * facts these are. */
static bool held_back(const hf_decider *d, const hf_task_facts *f) {
    if (!f->next_site) return false;
    uint16_t key = hf_site_key(f->next_site);
    for (unsigned i = 0; i < d->orders; i++)
        if (!(d->orders_met >> i & 1) && d->order_after[i] == key) return true;
    return false;
}

uint64_t hf_decide_task(hf_decider *d, uint64_t n, uint64_t dflt) {
    assert(n >= 1 && dflt < n);
    uint32_t recorded = d->deviations;
    uint64_t v = hf_decide_range(d, HF_DECISION_TASK, 0, n - 1, dflt);
    const hf_task_facts *facts = d->task_facts;
    if (d->orders_met == (1u << d->orders) - 1 || !facts || !held_back(d, &facts[v])) return v;
    uint64_t u = v;
    for (uint64_t step = 1; step < n && u == v; step++)
        if (!held_back(d, &facts[(v + step) % n])) u = (v + step) % n;
    if (u == v) return v;   /* every task is held back: the constraint cannot hold */
    if (++d->holds == HF_HELD_MAX) {   /* decide.h: the constraints give up */
        d->orders_met = (uint8_t)((1u << d->orders) - 1);
        return v;
    }
    /* The decision (d->index - 1) is u's, whatever chose v: record it so. */
    d->deviations = recorded;
    if (u != dflt) {
        if (d->deviations < HF_DEVIATIONS_KEPT)
            d->taken[d->deviations] = (hf_deviation){d->index - 1, hf_raw_for_choice(0, n - 1, dflt, u),
                                                     (uint8_t)width_for(n - 1)};
        d->deviations++;
    }
    return u;
}

uint64_t hf_decide_moment(hf_decider *d, hf_decision_tag tag, uint64_t lo, uint64_t hi, uint64_t dflt,
                          uint64_t unit_ns) {
    hf_decision_log *log = d->log;
    if (log && lo < hi) {
        if (log->moments < HF_LOG_MOMENTS)
            log->moment[log->moments] = (hf_moment_decision){d->index, lo, hi, dflt, unit_ns};
        log->moments++;
    }
    return hf_decide_range(d, tag, lo, hi, dflt);
}

bool hf_decide_bool(hf_decider *d, hf_decision_tag tag, bool dflt) {
    if (plainly_default(d)) {
        advance(d, tag, 0);
        return dflt;
    }
    uint64_t unused;
    if (!take_explicit(d, 0, &unused)) return decide_otherwise(d, tag, 0, 1, dflt, 0, false) != 0;
    advance(d, tag, 0);
    return !dflt;
}

uint64_t hf_decide_u64(hf_decider *d, hf_decision_tag tag, uint64_t dflt) {
    if (plainly_default(d)) {
        advance(d, tag, 8);
        return dflt;
    }
    uint64_t v;
    if (!take_explicit(d, 8, &v)) return decide_otherwise(d, tag, 0, UINT64_MAX, dflt, 8, true);
    advance(d, tag, 8);
    return v;
}

/* ---- Encoding ---------------------------------------------------------------- */

#define PUT(byte) do { if (len < cap) out[len] = (uint8_t)(byte); len++; } while (0)

/* Moves *at toward `index` by skip-only records, as far as they go without
 * passing it; leaves the gap still to cover (0..254) in *gap. */
static size_t move_toward(uint64_t *at, uint64_t index, uint8_t *out, size_t len, size_t cap, uint64_t *gap) {
    assert(index >= *at);
    uint64_t g = index - *at;
    while (g >= SKIP_ONLY) { PUT(SKIP_ONLY); g -= SKIP_ONLY; }
    *at = index - g;
    *gap = g;
    return len;
}

size_t hf_encode_deviation(uint64_t *at, const hf_deviation *dev, uint8_t *out, size_t len, size_t cap) {
    assert(dev->width <= 8);
    uint64_t gap;
    len = move_toward(at, dev->index, out, len, cap, &gap);
    if (gap > SKIP_MAX) {   /* 254 is the generator escape: move by an advance record */
        PUT(HF_GENERATOR_RECORD); PUT(HF_GEN_ADVANCE); PUT(0); PUT(0); PUT(0); PUT(gap);
        gap = 0;
    }
    PUT(gap);
    for (unsigned b = 0; b < dev->width; b++) PUT(dev->value >> (8 * b));
    *at = dev->index + 1;
    return len;
}

size_t hf_encode_generator(uint64_t *at, uint64_t index, uint8_t mode, uint16_t seed, uint8_t stretch,
                           uint8_t *out, size_t len, size_t cap) {
    uint64_t gap;
    len = move_toward(at, index, out, len, cap, &gap);
    PUT(HF_GENERATOR_RECORD); PUT(mode); PUT(seed); PUT(seed >> 8); PUT(stretch); PUT(gap);
    *at = index;
    return len;
}

#undef PUT

size_t hf_encode_deviations(const hf_deviation *devs, size_t count, uint8_t *out, size_t cap) {
    size_t len = 0;
    uint64_t at = 0;   /* index of the next decision the encoding reaches */
    for (size_t i = 0; i < count; i++) {
        assert(devs[i].index >= at);
        len = hf_encode_deviation(&at, &devs[i], out, len, cap);
    }
    return len;
}
