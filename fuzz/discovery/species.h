/*
 * species.h — how often each species has been seen: the counts behind the
 * discovery estimates (Böhme's STADS: species are sampled by executions).
 * The discovery log's species are behaviour features, each counted once
 * per run that shows it; `bench --species` also counts run signatures and
 * trace hashes, one per run.
 *
 * An open-addressing table of (species, count) that also keeps the three
 * numbers the estimators need — distinct species, and f1 and f2, those
 * seen exactly once and exactly twice — up to date on every sighting, so
 * reading them costs nothing.  It allocates only when it grows, so once a
 * campaign's behaviours level off, counting a sighting allocates nothing.
 */
#ifndef HF_SPECIES_H
#define HF_SPECIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct hf_species_slot {
    uint64_t species;
    uint64_t count;          /* 0 marks an empty slot */
} hf_species_slot;

typedef struct hf_species {
    hf_species_slot *slots;
    uint64_t mask;           /* capacity - 1; the capacity is a power of two */
    uint64_t distinct;       /* species seen at least once */
    uint64_t f1;             /* seen exactly once */
    uint64_t f2;             /* seen exactly twice */
} hf_species;

/* Returns false when out of memory. */
bool hf_species_init(hf_species *s);
void hf_species_free(hf_species *s);

/* Counts one sighting of `species` and returns its count after it, or 0
 * when the table had to grow and could not (the sighting is not counted). */
uint64_t hf_species_add(hf_species *s, uint64_t species);

/* How often `species` has been seen (0 = never). */
uint64_t hf_species_count(const hf_species *s, uint64_t species);

#endif
