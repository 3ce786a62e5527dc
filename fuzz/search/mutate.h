/*
 * mutate.h — the decision-aware mutator that libFuzzer (LLVMFuzzerCustomMutator,
 * LLVMFuzzerCustomCrossOver: fuzz/engine/harness.c) and AFL++ (a custom mutator
 * library: fuzz/engine/mutator_afl.c) use in place of their byte mutations, or
 * beside them.
 *
 * Byte mutation of the decision stream starts every search from the calm run
 * and must place each deviation at the right index among hundreds.  This
 * mutator knows the records of an input and the decisions its run took
 * (decide.h's hf_decision_log: what each decision was about, how many value
 * bytes it reads, where a behaviour new to the campaign first showed), and
 * mutates at that level:
 *
 *   fresh      a new generator record for the whole run (a random schedule
 *              of a random kind and intensity: what a blind strategy does)
 *   reseed     another seed for one of the input's generators
 *   retune     another intensity, kind or stretch for one of them
 *   continue   keep the run up to a moment — where it first showed a new
 *              behaviour, or anywhere — and hand the rest to a fresh
 *              generator (a commercial simulator's "go back and branch")
 *   add        a deviation at a decision chosen by what it is about
 *   drop, change, move   an explicit deviation
 *   simplify   the run as explicit deviations, less one of them
 *   aim        bring the world fault pending at a moment the target
 *              declared (a state changed, a `sometimes` held) to just
 *              after it, a few µs to a few ms on a log scale, and hand the
 *              rest of the run to a fresh generator: the crash between an
 *              acknowledgement and the write it promised, which a fault
 *              decided long before that moment almost never hits
 *   rewind     the way the calmest run took to the rarest `sometimes` (or
 *              `reachable`) seen to hold in this process, cut a few to a
 *              few dozen decisions before it, and a fresh generator from
 *              there: more tries at the step after the furthest one the
 *              campaign has reached, whatever input the engine chose
 *   splice     one input's decisions up to a moment, another's after it
 *   bytes      the engine's own byte mutation, as a share
 *
 * A process's first eight mutations are all fresh generators: mutating the
 * calm run and a few schedules that did not fail is worse than drawing new
 * ones (the reasons and figures at FRESH_FIRST in mutate.c).
 *
 * To know an input's decisions the mutator needs its run.  The harness hands
 * it every run it makes (hf_mutator_observe); an input it has not seen it
 * runs itself, and counts those runs (hf_mutator_runs), since they are
 * executions as much as the engine's own.  Under AFL++ the target runs in
 * another process, which hands each run over through a shared mapping
 * (run_channel.h) to hf_mutator_observe_run, so there too the mutator
 * learns every run the engine makes.
 */
#ifndef HF_MUTATE_H
#define HF_MUTATE_H

#include "behaviour.h"
#include "decide.h"
#include "hf.h"
#include "records.h"
#include "run.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum hf_mutation_kind {
    HF_MUT_FRESH, HF_MUT_ORDER, HF_MUT_RESEED, HF_MUT_RETUNE, HF_MUT_CONTINUE, HF_MUT_ADD, HF_MUT_DROP, HF_MUT_CHANGE,
    HF_MUT_MOVE, HF_MUT_SIMPLIFY, HF_MUT_AIM, HF_MUT_REWIND, HF_MUT_SPLICE, HF_MUT_BYTES, HF_MUT_KINDS
} hf_mutation_kind;

/* What a mutation made, so that a test can check the mutant decodes to it. */
typedef struct hf_mutation {
    hf_mutation_kind kind;
    uint32_t count;          /* items (unused for bytes) */
    hf_item item[HF_ITEMS_MAX];
} hf_mutation;

/* Byte mutation of the engine, as LLVMFuzzerMutate. */
typedef size_t hf_byte_mutator(uint8_t *data, size_t size, size_t max_size);

/* The mutator for one target; one per process (a second call forgets what
 * was learnt of the first target's runs). */
void hf_mutator_init(const hf_target *t);

/* Whether behaviour features steer the search: the engine's feedback
 * (feedback.c) and this mutator's use of them (continuing from where a run
 * showed new behaviour, aiming a fault at a state change).
 * HEISENFUZZ_FEATURES=0 in the environment turns both off, so that a
 * campaign can be compared with code coverage alone. */
bool hf_behaviour_steers(void);

/* The log a run hands to hf_mutator_observe (hf_run_logged fills it). */
hf_decision_log *hf_mutator_log(void);

/* Called after every run of an input with the log given to hf_run_logged:
 * remembers its decisions, and notes behaviour new to this process. */
void hf_mutator_observe(const uint8_t *data, size_t size);

/* One run as the mutator learns from it: the input, the log hf_run_logged
 * filled, the deviations the run took, the behaviour it showed and the
 * reads-from pairs it made (the ORDER mutation's and the constrained
 * generators' material). */
typedef struct hf_run_view {
    const uint8_t *data;
    size_t size;
    const hf_decision_log *log;
    const hf_deviation *taken;   /* the first min(deviations, HF_DEVIATIONS_KEPT) */
    uint32_t deviations;
    const hf_features *features;
    const uint64_t *code;        /* the target's code coverage as features, when the engine's */
    uint32_t code_count;         /* map is not the judge of it (run_channel.h); else none */
    const hf_reads_from_pair *pairs;   /* hf_last_reads_from's, of that run */
    uint32_t pair_count;
} hf_run_view;

/* As hf_mutator_observe, for a run another process made (run_channel.h);
 * returns whether the run showed behaviour or code new to this process. */
bool hf_mutator_observe_run(const hf_run_view *run);

/* Mutates data[0..size) in place into at most max_size bytes; returns the
 * new size.  `seed` drives every random choice; `bytes` (may be NULL) is
 * the engine's byte mutator.  `claim` (may be NULL) receives what was made. */
size_t hf_mutator_mutate(uint8_t *data, size_t size, size_t max_size, uint32_t seed, hf_byte_mutator *bytes,
                         hf_mutation *claim);

/* Makes every later hf_mutator_mutate try mutations of one kind (one that
 * does not apply to an input still falls back to a fresh generator), or,
 * given HF_MUT_KINDS, of every kind at its share again: for tests that
 * must see each kind, whatever its share. */
void hf_mutator_force_kind(hf_mutation_kind kind);

/* Writes to `out` (at most max_size bytes) a splice of a and b at a
 * decision boundary; returns its size, 0 when none could be made (and
 * during the first mutations, which are fresh generators). */
size_t hf_mutator_cross(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out,
                        size_t max_size, uint32_t seed, hf_mutation *claim);

/* Runs the mutator made itself to learn inputs it had not seen. */
uint64_t hf_mutator_runs(void);

/* Writes one line, "stat::heisenfuzz_shares:", then for each mutation kind
 * and each fresh generator kind tried so far NAME=FINDS/TRIES (the
 * generators' names after "gen-"): what the shares that learn have seen. */
void hf_mutator_print_shares(FILE *out);

#endif
