/*
 * clients.c — the agent's users: producers that send records and count
 * the acknowledgements, and a reader that, as a consumer would, lists the
 * committed files in the metadata store and reads each back from the
 * object store.  What they learn goes to the oracle (diskless_agent.c).
 */
#include "diskless.h"

#include <assert.h>

/* ---- Producers ---------------------------------------------------------------- */

typedef struct producer {
    diskless_world *world;
    int index;
} producer;

static void sender(void *arg) {
    producer *p = arg;
    const diskless_options *o = &p->world->options;
    for (int i = 0; i < o->records_per_producer; i++) {
        diskless_produce req = {(int64_t)p->index * o->records_per_producer + i};
        assert(req.record < DISKLESS_MAX_RECORDS);
        p->world->oracle.records_sent++;
        hf_send(p->world->agent, DISKLESS_PRODUCE, &req, sizeof req);
        hf_sleep(o->produce_interval_ns);
    }
}

void diskless_producer(void *arg) {
    diskless_producer_arg *a = arg;
    producer *p = hf_alloc(sizeof *p);
    *p = (producer){a->world, a->index};
    hf_spawn(hf_printf("%s.sender", hf_node_name(hf_node_self())), sender, p);
    for (;;) {   /* acknowledgements, until the run ends */
        hf_msg m;
        hf_recv(&m, 0);
        assert(m.kind == DISKLESS_PRODUCE_ACK);
        const diskless_produce *ack = m.data;
        diskless_oracle *o = &p->world->oracle;
        if (!o->acked[ack->record]) {
            o->acked[ack->record] = true;
            o->acked_count++;
        }
    }
}

/* ---- Reader ---------------------------------------------------------------------- */

typedef struct reader {
    diskless_world *world;
    diskless_commit pending[DISKLESS_MAX_FILES];   /* listed, not read back yet */
    int pending_count;
    int listed;                                    /* metadata entries seen */
} reader;

static void list_new_files(reader *r) {
    const diskless_options *o = &r->world->options;
    for (;;) {
        diskless_list_request req = {r->listed};
        hf_msg reply;
        if (!hf_call(r->world->metadata, DISKLESS_LIST, &req, sizeof req, o->call_timeout_ns, &reply)) return;
        const diskless_list_reply *l = reply.data;
        for (int i = 0; i < l->count; i++) {
            assert(r->pending_count < DISKLESS_MAX_FILES);
            r->pending[r->pending_count++] = l->entries[i];
        }
        r->listed += l->count;
        if (l->count < DISKLESS_LIST_MAX) return;
    }
}

/* True when the file is settled: read back, or found missing. */
static bool read_back(reader *r, const diskless_commit *c) {
    const void *data;
    size_t size;
    hf_store_status s = hf_store_get(c->key, &data, &size, r->world->options.put_timeout_ns);
    if (s == HF_STORE_OK) {
        assert(size == sizeof(diskless_file));
        diskless_check_file(r->world, c, data);
        return true;
    }
    if (s == HF_STORE_NOT_FOUND) diskless_check_missing(r->world, c);
    return false;   /* an error or a timeout tells nothing: try again */
}

void diskless_reader(void *arg) {
    reader *r = hf_alloc(sizeof *r);
    r->world = arg;
    for (;;) {
        hf_sleep(r->world->options.read_poll_ns);
        list_new_files(r);
        int kept = 0;
        for (int i = 0; i < r->pending_count; i++)
            if (!read_back(r, &r->pending[i])) r->pending[kept++] = r->pending[i];
        r->pending_count = kept;
    }
}
