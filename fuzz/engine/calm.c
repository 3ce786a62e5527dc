/*
 * calm.c — the calmer half of the runs so far (calm.h).
 */
#include "calm.h"

#include <assert.h>

enum { RUNS_BEFORE_A_HALF = 8 };

static unsigned bit_length(uint32_t x) {
    unsigned n = 0;
    while (x >> n) n++;
    return n;
}

bool hf_calmness_admits(hf_calmness *c, uint32_t deviations) {
    assert(c);
    unsigned length = bit_length(deviations);
    assert(length < sizeof c->runs_by_length / sizeof c->runs_by_length[0]);
    c->runs_by_length[length]++;
    c->runs++;
    if (c->runs <= RUNS_BEFORE_A_HALF) return true;
    uint64_t calmer = 0;
    for (unsigned i = 0; i < length; i++) calmer += c->runs_by_length[i];
    return 2 * calmer < c->runs;
}
