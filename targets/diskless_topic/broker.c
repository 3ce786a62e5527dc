/*
 * broker.c — a diskless broker: it keeps no log, only a buffer.
 *
 *   receiver  takes Produce requests into the buffer and hands Fetch and
 *             Metadata requests to the fetch workers;
 *   uploader  every upload_interval_ns uploads the buffer as one object
 *             (retrying until the store takes it), commits it with the
 *             batch coordinator, and answers each produce request with its
 *             offset;
 *   fetchers  ask the coordinator where a partition's batches are and
 *             read them from their objects.
 *
 * A crash loses the buffer and every unanswered request: the producer
 * retries, and the coordinator recognises what was committed already.
 */
#include "inkless.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

enum { BROKER_FETCHERS = 2, BROKER_CACHED_OBJECTS = 32 };

typedef struct cached_object {
    char key[32];
    const inkless_object *object;       /* in the run's memory: the store's copy */
} cached_object;

typedef struct pending_produce {
    hf_msg request;
    inkless_batch batch;
} pending_produce;

typedef struct broker {
    inkless_world *world;
    const inkless_options *o;
    pending_produce buffer[INKLESS_OBJECT_MAX_BATCHES];
    int buffered;
    int uploads;                        /* objects uploaded by this incarnation */
    hf_chan *fetches;                   /* Fetch and Metadata requests */
    cached_object cache[BROKER_CACHED_OBJECTS];
    int cache_next;
} broker;

static void answer_produce(const hf_msg *request, inkless_error error, int64_t offset) {
    inkless_produce_reply r = {error, offset};
    hf_reply(request, INKLESS_PRODUCE_REPLY, &r, sizeof r);
}

static void upload(broker *b) {
    pending_produce batch[INKLESS_OBJECT_MAX_BATCHES];
    int n = b->buffered;
    memcpy(batch, b->buffer, (size_t)n * sizeof batch[0]);
    b->buffered = 0;

    inkless_commit_file c = {.object.count = n};
    snprintf(c.key, sizeof c.key, "objects/n%d-i%u-%d", hf_node_self(), hf_node_incarnation(hf_node_self()),
             ++b->uploads);
    for (int i = 0; i < n; i++) c.object.batches[i] = batch[i].batch;
    while (hf_store_put(c.key, &c.object, sizeof c.object, b->o->store_timeout_ns) != HF_STORE_OK)
        hf_sleep(b->o->retry_ns);
    hf_msg reply;
    while (!hf_call(b->world->coordinator, INKLESS_COMMIT_FILE, &c, sizeof c, b->o->call_timeout_ns, &reply)) {}
    const inkless_commit_file_reply *r = reply.data;
    assert(r->count == n);
    for (int i = 0; i < n; i++) answer_produce(&batch[i].request, INKLESS_OK, r->offsets[i]);
}

static void uploader(void *arg) {
    broker *b = arg;
    for (;;) {
        hf_sleep(b->o->upload_interval_ns);
        if (b->buffered > 0) upload(b);
    }
}

/* The object `key`: objects never change, so a broker keeps the last few
 * it read (Inkless' object cache). */
static bool read_object(broker *b, const char *key, const inkless_object **object) {
    for (int i = 0; i < BROKER_CACHED_OBJECTS; i++)
        if (b->cache[i].object && !strcmp(b->cache[i].key, key)) {
            *object = b->cache[i].object;
            return true;
        }
    const void *data;
    size_t size;
    if (hf_store_get(key, &data, &size, b->o->store_timeout_ns) != HF_STORE_OK) return false;
    assert(size == sizeof(inkless_object));
    *object = data;
    cached_object *slot = &b->cache[b->cache_next++ % BROKER_CACHED_OBJECTS];
    snprintf(slot->key, sizeof slot->key, "%s", key);
    slot->object = data;
    return true;
}

static void fetch(broker *b, const hf_msg *m) {
    inkless_fetch_reply r = {.error = INKLESS_RETRY};
    hf_msg reply;
    if (hf_call(b->world->coordinator, INKLESS_FIND_BATCHES, m->data, sizeof(inkless_fetch), b->o->call_timeout_ns,
                &reply)) {
        const inkless_find_reply *found = reply.data;
        const char *last_key = NULL;
        const inkless_object *object = NULL;
        r.error = INKLESS_OK;
        for (int p = 0; p < INKLESS_PARTITIONS && r.error == INKLESS_OK; p++)
            for (int i = 0; i < found->count[p]; i++) {
                const inkless_location *l = &found->locations[p][i];
                if ((!last_key || strcmp(last_key, l->key)) && !read_object(b, l->key, &object)) {
                    r.error = INKLESS_RETRY;
                    break;
                }
                last_key = l->key;
                assert(l->index < object->count);
                r.offsets[p][r.count[p]] = l->offset;
                r.batches[p][r.count[p]++] = object->batches[l->index];
            }
        if (r.error != INKLESS_OK) memset(r.count, 0, sizeof r.count);
    }
    hf_reply(m, INKLESS_FETCH_REPLY, &r, sizeof r);
}

static void fetcher(void *arg) {
    broker *b = arg;
    hf_msg m;
    while (hf_chan_recv(b->fetches, &m)) {
        if (m.kind == INKLESS_FETCH) {
            fetch(b, &m);
            continue;
        }
        hf_msg reply;
        if (hf_call(b->world->coordinator, INKLESS_METADATA, NULL, 0, b->o->call_timeout_ns, &reply))
            hf_reply(&m, INKLESS_METADATA_REPLY, reply.data, reply.size);
    }
}

void inkless_broker(void *arg) {
    if (hf_node_incarnation(hf_node_self()) > 1) hf_reachable("a broker restarted after a crash");
    broker *b = hf_alloc(sizeof *b);
    b->world = arg;
    b->o = &b->world->options;
    b->fetches = hf_chan_new("fetches", sizeof(hf_msg), 16);
    hf_spawn(hf_printf("%s.uploader", hf_node_name(hf_node_self())), uploader, b);
    for (int i = 0; i < BROKER_FETCHERS; i++)
        hf_spawn(hf_printf("%s.fetcher%d", hf_node_name(hf_node_self()), i + 1), fetcher, b);
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        if (m.kind != INKLESS_PRODUCE) {
            if (hf_chan_len(b->fetches) < 16) hf_chan_send(b->fetches, &m);   /* else dropped: the caller retries */
            continue;
        }
        if (b->buffered == INKLESS_OBJECT_MAX_BATCHES) {   /* full: the producer retries */
            answer_produce(&m, INKLESS_RETRY, -1);
            continue;
        }
        b->buffer[b->buffered++] = (pending_produce){m, *(const inkless_batch *)m.data};
    }
}
