/*
 * targets.h — every target the tool knows, by name.  The one place that
 * lists them: harnesses name theirs at build time (-DHF_TARGET=...).
 */
#ifndef HF_TARGETS_H
#define HF_TARGETS_H

#include "hf.h"

#define HF_FOR_EACH_TARGET(X) \
    X(counter_target)         \
    X(counter_buggy_target)   \
    X(counter_nohint_buggy_target) \
    X(cluster_target)         \
    X(metrics_race_target)    \
    X(metrics_race_buggy_target) \
    X(metrics_race_nohint_buggy_target) \
    X(kafka_idempotent_target) \
    X(kafka_idempotent_buggy_target) \
    X(lease_lock_target) \
    X(lease_lock_buggy_target) \
    X(diskless_agent_target) \
    X(diskless_agent_buggy_target) \
    X(diskless_topic_target) \
    X(kafka_hw_truncation_target) \
    X(kafka_hw_truncation_buggy_target) \
    X(zk_newleader_ack_target) \
    X(zk_newleader_ack_buggy_target)

#define HF_DECLARE_TARGET(sym) extern const hf_target sym;
HF_FOR_EACH_TARGET(HF_DECLARE_TARGET)
#undef HF_DECLARE_TARGET

/* NULL-terminated. */
extern const hf_target *const hf_targets[];

const hf_target *hf_target_find(const char *name);

/* Targets come in families: NAME, the fixed variant, and NAME_buggy. */
bool hf_target_is_buggy(const hf_target *t);
/* Writes the family name (the target's name without "_buggy") to `out`. */
void hf_target_family(const hf_target *t, char *out, size_t size);

#endif
