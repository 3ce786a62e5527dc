/*
 * run.h — running a target over input bytes: the entry point for harnesses
 * and tools (fuzz/), not for targets.
 *
 * hf_run builds a fresh world, runs the target's main task to completion or
 * failure, tears the world down, and fills an hf_result.  The run's trace,
 * task names and decisions stay readable until the next hf_run.
 */
#ifndef HF_RUN_H
#define HF_RUN_H

#include "hf.h"
#include "decide.h"
#include "trace.h"

#include <stdio.h>

typedef enum hf_outcome {
    HF_OK,
    HF_FAIL_PROPERTY,    /* an always/unreachable property was violated */
    HF_FAIL_DEADLOCK,    /* nothing runnable, no timer pending, work left */
    HF_FAIL_STEPS,       /* the step budget ran out: the workload never finished */
    HF_FAIL_TIME,        /* the logical-time budget ran out */
    HF_FAIL_SPIN,        /* a task ran too long without reaching a scheduling point */
    HF_FAIL_LIMIT,       /* the run outgrew a fixed runtime limit (tasks) */
    HF_FAIL_CONFIG,      /* the target configured the runtime wrongly (a bad option) */
    HF_FAIL_PROGRAM,     /* a pthread program failed: assert, abort(), a non-zero exit status */
} hf_outcome;

typedef struct hf_result {
    hf_outcome outcome;
    char message[512];        /* "" when ok; the verdict's reason otherwise */
    const hf_prop *property;  /* the violated property, for HF_FAIL_PROPERTY */
    int failed_task;          /* task running at the failure; 0 = the runtime */
    uint64_t time_ns;         /* logical time at the end */
    uint64_t steps;           /* scheduling steps taken */
    uint64_t decisions;       /* decisions taken */
    uint32_t deviations;      /* of which non-default */
    uint64_t trace_hash;
} hf_result;

/* Default budgets, when the target sets none. */
enum { HF_DEFAULT_MAX_STEPS = 100000 };
#define HF_DEFAULT_MAX_TIME_NS (3600ull * HF_SEC)
/* Memory accesses a task may make between two scheduling points (counted
 * only where target code is built with load/store tracing). */
#define HF_MAX_ACCESSES_WITHOUT_YIELD 10000000ull

void hf_run(const hf_target *t, const uint8_t *data, size_t size, hf_result *out);

/* hf_run, also filling `log` with where the input's records lie and what
 * each decision was about (decide.h): what a mutator needs. */
void hf_run_logged(const hf_target *t, const uint8_t *data, size_t size, hf_decision_log *log, hf_result *out);

/* A run whose decisions a strategy takes instead of bytes; afterwards
 * hf_decider_encode(hf_last_decisions(), ...) gives the bytes that replay it. */
void hf_run_strategy(const hf_target *t, hf_strategy *strategy, hf_result *out);

const char *hf_outcome_name(hf_outcome o);

/* The last run's trace and decisions. */
const hf_trace *hf_last_trace(void);
const hf_decider *hf_last_decisions(void);

/* A reads-from pair of a run (behaviour.h): a load's site and the site of
 * the store it read, 0 for none (the first value); sites by their number
 * (schedule/profile.c).  `racy`: at least once in the run the store was
 * not ordered before the load by the thread's own order, a spawn or a
 * join (schedule/happens.c), so another schedule may put the load first. */
typedef struct hf_reads_from_pair {
    uintptr_t load_site, store_site;
    bool racy;
} hf_reads_from_pair;
enum { HF_READS_FROM_PAIRS_KEPT = 512 };
/* The last run's distinct reads-from pairs, in first-seen order (the first
 * HF_READS_FROM_PAIRS_KEPT); sets *count. */
const hf_reads_from_pair *hf_last_reads_from(uint32_t *count);

/* The calm runs this process made to learn profiles (one per target that
 * preempts at its accesses, when its first run was not the calm run):
 * executions too, which a benchmark must count. */
uint64_t hf_profile_runs(void);

/* Prints the last run's timeline (`last` events, 0 = all kept) and, for a
 * failed run, a report: what failed, when, in which task, and the tasks
 * left waiting. */
void hf_print_timeline(FILE *out, uint64_t last);
void hf_print_failure(FILE *out, const hf_result *r);

/* Frees everything the runtime keeps between runs. */
void hf_runtime_free(void);

#endif
