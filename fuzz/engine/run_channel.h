/*
 * run_channel.h — the runs of an AFL++ fuzzer, handed to its decision
 * mutator.
 *
 * Under libFuzzer the mutator lives in the process that runs the target and
 * learns every run (hf_mutator_observe).  Under AFL++ it lives in afl-fuzz
 * (mutator_afl.c) and the target runs in the fork server's children, so
 * without help it knows only the inputs it runs again itself: one extra
 * execution per queue entry, and nothing of the runs AFL++ made of its
 * mutants.  The channel is a shared mapping the library creates before
 * afl-fuzz starts the target and names in the environment the target
 * inherits (HEISENFUZZ_RUN_CHANNEL, a file descriptor); the fuzzer writes
 * each run there (its input, its decision log, the deviations it took,
 * its behaviour features, its code coverage and its reads-from pairs),
 * and the library reads the last one each time AFL++ asks it for a
 * mutation.  AFL++ never runs the
 * target while its mutator works, so one slot is enough.
 */
#ifndef HF_RUN_CHANNEL_H
#define HF_RUN_CHANNEL_H

#include "mutate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The mutator's end.  Creates the channel and puts its name in the
 * environment; returns false with a message in `error` when it cannot. */
bool hf_channel_create(char *error, size_t error_size);

/* Points `run` at the run written last, if it is one not received before
 * (and was written whole); its contents stay valid until the next run. */
bool hf_channel_receive(hf_run_view *run);

void hf_channel_close(void);

/* The fuzzer's end: whether a mutator library asked for its runs. */
bool hf_channel_connected(void);

/* Code coverage features a run hands over at most (AFL++'s map has 64 Ki
 * edges; the targets reach a few hundred). */
enum { HF_CHANNEL_CODE_MAX = 1 << 14 };

/* Writes one run to the channel, with `code_count` code coverage features
 * and `pair_count` reads-from pairs (at most HF_READS_FROM_PAIRS_KEPT).
 * An input longer than the channel holds is not sent: the mutator then
 * runs it itself, as without a channel. */
void hf_channel_send(const uint8_t *data, size_t size, const hf_decision_log *log, const hf_decider *d,
                     const hf_features *f, const uint64_t *code, uint32_t code_count,
                     const hf_reads_from_pair *pairs, uint32_t pair_count);

#endif
