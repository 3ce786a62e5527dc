/*
 * test_decide.c — the decision stream: totality on arbitrary bytes, the
 * empty input is all defaults, a deviation never equals its default,
 * re-encoding the deviations a run took reproduces its decisions, and one
 * changed value byte changes one decision.  Generator records: a few bytes
 * make a whole generated run, that re-encodes into explicit records alone;
 * an explicit record overrides one generated decision and leaves the
 * others; a stretch ends where it says; a swarm's fault kind that is off
 * never happens.
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
        case 0: v = hf_decide_range(d, HF_DECISION_TASK, 0, 2, 0); break;
        case 1: v = hf_decide_bool(d, HF_DECISION_FAULT | 3, false); break;
        case 2: v = hf_decide_range(d, HF_DECISION_DETAIL, 100, 100 + 70000, 100 + 5); break;
        default: v = hf_decide_u64(d, HF_DECISION_WORKLOAD, 7); break;
        }
        if (values) values[i] = v;
        digest = digest * 1000003u ^ v;
    }
    return digest;
}

int main(void) {
    hf_decider *d = malloc(sizeof *d);
    hf_decision_log *log = malloc(sizeof *log);
    uint64_t va[256], vb[256];

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
            uint64_t v = hf_decide_range(d, (hf_decision_tag)next_random(), lo, lo + span, dflt);
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
        hf_decider_init_logged(d, bytes, len, log);
        uint64_t digest = drive(d, 64, va);
        bool generated = false;
        for (uint32_t r = 0; r < log->records; r++) generated |= log->record[r].generator;
        uint8_t encoded[1024];
        size_t n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
        hf_decider_init(d, encoded, n);
        same &= drive(d, 64, vb) == digest;
        if (!generated) shorter_or_equal &= n <= len + 8;   /* a truncated value may need its zero bytes */
    }
    CHECK(same, "5,000 inputs: re-encoded deviations reproduce every decision");
    CHECK(shorter_or_equal, "a re-encoding of explicit records is no longer than the input (plus padding of a cut value)");

    /* Skip counts: 255 means "skip and no deviation". */
    uint8_t far[] = {255, 255, 10, 1};
    hf_decider_init(d, far, sizeof far);
    uint64_t index = 0;
    for (int i = 0; i < 600; i++) {
        if (hf_decide_range(d, HF_DECISION_TASK, 0, 1, 0) != 0) { index = (uint64_t)i; break; }
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

    /* A generator record alone: a whole run of generated decisions, which
     * re-encodes into explicit records only. */
    uint8_t walk[] = {254, 0x30, 0x34, 0x12};   /* walk, level 3, seed 0x1234, rest of the run */
    hf_decider_init(d, walk, sizeof walk);
    uint64_t walk_digest = drive(d, 200, va);
    uint32_t walk_deviations = d->deviations;
    CHECK(walk_deviations > 20 && walk_deviations < 180, "a 4-byte walk record deviates %u of 200 decisions",
          walk_deviations);
    uint8_t encoded[4096];
    size_t n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
    hf_decider_init_logged(d, encoded, n, log);
    int explicit_only = 1;
    for (uint32_t r = 0; r < log->records; r++) explicit_only &= !log->record[r].generator;
    CHECK(drive(d, 200, vb) == walk_digest && explicit_only,
          "the generated run re-encodes into %zu bytes of explicit records that replay it", n);
    hf_decider_init(d, walk, sizeof walk);
    CHECK(drive(d, 200, vb) == walk_digest, "the same record gives the same run");
    walk[2] ^= 1;
    hf_decider_init(d, walk, sizeof walk);
    CHECK(drive(d, 200, vb) != walk_digest, "another seed gives another run");
    walk[2] ^= 1;

    /* An explicit record overrides one generated decision (decision 11, after
     * the generator's start) and leaves the draws of the others. */
    uint8_t walk_and_one[] = {254, 0x30, 0x34, 0x12, 0, 0, 11, 0x42, 0};
    hf_decider_init(d, walk, sizeof walk);
    drive(d, 200, va);
    hf_decider_init(d, walk_and_one, sizeof walk_and_one);
    drive(d, 200, vb);
    changed = 0;
    for (int i = 0; i < 200; i++) changed += i != 11 && va[i] != vb[i];
    CHECK(changed == 0 && vb[11] != 105, "an explicit record changes its decision and no other (%d others)", changed);

    /* A stretch: a walk at level 1 (7 deviations in 8) covers exactly
     * hf_stretch_decisions(s) decisions from where its gap puts it. */
    uint8_t stretch[] = {254, 0x10, 7, 0, 40, 5};   /* starts at decision 5, 32 decisions */
    hf_decider_init_logged(d, stretch, sizeof stretch, log);
    drive(d, 100, va);
    uint32_t inside = d->deviations;
    CHECK(hf_stretch_decisions(40) == 32 && inside >= 20 && inside <= 32 && d->taken[0].index >= 5 &&
              d->taken[inside - 1].index <= 36 && log->records == 1 && log->record[0].index == 5,
          "stretch byte 40 and gap 5 generate within decisions 5..36 only (%u deviations there)", inside);
    CHECK(hf_stretch_decisions(0) == UINT64_MAX && hf_stretch_decisions(8) == 2 && hf_stretch_decisions(64) == 256,
          "stretch bytes read on a log scale: 0 is the rest of the run, 8 is 2, 64 is 256");

    /* Level 0 is the uniform baseline: a yes/no is yes about half the time. */
    uint8_t uniform[] = {254, 0x00, 9, 9};
    hf_decider_init(d, uniform, sizeof uniform);
    int yes = 0;
    for (int i = 0; i < 2000; i++) yes += hf_decide_bool(d, HF_DECISION_FAULT | 1, false);
    CHECK(yes > 900 && yes < 1100, "a uniform walk answers yes %d times of 2000", yes);

    /* A walk's fault values fall at every scale, not only where a uniform
     * draw puts them: of the non-default values of a time in [0, 10^9 ns],
     * many are below a millisecond and many above, and few sit at the end. */
    uint8_t storm[] = {254, 0x10, 3, 1};   /* walk, level 1 */
    hf_decider_init(d, storm, sizeof storm);
    int small = 0, large = 0, taken = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t v = hf_decide_range(d, HF_DECISION_FAULT | 4, 0, 1000000000, 1000000000);
        if (v == 1000000000) continue;
        taken++;
        small += v < 1000000;
        large += v >= 1000000;
    }
    CHECK(taken > 1500 && small > taken / 6 && large > taken / 2,
          "a walk's times: %d of %d below 1 ms (a uniform draw: 1 in 1000), %d above", small, taken, large);

    /* Regression (the decoder's fuzzer, fuzz/self/decide_fuzzer.c): a
     * generated value above the default of a range nearly 2^64 wide
     * re-encodes into the raw value that replays it (it overflowed). */
    hf_decider_init(d, walk, sizeof walk);
    for (int i = 0; i < 64; i++) va[i] = hf_decide_range(d, HF_DECISION_DETAIL, 500, UINT64_MAX, 1000);
    n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
    hf_decider_init(d, encoded, n);
    int replayed = 0;
    for (int i = 0; i < 64; i++) replayed += hf_decide_range(d, HF_DECISION_DETAIL, 500, UINT64_MAX, 1000) == va[i];
    CHECK(replayed == 64, "a range of 2^64 - 500 values: %d of 64 generated decisions replay from explicit records",
          replayed);

    /* Draw keys: a walk's task choices do not move when fault decisions
     * are added between them. */
    {
        uint64_t tasks[2][100];
        for (int v = 0; v < 2; v++) {
            uint8_t rec[] = {254, 0x20, 0x11, 0x22};
            hf_decider_init(d, rec, sizeof rec);
            for (int i = 0; i < 100; i++) {
                tasks[v][i] = hf_decide_range(d, HF_DECISION_TASK, 0, 3, 0);
                if (v == 1 && i % 7 == 3) hf_decide_bool(d, HF_DECISION_FAULT | 5, false);   /* added faults */
                hf_decide_range(d, HF_DECISION_FAULT | 6, 0, 1000, 1000);
            }
        }
        int same = 0, varied = 0;
        for (int i = 0; i < 100; i++) same += tasks[1][i] == tasks[0][i], varied += tasks[0][i] != 0;
        CHECK(same == 100 && varied > 20,
              "a walk's task choices (%d of 100 off the default) stay where they were when fault decisions are added between them",
              varied);
    }

    /* Swarm: a fault kind the profile leaves off never happens. */
    int off_kinds = 0, off_faults = 0, on_kinds = 0, on_faults = 0;
    for (uint16_t seed = 0; seed < 64; seed++) {
        uint8_t swarm[] = {254, 0x01, (uint8_t)seed, (uint8_t)(seed >> 8)};
        hf_decider_init(d, swarm, sizeof swarm);
        bool on = hf_decide_bool(d, HF_DECISION_PROFILE | 2, false);
        int faults = 0;
        for (int i = 0; i < 500; i++) faults += hf_decide_bool(d, HF_DECISION_FAULT | 2, false);
        if (on) { on_kinds++; on_faults += faults; } else { off_kinds++; off_faults += faults; }
    }
    CHECK(off_kinds > 10 && on_kinds > 10 && off_faults == 0 && on_faults > 0,
          "64 swarm seeds: %d leave the kind off (%d faults), %d turn it on (%d faults)", off_kinds, off_faults,
          on_kinds, on_faults);

    /* The encoder reaches a deviation 254 decisions away (254 is the escape)
     * and places a generator where asked. */
    hf_deviation far_one = {254 + 255, 0, 0};
    uint64_t at = 0;
    n = hf_encode_deviation(&at, &far_one, encoded, 0, sizeof encoded);
    n = hf_encode_generator(&at, 700, 0x13, 0x55aa, 0, encoded, n, sizeof encoded);
    hf_decider_init_logged(d, encoded, n, log);
    int first = -1, at_700 = 0;
    for (int i = 0; i < 701; i++) {
        bool v = hf_decide_bool(d, HF_DECISION_TASK, false);
        if (v && first < 0) first = i;
        if (i == 700) at_700 = d->generating;
    }
    CHECK(first == 509 && at_700 && log->records == 3 && log->record[2].generator && log->record[2].index == 700,
          "a deviation 509 decisions in and a generator at 700 encode and decode where they were put (first %d)",
          first);

    free(log);
    free(d);
    return check_exit();
}
