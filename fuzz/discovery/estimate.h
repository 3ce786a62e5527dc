/*
 * estimate.h — what a campaign's species counts say about its future: the
 * Good-Turing discovery rate, the Chao1 richness estimate, and the
 * plateau rule (README.md, "Plateau: when to stop").
 *
 * Greybox fuzzing is adaptive: it breeds inputs that showed something new,
 * so executions are not independent draws from one distribution and both
 * estimators are indications, not truths.  The plateau rule therefore
 * never rests on them alone: it also asks the raw discovery curve.
 */
#ifndef HF_ESTIMATE_H
#define HF_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

/* A campaign (one process, or several merged) at one moment. */
typedef struct hf_progress {
    double wall_s;           /* wall-clock seconds since the campaign began */
    uint64_t executions;     /* runs of the target */
    uint64_t logical_ns;     /* logical time simulated by all those runs */
    uint64_t behaviours;     /* distinct behaviours (behaviour features): S(n) */
    uint64_t f1;             /* behaviours seen in exactly one run */
    uint64_t f2;             /* behaviours seen in exactly two runs */
    uint64_t crashes;        /* failed runs */
} hf_progress;

/* f1/n: how many behaviours never seen before the next execution is
 * expected to show (a run shows a set of behaviours, so early in a
 * campaign this can exceed 1; later it is about the chance that the next
 * run shows anything new).  1 before the first execution. */
double hf_good_turing(uint64_t f1, uint64_t executions);

/* Chao1: S + f1²/(2·f2), or S + f1(f1−1)/2 when f2 = 0 — an estimate of
 * how many behaviours are reachable at all, a lower bound in theory. */
double hf_chao1(uint64_t behaviours, uint64_t f1, uint64_t f2);

/* The rule's parameters; README.md gives the reasoning. */
#define HF_PLATEAU_GROWTH 10                   /* the effort grew tenfold since the last new behaviour:
                                                * the last 9/10 of it found nothing */
#define HF_PLATEAU_MAX_EXPECTED_NEW 1.0        /* by Good-Turing, in another such stretch */
#define HF_PLATEAU_MIN_EXECUTIONS 30000        /* before that, a search is still starting up */

/* Follows a campaign point by point (each discovery-log line, or each
 * point of merged logs) and says whether the plateau rule holds. */
typedef struct hf_plateau {
    bool started;
    hf_progress quiet_since; /* the first point with today's count of behaviours */
    bool holds;              /* the rule holds at the latest point */
} hf_plateau;

/* Feeds the next point; points must come in order (no count decreases). */
void hf_plateau_update(hf_plateau *p, const hf_progress *now);

#endif
