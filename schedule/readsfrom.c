/*
 * readsfrom.c — which store each shared load of a run read from: the
 * reads-from relation, as behaviour features (behaviour.h).
 *
 * A table keyed by location holds the site of the last store to it in
 * this run; a load looks its location up and adds the feature (load site,
 * store site), 0 for a location no store of the run has touched (the load
 * saw the first value).  A lock taken reads from the taking before it,
 * and a semaphore's post or wait from the one before it, which the object
 * keeps itself (pthread_sync.c, event_ran) and hands to
 * hf_reads_from_event.  Sites are numbered as the calm
 * run first reached them (profile.c); they never enter the trace.
 *
 * The run's distinct pairs are also kept as a list (hf_last_reads_from),
 * from which the mutator draws ordering constraints (decide.h, kind 9),
 * each marked racy when at least once the store was not ordered before
 * the load whatever the schedule (happens.c): a store made before the
 * loading thread was spawned, by the loading thread itself or by a thread
 * it joined is one no constraint can put after the load.
 *
 * The table lives in the run's arena (no clearing between runs) and grows
 * by doubling; past HF_READS_FROM_LOCATIONS locations it takes no new ones,
 * and loads of those untracked locations add no feature.  A location freed
 * and handed out again by malloc within a run keeps its old store: a load of
 * the new object may then name that store instead of "none".
 */
#include "world.h"

#include <string.h>

enum { HF_READS_FROM_LOCATIONS = 1 << 16, FIRST_SLOTS = 256 };
/* The pair list's index: open addressing, at most half full. */
enum { PAIR_SLOTS = 2 * HF_READS_FROM_PAIRS_KEPT };
_Static_assert((PAIR_SLOTS & (PAIR_SLOTS - 1)) == 0 && PAIR_SLOTS <= 1 << 16, "a mask, and uint16_t entries");

typedef struct hf_last_store {
    uintptr_t location;   /* 0: an empty slot */
    uintptr_t site;
    hf_epoch when;
} hf_last_store;

static uint32_t slot_of(uintptr_t location, uint32_t slots) {
    return (uint32_t)hf_mix64(location) & (slots - 1);
}

/* The slot of `location`, empty if the table does not hold it. */
static hf_last_store *find(uintptr_t location) {
    uint32_t mask = hf_w.store_slots - 1, i = slot_of(location, hf_w.store_slots);
    while (hf_w.stores[i].location && hf_w.stores[i].location != location) i = (i + 1) & mask;
    return &hf_w.stores[i];
}

/* Keeps the table at most half full, so that a probe stays short. */
static bool make_room(void) {
    if (hf_w.store_count >= HF_READS_FROM_LOCATIONS) return false;
    if (2 * (hf_w.store_count + 1) <= hf_w.store_slots) return true;
    hf_last_store *old = hf_w.stores;
    uint32_t old_slots = hf_w.store_slots;
    hf_w.store_slots = old_slots ? 2 * old_slots : FIRST_SLOTS;
    hf_w.stores = hf_alloc(hf_w.store_slots * sizeof *hf_w.stores);
    memset(hf_w.stores, 0, hf_w.store_slots * sizeof *hf_w.stores);
    for (uint32_t i = 0; i < old_slots; i++)
        if (old[i].location) *find(old[i].location) = old[i];
    return true;
}

void hf_reads_from_store(uintptr_t location, uintptr_t site) {
    assert(location);
    if (hf_w.stores) {
        hf_last_store *s = find(location);
        if (s->location) {
            s->site = site;
            s->when = hf_happens_now();
            return;
        }
    }
    if (!make_room()) return;
    *find(location) = (hf_last_store){location, site, hf_happens_now()};
    hf_w.store_count++;
}

void hf_reads_from_load(uintptr_t location, uintptr_t site) {
    uintptr_t from = 0;
    bool racy = true;
    if (hf_w.stores) {
        hf_last_store *s = find(location);
        if (s->location) {
            from = s->site;
            racy = !hf_happened_before(s->when);
        } else if (hf_w.store_count >= HF_READS_FROM_LOCATIONS) return;   /* untracked */
    }
    hf_reads_from_event(site, from, racy);
}

/* The list's entry for the pair (site, from), or where it would go. */
static uint16_t *pair_slot(uintptr_t site, uintptr_t from) {
    uint32_t mask = PAIR_SLOTS - 1, i = (uint32_t)hf_mix64(site ^ hf_mix64(from)) & mask;
    while (hf_w.pair_index[i]) {
        const hf_reads_from_pair *p = &hf_w.pairs[hf_w.pair_index[i] - 1];
        if (p->load_site == site && p->store_site == from) break;
        i = (i + 1) & mask;
    }
    return &hf_w.pair_index[i];
}

void hf_reads_from_event(uintptr_t site, uintptr_t from, bool racy) {
    hf_features_add(&hf_w.features, HF_FEAT_READS_FROM, site, from);
    if (!hf_w.pairs) {
        hf_w.pairs = hf_alloc(HF_READS_FROM_PAIRS_KEPT * sizeof *hf_w.pairs);
        hf_w.pair_index = hf_alloc(PAIR_SLOTS * sizeof *hf_w.pair_index);
    }
    uint16_t *slot = pair_slot(site, from);
    if (*slot) {
        hf_w.pairs[*slot - 1].racy |= racy;
    } else if (hf_w.pair_count < HF_READS_FROM_PAIRS_KEPT) {
        hf_w.pairs[hf_w.pair_count++] = (hf_reads_from_pair){site, from, racy};
        *slot = (uint16_t)hf_w.pair_count;
    }
}

const hf_reads_from_pair *hf_last_reads_from(uint32_t *count) {
    *count = hf_w.pair_count;
    return hf_w.pairs;
}
