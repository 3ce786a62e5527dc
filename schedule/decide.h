/*
 * decide.h — the decision stream: fuzzer bytes in, decisions out.
 *
 * Every nondeterministic choice of a run (which task runs next, is this
 * message dropped, how long is this delay, the workload's own randomness) is
 * a decision with a default.  The input bytes store only the decisions that
 * deviate from their default, so that the empty input is the undisturbed
 * schedule, a shorter input is a simpler schedule, and one mutated byte
 * changes one decision (PCT's observation: real bugs need few, well-placed
 * deviations).
 *
 * Format.  The input is a sequence of records:
 *
 *     record := skip:u8 value:u8[w]
 *
 *   skip < 255   the next `skip` decisions take their default; the decision
 *                after them deviates, reading `w` value bytes (little-endian)
 *   skip == 255  255 decisions take their default; no deviation; next record
 *
 * `w` is set by the deviating decision: 0 for a yes/no (a deviation flips
 * it), the bytes needed for (hi - lo) for a choice in [lo, hi], 8 for a
 * 64-bit workload value.  For a choice, value v selects
 *     lo + (dflt - lo + 1 + v mod (hi - lo)) mod (hi - lo + 1)
 * which is never the default, so every deviation deviates.  Bytes missing at
 * the end of the input read as 0; after the last record every decision takes
 * its default.  Hence every byte string is a valid schedule.
 *
 * A choice with a single option (lo == hi) is not a decision: it reads
 * nothing.  The stream records each deviation it took (its decision index
 * and value), so a run can be re-encoded — the minimizer edits that list.
 *
 * Instead of bytes, a strategy (uniform random, PCT: fuzz/strategy.c) may
 * take the decisions.  They are recorded the same way, so a run driven by a
 * strategy re-encodes into an ordinary input file that replays it.
 */
#ifndef HF_DECIDE_H
#define HF_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One deviation from the default, as the run took it. */
typedef struct hf_deviation {
    uint64_t index;      /* which decision of the run (0-based) */
    uint64_t value;      /* the raw value read from the bytes */
    uint8_t width;       /* value bytes it read: 0 (yes/no), 1..8 */
} hf_deviation;

enum { HF_DEVIATIONS_KEPT = 1024 };   /* deviations recorded per run */

typedef struct hf_strategy hf_strategy;
struct hf_strategy {
    /* Returns the value of a decision in [lo, hi] whose default is `dflt`.
     * For a choice of the next task, `tasks` lists the ids of the options in
     * order (hi - lo + 1 of them); for any other decision it is NULL. */
    uint64_t (*decide)(hf_strategy *s, uint64_t lo, uint64_t hi, uint64_t dflt, const int *tasks);
};

typedef struct hf_decider {
    const uint8_t *data;
    size_t size;
    size_t pos;              /* next unread byte */
    uint64_t index;          /* decisions made so far */
    uint64_t next_deviation; /* index of the next deviating decision, or UINT64_MAX */
    uint32_t deviations;     /* deviations taken */
    hf_strategy *strategy;   /* when set, it decides instead of the bytes */
    const int *task_options; /* set by the scheduler around a choice of task */
    hf_deviation taken[HF_DEVIATIONS_KEPT];
} hf_decider;

void hf_decider_init(hf_decider *d, const uint8_t *data, size_t size);
void hf_decider_init_strategy(hf_decider *d, hf_strategy *strategy);

/* The bytes that replay the decisions taken so far (see
 * hf_encode_deviations); NULL-safe counts as for that function. */
size_t hf_decider_encode(const hf_decider *d, uint8_t *out, size_t cap);

/* A value in [lo, hi]; `dflt` (within the range) when undisturbed. */
uint64_t hf_decide_range(hf_decider *d, uint64_t lo, uint64_t hi, uint64_t dflt);

/* Yes or no; `dflt` when undisturbed. */
bool hf_decide_bool(hf_decider *d, bool dflt);

/* Any 64-bit value; `dflt` when undisturbed. */
uint64_t hf_decide_u64(hf_decider *d, uint64_t dflt);

/* Encodes a list of deviations (indices strictly increasing) back into
 * bytes.  Writes at most `cap` bytes and returns the length the whole
 * encoding needs. */
size_t hf_encode_deviations(const hf_deviation *devs, size_t count, uint8_t *out, size_t cap);

#endif
