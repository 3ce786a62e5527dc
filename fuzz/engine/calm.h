/*
 * calm.h — which runs' behaviour the engine keeps: the calmer half.
 *
 * A storm (a random walk deviating at every other decision) shows new
 * behaviour in nearly every run, because nearly every run of it is a new
 * interleaving.  Handed to the engine, that novelty fills the corpus with
 * storms, and every mutation that builds on a corpus input (a reseed, a
 * continuation, a splice) inherits one.  The bugs that need an otherwise
 * healthy run lie elsewhere: on kafka_hw_truncation the failing runs of
 * fresh generators have a median of 57 deviations against 253 for all of
 * them.  So the engine gets a run's behaviour features only when fewer than
 * half of the runs so far were calmer; the features still count as seen
 * (the mutator's novelty, the discovery log), and a storm that reaches new
 * code is still kept by the engine's own coverage.
 *
 * Calmer means fewer deviations, compared by bit length: ranks of a few
 * dozen buckets cost nothing per run, and 40 and 45 deviations are one
 * kind of run.
 */
#ifndef HF_CALM_H
#define HF_CALM_H

#include <stdbool.h>
#include <stdint.h>

typedef struct hf_calmness {
    uint64_t runs_by_length[33];   /* runs so far by the bit length of their deviation count */
    uint64_t runs;
} hf_calmness;

/* Counts a run of `deviations`, and says whether it is among the calmer
 * half of the runs counted so far, itself included (the first few runs
 * always are: there is no half yet). */
bool hf_calmness_admits(hf_calmness *c, uint32_t deviations);

#endif
