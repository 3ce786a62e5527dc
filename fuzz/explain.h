/*
 * explain.h — what each deviation of the last run chose, in words, read
 * off the run's trace: a scheduling pick names the task it ran, a workload
 * decision names itself and its value.  For the minimizer's report and the
 * comments of the regression tests it writes.
 */
#ifndef HF_EXPLAIN_H
#define HF_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

enum { HF_EXPLAIN_SIZE = 160 };   /* bytes per explanation */

/* Fills what[i] for each of the first `count` deviations of the last run
 * (count at most its deviations).  Returns false, with a neutral word for
 * each, when the trace does not account for every deviation one by one
 * (events fell out of the ring, or a decision left no marked event). */
bool hf_explain_deviations(char (*what)[HF_EXPLAIN_SIZE], size_t count);

#endif
