/*
 * counter — the lost update, the smallest heisenbug there is.
 *
 * Workers each add 1 to a shared counter several times, as
 * read, (preemption may happen here), write.  On the undisturbed schedule a
 * worker is never preempted, so the count comes out right, run after run;
 * one badly placed switch between another worker's read and write loses an
 * increment.  The fixed variant holds a mutex across the read and the write.
 *
 * counter_nohint_buggy is counter_buggy without the hf_switch_point() call:
 * the runtime preempts at every shared memory access instead
 * (preempt_at_accesses), so the race is found where nobody marked it.
 *
 * Invariant (always): the final count equals the number of increments.
 */
#include "hf.h"

typedef struct counter {
    bool locked;          /* the fixed variant */
    bool hinted;          /* the author marked the preemption point */
    int workers;
    int increments;       /* per worker */
    long value;
    hf_mutex lock;
} counter;

static void worker(void *arg) {
    counter *c = arg;
    for (int i = 0; i < c->increments; i++) {
        if (c->locked) hf_mutex_lock(&c->lock);
        long seen = c->value;
        hf_note("read %ld", seen);
        if (c->hinted) hf_switch_point();   /* where a real thread can be preempted */
        c->value = seen + 1;
        hf_note("write %ld", seen + 1);
        if (c->locked) hf_mutex_unlock(&c->lock);
    }
}

static void run_counter(bool locked, bool hinted) {
    counter *c = hf_alloc(sizeof *c);
    c->locked = locked;
    c->hinted = hinted;
    c->workers = (int)hf_pick("workers", 2, 4, 2);
    c->increments = (int)hf_pick("increments per worker", 1, 8, 3);
    hf_mutex_init(&c->lock, "counter");
    int ids[4];
    for (int w = 0; w < c->workers; w++) ids[w] = hf_spawn(hf_printf("worker%d", w + 1), worker, c);
    for (int w = 0; w < c->workers; w++) hf_join(ids[w]);
    hf_note("count %ld, expected %d", c->value, c->workers * c->increments);
    hf_always(c->value == (long)c->workers * c->increments,
              "the final count equals the number of increments");
}

static void counter_buggy_main(void *arg) { (void)arg; run_counter(false, true); }
static void counter_fixed_main(void *arg) { (void)arg; run_counter(true, true); }
static void counter_nohint_buggy_main(void *arg) { (void)arg; run_counter(false, false); }

HF_DEFINE_TARGET_PAIR(counter,
    "lost update: workers read, may be preempted, then write a shared counter", counter_buggy_main,
    "the counter with a mutex across read and write (the control)", counter_fixed_main);

HF_DEFINE_TARGET(counter_nohint_buggy_target) = {
    .name = "counter_nohint_buggy",
    .summary = "the lost update with no hf_switch_point(): the runtime preempts at shared accesses",
    .main = counter_nohint_buggy_main,
    .preempt_at_accesses = true,
};
