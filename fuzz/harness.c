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
 */
#include "discovery.h"
#include "feedback.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef HF_TARGET
#error "build with -DHF_TARGET=<target symbol>"
#endif

extern const hf_target HF_TARGET;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int print_hashes = -1;
    if (print_hashes < 0) print_hashes = getenv("HEISENFUZZ_TRACE_HASH") != NULL;
    hf_result r;
    hf_run(&HF_TARGET, data, size, &r);
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
        abort();
    }
    return 0;
}
