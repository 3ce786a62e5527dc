/*
 * explain.h — what each deviation of a schedule did, in words: a
 * scheduling pick names the task it ran, a workload decision names itself
 * and its value, a decision of the simulated world the event it caused,
 * and any other the first event it changed.  For the minimizer's report
 * and the comments of the regression tests it writes.
 */
#ifndef HF_EXPLAIN_H
#define HF_EXPLAIN_H

#include "decide.h"
#include "hf.h"

#include <stdbool.h>

enum { HF_EXPLAIN_SIZE = 160 };   /* bytes per explanation */

/* Fills what[k] for each of the `count` deviations of `devs`, a schedule
 * of target `t`.  Runs `t` count + 1 times (the schedule's prefixes), each
 * in a child process with `contain` (contain.h: a run that crashes parts
 * from the one before it where it crashed, if not sooner); otherwise the
 * last run is the whole schedule, its trace readable. */
void hf_explain_deviations(const hf_target *t, const hf_deviation *devs, size_t count, bool contain,
                           char (*what)[HF_EXPLAIN_SIZE]);

#endif
