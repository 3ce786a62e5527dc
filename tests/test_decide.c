/*
 * test_decide.c — the decision stream: totality on arbitrary bytes, the
 * empty input is all defaults, a deviation never equals its default,
 * re-encoding the deviations a run took reproduces its decisions, and one
 * changed value byte changes one decision.
 */
#include "check.h"
#include "decide.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252u;
static uint64_t next_random(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* A fixed mix of decision kinds driven by the decider itself, as a run
 * would: returns a digest of the values taken. */
static uint64_t drive(hf_decider *d, int count, uint64_t *values) {
    uint64_t digest = 0;
    for (int i = 0; i < count; i++) {
        uint64_t v;
        switch (i % 4) {
        case 0: v = hf_decide_range(d, 0, 2, 0); break;
        case 1: v = hf_decide_bool(d, false); break;
        case 2: v = hf_decide_range(d, 100, 100 + 70000, 100 + 5); break;
        default: v = hf_decide_u64(d, 7); break;
        }
        if (values) values[i] = v;
        digest = digest * 1000003u ^ v;
    }
    return digest;
}

int main(void) {
    hf_decider *d = malloc(sizeof *d);
    uint64_t va[64], vb[64];

    /* The empty input is the undisturbed schedule. */
    hf_decider_init(d, NULL, 0);
    drive(d, 64, va);
    int defaults = 1;
    for (int i = 0; i < 64; i++) {
        uint64_t want = i % 4 == 0 ? 0 : i % 4 == 1 ? 0 : i % 4 == 2 ? 105 : 7;
        defaults &= va[i] == want;
    }
    CHECK(defaults && d->deviations == 0, "the empty input takes every default");

    /* Totality: random byte strings of every length decode without a fault,
     * every value stays in range, and a deviation is never the default. */
    int in_range = 1, never_default = 1;
    uint8_t bytes[512];
    for (int round = 0; round < 20000; round++) {
        size_t len = next_random() % sizeof bytes;
        for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)next_random();
        hf_decider_init(d, bytes, len);
        for (int i = 0; i < 200; i++) {
            uint64_t lo = next_random() % 1000, span = next_random() % (i % 3 == 0 ? 3 : 100000);
            uint64_t dflt = lo + (span ? next_random() % (span + 1) : 0);
            uint32_t before = d->deviations;
            uint64_t v = hf_decide_range(d, lo, lo + span, dflt);
            in_range &= v >= lo && v <= lo + span;
            if (d->deviations != before) never_default &= v != dflt;
        }
    }
    CHECK(in_range, "20,000 random inputs: every decided value lies within its range");
    CHECK(never_default, "a deviation never takes its default");

    /* Re-encoding a run's deviations gives the same decisions. */
    int same = 1, shorter_or_equal = 1;
    for (int round = 0; round < 5000; round++) {
        size_t len = next_random() % 64;
        for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)next_random();
        hf_decider_init(d, bytes, len);
        uint64_t digest = drive(d, 64, va);
        uint8_t encoded[1024];
        size_t n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
        hf_decider_init(d, encoded, n);
        same &= drive(d, 64, vb) == digest;
        shorter_or_equal &= n <= len + 8;   /* a truncated value may need its zero bytes */
    }
    CHECK(same, "5,000 inputs: re-encoded deviations reproduce every decision");
    CHECK(shorter_or_equal, "a re-encoding is no longer than the input (plus padding of a cut value)");

    /* Skip counts: 255 means "skip and no deviation". */
    uint8_t far[] = {255, 255, 10, 1};
    hf_decider_init(d, far, sizeof far);
    uint64_t index = 0;
    for (int i = 0; i < 600; i++) {
        if (hf_decide_range(d, 0, 1, 0) != 0) { index = (uint64_t)i; break; }
    }
    CHECK(index == 520, "skip bytes 255,255,10 put the one deviation at decision 520 (got %llu)",
          (unsigned long long)index);

    /* One changed value byte changes exactly one decision. */
    uint8_t one[] = {3, 0, 5, 1};
    hf_decider_init(d, one, sizeof one);
    drive(d, 64, va);
    one[1] = 1;
    hf_decider_init(d, one, sizeof one);
    drive(d, 64, vb);
    int changed = 0;
    for (int i = 0; i < 64; i++) changed += va[i] != vb[i];
    CHECK(changed == 1, "one mutated value byte changes one decision (changed %d)", changed);

    free(d);
    return check_exit();
}
