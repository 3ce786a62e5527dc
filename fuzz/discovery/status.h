/*
 * status.h — a campaign's progress in one line a person reads, in the
 * manner of libFuzzer's status lines; "PLATEAU" appears while the plateau
 * rule holds, as AFL++ colours its cycle counter when finds dry up.
 */
#ifndef HF_STATUS_H
#define HF_STATUS_H

#include "estimate.h"

#include <stddef.h>

/* E.g. "#16384  bhv: 523 chao1: 780 f1: 210 f2: 88 gt: 1.28e-02
 * logical: 1.20 h crashes: 0 exec/s: 8123", then, while the rule holds,
 * " PLATEAU since 0.80 logical h, 12.0 s wall (#9000)". */
void hf_status_line(char *line, size_t size, const hf_progress *now, const hf_plateau *plateau);

/* Seconds as "850 ms", "12.0 s", "4.5 min", "3.20 h". */
void hf_format_duration(char *text, size_t size, double seconds);

#endif
