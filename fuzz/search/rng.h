/*
 * rng.h — the search's pseudo-random numbers: splitmix64, seeded, so that
 * a seed gives the same mutations and the same baseline runs every time.
 * Only the tool's side draws from it (the mutator, the baselines, explore,
 * the benchmarks); a run's own randomness comes from its decisions.
 */
#ifndef HF_RNG_H
#define HF_RNG_H

#include <stdint.h>

typedef struct hf_rng { uint64_t state; } hf_rng;

void hf_rng_seed(hf_rng *r, uint64_t seed);
uint64_t hf_rng_next(hf_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t hf_rng_below(hf_rng *r, uint64_t n);

#endif
