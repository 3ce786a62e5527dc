/*
 * test_determinism.c — invariant number one, within one process: for every
 * target, 4,000 random inputs (1,000 under a sanitizer) each run twice give the same trace hash and
 * verdict, and a run driven by a strategy, re-encoded into bytes, replays
 * to the same hash; so does a run of generator records, re-encoded into
 * explicit records alone.  (tests/test_determinism.sh compares across processes,
 * optimisation levels, sanitizers and engines.)
 */
#include "check.h"
#include "run.h"
#include "sanitizer.h"
#include "strategy.h"
#include "targets.h"

#include <stdlib.h>
#include <string.h>

/* Sanitizer builds repeat the check on fewer inputs: under ASan every fiber
 * maps and unmaps a fake stack, which makes runs of many-task targets slow. */
#if defined(HF_ASAN) || defined(HF_MSAN)
enum { RUNS = 1000 };
#else
enum { RUNS = 4000 };
#endif

int main(void) {
    for (const hf_target *const *tp = hf_target_list(); *tp; tp++) {
        const hf_target *t = *tp;
        hf_rng rng;
        hf_rng_seed(&rng, 11);
        uint8_t input[96];
        int same = 1;
        for (int run = 0; run < RUNS; run++) {
            size_t len = (size_t)hf_rng_below(&rng, sizeof input + 1);
            for (size_t b = 0; b < len; b++) input[b] = (uint8_t)hf_rng_next(&rng);
            hf_result a, b;
            hf_run(t, input, len, &a);
            hf_run(t, input, len, &b);
            same &= a.trace_hash == b.trace_hash && a.outcome == b.outcome && a.steps == b.steps &&
                    !strcmp(a.message, b.message);
        }
        CHECK(same, "%s: %d random inputs, each run twice, give identical runs", t->name, RUNS);

        hf_random_strategy random;
        hf_random_strategy_init(&random, 5);
        int replays = 1;
        static uint8_t encoded[1 << 16];
        for (int run = 0; run < RUNS / 5; run++) {
            hf_result a, b;
            hf_run_strategy(t, &random.base, &a);
            if (hf_last_decisions()->deviations > HF_DEVIATIONS_KEPT) continue;   /* not re-encodable */
            size_t n = hf_decider_encode(hf_last_decisions(), encoded, sizeof encoded);
            if (n > sizeof encoded) continue;
            hf_run(t, encoded, n, &b);
            replays &= a.trace_hash == b.trace_hash && a.outcome == b.outcome;
        }
        CHECK(replays, "%s: %d runs by uniform random decisions, re-encoded as bytes, replay identically", t->name,
              RUNS / 5);

        /* Generator records of every kind and level, an explicit record or
         * two among them. */
        int generated_replays = 1, reencoded = 0;
        for (int run = 0; run < RUNS / 5; run++) {
            uint8_t gen[16] = {254, (uint8_t)hf_rng_next(&rng), (uint8_t)hf_rng_next(&rng), (uint8_t)hf_rng_next(&rng),
                               (uint8_t)(hf_rng_below(&rng, 2) ? 0 : hf_rng_next(&rng)), (uint8_t)hf_rng_below(&rng, 8)};
            size_t len = 6 + (size_t)hf_rng_below(&rng, 11);
            for (size_t b = 6; b < len; b++) gen[b] = (uint8_t)hf_rng_next(&rng);
            hf_result a, b, c;
            hf_run(t, gen, len, &a);
            hf_run(t, gen, len, &b);
            generated_replays &= a.trace_hash == b.trace_hash && a.outcome == b.outcome;
            if (hf_last_decisions()->deviations > HF_DEVIATIONS_KEPT) continue;
            size_t n = hf_decider_encode(hf_last_decisions(), encoded, sizeof encoded);
            if (n > sizeof encoded) continue;
            hf_run(t, encoded, n, &c);
            generated_replays &= a.trace_hash == c.trace_hash && a.outcome == c.outcome;
            reencoded++;
        }
        CHECK(generated_replays && reencoded > RUNS / 10,
              "%s: %d generated runs replay identically, and %d of them re-encoded as explicit records too", t->name,
              RUNS / 5, reencoded);
    }
    return check_exit();
}
