/*
 * harness.c — the engine-agnostic fuzz entry point for one target, named at
 * build time with -DHF_TARGET=<symbol>.  libFuzzer calls it directly; AFL++
 * through its libFuzzer driver.
 *
 * Each run's behaviour features go to the engine as coverage (feedback.h).
 * A failed run (property, deadlock, budget) is reported with its timeline
 * and ends in abort(), which every engine records as a crash.
 *
 * With HEISENFUZZ_LOG=path set, every execution is also counted in a
 * discovery log (discovery.h) for `heisenfuzz chart`.  With
 * HEISENFUZZ_TRACE_HASH set, every run prints its trace hash, so tests can
 * check that engines and the replayer see the same runs.
 *
 * libFuzzer builds mutate with the decision-aware mutator (mutate.h):
 * LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver, with libFuzzer's own
 * byte mutation as a share.  Built with -DHF_BYTE_MUTATOR_ONLY, a fuzzer
 * keeps libFuzzer's byte mutation alone: the control of `bench --search`.
 * The runs the mutator makes itself are printed as
 * "stat::heisenfuzz_mutator_runs: N" at a failure and at exit, so that
 * benchmarks count them as executions.
 */
#include "discovery.h"
#include "feedback.h"
#include "mutate.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HF_TARGET
#error "build with -DHF_TARGET=<target symbol>"
#endif

extern const hf_target HF_TARGET;

#if defined(HF_ENGINE_LIBFUZZER) && !defined(HF_BYTE_MUTATOR_ONLY)
#define DECISION_MUTATOR 1
#else
#define DECISION_MUTATOR 0
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if DECISION_MUTATOR
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);

static void print_mutator_runs(void) {
    fprintf(stderr, "stat::heisenfuzz_mutator_runs: %llu\n", (unsigned long long)hf_mutator_runs());
}

static void start_mutator(void) {
    static bool started;
    if (started) return;
    started = true;
    hf_mutator_init(&HF_TARGET);
    atexit(print_mutator_runs);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    start_mutator();
    return hf_mutator_mutate(data, size, max_size, seed, LLVMFuzzerMutate, NULL);
}

/* libFuzzer draws this as often as the mutator itself: a quarter of the
 * calls splice, the rest mutate the first input. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed) {
    start_mutator();
    if (seed % 4 == 0) {
        size_t n = hf_mutator_cross(data1, size1, data2, size2, out, max_out_size, seed / 4, NULL);
        if (n) return n;
    }
    if (size1 > max_out_size) return 0;
    memcpy(out, data1, size1);
    return hf_mutator_mutate(out, size1, max_out_size, seed, LLVMFuzzerMutate, NULL);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int print_hashes = -1;
    if (print_hashes < 0) print_hashes = getenv("HEISENFUZZ_TRACE_HASH") != NULL;
    hf_result r;
#if DECISION_MUTATOR
    start_mutator();
    hf_run_logged(&HF_TARGET, data, size, hf_mutator_log(), &r);
    hf_mutator_observe(data, size);
#else
    hf_run(&HF_TARGET, data, size, &r);
#endif
    const hf_features *features = hf_last_features();
    hf_feedback_run(features);
    hf_discovery *log = hf_discovery_from_env(HF_TARGET.name, hf_feedback_engine());
    if (log)
        hf_discovery_record(log, features->list, features->count, r.time_ns, r.outcome != HF_OK);
    if (print_hashes && r.outcome == HF_OK)
        fprintf(stderr, "trace-hash: %016llx\n", (unsigned long long)r.trace_hash);
    if (r.outcome != HF_OK) {
        hf_print_failure(stderr, &r);
        fprintf(stderr, "trace-hash: %016llx\n", (unsigned long long)r.trace_hash);
#if DECISION_MUTATOR
        print_mutator_runs();
#endif
        abort();
    }
    return 0;
}
