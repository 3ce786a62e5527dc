/*
 * diskless.h — what the parts of the diskless_agent model share: the wire,
 * the options, the file format in the object store, and the oracle.
 *
 * Producers send records to an agent; the agent buffers them, writes each
 * batch of buffers as one file to the object store, commits the file to a
 * metadata store, and only then acknowledges the records.  A reader, as a
 * consumer would, lists the metadata and reads the files back.
 */
#ifndef DISKLESS_H
#define DISKLESS_H

#include "sim.h"

enum { DISKLESS_MAX_RECORDS = 256, DISKLESS_MAX_FILES = 64, DISKLESS_FILE_MAX_RECORDS = 64 };

typedef enum diskless_kind {
    DISKLESS_PRODUCE, DISKLESS_PRODUCE_ACK,
    DISKLESS_COMMIT, DISKLESS_COMMIT_ACK,
    DISKLESS_LIST, DISKLESS_LIST_REPLY,
    DISKLESS_KIND_COUNT
} diskless_kind;

extern const char *const diskless_kind_names[DISKLESS_KIND_COUNT];

typedef struct diskless_produce {
    int64_t record;                     /* the record's number: unique in the run */
} diskless_produce;

/* A file in the object store: its records, one after another. */
typedef struct diskless_file {
    int count;
    int64_t records[DISKLESS_FILE_MAX_RECORDS];
} diskless_file;

/* The metadata store's entry for a committed file. */
typedef struct diskless_commit {
    int64_t file_id;
    char key[32];                       /* the object's key */
    int count;                          /* records in it */
    int64_t records[DISKLESS_FILE_MAX_RECORDS];
} diskless_commit;

enum { DISKLESS_LIST_MAX = 16 };

typedef struct diskless_list_request {
    int from;                           /* first entry wanted (0-based) */
} diskless_list_request;

typedef struct diskless_list_reply {
    int count;
    diskless_commit entries[DISKLESS_LIST_MAX];
} diskless_list_reply;

typedef struct diskless_options {
    bool put_errors_checked_first;      /* the fix: a failed PUT never marks the file flushed */
    int producers;
    int records_per_producer;
    uint64_t produce_interval_ns;       /* between two records of a producer, ns */
    uint64_t produce_timeout_ns;        /* a producer gives up waiting for an ack, ns */
    uint64_t buffer_ns;                 /* the agent buffers this long before a flush, ns */
    uint64_t put_timeout_ns;            /* a PUT unanswered this long has failed (effect unknown), ns */
    uint64_t hedge_after_ns;            /* a PUT still running this long gets a speculative twin, ns */
    uint64_t put_retry_ns;              /* a failed flush is retried after, ns */
    uint64_t commit_poll_ns;            /* the committer looks for flushed files this often, ns */
    uint64_t call_timeout_ns;           /* metadata calls are resent after, ns */
    uint64_t read_poll_ns;              /* the reader lists new files this often, ns */
} diskless_options;

/* What the test knows and no node does. */
typedef struct diskless_oracle {
    int64_t records_sent;
    bool acked[DISKLESS_MAX_RECORDS];   /* acknowledged to its producer */
    int reads[DISKLESS_MAX_RECORDS];    /* times the reader found it in a committed file */
    int64_t acked_count, read_count;
} diskless_oracle;

typedef struct diskless_world {
    diskless_options options;
    int agent, metadata, reader;        /* nodes */
    int producer_nodes[8];
    diskless_oracle oracle;
} diskless_world;

typedef struct diskless_producer_arg {
    diskless_world *world;
    int index;
} diskless_producer_arg;

void diskless_agent(void *arg);         /* arg: diskless_world */
void diskless_metadata(void *arg);      /* arg: diskless_world */
void diskless_producer(void *arg);      /* arg: diskless_producer_arg */
void diskless_reader(void *arg);        /* arg: diskless_world */

/* The reader's verdict on a committed file, read back or found missing
 * (diskless_agent.c holds the invariant). */
void diskless_check_file(diskless_world *w, const diskless_commit *c, const diskless_file *f);
void diskless_check_missing(diskless_world *w, const diskless_commit *c);

#endif
