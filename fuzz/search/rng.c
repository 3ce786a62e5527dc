/*
 * rng.c — splitmix64 (rng.h).
 */
#include "rng.h"
#include "behaviour.h"

#include <assert.h>

void hf_rng_seed(hf_rng *r, uint64_t seed) { r->state = seed; }

/* splitmix64: tiny, fast, and every seed (including 0) is good. */
uint64_t hf_rng_next(hf_rng *r) { return hf_mix64(r->state += 0x9e3779b97f4a7c15u); }

uint64_t hf_rng_below(hf_rng *r, uint64_t n) {
    assert(n > 0);
    /* Rejection keeps it uniform for every n. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = hf_rng_next(r); while (x >= limit);
    return x % n;
}
