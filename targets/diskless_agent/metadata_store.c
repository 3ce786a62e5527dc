/*
 * metadata_store.c — the metadata store (WarpStream's control plane, a
 * database in Aiven's setup): the list of committed files, in commit
 * order.  A commit is idempotent by file id, so the committer may resend
 * one whose answer was lost.
 */
#include "diskless.h"

#include <assert.h>

typedef struct metadata_store {
    diskless_commit entries[DISKLESS_MAX_FILES];
    int count;
} metadata_store;

static void commit(metadata_store *s, const hf_msg *m) {
    const diskless_commit *c = m->data;
    bool known = false;
    for (int i = 0; i < s->count; i++) known |= s->entries[i].file_id == c->file_id;
    if (!known) {
        assert(s->count < DISKLESS_MAX_FILES);
        s->entries[s->count++] = *c;
        hf_note("committed file %lld (%s, %d records)", (long long)c->file_id, c->key, c->count);
    }
    hf_reply(m, DISKLESS_COMMIT_ACK, NULL, 0);
}

static void list(metadata_store *s, const hf_msg *m) {
    const diskless_list_request *req = m->data;
    diskless_list_reply r = {0};
    for (int i = req->from; i < s->count && r.count < DISKLESS_LIST_MAX; i++) r.entries[r.count++] = s->entries[i];
    hf_reply(m, DISKLESS_LIST_REPLY, &r, sizeof r);
}

void diskless_metadata(void *arg) {
    (void)arg;
    metadata_store *s = hf_alloc(sizeof *s);
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        switch (m.kind) {
        case DISKLESS_COMMIT: commit(s, &m); break;
        case DISKLESS_LIST: list(s, &m); break;
        default: assert(!"the metadata store gets no such request");
        }
    }
}
