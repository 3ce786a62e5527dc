/*
 * logread.h — discovery logs read back (the format is in discovery.h):
 * every line checked, an error naming file, line and byte offset, and the
 * processes of one campaign merged into one series of points, whether they
 * appended to one file or wrote one file each.
 *
 * Merging, point by point in wall-clock order: executions, logical time and
 * crashes add up over the processes; distinct behaviours, f1 and f2 come
 * from the union of the processes' seen lines and are exact (each process
 * logs a behaviour's first, second and third sighting, and that is all f1
 * and f2 need).  The seen lines a stats line accounts for count from that
 * stats line on, so a merged point is only as fine-grained as the lines.
 */
#ifndef HF_LOGREAD_H
#define HF_LOGREAD_H

#include "estimate.h"
#include "sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the facts lines of a campaign say (discovery.h), merged.  A log
 * without them (an older one) leaves these unknown, not zero. */
enum { HF_CATEGORIES = 7 };          /* 0: unknown, then hf_feature_kind 1..6 */

typedef struct hf_log_prop {         /* one property, merged by kind, file, line and message */
    char kind[24];
    char file[512];                  /* any field fits: a line is below 512 bytes */
    int line;
    char message[512];
    uint64_t evaluated, held, failed;    /* runs, summed over the processes */
    uint64_t first_held;             /* campaign execution that first held it; 0 = never */
} hf_log_prop;

typedef struct hf_log_fault {        /* one fault kind, summed over the processes */
    uint64_t allowed, enabled, injected;
} hf_log_fault;

typedef struct hf_log_crash {
    uint64_t execution;              /* of the campaign (approximate for several processes) */
    double wall_s;                   /* of the stats line that followed it */
    char outcome[32];
    long property;                   /* index into props, or -1 */
    char sha1[41];
    char file[512];                  /* where the engine wrote the input; "" unknown */
    char message[512];
} hf_log_crash;

typedef struct hf_campaign_facts {
    size_t processes;                /* with a facts line; the rest are unknown */
    hf_log_prop *props;
    size_t prop_count;
    hf_log_fault faults[HF_FAULT_KIND_COUNT];
    hf_log_crash *crashes;
    size_t crash_count;
    uint64_t (*categories)[HF_CATEGORIES];   /* per point: distinct behaviours by category */
} hf_campaign_facts;

typedef struct hf_campaign {
    char target[64];
    char engines[64];        /* "libFuzzer", "AFL++", or both joined by '+' */
    size_t processes;        /* start lines */
    size_t instances;        /* engine instances: an AFL++ instance's fork-server children are one */
    hf_progress *points;     /* one per stats line, merged; wall_s from the earliest start */
    size_t count;
    size_t skipped;          /* bad lines skipped */
    char first_skipped[512]; /* the error the first one would have raised */
    hf_campaign_facts facts; /* for `heisenfuzz report` */
    uint64_t *behaviour_ids; /* the distinct behaviours in the order the merge first counted them:
                              * point i accounts for the first points[i].behaviours */
} hf_campaign;

/* The campaign's size in words, "1 process", "6 processes" or, when every
 * process is AFL++'s, "2 instances" (its fork-server children counted as
 * the instance they serve). */
void hf_campaign_size(const hf_campaign *c, char *out, size_t size);

/* Reads and merges the logs in `paths`.  Returns 0, or -1 with a one-line
 * error ("FILE:LINE (byte OFFSET): what was wrong") in `error`: at the
 * first bad line, or, with `skip_bad`, only when the logs cannot be merged
 * at all (different targets, no stats line left).  Bad lines: a line cut
 * short (no newline at the end of the file), an unknown kind, a wrong
 * number of fields, a field that does not parse, a process not started,
 * counts that go backwards or contradict each other. */
int hf_campaign_read(hf_campaign *c, const char *const *paths, size_t npaths, bool skip_bad,
                     char *error, size_t error_size);
void hf_campaign_free(hf_campaign *c);

#endif
