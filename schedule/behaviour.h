/*
 * behaviour.h — what a run *did*, as a set of hashed behaviour features, and
 * the run's signature.
 *
 * Code coverage sees that a line ran, not in which order things happened or
 * which fault hit what.  Features do:
 *   interleaving   at each context switch, the pair (what the task leaving
 *                  had just done, what the task arriving was doing)
 *   state          a target's abstract state transitions (hf_state)
 *   property       each sometimes/reachable that held in this run
 *   reads-from     at each shared load of a target that preempts at its
 *                  accesses, the pair (the load's site, the site of the
 *                  store it read, or none: the first value; sites by their
 *                  number, schedule/profile.c), as reads-from
 *                  fuzzing (RFF) takes it: which write each read saw is
 *                  what a shared-memory bug turns on
 * and the simulated world adds message orders and faults.  "What a task
 * did" is its last traced action with digits removed from its text, so
 * "read 3" and "read 4" are one action and counts do not swamp the set.
 *
 * The signature is an order-insensitive hash of the set: runs that did the
 * same things, interleaved the same ways, are one behaviour class.  The
 * discovery log counts the features themselves as its species, each once
 * per run that shows it: on world targets nearly every run has a signature
 * of its own (`heisenfuzz bench --species`).
 */
#ifndef HF_BEHAVIOUR_H
#define HF_BEHAVIOUR_H

#include <stdbool.h>
#include <stdint.h>

enum { HF_FEATURES_MAX = 4096 };   /* distinct features kept per run */
enum { HF_STATES_MAX = 64 };       /* abstract state variables tracked per run */

typedef struct hf_features {
    uint64_t slot[2 * HF_FEATURES_MAX];   /* open addressing; 0 = empty */
    uint64_t list[HF_FEATURES_MAX];       /* the features, in first-seen order */
    uint64_t first_decision[HF_FEATURES_MAX];   /* decisions taken when each was first seen */
    uint32_t count;
    int state_count;                      /* hf_state: last value of each variable */
    uint64_t state_key[HF_STATES_MAX];
    int64_t state_value[HF_STATES_MAX];
    uint8_t kind[HF_FEATURES_MAX];        /* each feature's hf_feature_kind, in list order */
} hf_features;

typedef enum hf_feature_kind {
    HF_FEAT_INTERLEAVING = 1,
    HF_FEAT_STATE,
    HF_FEAT_PROPERTY,
    HF_FEAT_MESSAGE,
    HF_FEAT_FAULT,
    HF_FEAT_READS_FROM,
} hf_feature_kind;

void hf_features_reset(hf_features *f);
/* "interleaving", "state", "property", "message", "fault", "reads-from";
 * NULL for a value that is not a kind. */
const char *hf_feature_kind_name(int kind);

/* Adds one feature, made of its kind and two numbers. */
void hf_features_add(hf_features *f, hf_feature_kind kind, uint64_t a, uint64_t b);

/* Spreads any 64-bit value over all 64 bits (splitmix64's finalizer): for
 * hashing and indexing by values that may be small or patterned. */
uint64_t hf_mix64(uint64_t x);

/* The hash of a text with its digits left out: an action's identity. */
uint64_t hf_action_hash(uint32_t kind, const char *text);

/* The run's signature: the XOR of its distinct features, mixed, so the
 * same set in any order gives the same value.  Computed on demand: only
 * `heisenfuzz bench --species` counts it. */
uint64_t hf_features_signature(const hf_features *f);

/* The last run's features. */
const hf_features *hf_last_features(void);

#endif
