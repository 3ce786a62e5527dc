/*
 * shared_corpus.h — a directory through which the processes of one
 * campaign hand each other the inputs that showed them something new.
 *
 * AFL++'s instances share their queues, but under the decision mutator
 * library (mutator_afl.c) the queue stays empty: each library keeps its own
 * corpus.  So that `heisenfuzz fuzz --engine afl --jobs N` stays one
 * campaign rather than N, each library puts its new inputs in a directory
 * named by HEISENFUZZ_SHARED_CORPUS and takes the others' from it now and
 * then, as libFuzzer's workers share a corpus directory.
 *
 * A process names its files PID-N, N counting from 0, each written whole
 * (temporary file, then rename), so a reader needs to remember only the
 * next N of each other process to take each file once.
 */
#ifndef HF_SHARED_CORPUS_H
#define HF_SHARED_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hf_shared_corpus hf_shared_corpus;

/* Opens (making it if need be) the directory; NULL with a one-line reason
 * in `error` when it cannot. */
hf_shared_corpus *hf_shared_open(const char *dir, char *error, size_t error_size);

/* Adds an input for the other processes; false when it could not be
 * written (the campaign goes on without sharing it). */
bool hf_shared_put(hf_shared_corpus *s, const uint8_t *data, size_t size);

/* Hands `take` each input the other processes added since the last call,
 * as an allocation `take` owns; returns how many. */
typedef void hf_shared_take_fn(void *context, uint8_t *data, size_t size);
uint32_t hf_shared_take(hf_shared_corpus *s, hf_shared_take_fn *take, void *context);

void hf_shared_close(hf_shared_corpus *s);

#endif
