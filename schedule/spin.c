/*
 * spin.c — the memory-access hooks: catching a task that never reaches a
 * scheduling point, and preemption at shared memory accesses.
 *
 * Target code built with -fsanitize-coverage=trace-loads,trace-stores calls
 * these hooks before every load and store.
 *
 * Spin detection.  A fiber that loops without yielding would freeze the
 * whole process, since nothing preempts it.  Past
 * HF_MAX_ACCESSES_WITHOUT_YIELD accesses since the last scheduling point the
 * run fails as "spin".  The count depends only on the code and the schedule,
 * so the verdict replays.  Where targets are built without tracing (AFL++
 * strips the flags), the engine's own timeout is the guard.
 *
 * Preemption at accesses (hf_target.preempt_at_accesses).  Every access
 * that may touch memory another task can see is a switch point: not the
 * running fiber's own stack (nor, under ASan, its fake stack), not the
 * program image's read-only part.  Which accesses those are depends on the
 * compiled code, so the same bytes give the same run on one binary, not
 * across optimisation levels.  Each such access is also an event of its
 * task (hf_task_facts, for POS and SURW) and, at a load, a reads-from pair
 * (readsfrom.c).
 */
#include "world.h"
#include "sanitizer.h"

#include <assert.h>
#include <errno.h>

void hf_preemption_point(void) {
    if (hf_preemption_point_alone()) return;
    hf_task *self = hf_w.current;
    assert(self && "a preemption point outside a task");
    if (hf_w.slice_task != self->id) {
        hf_w.slice_task = self->id;
        hf_w.slice_points = 0;
    }
    int saved_errno = errno;
    if (++hf_w.slice_points >= HF_SLICE_POINTS) {
        hf_w.slice_points = 0;
        hf_yield();
    } else {
        hf_switch_point();
    }
    /* Whoever ran meanwhile counted its own slice. */
    if (hf_w.current == self && hf_w.slice_task != self->id) {
        hf_w.slice_task = self->id;
        hf_w.slice_points = 0;
    }
    errno = saved_errno;
}

/* The program image from its start to its writable data: code, read-only
 * data and relocated constants (weak: defined by the linker and crt1). */
extern char __executable_start[] __attribute__((weak));
extern char __data_start[] __attribute__((weak));

static bool may_be_shared(const void *addr) {
    const char *p = addr;
    if (!p) return false;   /* no location: the access faults as it runs */
    const hf_fiber *f = &hf_w.current->fiber;
    if (p >= f->stack && p < f->stack + f->stack_size) return false;
    if (__executable_start && __data_start && p >= __executable_start && p < __data_start) return false;
#ifdef HF_ASAN
    if (__asan_addr_is_in_fake_stack(__asan_get_current_fake_stack(), (void *)(uintptr_t)p, NULL, NULL))
        return false;
#endif
    return true;
}

void hf_memory_access(const void *addr, bool store, uintptr_t site) {
    if (!hf_w.current || hf_w.stopping || hf_w.in_callback) return;
    if (hf_w.target->preempt_at_accesses) {
        if (!may_be_shared(addr)) return;
        /* A site is an offset into the program image (the same for every
         * run of one binary, wherever a position-independent one landed),
         * then its number in the calm run (the same in every build). */
        hf_task *self = hf_w.current;
        bool event;
        uintptr_t offset = site - (uintptr_t)__executable_start;
        site = hf_profile_site(offset, (uintptr_t)addr, store, self->id, &event);
        self->facts.next_location = event ? (uintptr_t)addr : 0;
        self->facts.next_site = site;
        self->facts.next_stores = store;
        hf_preemption_point();
        /* The access runs as soon as this returns: nothing else runs first. */
        self->facts.next_location = 0;
        self->facts.next_site = 0;
        hf_decider_site_ran(&hf_w.decider, site);
        hf_profile_access_ran(offset, self->id);
        if (event) {
            self->facts.last_location = (uintptr_t)addr;
            self->facts.last_stored = store;
            self->facts.events++;
        }
        if (store) hf_reads_from_store((uintptr_t)addr, site);
        else hf_reads_from_load((uintptr_t)addr, site);
        return;
    }
    if (++hf_w.accesses > HF_MAX_ACCESSES_WITHOUT_YIELD)
        hf_fail(HF_FAIL_SPIN, NULL, "task %s made %llu memory accesses without reaching a scheduling point",
                hf_w.current->name, HF_MAX_ACCESSES_WITHOUT_YIELD);
}

#define HOOK(name, type, store) \
    void name(type *addr); \
    void name(type *addr) { hf_memory_access(addr, store, (uintptr_t)__builtin_return_address(0)); }
HOOK(__sanitizer_cov_load1, uint8_t, false)
HOOK(__sanitizer_cov_load2, uint16_t, false)
HOOK(__sanitizer_cov_load4, uint32_t, false)
HOOK(__sanitizer_cov_load8, uint64_t, false)
HOOK(__sanitizer_cov_load16, __int128, false)
HOOK(__sanitizer_cov_store1, uint8_t, true)
HOOK(__sanitizer_cov_store2, uint16_t, true)
HOOK(__sanitizer_cov_store4, uint32_t, true)
HOOK(__sanitizer_cov_store8, uint64_t, true)
HOOK(__sanitizer_cov_store16, __int128, true)
#undef HOOK
