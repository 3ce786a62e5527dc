/*
 * test_world.c — the simulated world (sim.h), on the five-node `cluster`
 * target and on small purpose-built targets:
 *
 *   - the empty input is calm: no fault, no deviating decision;
 *   - every fault kind happens for some input, is named plainly in the
 *     timeline, and only in the chaos period;
 *   - the same input replays to the same trace hash and counters;
 *   - message conservation, counted two ways (counters, trace events);
 *   - a crash loses exactly the unsynced writes (and a process crash none);
 *   - hf_eventually is judged at the end of the quiet period;
 *   - bad options are rejected, naming the field.
 *
 * With HF_WORLD_INPUTS=DIR set, the inputs found for each fault kind are
 * written there (for the cross-build determinism script).
 */
#include "behaviour.h"
#include "check.h"
#include "run.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

extern const hf_target cluster_target;

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_random(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* ---- Looking at a run ------------------------------------------------------ */

static uint64_t fault_events(hf_fault_kind kind, const char **text, uint64_t *first_time, bool *all_deviated) {
    const hf_trace *t = hf_last_trace();
    uint64_t n = 0;
    *all_deviated = true;
    for (uint64_t i = 0; i < t->count; i++) {
        const hf_event *e = hf_trace_event(t, i);
        if (!e || e->kind != HF_EV_FAULT || e->a != (int64_t)kind) continue;
        if (n == 0) { *text = e->text; *first_time = e->time; }
        *all_deviated &= (e->flags & HF_EV_DEVIATED) != 0;
        n++;
    }
    return n;
}

static uint64_t latest_fault_time(void) {
    const hf_trace *t = hf_last_trace();
    uint64_t latest = 0;
    for (uint64_t i = 0; i < t->count; i++) {
        const hf_event *e = hf_trace_event(t, i);
        if (e && e->kind == HF_EV_FAULT && e->time > latest) latest = e->time;
    }
    return latest;
}

static bool trace_complete(void) { return hf_last_trace()->count <= HF_TRACE_CAPACITY; }

/* ---- Inputs aimed at a fault kind --------------------------------------------
 * The profile decisions come first, one per kind in order (cluster allows
 * all), then the time of the first world fault when the profile has one.
 * After that, random records with short skips put deviations among the
 * decisions of the run. */

static bool is_world_fault(int k) {
    return k == HF_FAULT_CRASH || k == HF_FAULT_PARTITION || k == HF_FAULT_PARTITION_ONE_WAY ||
           k == HF_FAULT_CLOG || k == HF_FAULT_CLOCK_JUMP;
}

static size_t aimed_input(uint8_t *buf, size_t cap, uint32_t profile) {
    size_t n = 0;
    int at = 0;   /* the next decision index the encoding reaches */
    bool world = false;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        if (!(profile & HF_FAULT_BIT(k))) continue;
        buf[n++] = (uint8_t)(k - at);
        at = k + 1;
        world |= is_world_fault(k);
    }
    if (world) {   /* the first world fault: 2 value bytes for 2,000 steps */
        buf[n++] = (uint8_t)(HF_FAULT_KIND_COUNT - at);
        buf[n++] = (uint8_t)next_random();
        buf[n++] = (uint8_t)(next_random() % 8);
    }
    size_t records = 1 + next_random() % 24;
    for (size_t r = 0; r < records && n + 5 < cap; r++) {
        buf[n++] = (uint8_t)(next_random() % 8);
        size_t width = next_random() % 3;
        for (size_t b = 0; b < width; b++) buf[n++] = (uint8_t)next_random();
    }
    return n;
}

/* Faults that need company in the profile to happen at all. */
static uint32_t profile_for(int kind) {
    uint32_t p = HF_FAULT_BIT(kind);
    if (kind == HF_FAULT_DISK_LOST_WRITES) p |= HF_FAULT_BIT(HF_FAULT_CRASH);
    if (kind == HF_FAULT_DISK_TORN_WRITE)
        p |= HF_FAULT_BIT(HF_FAULT_CRASH) | HF_FAULT_BIT(HF_FAULT_DISK_LOST_WRITES);
    return p;
}

static void save_input(const char *dir, const char *name, const uint8_t *data, size_t size) {
    if (!dir) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (char *p = path + strlen(dir) + 1; *p; p++) if (*p == ' ') *p = '_';
    FILE *f = fopen(path, "wb");
    if (!f) { fprintf(stderr, "test_world: cannot write %s\n", path); return; }
    fwrite(data, 1, size, f);
    fclose(f);
}

/* Losing or tearing a write needs a crash while the write is unsynced: in
 * cluster, while a replica fsyncs.  So the first world fault (a crash of
 * the first candidate, n1, by default) is aimed 1 ms into one of n1's
 * fsyncs, found in a run with the same profile and no fault, and the tail
 * aims at the decisions the crash takes. */
static size_t input_crashing_in_fsync(uint8_t *buf, size_t cap, uint32_t profile, int attempt) {
    uint8_t prefix[64];
    size_t n = 0;
    int at = 0;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        if (!(profile & HF_FAULT_BIT(k))) continue;
        prefix[n++] = (uint8_t)(k - at);
        at = k + 1;
    }
    hf_result r;
    hf_run(&cluster_target, prefix, n, &r);
    uint64_t fsyncs[64];
    int count = 0;
    for (uint64_t i = 0; i < hf_last_trace()->count && count < 64; i++) {
        const hf_event *e = hf_trace_event(hf_last_trace(), i);
        if (e->kind == HF_EV_SLEEP && e->a == (int64_t)HF_MS && strcmp(hf_task_name(e->task), "replica1") == 0)
            fsyncs[count++] = e->time;
    }
    if (count == 0) return 0;
    uint64_t gap_ms = fsyncs[attempt / 8 % count] / HF_MS + 1;
    memcpy(buf, prefix, n);
    buf[n++] = (uint8_t)(HF_FAULT_KIND_COUNT - at);
    buf[n++] = (uint8_t)gap_ms;
    buf[n++] = (uint8_t)(gap_ms >> 8);
    buf[n++] = (uint8_t)(attempt % 8);   /* which decision after the gap deviates */
    while (n < cap && n < 24) buf[n++] = (uint8_t)(next_random() % 4);
    return n;
}

static void test_every_fault_kind(void) {
    const char *dir = getenv("HF_WORLD_INPUTS");
    const uint64_t chaos_end = 2 * HF_SEC;   /* cluster's phases: hf_sim_options_init */
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        uint8_t input[256];
        size_t size = 0;
        hf_result r;
        int tries = 0;
        bool found = false;
        while (!found && tries < 3000) {
            tries++;
            if (k == HF_FAULT_DISK_TORN_WRITE || k == HF_FAULT_DISK_LOST_WRITES)
                size = input_crashing_in_fsync(input, sizeof input, profile_for(k), tries - 1);
            else
                size = aimed_input(input, sizeof input, profile_for(k));
            hf_run(&cluster_target, input, size, &r);
            found = hf_sim_stats_of_run()->faults[k] > 0;
        }
        const char *name = hf_fault_name((hf_fault_kind)k);
        CHECK(found, "fault '%s' happens in cluster for some input (%d tries)", name, tries);
        if (!found) continue;
        CHECK(r.outcome == HF_OK, "cluster's invariants hold under '%s' (%s)", name, r.message);

        const char *text = "";
        uint64_t first = 0;
        bool deviated;
        uint64_t events = fault_events((hf_fault_kind)k, &text, &first, &deviated);
        CHECK(events == hf_sim_stats_of_run()->faults[k] && strncmp(text, name, strlen(name)) == 0 && deviated,
              "each '%s' is a deviating trace event named plainly: \"%s\"", name, text);
        CHECK(latest_fault_time() < chaos_end, "no fault after the chaos period (last at %.3f s)",
              (double)latest_fault_time() / HF_SEC);

        uint64_t hash = r.trace_hash;
        hf_sim_stats stats = *hf_sim_stats_of_run();
        hf_run(&cluster_target, input, size, &r);
        CHECK(r.trace_hash == hash && memcmp(&stats, hf_sim_stats_of_run(), sizeof stats) == 0,
              "an input with '%s' replays to the same trace hash and counters", name);
        save_input(dir, name, input, size);
    }

    /* Storms: every kind allowed at once, then random decisions. */
    int held = 0, stormy = 0;
    for (int i = 0; i < 300; i++) {
        uint8_t input[64];
        size_t size = 0;
        for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) input[size++] = 0;
        while (size < sizeof input) input[size++] = (uint8_t)next_random();
        hf_result r;
        hf_run(&cluster_target, input, size, &r);
        held += r.outcome == HF_OK;
        int kinds = 0;
        for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) kinds += hf_sim_stats_of_run()->faults[k] > 0;
        stormy += kinds >= 3;
        if (i < 4) {
            char name[32];
            snprintf(name, sizeof name, "storm%d", i + 1);
            save_input(dir, name, input, size);
        }
    }
    CHECK(held == 300 && stormy > 150, "cluster's invariants hold in %d of 300 storms (%d with 3 fault kinds or more)",
          held, stormy);
}

static void test_calm(void) {
    hf_result r;
    hf_run(&cluster_target, NULL, 0, &r);
    const hf_sim_stats *s = hf_sim_stats_of_run();
    uint64_t faults = 0;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) faults += s->faults[k];
    CHECK(r.outcome == HF_OK, "cluster passes on the empty input (%s)", r.message);
    CHECK(faults == 0 && s->crashes == 0 && s->dropped == 0 && s->duplicates == 0 && r.deviations == 0,
          "the empty input is calm: no fault, no crash, no loss, no deviating decision");
    CHECK(s->sent > 100 && s->delivered + s->in_flight == s->sent,
          "on the empty input every one of %llu messages is delivered or still on its way", (unsigned long long)s->sent);
    CHECK(r.time_ns == 3 * HF_SEC, "the run ends at the end of the quiet period (%.3f s)", (double)r.time_ns / HF_SEC);
    bool deviated_event = false;
    for (uint64_t i = 0; i < hf_last_trace()->count; i++) {
        const hf_event *e = hf_trace_event(hf_last_trace(), i);
        deviated_event |= e && (e->kind == HF_EV_FAULT || (e->flags & HF_EV_DEVIATED));
    }
    CHECK(!deviated_event && trace_complete(), "the calm timeline has no fault event and nothing marked *");
}

/* ---- Conservation ------------------------------------------------------------- */

static void test_conservation(void) {
    int runs = 0, balanced = 0, matches_trace = 0, with_drops = 0, with_copies = 0, with_flight = 0;
    for (int i = 0; i < 600; i++) {
        uint8_t input[256];
        uint32_t profile = (uint32_t)next_random() & HF_FAULTS_ALL;
        size_t size = aimed_input(input, sizeof input, profile);
        hf_result r;
        hf_run(&cluster_target, input, size, &r);
        if (!trace_complete()) continue;
        runs++;
        const hf_sim_stats *s = hf_sim_stats_of_run();
        balanced += s->sent == s->delivered + s->dropped + s->in_flight &&
                    s->duplicates == s->dup_delivered + s->dup_dropped + s->dup_in_flight;
        /* The same from the timeline: sends, deliveries, losses, decided drops. */
        uint64_t sends = 0, delivered = 0, lost = 0, copies_delivered = 0, copies_lost = 0;
        for (uint64_t e = 0; e < hf_last_trace()->count; e++) {
            const hf_event *ev = hf_trace_event(hf_last_trace(), e);
            if (ev->kind == HF_EV_FAULT && ev->a == HF_FAULT_MSG_DROP) lost++;
            if (ev->kind != HF_EV_MSG) continue;
            hf_msg_event what = HF_MSG_EVENT_WHAT(ev->b);
            bool copy = HF_MSG_EVENT_COPY(ev->b);
            if (what == HF_MSG_SEND) sends++;
            else if (what == HF_MSG_DELIVER) *(copy ? &copies_delivered : &delivered) += 1;
            else if (what == HF_MSG_LOST_PARTITION || what == HF_MSG_LOST_DOWN) {
                /* a loss from a crashed inbox happens after delivery: not a network loss */
                bool from_inbox = false;
                for (uint64_t back = 0; back < e && !from_inbox; back++) {
                    const hf_event *b = hf_trace_event(hf_last_trace(), back);
                    from_inbox = b->kind == HF_EV_MSG && b->a == ev->a && HF_MSG_EVENT_WHAT(b->b) == HF_MSG_DELIVER &&
                                 HF_MSG_EVENT_COPY(b->b) == copy;
                }
                if (!from_inbox) *(copy ? &copies_lost : &lost) += 1;
            }
        }
        matches_trace += sends == s->sent && delivered == s->delivered && lost == s->dropped &&
                         copies_delivered == s->dup_delivered && copies_lost == s->dup_dropped;
        with_drops += s->dropped > 0;
        with_copies += s->duplicates > 0;
        with_flight += s->in_flight > 0;
    }
    CHECK(balanced == runs && runs > 500,
          "%d runs: sent = delivered + dropped + in flight, and the same for duplicates", runs);
    CHECK(matches_trace == runs, "%d of %d runs: the counters agree with the send/deliver/loss events", matches_trace,
          runs);
    CHECK(with_drops > 20 && with_copies > 20 && with_flight > 20,
          "the balance was tested with losses (%d runs), duplicates (%d) and messages in flight at the end (%d)",
          with_drops, with_copies, with_flight);
}

/* ---- A crash loses exactly the unsynced writes ------------------------------------
 * A node writes, fsyncs every third write, rewrites parts, and is crashed
 * by a controller at a fixed time; on restart it compares the file with
 * its own model of the media (kept outside the node).  Write and fsync
 * errors may strike.  Without torn writes the loss must be exact; with
 * them, what survives must be the synced data plus a prefix of the
 * unsynced writes, the last of them cut short. */

enum { BLOCKS = 12, BLOCK = 48, FILE_BYTES = BLOCKS * BLOCK };

typedef struct pending_write { uint64_t offset; uint8_t bytes[BLOCK]; } pending_write;

typedef struct disk_model {
    uint8_t media[FILE_BYTES];      /* what the model says is durable */
    uint64_t media_size;
    uint8_t live[FILE_BYTES];       /* what reads should see */
    uint64_t live_size;
    pending_write pending[64];      /* unsynced, oldest first */
    int pending_count;
    bool crashed, checked, exact, torn_prefix, had_pending, write_errors, fsync_errors;
} disk_model;

static bool machine_crash;

static void model_apply(uint8_t *image, uint64_t *size, uint64_t offset, const uint8_t *bytes, size_t count) {
    memcpy(image + offset, bytes, count);
    if (count && offset + count > *size) *size = offset + count;
}

static bool same_file(const uint8_t *got, size_t n, const uint8_t *image, uint64_t size) {
    return n == size && memcmp(got, image, n) == 0;
}

/* Is the file the media plus the first `k` unsynced writes and a prefix of
 * the next, for some k and prefix? */
static bool is_torn_prefix(const disk_model *m, const uint8_t *got, size_t n) {
    for (int k = 0; k <= m->pending_count; k++)
        for (size_t cut = 0; cut <= (k < m->pending_count ? BLOCK : 0); cut++) {
            uint8_t image[FILE_BYTES];
            uint64_t size = m->media_size;
            memcpy(image, m->media, FILE_BYTES);
            for (int i = 0; i < k; i++) model_apply(image, &size, m->pending[i].offset, m->pending[i].bytes, BLOCK);
            if (k < m->pending_count) model_apply(image, &size, m->pending[k].offset, m->pending[k].bytes, cut);
            if (same_file(got, n, image, size)) return true;
        }
    return false;
}

static void disk_node(void *arg) {
    disk_model *m = arg;
    if (m->crashed) {   /* after the restart: compare */
        uint8_t got[FILE_BYTES + 1];
        size_t n = 0;
        if (hf_disk_read("data", 0, got, sizeof got, &n) == HF_IO_ERROR) return;
        m->exact = machine_crash ? same_file(got, n, m->media, m->media_size) : same_file(got, n, m->live, m->live_size);
        m->torn_prefix = machine_crash && is_torn_prefix(m, got, n);
        m->checked = true;
        return;
    }
    for (int step = 0;; step++) {
        uint64_t offset = (uint64_t)((step * 5) % BLOCKS) * BLOCK;
        uint8_t bytes[BLOCK];
        memset(bytes, 'a' + step % 26, sizeof bytes);
        if (hf_disk_write("data", offset, bytes, sizeof bytes) == HF_IO_OK) {
            model_apply(m->live, &m->live_size, offset, bytes, BLOCK);
            m->pending[m->pending_count].offset = offset;
            memcpy(m->pending[m->pending_count].bytes, bytes, BLOCK);
            m->pending_count++;
        } else {
            m->write_errors = true;
        }
        if (step % 3 == 2) {
            if (hf_disk_fsync("data") == HF_IO_OK)
                for (int i = 0; i < m->pending_count; i++)
                    model_apply(m->media, &m->media_size, m->pending[i].offset, m->pending[i].bytes, BLOCK);
            else
                m->fsync_errors = true;
            m->pending_count = 0;   /* synced, or forgotten by the failed fsync */
        }
        hf_sleep(HF_MS);
    }
}

static void disk_controller(void *arg) {
    disk_model *m = arg;
    hf_sleep(38 * HF_MS);   /* two writes after the last fsync */
    m->had_pending = m->pending_count > 0 || memcmp(m->live, m->media, FILE_BYTES) != 0;
    m->crashed = true;
    hf_node_crash(1);
}

static disk_model *the_model;

static void disk_main(void *arg) {
    (void)arg;
    hf_sim_options o;
    hf_sim_options_init(&o);
    /* Profile decisions 0..3: write error, fsync error, torn write, lost writes. */
    o.faults = HF_FAULT_BIT(HF_FAULT_DISK_WRITE_ERROR) | HF_FAULT_BIT(HF_FAULT_DISK_FSYNC_ERROR) |
               HF_FAULT_BIT(HF_FAULT_DISK_TORN_WRITE) | HF_FAULT_BIT(HF_FAULT_DISK_LOST_WRITES);
    o.phase.chaos_ns = 100 * HF_MS;
    o.phase.quiet_ns = 100 * HF_MS;
    hf_sim_start(&o);
    the_model = hf_alloc(sizeof *the_model);
    hf_node_add("disk", disk_node, the_model, 0);
    hf_node_add("controller", disk_controller, the_model, HF_NODE_NEVER_CRASHES);
}

static const hf_target disk_target = {.name = "disk", .summary = "", .main = disk_main};

static void test_crash_loses_unsynced(void) {
    static const struct { uint8_t bytes[4]; size_t size; bool machine, torn; const char *what; } profiles[] = {
        {{255}, 1, false, false, "a process crash"},
        {{3}, 1, true, false, "a machine crash"},
        {{0, 0, 1}, 3, true, false, "a machine crash after write and fsync errors"},
        {{0, 0, 0, 0}, 4, true, true, "a machine crash with torn writes"},
    };
    for (size_t p = 0; p < sizeof profiles / sizeof *profiles; p++) {
        int right = 0, runs = 0, pending = 0, errors = 0, torn = 0;
        for (int i = 0; i < 150; i++) {
            uint8_t input[64];
            memcpy(input, profiles[p].bytes, profiles[p].size);
            size_t n = profiles[p].size;
            for (int r = 0; r < 8; r++) input[n++] = (uint8_t)(next_random() % 12);
            machine_crash = profiles[p].machine;
            hf_result res;
            hf_run(&disk_target, input, n, &res);
            runs++;
            bool ok = the_model->checked && res.outcome == HF_OK &&
                      (profiles[p].torn ? the_model->torn_prefix : the_model->exact);
            right += ok;
            pending += the_model->had_pending;
            errors += the_model->write_errors || the_model->fsync_errors;
            torn += hf_sim_stats_of_run()->faults[HF_FAULT_DISK_TORN_WRITE] > 0;
        }
        if (profiles[p].torn)
            CHECK(right == runs && torn > 10, "%s: in %d of %d runs the file is the synced data plus a torn "
                  "prefix of the unsynced writes (%d runs tore one)", profiles[p].what, right, runs, torn);
        else
            CHECK(right == runs, "%s: in %d of %d runs the file after restart is exactly %s", profiles[p].what,
                  right, runs, profiles[p].machine ? "the synced data" : "what was written");
        CHECK(pending > runs / 2, "%s: %d of %d crashes had unsynced data", profiles[p].what, pending, runs);
        if (p == 2) CHECK(errors > 20, "%s: %d runs had write or fsync errors", profiles[p].what, errors);
    }
}

/* ---- Network semantics -------------------------------------------------------------
 * A sender sends 200 numbered one-way messages, one every 50 us (the
 * default delay is 200 us, so several are on the wire at once); the
 * receiver logs what arrives. */

enum { NET_MESSAGES = 200 };

typedef struct net_log {
    uint64_t got[4 * NET_MESSAGES];
    int count;
} net_log;

static net_log *the_log;

static void net_sender(void *arg) {
    (void)arg;
    for (uint64_t i = 1; i <= NET_MESSAGES; i++) {
        hf_send(2, 0, &i, sizeof i);
        hf_sleep(50 * HF_US);
    }
}

static void net_receiver(void *arg) {
    net_log *log = arg;
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        if (log->count < (int)(sizeof log->got / sizeof *log->got)) memcpy(&log->got[log->count++], m.data, 8);
    }
}

static void net_main(void *arg) {
    (void)arg;
    hf_sim_options o;
    hf_sim_options_init(&o);
    /* Profile decisions 0..3: drop, duplicate, delay, reorder. */
    o.faults = HF_FAULT_BIT(HF_FAULT_MSG_DROP) | HF_FAULT_BIT(HF_FAULT_MSG_DUPLICATE) |
               HF_FAULT_BIT(HF_FAULT_MSG_DELAY) | HF_FAULT_BIT(HF_FAULT_MSG_REORDER);
    o.phase.chaos_ns = 100 * HF_MS;
    o.phase.quiet_ns = 100 * HF_MS;
    hf_sim_start(&o);
    the_log = hf_alloc(sizeof *the_log);
    hf_node_add("sender", net_sender, NULL, 0);
    hf_node_add("receiver", net_receiver, the_log, 0);
}

static const hf_target net_target = {.name = "net", .summary = "", .main = net_main};

typedef struct net_shape {
    int each_once;        /* every message arrived exactly once */
    int in_order;         /* in the order sent */
    int firsts_in_order;  /* first arrivals in the order sent */
    int extra;            /* arrivals beyond the first of a message */
    int distinct;         /* messages that arrived */
} net_shape;

static net_shape shape_of(const net_log *log) {
    net_shape s = {1, 1, 1, 0, 0};
    int seen[NET_MESSAGES + 1] = {0};
    uint64_t last = 0, last_first = 0;
    for (int i = 0; i < log->count; i++) {
        uint64_t v = log->got[i];
        if (v < last) s.in_order = 0;
        last = v;
        if (seen[v]++) { s.extra++; continue; }
        if (v < last_first) s.firsts_in_order = 0;
        last_first = v;
        s.distinct++;
    }
    s.each_once = s.distinct == NET_MESSAGES && s.extra == 0;
    return s;
}

/* A run whose profile allows the one kind at profile decision `kind`
 * (0..3): the next deviation lands past the profile. */
static void net_run(uint8_t kind, hf_result *r, net_shape *shape) {
    uint8_t input[32];
    size_t n = 0;
    input[n++] = kind;
    input[n++] = (uint8_t)(3 - kind + next_random() % 16);
    for (int i = 0; i < 12; i++) input[n++] = (uint8_t)(next_random() % 16);
    hf_run(&net_target, input, n, r);
    *shape = shape_of(the_log);
}

/* Features of the last run that `earlier` (a copy of another run's set)
 * lacks. */
static int new_features(const hf_features *earlier) {
    const hf_features *now = hf_last_features();
    int fresh = 0;
    for (uint32_t i = 0; i < now->count; i++) {
        bool known = false;
        for (uint32_t j = 0; j < earlier->count && !known; j++) known = earlier->list[j] == now->list[i];
        fresh += !known;
    }
    return fresh;
}

static void test_network_semantics(void) {
    hf_result r;
    hf_run(&net_target, NULL, 0, &r);
    net_shape calm = shape_of(the_log);
    CHECK(r.outcome == HF_OK && calm.each_once && calm.in_order,
          "calm network: each of %d messages arrives once, in the order sent (FIFO link)", NET_MESSAGES);
    static hf_features calm_features;
    calm_features = *hf_last_features();

    int reordered = 0, iff = 0, whole = 0, novel = 0;
    for (int i = 0; i < 100; i++) {
        net_shape s;
        net_run(3, &r, &s);
        bool fault = hf_sim_stats_of_run()->faults[HF_FAULT_MSG_REORDER] > 0;
        reordered += !s.in_order;
        iff += fault == !s.in_order;
        whole += s.each_once;
        novel += fault && new_features(&calm_features) > 0;
    }
    CHECK(novel == reordered, "every reordered run shows behaviour features the calm run "
          "lacks (%d of %d)", novel, reordered);
    CHECK(whole == 100 && reordered > 10 && iff == 100,
          "reorder alone: nothing lost or doubled; order broken in %d of 100 runs, exactly those with a reorder "
          "fault (%d agree)", reordered, iff);

    int doubled = 0, counted = 0, firsts = 0;
    for (int i = 0; i < 100; i++) {
        net_shape s;
        net_run(1, &r, &s);
        doubled += s.extra > 0;
        counted += (uint64_t)s.extra == hf_sim_stats_of_run()->dup_delivered && s.distinct == NET_MESSAGES;
        firsts += s.firsts_in_order;
    }
    CHECK(doubled > 10 && counted == 100 && firsts == 100,
          "duplicate alone: %d of 100 runs saw copies, as many as counted, the originals in order", doubled);

    int lossy = 0, matches = 0;
    for (int i = 0; i < 100; i++) {
        net_shape s;
        net_run(0, &r, &s);
        lossy += s.distinct < NET_MESSAGES;
        matches += (uint64_t)s.distinct == NET_MESSAGES - hf_sim_stats_of_run()->dropped && s.in_order && !s.extra;
    }
    CHECK(lossy > 10 && matches == 100,
          "drop alone: %d of 100 runs lost messages, exactly the dropped ones, the rest in order", lossy);
}

/* ---- eventually ----------------------------------------------------------------- */

static bool settled;
static void eventually_check(void *arg) {
    (void)arg;
    hf_eventually(settled, "the flag is set by the end of the quiet period");
}
static void setter(void *arg) {
    (void)arg;
    hf_sleep(150 * HF_MS);
    settled = true;
}
static uint64_t setter_delay_ms;
static void eventually_main(void *arg) {
    (void)arg;
    settled = false;
    hf_sim_options o;
    hf_sim_options_init(&o);
    o.phase.chaos_ns = 100 * HF_MS;
    o.phase.quiet_ns = setter_delay_ms * HF_MS;
    hf_sim_start(&o);
    hf_node_add("setter", setter, NULL, 0);
    hf_sim_at_end(eventually_check, NULL);
}
static const hf_target eventually_target = {.name = "eventually", .summary = "", .main = eventually_main};

static void test_eventually(void) {
    hf_result r;
    setter_delay_ms = 100;   /* the end comes at 200 ms, the flag at 150 ms */
    hf_run(&eventually_target, NULL, 0, &r);
    CHECK(r.outcome == HF_OK && r.time_ns == 200 * HF_MS, "eventually holds when the flag comes in the quiet period");
    setter_delay_ms = 20;    /* the end comes at 120 ms: too early */
    hf_run(&eventually_target, NULL, 0, &r);
    CHECK(r.outcome == HF_FAIL_PROPERTY && r.property && r.property->kind == HF_EVENTUALLY &&
          r.time_ns == 120 * HF_MS, "eventually fails, at the end of the quiet period, when the flag comes later");
}

/* ---- Bad options ------------------------------------------------------------------ */

static hf_sim_options bad;
static bool send_from_main;
static void bad_main(void *arg) {
    (void)arg;
    hf_sim_start(&bad);
    if (send_from_main) hf_send(1, 0, NULL, 0);
}
static const hf_target bad_target = {.name = "bad", .summary = "", .main = bad_main};

static void expect_rejected(const char *field, const char *what) {
    hf_result r;
    hf_run(&bad_target, NULL, 0, &r);
    CHECK(r.outcome == HF_FAIL_CONFIG && strstr(r.message, field), "%s is rejected naming %s: \"%s\"", what, field,
          r.message);
}

static void test_bad_options(void) {
    hf_sim_options_init(&bad);
    hf_result r;
    hf_run(&bad_target, NULL, 0, &r);
    CHECK(r.outcome == HF_OK, "the default options are accepted");

    hf_sim_options_init(&bad);
    bad.net.delay_min_ns = 30 * HF_MS;
    expect_rejected("net.delay_min_ns", "a minimum delay above the maximum");
    hf_sim_options_init(&bad);
    bad.net.delay_default_ns = 1;
    expect_rejected("net.delay_default_ns", "a default delay below the minimum");
    hf_sim_options_init(&bad);
    bad.node.down_max_ns = 1;
    expect_rejected("node.down_min_ns", "a downtime minimum above its maximum");
    hf_sim_options_init(&bad);
    bad.store.latency_default_ns = 3 * HF_SEC;
    expect_rejected("store.latency_default_ns", "a store latency default above its maximum");
    hf_sim_options_init(&bad);
    bad.phase.fault_step_ns = 0;
    expect_rejected("phase.fault_step_ns", "a zero fault step");
    hf_sim_options_init(&bad);
    bad.phase.chaos_ns = 4000 * HF_SEC;
    expect_rejected("phase.chaos_ns", "phases longer than the target's time budget");
    hf_sim_options_init(&bad);
    bad.faults = 1u << 30;
    expect_rejected("faults", "a fault bit that is no fault kind");
    hf_sim_options_init(&bad);
    bad.net.kind_count = 3;
    expect_rejected("net.kind_names", "kind names missing for a kind count");
    hf_sim_options_init(&bad);
    send_from_main = true;
    expect_rejected("hf_send was called by task main, which belongs to no node", "a send from outside any node");
    send_from_main = false;
}

int main(void) {
    test_calm();
    test_bad_options();
    test_eventually();
    test_crash_loses_unsynced();
    test_network_semantics();
    test_conservation();
    test_every_fault_kind();
    hf_runtime_free();
    return check_exit();
}
