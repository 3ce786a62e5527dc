/*
 * sim.c — creating the simulated world: default options, their validation
 * (a bad one fails the run as HF_FAIL_CONFIG, naming the field), the names
 * of fault kinds, counters, and the helpers the world's files share.
 */
#include "behaviour.h"
#include "sim_state.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

static const char *const fault_names[HF_FAULT_KIND_COUNT] = {
    [HF_FAULT_MSG_DROP] = "drop",
    [HF_FAULT_MSG_DUPLICATE] = "duplicate",
    [HF_FAULT_MSG_DELAY] = "delay",
    [HF_FAULT_MSG_REORDER] = "reorder",
    [HF_FAULT_PARTITION] = "partition",
    [HF_FAULT_PARTITION_ONE_WAY] = "one-way partition",
    [HF_FAULT_CLOG] = "clog",
    [HF_FAULT_CRASH] = "crash",
    [HF_FAULT_DISK_WRITE_ERROR] = "write error",
    [HF_FAULT_DISK_FSYNC_ERROR] = "fsync error",
    [HF_FAULT_DISK_TORN_WRITE] = "torn write",
    [HF_FAULT_DISK_LOST_WRITES] = "lost writes",
    [HF_FAULT_DISK_READ_CORRUPTION] = "read corruption",
    [HF_FAULT_STORE_ERROR] = "store error",
    [HF_FAULT_STORE_TIMEOUT] = "store timeout",
    [HF_FAULT_STORE_REPLY_LOST] = "store reply lost",
    [HF_FAULT_STORE_LATENCY] = "store latency",
    [HF_FAULT_CLOCK_SKEW] = "clock skew",
    [HF_FAULT_CLOCK_JUMP] = "clock jump",
};

const char *hf_fault_name(hf_fault_kind kind) {
    return kind < HF_FAULT_KIND_COUNT ? fault_names[kind] : "?";
}

void hf_sim_options_init(hf_sim_options *o) {
    memset(o, 0, sizeof *o);
    o->faults = HF_FAULTS_ALL;
    o->phase = (hf_phase_options){
        .chaos_ns = 2 * HF_SEC,
        .quiet_ns = 1 * HF_SEC,
        .fault_step_ns = 1 * HF_MS,
    };
    o->node = (hf_node_options){
        .down_min_ns = 10 * HF_MS,
        .down_max_ns = 500 * HF_MS,
        .down_default_ns = 100 * HF_MS,
        .crashes_max = 32,
    };
    o->net = (hf_net_options){
        .delay_min_ns = 50 * HF_US,
        .delay_max_ns = 20 * HF_MS,
        .delay_default_ns = 200 * HF_US,
        .partition_max_ns = 500 * HF_MS,
    };
    o->disk = (hf_disk_options){
        .write_ns = 20 * HF_US,
        .read_ns = 10 * HF_US,
        .fsync_ns = 1 * HF_MS,
    };
    o->store = (hf_store_options){
        .latency_min_ns = 5 * HF_MS,
        .latency_max_ns = 2 * HF_SEC,
        .latency_default_ns = 20 * HF_MS,
    };
    o->clock = (hf_clock_options){
        .epoch_ns = 1704067200ull * HF_SEC,   /* 2024-01-01T00:00:00Z */
        .skew_max_ns = 100 * HF_MS,
        .jump_max_ns = 2 * HF_SEC,
    };
}

/* ---- Validation ------------------------------------------------------------ */

#define REJECT(...) hf_fail(HF_FAIL_CONFIG, NULL, "hf_sim_options: " __VA_ARGS__)

static void check_bounds(const char *part, const char *min_name, uint64_t min, const char *dflt_name,
                         uint64_t dflt, const char *max_name, uint64_t max) {
    if (min > max)
        REJECT("%s.%s (%" PRIu64 ") is above %s.%s (%" PRIu64 ")", part, min_name, min, part, max_name, max);
    if (dflt < min)
        REJECT("%s.%s (%" PRIu64 ") is below %s.%s (%" PRIu64 ")", part, dflt_name, dflt, part, min_name, min);
    if (dflt > max)
        REJECT("%s.%s (%" PRIu64 ") is above %s.%s (%" PRIu64 ")", part, dflt_name, dflt, part, max_name, max);
}

static void validate(const hf_sim_options *o) {
    if (o->faults & ~(uint32_t)HF_FAULTS_ALL)
        REJECT("faults (0x%" PRIx32 ") has bits that are no fault kind (all: 0x%x)", o->faults, HF_FAULTS_ALL);
    if (o->phase.fault_step_ns == 0) REJECT("phase.fault_step_ns must be above 0");
    if (o->phase.chaos_ns > UINT64_MAX / 4 || o->phase.quiet_ns > UINT64_MAX / 4)
        REJECT("phase.chaos_ns and phase.quiet_ns must be below 2^62");
    uint64_t end = o->phase.chaos_ns + o->phase.quiet_ns;
    if (end >= hf_w.max_time)
        REJECT("phase.chaos_ns + phase.quiet_ns (%" PRIu64 ") must be below the target's time budget "
               "max_time_ns (%" PRIu64 ")", end, hf_w.max_time);
    check_bounds("node", "down_min_ns", o->node.down_min_ns, "down_default_ns", o->node.down_default_ns,
                 "down_max_ns", o->node.down_max_ns);
    check_bounds("net", "delay_min_ns", o->net.delay_min_ns, "delay_default_ns", o->net.delay_default_ns,
                 "delay_max_ns", o->net.delay_max_ns);
    if (o->net.partition_max_ns < o->phase.fault_step_ns)
        REJECT("net.partition_max_ns (%" PRIu64 ") is below phase.fault_step_ns (%" PRIu64 ")",
               o->net.partition_max_ns, o->phase.fault_step_ns);
    if (o->net.kind_count < 0) REJECT("net.kind_count (%d) is negative", o->net.kind_count);
    if ((o->net.kind_names == NULL) != (o->net.kind_count == 0))
        REJECT("net.kind_names and net.kind_count must be given together");
    for (int k = 0; k < o->net.kind_count; k++)
        if (!o->net.kind_names[k]) REJECT("net.kind_names[%d] is NULL", k);
    check_bounds("store", "latency_min_ns", o->store.latency_min_ns, "latency_default_ns",
                 o->store.latency_default_ns, "latency_max_ns", o->store.latency_max_ns);
    if (o->clock.epoch_ns > INT64_MAX / 2) REJECT("clock.epoch_ns must be below 2^62");
    if (o->clock.skew_max_ns > INT64_MAX / 4) REJECT("clock.skew_max_ns must be below 2^61");
    if (o->clock.jump_max_ns > INT64_MAX / 4) REJECT("clock.jump_max_ns must be below 2^61");
}

/* ---- The world ------------------------------------------------------------- */

void hf_sim_start(const hf_sim_options *o) {
    assert(o);
    assert(hf_current()->node == 0 && "the world is created outside any node");
    if (hf_w.sim) hf_fail(HF_FAIL_CONFIG, NULL, "hf_sim_start was called twice in one run");
    validate(o);
    hf_sim *s = hf_alloc(sizeof *s);
    s->o = *o;
    s->chaos_end = o->phase.chaos_ns;
    s->quiet_end = o->phase.chaos_ns + o->phase.quiet_ns;
    s->heal_at = SIM_NEVER;
    hf_w.sim = s;
    sim_chaos_start(s);
}

hf_sim *sim_get(void) {
    assert(hf_w.sim && "call hf_sim_start first");
    return hf_w.sim;
}

sim_node *sim_self_node(const char *operation) {
    hf_sim *s = sim_get();
    hf_task *self = hf_current();
    if (self->node < 1 || self->node > s->node_count)
        hf_fail(HF_FAIL_CONFIG, NULL, "%s was called by task %s, which belongs to no node", operation, self->name);
    return &s->nodes[self->node];
}

bool hf_sim_fault_allowed(hf_fault_kind kind) {
    assert(kind < HF_FAULT_KIND_COUNT);
    return (sim_get()->profile & HF_FAULT_BIT(kind)) != 0;
}

bool sim_fault_possible(hf_fault_kind kind) {
    hf_sim *s = hf_w.sim;
    return !s->quiet && (s->profile & HF_FAULT_BIT(kind)) != 0;
}

bool hf_sim_quiet(void) { return sim_get()->quiet; }

void hf_sim_at_end(hf_check_fn *check, void *arg) {
    assert(check);
    hf_sim *s = sim_get();
    sim_check *c = hf_alloc(sizeof *c);
    c->fn = check;
    c->arg = arg;
    if (s->checks_tail) s->checks_tail->next = c; else s->checks = c;
    s->checks_tail = c;
}

static const hf_sim_stats no_stats;

const hf_sim_stats *hf_sim_stats_of_run(void) {
    return hf_w.sim ? &hf_w.sim->stats : &no_stats;
}

/* ---- Helpers ---------------------------------------------------------------- */

void sim_fault(hf_fault_kind kind, const char *fmt, ...) {
    assert(kind < HF_FAULT_KIND_COUNT);
    va_list ap;
    va_start(ap, fmt);
    char *text = hf_vprintf(fmt, ap);
    va_end(ap);
    hf_w.sim->stats.faults[kind]++;
    hf_emit(HF_EV_FAULT, kind, 0, text, HF_EV_DEVIATED);
    /* A behaviour: which fault struck what (numbers left out by the hash). */
    hf_features_add(&hf_w.features, HF_FEAT_FAULT, kind, hf_action_hash(HF_EV_FAULT, text));
}

void sim_note(bool deviated, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *text = hf_vprintf(fmt, ap);
    va_end(ap);
    hf_emit(HF_EV_NOTE, 0, 0, text, deviated ? HF_EV_DEVIATED : 0);
}

bool sim_wait_until(hf_waitq *q, const char *what, uint64_t deadline) {
    if (deadline == SIM_NEVER) {
        hf_block(q, what, 0);
        return true;
    }
    if (hf_w.now >= deadline) return false;
    hf_block(q, what, deadline - hf_w.now);
    return !hf_current()->timed_out;
}

const char *sim_duration(uint64_t ns) {
    if (ns >= HF_SEC) return hf_printf("%.3f s", (double)ns / HF_SEC);
    if (ns >= HF_MS) return hf_printf("%.3f ms", (double)ns / HF_MS);
    if (ns >= HF_US) return hf_printf("%.3f us", (double)ns / HF_US);
    return hf_printf("%" PRIu64 " ns", ns);
}
