/*
 * sim_fuzzer.c — the simulated world (schedule/sim.h) under random options.
 * The first bytes of the input are the options (fault kinds, phase
 * lengths, delay, downtime, latency and clock bounds: sane ones mostly,
 * and sometimes a field out of its bounds); the rest is the decision
 * stream of a small cluster that uses every part of the world: messages
 * and calls, disk appends, fsyncs and reads, object-store requests, node
 * clocks.  Checked: a run ends ok, or HF_FAIL_CONFIG naming an option when
 * the options are bad; the same input replays with the same trace hash;
 * messages are conserved (sent = delivered + dropped + in flight, and so
 * for copies).
 */
#include "run.h"
#include "self_check.h"
#include "sim.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { OPTION_BYTES = 24, NODES = 3, ROUNDS = 6 };

static hf_sim_options options;   /* this input's, read by world_main */

static uint64_t u64_at(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Options from 24 bytes: each bound scaled from its default, and byte 23
 * may push one field past its bounds to exercise validation. */
static void options_from(const uint8_t b[OPTION_BYTES]) {
    hf_sim_options_init(&options);
    hf_sim_options *o = &options;
    o->faults = (uint32_t)(u64_at(b) & HF_FAULTS_ALL);
    o->phase.chaos_ns = (1 + b[8] % 40) * 50 * HF_MS;
    o->phase.quiet_ns = (1 + b[9] % 20) * 50 * HF_MS;
    o->phase.fault_step_ns = (1 + b[10] % 10) * HF_MS;
    o->net.delay_min_ns = (b[11] % 10) * 10 * HF_US;
    o->net.delay_max_ns = o->net.delay_min_ns + (1 + b[12] % 50) * HF_MS;
    o->net.delay_default_ns = o->net.delay_min_ns + (b[13] % 10) * 20 * HF_US;
    o->net.partition_max_ns = o->phase.fault_step_ns * (1 + b[14] % 100);
    o->node.down_min_ns = (b[15] % 10) * HF_MS;
    o->node.down_max_ns = o->node.down_min_ns + (1 + b[16] % 100) * 5 * HF_MS;
    o->node.down_default_ns = o->node.down_min_ns;
    o->node.crashes_max = b[17] % 8;
    o->store.latency_min_ns = (b[18] % 5) * HF_MS;
    o->store.latency_max_ns = o->store.latency_min_ns + (1 + b[19] % 100) * HF_MS;
    o->store.latency_default_ns = o->store.latency_min_ns;
    o->clock.skew_max_ns = (uint64_t)b[20] * 10 * HF_MS;
    o->clock.jump_max_ns = (uint64_t)b[21] * 10 * HF_MS;
    o->disk.fsync_ns = (1 + b[22] % 20) * 100 * HF_US;
    switch (b[23]) {   /* rarely: one field out of bounds */
    case 1: o->net.delay_default_ns = o->net.delay_max_ns + 1; break;
    case 2: o->node.down_min_ns = o->node.down_max_ns + 1; break;
    case 3: o->phase.fault_step_ns = 0; break;
    case 4: o->faults |= 1u << HF_FAULT_KIND_COUNT; break;
    case 5: o->store.latency_default_ns = o->store.latency_max_ns + 1; break;
    case 6: o->phase.chaos_ns = 2 * 3600 * HF_SEC; break;
    default: break;
    }
}

static void server(void *arg) {
    (void)arg;
    int self = hf_node_self();
    char file[16];
    snprintf(file, sizeof file, "log.%d", self);
    for (int round = 0; round < ROUNDS; round++) {
        hf_msg m;
        if (hf_recv(&m, 20 * HF_MS)) {
            uint64_t at;
            if (hf_disk_append(file, m.data, m.size, &at) == HF_IO_OK && hf_disk_fsync(file) == HF_IO_OK) {
                uint8_t back[16];
                size_t got;
                hf_disk_read(file, at, back, m.size < sizeof back ? m.size : sizeof back, &got);
            }
            if (m.call) hf_reply(&m, 1, &at, sizeof at);
        } else {
            int peer = 1 + (self % NODES);
            uint64_t now = hf_clock();
            hf_send(peer, 0, &now, sizeof now);
        }
        char key[24];
        snprintf(key, sizeof key, "n%d/r%d", self, round);
        hf_store_put(key, file, strlen(file), 50 * HF_MS);
    }
}

static void client(void *arg) {
    (void)arg;
    for (int round = 0; round < ROUNDS; round++) {
        for (int n = 1; n <= NODES; n++) {
            hf_msg reply;
            uint64_t payload = (uint64_t)round << 8 | (uint64_t)n;
            hf_call(n, 0, &payload, sizeof payload, 30 * HF_MS, &reply);
        }
        const char *const *keys;
        size_t count;
        hf_store_list("n", &keys, &count, 50 * HF_MS);
        hf_sleep(10 * HF_MS);
    }
}

static void world_main(void *arg) {
    (void)arg;
    hf_sim_start(&options);
    for (int n = 0; n < NODES; n++) hf_node_add(hf_printf("server%d", n + 1), server, NULL, 0);
    hf_node_add("client", client, NULL, HF_NODE_NEVER_CRASHES);
}

static const hf_target world = {
    .name = "sim_fuzzer",
    .summary = "the simulated world under random options",
    .main = world_main,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t head[OPTION_BYTES] = {0};
    memcpy(head, data, size < OPTION_BYTES ? size : OPTION_BYTES);
    options_from(head);
    const uint8_t *stream = size > OPTION_BYTES ? data + OPTION_BYTES : NULL;
    size_t stream_size = size > OPTION_BYTES ? size - OPTION_BYTES : 0;

    hf_result r;
    hf_run(&world, stream, stream_size, &r);
    if (r.outcome != HF_OK && r.outcome != HF_FAIL_CONFIG) {
        hf_print_failure(stderr, &r);
        SELF_CHECK(false, "the world failed: %s: %s", hf_outcome_name(r.outcome), r.message);
    }
    SELF_CHECK(r.outcome == HF_OK || strstr(r.message, "hf_sim_options"), "a refused option is named: %s",
               r.message);
    const hf_sim_stats *s = hf_sim_stats_of_run();
    SELF_CHECK(s->sent == s->delivered + s->dropped + s->in_flight,
               "messages: sent %llu != delivered %llu + dropped %llu + in flight %llu",
               (unsigned long long)s->sent, (unsigned long long)s->delivered, (unsigned long long)s->dropped,
               (unsigned long long)s->in_flight);
    SELF_CHECK(s->duplicates == s->dup_delivered + s->dup_dropped + s->dup_in_flight, "copies are not conserved");

    uint64_t hash = r.trace_hash;
    hf_outcome outcome = r.outcome;
    hf_run(&world, stream, stream_size, &r);
    SELF_CHECK(r.trace_hash == hash && r.outcome == outcome, "the same input replayed differently (%016llx, %016llx)",
               (unsigned long long)hash, (unsigned long long)r.trace_hash);
    return 0;
}
