/*
 * species.c — the species count table: linear probing over a power-of-two
 * array kept at most half full, so a lookup touches one or two slots.
 */
#include "species.h"
#include "behaviour.h"

#include <assert.h>
#include <stdlib.h>

enum { INITIAL_CAPACITY = 1024 };

/* Species are usually hashes already, but a caller may pass small or
 * patterned ones (a counter, a bit set). */
static uint64_t slot_of(uint64_t species, uint64_t mask) { return hf_mix64(species) & mask; }

bool hf_species_init(hf_species *s) {
    assert(s);
    *s = (hf_species){0};
    s->slots = calloc(INITIAL_CAPACITY, sizeof *s->slots);
    if (!s->slots) return false;
    s->mask = INITIAL_CAPACITY - 1;
    return true;
}

void hf_species_free(hf_species *s) {
    free(s->slots);
    *s = (hf_species){0};
}

static bool grow(hf_species *s) {
    uint64_t capacity = (s->mask + 1) * 2;
    hf_species_slot *slots = calloc(capacity, sizeof *slots);
    if (!slots) return false;
    for (uint64_t i = 0; i <= s->mask; i++) {
        if (!s->slots[i].count) continue;
        uint64_t j = slot_of(s->slots[i].species, capacity - 1);
        while (slots[j].count) j = (j + 1) & (capacity - 1);
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->mask = capacity - 1;
    return true;
}

uint64_t hf_species_add(hf_species *s, uint64_t species) {
    assert(s->slots);
    uint64_t i = slot_of(species, s->mask);
    while (s->slots[i].count && s->slots[i].species != species) i = (i + 1) & s->mask;
    hf_species_slot *slot = &s->slots[i];
    if (!slot->count) {
        /* A new species: keep the table at most half full. */
        if (2 * (s->distinct + 1) > s->mask + 1) {
            if (!grow(s)) return 0;
            return hf_species_add(s, species);
        }
        slot->species = species;
        s->distinct++;
    }
    uint64_t count = ++slot->count;
    if (count == 1) s->f1++;
    else if (count == 2) { s->f1--; s->f2++; }
    else if (count == 3) s->f2--;
    return count;
}

uint64_t hf_species_count(const hf_species *s, uint64_t species) {
    uint64_t i = slot_of(species, s->mask);
    while (s->slots[i].count) {
        if (s->slots[i].species == species) return s->slots[i].count;
        i = (i + 1) & s->mask;
    }
    return 0;
}
