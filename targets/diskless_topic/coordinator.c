/*
 * coordinator.c — the batch coordinator (PostgreSQL in Inkless): the
 * partition set, each partition's next offset, and where every committed
 * batch lives.
 *
 * CommitFile gives each batch of an uploaded object the next offset of its
 * partition, all at once, as one transaction.  It is idempotent twice
 * over: an object committed before gets its first answer again (a broker
 * resent it), and a batch whose producer sequence is not past the last one
 * committed is a producer's retry and is not appended again (Inkless keeps
 * producer state in the coordinator).
 */
#include "inkless.h"

#include <assert.h>
#include <string.h>

typedef struct committed_object {
    char key[32];
    inkless_commit_file_reply reply;
} committed_object;

typedef struct coordinator {
    int64_t next_offset[INKLESS_PARTITIONS];
    int32_t last_sequence[INKLESS_PRODUCERS][INKLESS_PARTITIONS];
    inkless_location index[INKLESS_PARTITIONS][INKLESS_MAX_BATCHES];
    committed_object objects[INKLESS_MAX_BATCHES];
    int object_count;
} coordinator;

static void commit_file(coordinator *c, const hf_msg *m) {
    const inkless_commit_file *req = m->data;
    for (int i = 0; i < c->object_count; i++)
        if (!strcmp(c->objects[i].key, req->key)) {
            hf_reply(m, INKLESS_COMMIT_FILE_REPLY, &c->objects[i].reply, sizeof c->objects[i].reply);
            return;
        }
    assert(c->object_count < INKLESS_MAX_BATCHES);
    committed_object *o = &c->objects[c->object_count++];
    strcpy(o->key, req->key);
    o->reply.count = req->object.count;
    for (int i = 0; i < req->object.count; i++) {
        const inkless_batch *b = &req->object.batches[i];
        int32_t *last = &c->last_sequence[b->producer][b->partition];
        if (b->sequence <= *last) {   /* a producer's retry, committed before */
            hf_sometimes(true, "the coordinator recognised a producer's retry of a committed message");
            o->reply.offsets[i] = -1;
            continue;
        }
        assert(b->sequence == *last + 1 && "a producer has one message in flight");
        *last = b->sequence;
        int64_t offset = c->next_offset[b->partition]++;
        assert(offset < INKLESS_MAX_BATCHES);
        inkless_location *l = &c->index[b->partition][offset];
        l->offset = offset;
        strcpy(l->key, req->key);
        l->index = i;
        o->reply.offsets[i] = offset;
    }
    hf_note("commit %s: %d batches", req->key, req->object.count);
    hf_reply(m, INKLESS_COMMIT_FILE_REPLY, &o->reply, sizeof o->reply);
}

static void find_batches(coordinator *c, const hf_msg *m) {
    const inkless_fetch *req = m->data;
    inkless_find_reply r;
    memset(&r, 0, sizeof r);
    for (int p = 0; p < INKLESS_PARTITIONS; p++)
        for (int64_t o = req->offsets[p]; o < c->next_offset[p] && r.count[p] < INKLESS_FETCH_MAX; o++)
            r.locations[p][r.count[p]++] = c->index[p][o];
    hf_reply(m, INKLESS_FIND_BATCHES_REPLY, &r, sizeof r);
}

void inkless_coordinator(void *arg) {
    (void)arg;
    coordinator *c = hf_alloc(sizeof *c);
    for (int p = 0; p < INKLESS_PRODUCERS; p++)
        for (int q = 0; q < INKLESS_PARTITIONS; q++) c->last_sequence[p][q] = -1;
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        switch (m.kind) {
        case INKLESS_COMMIT_FILE: commit_file(c, &m); break;
        case INKLESS_FIND_BATCHES: find_batches(c, &m); break;
        case INKLESS_METADATA: {
            inkless_metadata_reply r = {INKLESS_PARTITIONS};
            hf_reply(&m, INKLESS_METADATA_REPLY, &r, sizeof r);
            break;
        }
        default: assert(!"the coordinator gets no such request");
        }
    }
}
