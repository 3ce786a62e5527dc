/*
 * minimize.h — shrinking a failing schedule to the few decisions that make
 * it fail.
 *
 * Byte-level minimizers (libFuzzer's -minimize_crash, afl-tmin) cut and
 * zero bytes blindly.  Here the bytes are decoded into the deviations the
 * run took (decide.h) and those are delta-debugged: whole groups of
 * deviations are returned to their default (ddmin), single ones with the
 * later ones re-aimed (undoing a pick shifts what the later indices name)
 * to the decisions of the same kind and rank ("the second write's fault")
 * or by a few decisions, then each remaining value is lowered toward 0,
 * the nearest non-default choice, as far as the run still tells the same
 * story (minimize.c).  An edit is kept only when
 * the run still fails the same way (the goal) and the schedule got
 * simpler, so the search always ends, and it ends 1-minimal:
 * undoing any single remaining deviation loses the failure.
 *
 * An input that fails some other way than the goal (a later build added
 * a check that now fires first) is not given up at once: its reductions
 * are searched for one that fails the goal's way, and minimizing goes on
 * from there.  Only the first HF_DEVIATIONS_KEPT deviations of an input
 * can be minimized; the rest are dropped.
 *
 * The search is deterministic: the same input, goal and run budget give the
 * same result.  Only a wall-clock limit can make it stop at a different
 * point, and the result says when that happened.
 */
#ifndef HF_MINIMIZE_H
#define HF_MINIMIZE_H

#include "run.h"

#include <stdbool.h>
#include <stdio.h>

/* The failure a minimized schedule must keep. */
typedef struct hf_goal {
    bool any_outcome;       /* true: any kind of failure with this message */
    hf_outcome outcome;     /* otherwise this kind (never HF_OK) */
    char message[512];      /* hf_result.message: for a property, its sentence */
} hf_goal;

/* The goal a failed run defines: its outcome and message. */
void hf_goal_from_result(hf_goal *g, const hf_result *r);

bool hf_goal_met(const hf_goal *g, const hf_result *r);

/* "property \"the final count ...\"", for messages. */
void hf_goal_describe(const hf_goal *g, char *out, size_t size);

typedef struct hf_minimize_options {
    uint64_t max_runs;       /* runs of the target before stopping; 0 = no limit */
    double max_seconds;      /* wall-clock seconds before stopping; 0 = no limit */
    FILE *progress;          /* a status line per step, or NULL for silence */
    bool contain;            /* each run in a child process (contain.h), for targets whose runs may crash the
                                process; a crash is then the failure "crash (SIGNAL)" of outcome program */
} hf_minimize_options;

typedef enum hf_minimize_status {
    HF_MINIMIZED,            /* the goal reproduced; out holds the result */
    HF_NOT_REPRODUCED,       /* neither the input nor any reduction meets the goal */
} hf_minimize_status;

typedef struct hf_minimized {
    hf_deviation *deviations;   /* malloc'd; the minimized schedule */
    size_t count;
    uint8_t *bytes;             /* malloc'd; its encoding */
    size_t size;
    uint32_t original_deviations;  /* the input's run */
    uint64_t runs;              /* target runs the search used */
    double seconds;             /* wall-clock time the search used */
    bool goal_was_met;          /* the input itself met the goal */
    bool budget_ran_out;        /* stopped by max_runs or max_seconds */
    bool one_minimal;           /* proven: no single deviation can be undone */
} hf_minimized;

/* Minimizes `data` against `goal` under target `t`.  On HF_MINIMIZED, the
 * last hf_run was the minimized schedule (its trace is readable) unless the
 * runs were contained, and `out` must be released with hf_minimized_free. */
hf_minimize_status hf_minimize(const hf_target *t, const hf_goal *goal, const uint8_t *data, size_t size,
                               const hf_minimize_options *options, hf_minimized *out);

void hf_minimized_free(hf_minimized *m);

#endif
