/*
 * cluster — a five-node request/response workload that meets every fault
 * of the simulated world, with invariants that hold: the control for the
 * world itself, and the workload of its benchmark.
 *
 *   n1..n3  replicas: each keeps a log of fixed-size, checksummed records
 *           on its disk; a Write appends a record, fsyncs, then answers; a
 *           Read answers a record.  On restart a replica recovers: it reads
 *           the log, drops a torn tail, and rewrites the log through a new
 *           file (write, fsync, rename), because after a failed fsync the
 *           page cache may show data the media never got.  It crashes
 *           itself on an fsync error, and on a record that stays corrupt
 *           after re-reads (read corruption is transient: the next boot
 *           reads it right).
 *   n4      the client (never crashed): every 40 ms a Write and a Read to
 *           the same replica at once (two sessions, so two requests share
 *           the link and can be reordered), each with a timeout; it reads
 *           its clock around each call.
 *   n5      the archiver: every 100 ms a PUT to the object store under a
 *           key unique to its incarnation (retried until acknowledged),
 *           then LIST, GET of the newest, DELETE of all but three.
 *
 * The "ghost" records below are the test's oracle: they live outside every
 * node, so a crash does not erase them.
 *
 * Invariants:
 *   always  no reply is accepted twice, and each answers its own request
 *   always  a record read back is the one written at that place (and a
 *           value read back from disk after a crash is one that was written)
 *   always  every record acknowledged as fsynced survives every crash
 *   always  an acknowledged upload is listed; an object read back holds
 *           exactly what was put under its key
 *   eventually  every replica is up and recovered, answered the client in
 *           the quiet period, and the archiver uploaded in it
 */
#include "sim.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum { REPLICAS = 3, CLIENT = 4, ARCHIVER = 5 };
enum { MAX_OPS = 1024, MAX_WRITES = 512, MAX_UPLOADS = 128, KEEP_UPLOADS = 3 };

enum { WRITE, WRITE_REPLY, READ, READ_REPLY, KIND_COUNT };
static const char *const kind_names[KIND_COUNT] = {"Write", "WriteReply", "Read", "ReadReply"};

enum { STATUS_OK, STATUS_ERROR, STATUS_NOT_FOUND };

typedef struct request {
    uint64_t id;          /* the client's number for it */
    uint64_t value;       /* Write: the value */
    uint64_t index;       /* Read: which record */
} request;

typedef struct response {
    uint64_t id;          /* of the request */
    uint32_t status;
    uint64_t index;       /* Write: where it went; Read: which record */
    uint64_t value;       /* Read: the value */
} response;

typedef struct record {
    uint64_t index;
    uint64_t value;
    uint64_t writer;      /* the replica's incarnation that wrote it */
    uint64_t checksum;    /* FNV-1a of the fields above */
} record;

/* The oracle. */
typedef struct written { uint64_t index, value; } written;
typedef struct upload { char key[40]; uint64_t hash; } upload;

typedef struct ghost {
    written writes[REPLICAS + 1][MAX_WRITES];   /* every record a replica wrote */
    uint32_t write_count[REPLICAS + 1];
    written synced[REPLICAS + 1][MAX_WRITES];   /* records whose fsync succeeded */
    uint32_t synced_count[REPLICAS + 1];
    uint32_t recovered_in[REPLICAS + 1];        /* incarnation that finished recovery */
    bool accepted[2 * MAX_OPS + 2];             /* replies the client accepted, by request id */
    uint32_t quiet_answers[REPLICAS + 1];       /* successful writes in the quiet period */
    upload uploads[MAX_UPLOADS];
    uint32_t upload_count;
    uint32_t quiet_uploads;
} ghost;

typedef struct cluster {
    ghost g;
} cluster;

static uint64_t fnv1a(const void *data, size_t size) {
    const uint8_t *p = data;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < size; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static bool record_valid(const record *r) {
    return r->checksum == fnv1a(r, offsetof(record, checksum));
}

/* ---- Replicas ------------------------------------------------------------- */

typedef struct replica {
    cluster *c;
    int node;
    uint64_t records;     /* records in the log */
} replica;

static bool was_written(const ghost *g, int node, uint64_t index, uint64_t value) {
    for (uint32_t i = 0; i < g->write_count[node]; i++)
        if (g->writes[node][i].index == index && g->writes[node][i].value == value) return true;
    return false;
}

/* Reads record `index`, re-reading while its checksum fails; false when it
 * stayed corrupt. */
static bool read_record(uint64_t index, record *r) {
    for (int attempt = 0; attempt < 3; attempt++) {
        size_t got;
        if (hf_disk_read("log", index * sizeof *r, r, sizeof *r, &got) == HF_IO_OK && got == sizeof *r &&
            record_valid(r))
            return true;
    }
    return false;
}

static void recover(replica *r) {
    ghost *g = &r->c->g;
    hf_disk_delete("log.tmp");   /* a rewrite the last crash interrupted */
    uint64_t size = 0;
    if (hf_disk_size("log", &size) == HF_IO_NOT_FOUND) size = 0;
    uint64_t count = size / sizeof(record);   /* a torn tail is a partial record: dropped */
    record *log = hf_alloc((count ? count : 1) * sizeof *log);
    for (uint64_t i = 0; i < count; i++) {
        if (!read_record(i, &log[i])) {
            hf_note("record %llu stays corrupt: crash and try again", (unsigned long long)i);
            hf_node_crash(r->node);
        }
        hf_always(log[i].index == i && was_written(g, r->node, i, log[i].value),
                  "a value read back from disk after a crash is one that was written there");
    }
    for (uint32_t i = 0; i < g->synced_count[r->node]; i++) {
        const written *w = &g->synced[r->node][i];
        hf_always(w->index < count && log[w->index].value == w->value,
                  "every record acknowledged as fsynced survives every crash");
    }
    if (count) {
        if (hf_disk_write("log.tmp", 0, log, count * sizeof *log) != HF_IO_OK || hf_disk_fsync("log.tmp") != HF_IO_OK ||
            hf_disk_rename("log.tmp", "log") != HF_IO_OK) {
            hf_note("rewriting the log failed: crash and try again");
            hf_node_crash(r->node);
        }
    }
    r->records = count;
    g->recovered_in[r->node] = hf_node_incarnation(r->node);
    hf_note("recovered %llu records", (unsigned long long)count);
}

static void serve_write(replica *r, const hf_msg *m, const request *q) {
    ghost *g = &r->c->g;
    response a = {.id = q->id, .status = STATUS_ERROR};
    record rec = {.index = r->records, .value = q->value, .writer = hf_node_incarnation(r->node)};
    rec.checksum = fnv1a(&rec, offsetof(record, checksum));
    if (hf_disk_write("log", rec.index * sizeof rec, &rec, sizeof rec) == HF_IO_OK) {
        if (g->write_count[r->node] < MAX_WRITES)
            g->writes[r->node][g->write_count[r->node]++] = (written){rec.index, rec.value};
        r->records++;
        if (hf_disk_fsync("log") != HF_IO_OK) {
            hf_note("fsync failed: crash rather than trust the page cache");
            hf_node_crash(r->node);
        }
        if (g->synced_count[r->node] < MAX_WRITES)
            g->synced[r->node][g->synced_count[r->node]++] = (written){rec.index, rec.value};
        a.status = STATUS_OK;
        a.index = rec.index;
    }
    hf_reply(m, WRITE_REPLY, &a, sizeof a);
}

static void serve_read(replica *r, const hf_msg *m, const request *q) {
    response a = {.id = q->id, .status = STATUS_NOT_FOUND, .index = q->index};
    record rec;
    if (q->index < r->records) {
        a.status = STATUS_ERROR;
        if (read_record(q->index, &rec)) {
            a.status = STATUS_OK;
            a.value = rec.value;
        }
    }
    hf_reply(m, READ_REPLY, &a, sizeof a);
}

static void replica_main(void *arg) {
    replica *r = hf_alloc(sizeof *r);
    r->c = arg;
    r->node = hf_node_self();
    recover(r);
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        request q;
        if (m.size != sizeof q) continue;
        memcpy(&q, m.data, sizeof q);
        if (m.kind == WRITE) serve_write(r, &m, &q);
        else if (m.kind == READ) serve_read(r, &m, &q);
    }
}

/* ---- The client ---------------------------------------------------------------
 * Two sessions in one process, in step: every 40 ms the writer writes to a
 * replica and the reader reads, from the same replica at the same moment,
 * the record last acknowledged there, so two requests share the link. */

typedef struct acked { uint64_t index, value; bool any; } acked;

typedef struct client {
    cluster *c;
    acked last[REPLICAS + 1];   /* per replica: the writer's last acknowledged record */
    uint64_t next_value;
} client;

static bool call(client *cl, int to, int kind, request *q, response *a) {
    ghost *g = &cl->c->g;
    uint64_t before = hf_clock();
    hf_msg m;
    if (!hf_call(to, kind, q, sizeof *q, 60 * HF_MS, &m)) return false;
    hf_sometimes(hf_clock() < before, "the client's clock went backwards during a call");
    hf_always(m.size == sizeof *a, "a reply has the size of a response");
    memcpy(a, m.data, sizeof *a);
    hf_always(a->id == q->id && !g->accepted[q->id], "no reply is accepted twice, and each answers its own request");
    g->accepted[q->id] = true;
    return a->status == STATUS_OK;
}

/* Rounds start on a fixed grid, so that both sessions call at once. */
static void sleep_until_round(uint64_t round) {
    uint64_t at = round * 40 * HF_MS;
    if (at > hf_now()) hf_sleep(at - hf_now());
}

static void writer_main(void *arg) {
    client *cl = arg;
    for (uint64_t round = 1; round <= MAX_OPS; round++) {
        sleep_until_round(round);
        int to = 1 + (int)(round % REPLICAS);
        request q = {.id = 2 * round, .value = cl->next_value++};
        response a;
        if (!call(cl, to, WRITE, &q, &a)) continue;
        cl->last[to] = (acked){a.index, q.value, true};
        if (hf_sim_quiet()) cl->c->g.quiet_answers[to]++;
    }
}

static void reader_main(void *arg) {
    client *cl = arg;
    for (uint64_t round = 1; round <= MAX_OPS; round++) {
        sleep_until_round(round);
        int to = 1 + (int)(round % REPLICAS);
        acked want = cl->last[to];
        if (!want.any) continue;
        request q = {.id = 2 * round + 1, .index = want.index};
        response a;
        if (call(cl, to, READ, &q, &a))
            hf_always(a.value == want.value, "a record read back is the one acknowledged at that place");
    }
}

static void client_main(void *arg) {
    client *cl = hf_alloc(sizeof *cl);
    cl->c = arg;
    cl->next_value = 1000;
    hf_spawn("writer", writer_main, cl);
    hf_spawn("reader", reader_main, cl);
}

/* ---- The archiver ------------------------------------------------------------- */

static const upload *find_upload(const ghost *g, const char *key) {
    for (uint32_t i = 0; i < g->upload_count; i++)
        if (strcmp(g->uploads[i].key, key) == 0) return &g->uploads[i];
    return NULL;
}

static void archiver_main(void *arg) {
    ghost *g = &((cluster *)arg)->g;
    uint32_t incarnation = hf_node_incarnation(hf_node_self());
    const uint64_t timeout = 200 * HF_MS;
    for (uint32_t seq = 1; g->upload_count < MAX_UPLOADS; seq++) {
        hf_sleep(100 * HF_MS);
        upload *u = &g->uploads[g->upload_count++];
        snprintf(u->key, sizeof u->key, "archive/%08u-%08u", incarnation, seq);
        uint8_t body[64];
        uint64_t key_hash = fnv1a(u->key, strlen(u->key));
        for (size_t i = 0; i < sizeof body; i++) body[i] = (uint8_t)((key_hash >> (i % 8)) ^ i);
        u->hash = fnv1a(body, sizeof body);
        hf_store_status put = HF_STORE_ERROR;
        for (int attempt = 0; attempt < 5 && put != HF_STORE_OK; attempt++)
            put = hf_store_put(u->key, body, sizeof body, timeout);
        if (put != HF_STORE_OK) continue;
        if (hf_sim_quiet()) g->quiet_uploads++;

        const char *const *keys;
        size_t count;
        if (hf_store_list("archive/", &keys, &count, timeout) != HF_STORE_OK) continue;
        bool listed = false;
        for (size_t i = 0; i < count; i++) listed |= strcmp(keys[i], u->key) == 0;
        hf_always(listed, "an acknowledged upload is listed");
        const void *data;
        size_t size;
        if (count && hf_store_get(keys[count - 1], &data, &size, timeout) == HF_STORE_OK) {
            const upload *known = find_upload(g, keys[count - 1]);
            hf_always(known && size == sizeof body && fnv1a(data, size) == known->hash,
                      "an object read back holds exactly what was put under its key");
        }
        for (size_t i = 0; i + KEEP_UPLOADS < count; i++) hf_store_delete(keys[i], timeout);
    }
}

/* ---- The run ------------------------------------------------------------------- */

static void final_checks(void *arg) {
    ghost *g = &((cluster *)arg)->g;
    bool replicas_fine = true;
    for (int n = 1; n <= REPLICAS; n++)
        replicas_fine &= hf_node_up(n) && g->recovered_in[n] == hf_node_incarnation(n) && g->quiet_answers[n] > 0;
    hf_eventually(replicas_fine, "every replica is up, recovered, and answers writes once the faults stop");
    hf_eventually(g->quiet_uploads > 0, "the archiver uploads once the faults stop");
}

static void cluster_main(void *arg) {
    (void)arg;
    hf_sim_options o;
    hf_sim_options_init(&o);
    o.net.kind_names = kind_names;
    o.net.kind_count = KIND_COUNT;
    o.store.latency_max_ns = 400 * HF_MS;
    hf_sim_start(&o);
    cluster *c = hf_alloc(sizeof *c);
    for (int i = 1; i <= REPLICAS; i++) hf_node_add(hf_printf("replica%d", i), replica_main, c, 0);
    hf_node_add("client", client_main, c, HF_NODE_NEVER_CRASHES);
    hf_node_add("archiver", archiver_main, c, 0);
    hf_sim_at_end(final_checks, c);
}

HF_DEFINE_TARGET(cluster_target) = {
    .name = "cluster",
    .summary = "5 nodes: replicas with a disk log, a client, an archiver on the object store; every fault",
    .main = cluster_main,
    .max_steps = 5000000,
    .max_time_ns = 10 * HF_SEC,
};
