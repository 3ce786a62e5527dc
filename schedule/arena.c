/*
 * arena.c — a bump allocator over a list of chunks.
 */
#include "arena.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_SIZE = 64 * 1024 };

struct hf_arena_chunk {
    hf_arena_chunk *next;
    size_t size;          /* usable bytes in data */
    size_t used;
    alignas(max_align_t) unsigned char data[];
};

static hf_arena_chunk *chunk_new(size_t size) {
    hf_arena_chunk *c = malloc(sizeof *c + size);
    if (!c) {
        fprintf(stderr, "heisenfuzz: out of memory allocating %zu bytes for the run\n", size);
        abort();
    }
    c->next = NULL;
    c->size = size;
    c->used = 0;
    return c;
}

void *hf_arena_alloc(hf_arena *a, size_t size) {
    size_t align = alignof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    hf_arena_chunk *c = a->chunks;
    if (!c || c->size - c->used < size) {
        if (a->spare && a->spare->size >= size) {
            c = a->spare;
            a->spare = c->next;
        } else {
            c = chunk_new(size > CHUNK_SIZE ? size : CHUNK_SIZE);
        }
        c->used = 0;
        c->next = a->chunks;
        a->chunks = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

void hf_arena_reset(hf_arena *a) {
    while (a->chunks) {
        hf_arena_chunk *c = a->chunks;
        a->chunks = c->next;
        if (c->size == CHUNK_SIZE) {     /* odd-sized ones are not worth keeping */
            c->next = a->spare;
            a->spare = c;
        } else {
            free(c);
        }
    }
}

void hf_arena_free(hf_arena *a) {
    hf_arena_reset(a);
    while (a->spare) {
        hf_arena_chunk *c = a->spare;
        a->spare = c->next;
        free(c);
    }
}
