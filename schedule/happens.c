/*
 * happens.c — which of a run's events are ordered whatever the schedule:
 * happens-before through a thread's own order, its spawn and its join.
 *
 * Each task keeps a vector clock of those edges alone.  A spawn hands the
 * child what its parent has seen, then moves the parent's own count on; a
 * join takes in what the joined task had seen.  An event stamped (task,
 * tick) by hf_happens_now happened before the running task's present iff
 * it is that task's own or the task's clock has reached the tick.
 *
 * Locks, condition variables and semaphores add no edge, on purpose: a
 * schedule can take a lock in the other order, so what they order is
 * exactly what an ordering constraint may turn round (decide.h, kind 9),
 * where a store made before the loading thread was spawned, or by a thread
 * joined before the load, can never come after it.  Events of the main
 * context (timer callbacks) are ordered with nothing.
 */
#include "world.h"

#include <assert.h>
#include <string.h>

void hf_happens_spawn(hf_task *parent, hf_task *child) {
    child->clock = hf_arena_alloc(&hf_w.arena, HF_MAX_TASKS * sizeof *child->clock);
    if (parent) {
        assert(parent->clock && parent->id < child->id);
        memcpy(child->clock, parent->clock, (size_t)(child->id - 1) * sizeof *child->clock);
        parent->clock[parent->id - 1]++;
    }
    child->clock[child->id - 1] = 1;
}

void hf_happens_join(hf_task *joiner, const hf_task *joined) {
    assert(joiner->clock && joined->clock);
    for (int i = 0; i < hf_w.task_count; i++)
        if (joined->clock[i] > joiner->clock[i]) joiner->clock[i] = joined->clock[i];
}

/* The task whose events these are; NULL in the main context or a timer
 * callback, whose events are ordered with nothing. */
static hf_task *event_task(void) { return hf_w.in_callback ? NULL : hf_w.current; }

hf_epoch hf_happens_now(void) {
    hf_task *t = event_task();
    return t ? (hf_epoch){t->id, t->clock[t->id - 1]} : (hf_epoch){0, 0};
}

bool hf_happened_before(hf_epoch e) {
    hf_task *t = event_task();
    return t && e.task && (e.task == t->id || t->clock[e.task - 1] >= e.tick);
}
