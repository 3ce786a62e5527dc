/*
 * records.c — an input's records as items, and back (records.h).
 */
#include "records.h"

#include <stdlib.h>

static uint8_t byte_at(const uint8_t *data, size_t size, size_t at) { return at < size ? data[at] : 0; }

int hf_items_parse(const hf_decision_log *log, const uint8_t *data, size_t size, hf_item *items, int max) {
    if (log->records > HF_LOG_RECORDS) return -1;
    int n = 0;
    for (uint32_t r = 0; r < log->records && n < max; r++) {
        const hf_record_info *rec = &log->record[r];
        size_t at = rec->offset;
        if (rec->generator) {
            uint8_t mode = byte_at(data, size, at + 1);
            if ((mode & 15) == HF_GEN_ADVANCE) continue;   /* positions are the encoder's business */
            items[n++] = (hf_item){.index = rec->index, .generator = true, .mode = mode,
                                   .seed = (uint16_t)(byte_at(data, size, at + 2) | byte_at(data, size, at + 3) << 8),
                                   .stretch = byte_at(data, size, at + 4)};
            continue;
        }
        if (rec->index >= log->decisions) continue;        /* never reached: it changes nothing */
        if (rec->index >= HF_LOG_DECISIONS) return -1;     /* its width is unknown */
        uint8_t width = log->width[rec->index];
        uint64_t value = 0;
        for (unsigned b = 0; b < width; b++) value |= (uint64_t)byte_at(data, size, at + 1 + b) << (8 * b);
        items[n++] = (hf_item){.index = rec->index, .width = width, .value = value};
    }
    return n;
}

bool hf_item_is_order(const hf_item *it) { return it->generator && (it->mode & 15) == HF_GEN_ORDER; }

int hf_item_order(const void *a, const void *b) {
    const hf_item *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    if (x->generator != y->generator) return (int)y->generator - (int)x->generator;
    if (hf_item_is_order(x) != hf_item_is_order(y)) return (int)hf_item_is_order(y) - (int)hf_item_is_order(x);
    if (!hf_item_is_order(x)) return 0;
    uint32_t kx = x->seed | (uint32_t)x->stretch << 16, ky = y->seed | (uint32_t)y->stretch << 16;
    return kx != ky ? (kx < ky ? -1 : 1) : 0;
}

size_t hf_items_encode(hf_item *items, int count, uint8_t *out, size_t max_size) {
    qsort(items, (size_t)count, sizeof *items, hf_item_order);
    size_t len = 0, last_start = 0;
    uint64_t at = 0;
    for (int i = 0; i < count; i++) {
        const hf_item *it = &items[i];
        if (i > 0 && it->index == items[i - 1].index && it->generator == items[i - 1].generator &&
            !hf_item_is_order(it) && !hf_item_is_order(&items[i - 1]))
            continue;
        last_start = len;
        if (it->generator) {
            len = hf_encode_generator(&at, it->index, it->mode, it->seed, it->stretch, out, len, max_size);
        } else {
            hf_deviation dev = {it->index, it->value, it->width};
            len = hf_encode_deviation(&at, &dev, out, len, max_size);
        }
    }
    /* Bytes missing at the end read as 0: the last record's trailing zeros
     * (but never its first byte, which makes it a record) can go. */
    while (len > last_start + 1 && len <= max_size && out[len - 1] == 0) len--;
    return len <= max_size ? len : 0;
}

/* A fresh generator: mostly the kinds and intensities that find the
 * incident targets' bugs soonest on their own (measured one generator
 * record per run, as bench --search's `generators` column runs them):
 * PCT with d = 3 (the storm-shy bugs, which need an undisturbed schedule
 * around one preemption; d = 3 found them 3-4 times sooner than d = 2 or
 * 4), a level-0 walk (a fault at the right moment among many small ones),
 * walks of levels 1-3 (races that need a preemption at every other
 * decision); and sometimes any kind at any intensity.
 *
 * On a target whose tasks share memory (it preempts at its accesses: a
 * pthread program), half are the two walks published for such programs,
 * SURW and POS, one as often as the other: they sample the orders of
 * racing accesses where the table above samples moments of faults, and
 * neither was tuned on the incident targets.  The other half keeps the
 * table, for the bugs of bounded depth PCT finds. */
hf_item hf_fresh_generator(hf_rng *r, bool shared_memory, uint64_t index) {
    static const hf_generator_kind any_kind[] = {HF_GEN_WALK, HF_GEN_SWARM, HF_GEN_PCT, HF_GEN_TASKS, HF_GEN_FAULTS};
    uint64_t dice = hf_rng_below(r, 20);
    hf_generator_kind kind;
    unsigned level;
    if (shared_memory && hf_rng_below(r, 2)) kind = hf_rng_below(r, 2) ? HF_GEN_SURW : HF_GEN_POS, level = 0;
    else if (dice < 7) kind = HF_GEN_PCT, level = 2;
    else if (dice < 11) kind = HF_GEN_WALK, level = 0;
    else if (dice < 17) kind = HF_GEN_WALK, level = 1 + (unsigned)hf_rng_below(r, 3);
    else kind = any_kind[hf_rng_below(r, sizeof any_kind / sizeof any_kind[0])], level = (unsigned)hf_rng_below(r, 16);
    uint8_t stretch = hf_rng_below(r, 7) ? 0 : (uint8_t)(1 + hf_rng_below(r, 255));
    return (hf_item){.index = index, .generator = true, .mode = (uint8_t)(kind | level << 4),
                     .seed = (uint16_t)hf_rng_below(r, 65536), .stretch = stretch};
}
