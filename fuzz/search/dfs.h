/*
 * dfs.h — systematic exploration: a stateless depth-first enumeration of a
 * run's decision tree, bounded by how far a run strays from the calm one.
 *
 * Each run replays a prefix of choices, takes every default after it, and
 * records the decisions it met; the next run changes the deepest decision
 * that still has an untried option within the bound and drops everything
 * after it (backtracking by re-execution, as CHESS, Shuttle and Coyote do:
 * no state is saved, the run is deterministic).  When no decision has an
 * option left, the bounded tree is exhausted: every run within the bound
 * has been made, each exactly once.
 *
 * The bound (iterative context bounding's idea: most bugs need few
 * deviations) counts, per run, either
 *   deviations    decisions that took other than their default, of any
 *                 kind (task choices, workload values, faults) — the
 *                 default, because it is what the decision stream's
 *                 encoding measures (an input's explicit records) and it
 *                 bounds fault and workload decisions too, which a pure
 *                 preemption bound would enumerate without limit; or
 *   preemptions   task choices that switch away from a task that could
 *                 have gone on (still runnable), plus any other decision
 *                 that deviates (workload values and faults still count,
 *                 so that they stay bounded); a different choice of the
 *                 next task when the running one blocks or ends is free.
 *
 * Which options a decision offers.  A task choice offers every runnable
 * task; a yes/no both values; a choice in [lo, hi] with at most
 * `max_values` values all of them.  A wider one (a 64-bit workload value,
 * a fault's time or duration in nanoseconds) cannot be enumerated: it
 * offers its default, lo, hi and values lo + 2^b for bit lengths b spread
 * evenly over the range's, `max_values` in all — the scales at which such
 * values matter (a delay of 1 ns, 1 us, 1 ms, the longest).  "Exhausted"
 * is relative to that choice.
 */
#ifndef HF_DFS_H
#define HF_DFS_H

#include "decide.h"
#include "hf.h"
#include "run.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum hf_dfs_bound_kind { HF_DFS_DEVIATIONS, HF_DFS_PREEMPTIONS } hf_dfs_bound_kind;

enum { HF_DFS_MAX_VALUES = 64 };   /* options a wide decision may offer at most */

/* One decision of the current path. */
typedef struct hf_dfs_node {
    uint64_t lo, hi, dflt;
    hf_decision_tag tag;
    uint32_t options;        /* how many it offers; option 0 is the default */
    uint32_t chosen;         /* the option this path takes */
    int32_t running_option;  /* a task choice: the option of the task that could go on, or -1 */
    uint32_t spent_before;   /* bound spent by the decisions before it */
} hf_dfs_node;

typedef struct hf_dfs {
    hf_strategy base;
    hf_dfs_bound_kind bound_kind;
    uint32_t bound;          /* per run */
    uint32_t max_values;     /* options of a wide decision, 2..HF_DFS_MAX_VALUES */
    hf_dfs_node *path;       /* the last run's decisions */
    size_t length, capacity;
    size_t prefix;           /* decisions the next run replays from `path` */
    size_t at;               /* decisions taken so far by the current run */
    uint32_t spent;          /* bound spent so far by the current run */
    uint64_t runs;
    size_t deepest;          /* the most decisions a run took */
    bool exhausted;          /* no run within the bound is left */
    bool pruned;             /* the bound left an option out: the whole tree is larger */
    bool diverged;           /* a replayed decision differed: the target is not deterministic */
    bool out_of_memory;
} hf_dfs;

void hf_dfs_init(hf_dfs *d, hf_dfs_bound_kind kind, uint32_t bound, uint32_t max_values);
void hf_dfs_free(hf_dfs *d);

/* Makes the next run of the enumeration (d->exhausted must be false) and
 * moves on to the one after; hf_decider_encode(hf_last_decisions(), ...)
 * then gives the bytes that replay it.  Afterwards d->exhausted says
 * whether that was the last.  Stops the enumeration (exhausted stays
 * false) when memory ran out or the target diverged. */
void hf_dfs_run(hf_dfs *d, const hf_target *t, hf_result *r);

/* The options a decision in [lo, hi] with default `dflt` offers (see
 * above); `every` asks for every value (task choices).  Option 0 is the
 * default; the others are distinct, in increasing order. */
uint32_t hf_dfs_option_count(uint64_t lo, uint64_t hi, uint64_t dflt, uint32_t max_values, bool every);
uint64_t hf_dfs_option(uint64_t lo, uint64_t hi, uint64_t dflt, uint32_t max_values, bool every, uint32_t option);

#endif
