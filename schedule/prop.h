/*
 * prop.h — the campaign's view of properties: the catalogue of every
 * property compiled into the binary, with how often each was reached and
 * held over this process's runs.
 */
#ifndef HF_PROP_H
#define HF_PROP_H

#include "hf.h"

#include <stdio.h>

const char *hf_prop_kind_name(hf_prop_kind kind);

/* The catalogue: every property compiled in, evaluated or not. */
size_t hf_prop_count(void);
hf_prop *hf_prop_at(size_t i);

/* True when a campaign-wide expectation is unmet: a sometimes that never
 * held, a reachable or always never reached. */
bool hf_prop_unmet(const hf_prop *p);

/* One line per property; returns how many are unmet. */
size_t hf_prop_report(FILE *out);

#endif
