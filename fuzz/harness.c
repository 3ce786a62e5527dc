/*
 * harness.c — the engine-agnostic fuzz entry point for one target, named at
 * build time with -DHF_TARGET=<symbol>.  libFuzzer calls it directly; AFL++
 * through its libFuzzer driver.
 *
 * A failed run (property, deadlock, budget) is reported with its timeline
 * and ends in abort(), which every engine records as a crash.
 *
 * With HEISENFUZZ_LOG=path set, every execution is also counted in a
 * discovery log (discovery.h) for `heisenfuzz chart`.
 */
#include "discovery.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef HF_TARGET
#error "build with -DHF_TARGET=<target symbol>"
#endif

extern const hf_target HF_TARGET;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* AFL++ hands its shared-memory id to the program it fuzzes.  Looked up
 * once: this is called for every execution. */
static const char *engine_name(void) {
    static const char *name;
    if (!name) name = getenv("__AFL_SHM_ID") ? "AFL++" : "libFuzzer";
    return name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    hf_result r;
    hf_run(&HF_TARGET, data, size, &r);
    /* ---- discovery log: the run's behaviour signature and features ---- */
    hf_discovery *log = hf_discovery_from_env(HF_TARGET.name, engine_name());
    uint64_t signature = r.trace_hash;   /* until behaviour signatures land */
    uint64_t features_seen = 0;          /* distinct features so far */
    if (log) hf_discovery_record(log, signature, features_seen, r.time_ns, r.outcome != HF_OK);
    /* ---- end of discovery log ---- */
    if (r.outcome != HF_OK) {
        hf_print_failure(stderr, &r);
        fprintf(stderr, "trace-hash: %016llx\n", (unsigned long long)r.trace_hash);
        abort();
    }
    return 0;
}
