/*
 * behaviour.c — the per-run feature set (behaviour.h).
 */
#include "behaviour.h"
#include "world.h"

#include <assert.h>
#include <string.h>

uint64_t hf_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void hf_features_reset(hf_features *f) {
    for (uint32_t i = 0; i < f->count; i++) {
        /* Clear only the slots this run used: cheaper than the whole table. */
        uint64_t h = f->list[i];
        size_t at = (size_t)(h % (2 * HF_FEATURES_MAX));
        while (f->slot[at] != h) at = (at + 1) % (2 * HF_FEATURES_MAX);
        f->slot[at] = 0;
    }
    /* The search above looks for h itself, so holes left by earlier
     * removals do not stop it; afterwards the table is empty. */
    f->count = 0;
    f->state_count = 0;
}

const char *hf_feature_kind_name(int kind) {
    switch (kind) {
    case HF_FEAT_INTERLEAVING: return "interleaving";
    case HF_FEAT_STATE: return "state";
    case HF_FEAT_PROPERTY: return "property";
    case HF_FEAT_MESSAGE: return "message";
    case HF_FEAT_FAULT: return "fault";
    case HF_FEAT_READS_FROM: return "reads-from";
    }
    return NULL;
}

void hf_features_add(hf_features *f, hf_feature_kind kind, uint64_t a, uint64_t b) {
    uint64_t h = hf_mix64(hf_mix64(((uint64_t)kind << 56) ^ a) ^ b);
    if (h == 0) h = 1;
    if (f->count == HF_FEATURES_MAX) return;   /* a full set still steers; it just stops growing */
    size_t at = (size_t)(h % (2 * HF_FEATURES_MAX));
    while (f->slot[at]) {
        if (f->slot[at] == h) return;
        at = (at + 1) % (2 * HF_FEATURES_MAX);
    }
    f->slot[at] = h;
    f->first_decision[f->count] = hf_w.decider.index;   /* where a search can resume from it */
    f->kind[f->count] = (uint8_t)kind;   /* the hash hides it; reports count behaviours by kind, the aim seeks states */
    f->list[f->count++] = h;
}

uint64_t hf_action_hash(uint32_t kind, const char *text) {
    uint64_t h = 0xcbf29ce484222325u ^ kind;   /* FNV-1a */
    if (text)
        for (const unsigned char *p = (const unsigned char *)text; *p; p++)
            if (*p < '0' || *p > '9') h = (h ^ *p) * 0x100000001b3u;
    return h;
}

uint64_t hf_features_signature(const hf_features *f) {
    uint64_t signature = 0;
    for (uint32_t i = 0; i < f->count; i++) signature ^= hf_mix64(f->list[i]);   /* order-insensitive */
    return signature;
}

const hf_features *hf_last_features(void) { return &hf_w.features; }

void hf_state(const char *what, int64_t value) {
    hf_features *f = &hf_w.features;
    uint64_t key = hf_action_hash(0, what);
    int i = 0;
    while (i < f->state_count && f->state_key[i] != key) i++;
    if (i == f->state_count) {
        if (i == HF_STATES_MAX) return;
        f->state_key[i] = key;
        f->state_value[i] = INT64_MIN;   /* "no value yet": the first report is a transition too */
        f->state_count++;
    }
    if (f->state_value[i] == value) return;
    hf_features_add(f, HF_FEAT_STATE, key ^ hf_mix64((uint64_t)f->state_value[i]), (uint64_t)value);
    f->state_value[i] = value;
}
