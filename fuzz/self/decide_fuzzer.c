/*
 * decide_fuzzer.c — the decision decoder (schedule/decide.c) on arbitrary
 * bytes.  The first 8 bytes seed the shapes of the decisions a run asks
 * for (yes/no, ranges of every width, 64-bit values, with their defaults
 * and tags); the rest is the decision stream, generator records (escape
 * byte 254) among its explicit ones.  Checked: every value lies in its
 * range; a decision leaves its default exactly when a deviation is
 * recorded; and the bytes the decider re-encodes replay the same values
 * (what the minimizer and strategies rely on).
 */
#include "decide.h"
#include "self_check.h"

#include <stdbool.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { DECISIONS = 2048 };

typedef struct shape {
    int kind;                /* 0 yes/no, 1 range, 2 64-bit */
    hf_decision_tag tag;     /* what a generator takes it to be about */
    uint64_t lo, hi, dflt;
} shape;

static shape shapes[DECISIONS];
static uint64_t first[DECISIONS];
static hf_decider a, b;      /* large: not on the stack */

static uint64_t next_random(uint64_t *s) {   /* xorshift64*: the shapes only */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static void make_shapes(uint64_t seed) {
    uint64_t s = seed | 1;
    for (int i = 0; i < DECISIONS; i++) {
        shape *sh = &shapes[i];
        uint64_t r = next_random(&s);
        sh->kind = (int)(r % 3);
        sh->tag = (hf_decision_tag)(r >> 56);
        if (sh->kind == 1) {
            unsigned bits = 1 + (unsigned)((r >> 8) % 64);
            uint64_t span = bits == 64 ? next_random(&s) : next_random(&s) & ((1ull << bits) - 1);
            sh->lo = next_random(&s) % 1000;
            if (span > UINT64_MAX - sh->lo) span = UINT64_MAX - sh->lo;
            sh->hi = sh->lo + span;
            sh->dflt = sh->lo + (span == UINT64_MAX ? next_random(&s) : next_random(&s) % (span + 1));
        } else {
            sh->dflt = sh->kind == 0 ? (r >> 9) & 1 : next_random(&s);
        }
    }
}

static uint64_t decide(hf_decider *d, const shape *sh) {
    switch (sh->kind) {
    case 0: return hf_decide_bool(d, sh->tag, sh->dflt != 0);
    case 1: return hf_decide_range(d, sh->tag, sh->lo, sh->hi, sh->dflt);
    default: return hf_decide_u64(d, sh->tag, sh->dflt);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t seed = 0;
    size_t head = size < 8 ? size : 8;
    for (size_t i = 0; i < head; i++) seed |= (uint64_t)data[i] << (8 * i);
    make_shapes(seed);
    hf_decider_init(&a, size > 8 ? data + 8 : NULL, size > 8 ? size - 8 : 0);
    for (int i = 0; i < DECISIONS; i++) {
        const shape *sh = &shapes[i];
        uint32_t before = a.deviations;
        uint64_t v = decide(&a, sh);
        first[i] = v;
        bool deviated = a.deviations != before;
        if (sh->kind == 1) {
            SELF_CHECK(sh->lo <= v && v <= sh->hi, "decision %d: %llu outside [%llu, %llu]", i,
                       (unsigned long long)v, (unsigned long long)sh->lo, (unsigned long long)sh->hi);
            if (sh->lo == sh->hi) SELF_CHECK(!deviated, "decision %d: a single option deviated", i);
        }
        if (sh->kind != 2)
            SELF_CHECK(deviated == (v != sh->dflt), "decision %d: deviated=%d but value %s the default", i,
                       deviated, v == sh->dflt ? "is" : "is not");
        else if (!deviated)
            SELF_CHECK(v == sh->dflt, "decision %d: no deviation but not the default", i);
    }
    SELF_CHECK(a.index == DECISIONS || a.index > 0, "decision count");
    if (a.deviations > HF_DEVIATIONS_KEPT) return 0;   /* not all kept: no exact re-encoding */

    static uint8_t encoded[HF_DEVIATIONS_KEPT * 12];
    size_t n = hf_decider_encode(&a, encoded, sizeof encoded);
    SELF_CHECK(n <= sizeof encoded, "re-encoding needs %zu bytes", n);
    hf_decider_init(&b, n ? encoded : NULL, n);
    for (int i = 0; i < DECISIONS; i++) {
        uint64_t v = decide(&b, &shapes[i]);
        SELF_CHECK(v == first[i], "decision %d: %llu from the input, %llu from its re-encoding", i,
                   (unsigned long long)first[i], (unsigned long long)v);
    }
    SELF_CHECK(b.deviations == a.deviations, "%u deviations, %u after re-encoding", a.deviations, b.deviations);
    return 0;
}
