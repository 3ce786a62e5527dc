/*
 * contain.h — a piece of the tool's work in a child process, so that a run
 * which crashes the process (a signal, a sanitizer's report) is a result the
 * tool acts on rather than the end of the tool.
 *
 * A pthread program is unmodified code, and a schedule may make it
 * dereference a pointer another thread just freed.  In-process, as the
 * engines run it, that ends the process: right for libFuzzer, which saves
 * the input, but not for the minimizer, which tries hundreds of schedules
 * of a crashing input and must see each crash as "failed this way".  So the
 * work runs in a fork()ed child and leaves what it found in memory shared
 * with the parent.  Should the child crash, the work's crash callback runs
 * (in the signal handler, on a stack of its own) and fills that memory from
 * the run as it stood: the runtime's trace and decisions are still there.
 * Runs are deterministic, so a run in a child is the run in the parent.
 */
#ifndef HF_CONTAIN_H
#define HF_CONTAIN_H

#include <stdbool.h>
#include <stddef.h>

/* The work, writing its findings to `shared` (zeroed before it starts). */
typedef void hf_contained_work(void *context, void *shared);
/* Called instead of the rest of the work when it crashes; `what` names the
 * crash ("Segmentation fault", "a sanitizer report"). */
typedef void hf_contained_crash(void *context, void *shared, const char *what);

typedef enum hf_contained_end {
    HF_CONTAINED_DONE,      /* the work finished */
    HF_CONTAINED_CRASHED,   /* it crashed, and its crash callback ran */
    HF_CONTAINED_LOST,      /* no child, or it ended with nothing said (killed, out of memory): stderr says */
} hf_contained_end;

/* Runs work(context, shared) in a child process; on return, `shared` (size
 * bytes) holds what it wrote.  Buffered output is flushed first, and the
 * child's own output is flushed before it ends. */
hf_contained_end hf_contain(hf_contained_work *work, hf_contained_crash *crash, void *context, void *shared,
                            size_t size);

/* hf_contain with `contain`; without, work(context, shared) here, in this
 * process (`shared` as the caller left it), and HF_CONTAINED_DONE. */
hf_contained_end hf_contain_if(bool contain, hf_contained_work *work, hf_contained_crash *crash, void *context,
                               void *shared, size_t size);

/* Makes fatal signals (and a sanitizer's death) call `report(what)` on a
 * stack of their own (a fiber that overflowed its stack is no place to
 * run), then end the process by the signal: for a replay's "timeline up to
 * the crash".  Not async-signal-safe, but the process is lost anyway. */
void hf_on_crash(void (*report)(const char *what));

#endif
