/*
 * arena.h — memory that lives exactly as long as one run.
 *
 * A target allocates its state here (hf_alloc), so that a run cut short by a
 * failure, or a node whose tasks are killed mid-way, leaks nothing: the next
 * run resets the arena.  Chunks are kept for reuse, so a campaign of
 * millions of runs allocates only on its first runs.
 */
#ifndef HF_ARENA_H
#define HF_ARENA_H

#include <stddef.h>

typedef struct hf_arena_chunk hf_arena_chunk;

typedef struct hf_arena {
    hf_arena_chunk *chunks;   /* in use, newest first */
    hf_arena_chunk *spare;    /* kept from earlier runs */
} hf_arena;

/* Zeroed memory, aligned for any type; aborts when memory is exhausted. */
void *hf_arena_alloc(hf_arena *a, size_t size);
void hf_arena_reset(hf_arena *a);
void hf_arena_free(hf_arena *a);

#endif
