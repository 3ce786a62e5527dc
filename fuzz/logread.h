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

#include <stdbool.h>
#include <stddef.h>

typedef struct hf_campaign {
    char target[64];
    char engines[64];        /* "libFuzzer", "AFL++", or both joined by '+' */
    size_t processes;        /* start lines */
    hf_progress *points;     /* one per stats line, merged; wall_s from the earliest start */
    size_t count;
    size_t skipped;          /* bad lines skipped */
    char first_skipped[512]; /* the error the first one would have raised */
    uint64_t *behaviour_ids; /* the distinct behaviours in the order the merge first counted them:
                              * point i accounts for the first points[i].behaviours */
} hf_campaign;

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
