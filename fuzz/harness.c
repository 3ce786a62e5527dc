/*
 * harness.c — the engine-agnostic fuzz entry point.  libFuzzer calls it
 * directly, AFL++ through its libFuzzer driver, the replayer (replayer.c)
 * from its main.  It is built once per engine, not once per target: the
 * target is found at start-up in the registry of the binary
 * (hf_target_for_program), so a user's fuzzer is their target file linked
 * with this harness.
 *
 * Each run's behaviour features go to the engine as coverage (feedback.h).
 * A failed run (property, deadlock, budget) is reported with its timeline
 * and ends in abort(), which every engine records as a crash.
 *
 * With HEISENFUZZ_TOOL set, the binary is the heisenfuzz tool instead
 * (replay, minimize, chart... of the targets it holds): the installed tool
 * runs a user's fuzzer that way, since only that binary has their target.
 * With HEISENFUZZ_LOG=path set, every execution is also counted in a
 * discovery log (discovery.h) for `heisenfuzz chart`.  With
 * HEISENFUZZ_TRACE_HASH set, every run prints its trace hash, so tests can
 * check that engines and the replayer see the same runs.
 */
#define _GNU_SOURCE   /* program_invocation_name */
#include "discovery.h"
#include "feedback.h"
#include "run.h"
#include "targets.h"
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const hf_target *target;

static const hf_target *fuzz_target(void) {
    if (target) return target;
    char error[512];
    target = hf_target_for_program(program_invocation_name, error, sizeof error);
    if (!target) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        /* _exit: an engine's exit hooks would call this a crash of an input. */
        _exit(2);
    }
    return target;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    if (getenv("HEISENFUZZ_TOOL")) exit(hf_tool_main_in_fuzzer(*argc, *argv));
    fuzz_target();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int print_hashes = -1;
    if (print_hashes < 0) print_hashes = getenv("HEISENFUZZ_TRACE_HASH") != NULL;
    const hf_target *t = fuzz_target();
    hf_result r;
    hf_run(t, data, size, &r);
    const hf_features *features = hf_last_features();
    hf_feedback_run(features);
    hf_discovery *log = hf_discovery_from_env(t->name, hf_feedback_engine());
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
