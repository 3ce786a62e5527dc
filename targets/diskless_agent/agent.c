/*
 * agent.c — the diskless agent: buffer, flush, commit, acknowledge.
 *
 *   receiver   takes Produce requests into the open buffer;
 *   flusher    every buffer_ns seals the buffer into a file and flushes it
 *              to the object store: a PUT, and if that PUT is still
 *              running after hedge_after_ns a speculative twin of it (the
 *              same object under the same key); a file whose PUTs all
 *              failed is flushed again after put_retry_ns;
 *   committer  every commit_poll_ns (a ticker) takes the flushed files,
 *              commits each to the metadata store, then acknowledges its
 *              records to their producers.
 *
 * A file goes  SEALED -> FLUSHING -> FLUSHED -> COMMITTING -> COMMITTED,
 * and FLUSHING -> FAILED -> FLUSHING when its PUTs fail.  Only a FLUSHED
 * file — in the object store — may be committed.
 *
 * The bug (buggy variant, put_done): when speculative retry came in, the
 * end of a PUT was made to mark the file FLUSHED at once — "first one back
 * wins", which also stops the twin — and only afterwards to look at the
 * PUT's status and, on failure, take the mark back.  Between those two
 * state transitions the handler logs the failure and takes the agent's
 * lock again: a committer polling at that instant commits a file that is
 * not in the object store and acknowledges its records.  The fix: the
 * status is looked at first, in one critical section: only a successful
 * PUT marks the file FLUSHED.
 */
#include "diskless.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

typedef enum file_state {
    FILE_SEALED, FILE_FLUSHING, FILE_FLUSHED, FILE_FAILED, FILE_COMMITTING, FILE_COMMITTED
} file_state;

static const char *const file_state_names[] = {"SEALED", "FLUSHING", "FLUSHED", "FAILED", "COMMITTING", "COMMITTED"};

typedef struct agent_file {
    int64_t id;
    char key[32];
    file_state state;
    int puts_running;
    int flushes;                        /* flushes started (the first, then retries) */
    int puts;                           /* PUTs started, for their tasks' names */
    uint64_t retry_at;                  /* FAILED: flush again then (node clock) */
    diskless_file content;
    int producers[DISKLESS_FILE_MAX_RECORDS];     /* node of each record: acknowledged after the commit */
} agent_file;

typedef struct agent {
    diskless_world *world;
    const diskless_options *o;
    hf_mutex lock;                      /* guards files and the open buffer */
    hf_cond flush_due;                  /* a flush failed: the flusher plans its retry */
    agent_file files[DISKLESS_MAX_FILES];
    int file_count;
    agent_file open;                    /* the buffer being filled */
} agent;

typedef struct put_attempt {
    agent *a;
    agent_file *f;
    int number;                         /* 1: the PUT, 2: its speculative twin, ... */
} put_attempt;

static void set_state(agent_file *f, file_state s) {
    hf_note("file %lld: %s -> %s", (long long)f->id, file_state_names[f->state], file_state_names[s]);
    f->state = s;
}

/* ---- Flushing ---------------------------------------------------------------- */

/* Every PUT of `f` failed (lock held): flush it again after put_retry_ns. */
static void failed(agent *a, agent_file *f) {
    hf_sometimes(true, "every PUT of a file failed and it was flushed again");
    f->retry_at = hf_clock() + a->o->put_retry_ns;
    hf_cond_signal(&a->flush_due);
}

static void put_done(agent *a, agent_file *f, hf_store_status status) {
    if (a->o->put_errors_checked_first) {
        hf_mutex_lock(&a->lock);
        f->puts_running--;
        if (f->state == FILE_FLUSHING) {
            if (status == HF_STORE_OK) set_state(f, FILE_FLUSHED);
            else if (f->puts_running == 0) set_state(f, FILE_FAILED);
        }
        if (f->state == FILE_FAILED) failed(a, f);
        hf_mutex_unlock(&a->lock);
        return;
    }
    hf_mutex_lock(&a->lock);
    f->puts_running--;
    if (f->state == FILE_FLUSHING) set_state(f, FILE_FLUSHED);   /* first one back wins */
    hf_mutex_unlock(&a->lock);
    if (status != HF_STORE_OK) {
        hf_note("PUT %s failed (%s)", f->key, hf_store_status_name(status));
        hf_mutex_lock(&a->lock);
        if (f->state == FILE_FLUSHED) {
            set_state(f, f->puts_running ? FILE_FLUSHING : FILE_FAILED);
            if (f->state == FILE_FAILED) failed(a, f);
        }
        hf_mutex_unlock(&a->lock);
    }
}

static void put_task(void *arg) {
    put_attempt *p = arg;
    hf_store_status status = hf_store_put(p->f->key, &p->f->content, sizeof p->f->content, p->a->o->put_timeout_ns);
    put_done(p->a, p->f, status);
}

static void start_put(agent *a, agent_file *f, int number) {
    put_attempt *p = hf_alloc(sizeof *p);
    *p = (put_attempt){a, f, number};
    f->puts_running++;
    hf_spawn(hf_printf("agent.put-%lld.%d", (long long)f->id, ++f->puts), put_task, p);
}

typedef struct hedge {
    agent *a;
    agent_file *f;
    int flush;                          /* the flush it hedges: later ones are not its business */
} hedge;

/* A PUT still running after hedge_after_ns gets a speculative twin. */
static void hedge_task(void *arg) {
    hedge *h = arg;
    hf_sleep(h->a->o->hedge_after_ns);
    hf_mutex_lock(&h->a->lock);
    if (h->f->flushes == h->flush && h->f->state == FILE_FLUSHING && h->f->puts_running == 1) {
        hf_note("PUT %s still running after %llu ms: speculative retry", h->f->key,
                (unsigned long long)(h->a->o->hedge_after_ns / HF_MS));
        hf_sometimes(true, "a slow PUT got a speculative twin");
        start_put(h->a, h->f, 2);
    }
    hf_mutex_unlock(&h->a->lock);
}

/* Starts a flush of `f` (lock held): one PUT now, its twin if it is slow. */
static void flush(agent *a, agent_file *f) {
    set_state(f, FILE_FLUSHING);
    f->flushes++;
    start_put(a, f, 1);
    hedge *h = hf_alloc(sizeof *h);
    *h = (hedge){a, f, f->flushes};
    hf_spawn(hf_printf("agent.hedge-%lld.%d", (long long)f->id, f->flushes), hedge_task, h);
}

static void seal(agent *a) {
    if (a->open.content.count == 0) return;
    assert(a->file_count < DISKLESS_MAX_FILES);
    agent_file *f = &a->files[a->file_count++];
    *f = a->open;
    f->id = a->file_count;
    snprintf(f->key, sizeof f->key, "segments/%06lld", (long long)f->id);
    f->state = FILE_SEALED;
    memset(&a->open, 0, sizeof a->open);
    hf_note("file %lld sealed: %d records", (long long)f->id, f->content.count);
    flush(a, f);
}

static uint64_t next_tick(uint64_t now, uint64_t period) { return (now / period + 1) * period; }

static void flusher(void *arg) {
    agent *a = arg;
    uint64_t next_seal = next_tick(hf_clock(), a->o->buffer_ns);
    hf_mutex_lock(&a->lock);
    for (;;) {
        uint64_t now = hf_clock();
        if (now >= next_seal) {
            seal(a);
            next_seal = next_tick(now, a->o->buffer_ns);
        }
        uint64_t wake = next_seal;
        for (int i = 0; i < a->file_count; i++) {
            agent_file *f = &a->files[i];
            if (f->state == FILE_FAILED && f->retry_at <= now) flush(a, f);
            else if (f->state == FILE_FAILED && f->retry_at < wake) wake = f->retry_at;
        }
        hf_cond_wait_for(&a->flush_due, &a->lock, wake - now);   /* or a flush failed */
    }
}

/* ---- Committing ----------------------------------------------------------------- */

static void commit(agent *a, agent_file *f) {
    diskless_commit c = {.file_id = f->id, .count = f->content.count};
    snprintf(c.key, sizeof c.key, "%s", f->key);
    memcpy(c.records, f->content.records, (size_t)f->content.count * sizeof c.records[0]);
    hf_msg reply;
    while (!hf_call(a->world->metadata, DISKLESS_COMMIT, &c, sizeof c, a->o->call_timeout_ns, &reply)) {}
    hf_mutex_lock(&a->lock);
    set_state(f, FILE_COMMITTED);
    hf_mutex_unlock(&a->lock);
    hf_note("file %lld committed: acknowledge its %d records", (long long)f->id, f->content.count);
    for (int i = 0; i < f->content.count; i++) {
        diskless_produce ack = {f->content.records[i]};
        hf_send(f->producers[i], DISKLESS_PRODUCE_ACK, &ack, sizeof ack);
    }
}

static void committer(void *arg) {
    agent *a = arg;
    for (;;) {
        uint64_t now = hf_clock();
        hf_sleep(next_tick(now, a->o->commit_poll_ns) - now);
        agent_file *ready[DISKLESS_MAX_FILES];
        int n = 0;
        hf_mutex_lock(&a->lock);
        for (int i = 0; i < a->file_count; i++)
            if (a->files[i].state == FILE_FLUSHED) {
                set_state(&a->files[i], FILE_COMMITTING);
                ready[n++] = &a->files[i];
            }
        hf_mutex_unlock(&a->lock);
        for (int i = 0; i < n; i++) commit(a, ready[i]);
    }
}

/* ---- Receiving ------------------------------------------------------------------ */

void diskless_agent(void *arg) {
    agent *a = hf_alloc(sizeof *a);
    a->world = arg;
    a->o = &a->world->options;
    hf_mutex_init(&a->lock, "agent");
    hf_cond_init(&a->flush_due, "flush due");
    hf_spawn("agent.flusher", flusher, a);
    hf_spawn("agent.committer", committer, a);
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        assert(m.kind == DISKLESS_PRODUCE);
        const diskless_produce *req = m.data;
        hf_mutex_lock(&a->lock);
        if (a->open.content.count == DISKLESS_FILE_MAX_RECORDS) seal(a);
        a->open.producers[a->open.content.count] = m.from;
        a->open.content.records[a->open.content.count++] = req->record;
        hf_mutex_unlock(&a->lock);
    }
}
