/*
 * spin.c — catching a task that never reaches a scheduling point.
 *
 * A fiber that loops without yielding would freeze the whole process, since
 * nothing preempts it.  Target code built with
 * -fsanitize-coverage=trace-loads,trace-stores calls these hooks on every
 * memory access; past HF_MAX_ACCESSES_WITHOUT_YIELD accesses since the last
 * scheduling point the run fails as "spin".  The count depends only on the
 * code and the schedule, so the verdict replays.  (The same hooks are where
 * preemption at memory accesses will live.)  Where targets are built without
 * tracing (AFL++ strips the flags), the engine's own timeout is the guard.
 */
#include "world.h"

static inline void count_access(void) {
    if (hf_w.current && !hf_w.stopping && ++hf_w.accesses > HF_MAX_ACCESSES_WITHOUT_YIELD)
        hf_fail(HF_FAIL_SPIN, NULL, "task %s made %llu memory accesses without reaching a scheduling point",
                hf_w.current->name, HF_MAX_ACCESSES_WITHOUT_YIELD);
}

#define HOOK(name, type) void name(type *addr); void name(type *addr) { (void)addr; count_access(); }
HOOK(__sanitizer_cov_load1, uint8_t)
HOOK(__sanitizer_cov_load2, uint16_t)
HOOK(__sanitizer_cov_load4, uint32_t)
HOOK(__sanitizer_cov_load8, uint64_t)
HOOK(__sanitizer_cov_load16, __int128)
HOOK(__sanitizer_cov_store1, uint8_t)
HOOK(__sanitizer_cov_store2, uint16_t)
HOOK(__sanitizer_cov_store4, uint32_t)
HOOK(__sanitizer_cov_store8, uint64_t)
HOOK(__sanitizer_cov_store16, __int128)
#undef HOOK
