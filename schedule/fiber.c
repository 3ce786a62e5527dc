/*
 * fiber.c — fiber stacks, their pool, and the sanitizer-aware switch.
 * See fiber.h for why the switch is hand-written.
 *
 * Under AddressSanitizer with detect_stack_use_after_return=1, every fiber
 * has a fake stack as well: ASan's side stack of heap-like frames that
 * catch a use after return.  Making one costs an mmap of a few MiB and
 * dropping one an munmap and a repoisoning of its shadow, which made a
 * fiber's start and end the most expensive thing in an ASan run (about
 * 20 fake stacks per run of a world target).  So a fake stack stays with
 * its stack in the pool and the next fiber on that stack takes both.  The
 * frames the previous fiber left on it (it never returned from the calls
 * that ended it) are collected when the new fiber starts: see fiber_start.
 */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "fiber.h"
#include "sanitizer.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef HF_FIBER_UCONTEXT
void hf_fiber_switch_raw(void **save_sp, void *load_sp);
#endif

/* Stacks freed by finished fibers wait here for the next fiber, so a
 * fuzzing campaign maps a handful of stacks once instead of millions. */
enum { POOL_CAPACITY = 256 };   /* as many as one run may have tasks */
typedef struct {
    char *stack;
    void *fake_stack;               /* ASan's, or NULL (none made yet, or no ASan) */
} pooled_stack;
static pooled_stack pool[POOL_CAPACITY];
static int pool_count;

static hf_fiber *switching_from;    /* set across a switch, read by the new fiber */
static hf_fiber *switching_to;      /* the same, for a fiber's first switch-in */

static size_t page_size(void) {
    static size_t size;
    if (!size) size = (size_t)sysconf(_SC_PAGESIZE);
    return size;
}

/* A mapping is [guard page][usable stack]; we keep the usable part's base. */
static char *stack_map(void) {
    size_t guard = page_size();
    char *base = mmap(NULL, guard + HF_FIBER_STACK_SIZE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return NULL;
    if (mprotect(base, guard, PROT_NONE) != 0) {
        munmap(base, guard + HF_FIBER_STACK_SIZE);
        return NULL;
    }
    return base + guard;
}

static void stack_unmap(char *stack) {
    munmap(stack - page_size(), page_size() + HF_FIBER_STACK_SIZE);
}

void hf_fiber_init_main(hf_fiber *f) {
    memset(f, 0, sizeof *f);
}

static void fiber_start(void);

/* Prepares `f` to run, on `taken`, fiber_start, which calls f->entry (or,
 * when that is NULL, only drops the fake stack: see drop_fake_stack). */
static void prepare(hf_fiber *f, hf_fiber_entry *entry, pooled_stack taken) {
    char *stack = taken.stack;
    assert(stack);
    memset(f, 0, sizeof *f);
    f->stack = stack;
    f->stack_size = HF_FIBER_STACK_SIZE;
    f->fake_stack = taken.fake_stack;
    f->entry = entry;
    /* A reused stack still carries the previous fiber's redzones and
     * shadow; the new fiber starts on clean memory. */
    hf_asan_unpoison(stack, HF_FIBER_STACK_SIZE);
    hf_msan_unpoison(stack, HF_FIBER_STACK_SIZE);
#ifdef HF_FIBER_UCONTEXT
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = stack;
    f->uc.uc_stack.ss_size = HF_FIBER_STACK_SIZE;
    f->uc.uc_link = NULL;
    makecontext(&f->uc, fiber_start, 0);
#else
    uintptr_t top = ((uintptr_t)stack + HF_FIBER_STACK_SIZE) & ~(uintptr_t)15;
    void **sp = (void **)top;
#  if defined(__x86_64__)
    /* Popped by the switch: six callee-saved registers, then fiber_start as
     * the return address; the zero above it is fiber_start's own (never
     * used) return address, which leaves rsp at 8 mod 16 as the ABI expects
     * on entry. */
    *--sp = NULL;
    *--sp = (void *)fiber_start;
    for (int i = 0; i < 6; i++) *--sp = NULL;
#  elif defined(__aarch64__)
    /* The switch's 0xa0-byte frame: x30 (at 0x58) is where `ret` goes. */
    sp -= 0xa0 / sizeof(void *);
    memset(sp, 0, 0xa0);
    sp[0x58 / sizeof(void *)] = (void *)fiber_start;
#  endif
    f->sp = sp;
#endif
}

bool hf_fiber_create(hf_fiber *f, hf_fiber_entry *entry) {
    assert(entry);
    pooled_stack taken = {0};
    if (pool_count) taken = pool[--pool_count];
    else taken.stack = stack_map();
    if (!taken.stack) return false;
    prepare(f, entry, taken);
    return true;
}

static void drop_fake_stack(char *stack, void *fake_stack);

void hf_fiber_release(hf_fiber *f) {
    assert(f->stack);
    if (pool_count < POOL_CAPACITY) {
        pool[pool_count++] = (pooled_stack){f->stack, f->fake_stack};
    } else {
        drop_fake_stack(f->stack, f->fake_stack);
        stack_unmap(f->stack);
    }
    f->stack = NULL;
    f->fake_stack = NULL;
}

void hf_fiber_pool_drain(void) {
    while (pool_count) {
        pooled_stack p = pool[--pool_count];
        drop_fake_stack(p.stack, p.fake_stack);
        stack_unmap(p.stack);
    }
}

static void switch_raw(hf_fiber *from, hf_fiber *to) {
#ifdef HF_FIBER_UCONTEXT
    swapcontext(&from->uc, &to->uc);
#else
    hf_fiber_switch_raw(&from->sp, to->sp);
#endif
}

/* Runs in the fiber that was just resumed: finishes the ASan hand-over and,
 * when we left a context with no stack of ours (the OS thread's own), learns
 * that stack's bounds so that switching back to it can be announced too. */
static void finish_switch(hf_fiber *self) {
    const void *bottom_old = NULL;
    size_t size_old = 0;
    hf_asan_finish_switch(self->fake_stack, &bottom_old, &size_old);
    self->fake_stack = NULL;
    if (switching_from && !switching_from->stack) {
        switching_from->stack = (char *)bottom_old;
        switching_from->stack_size = size_old;
    }
}

void hf_fiber_switch(hf_fiber *from, hf_fiber *to) {
    assert(from != to);
    switching_from = from;
    switching_to = to;
    hf_asan_start_switch(&from->fake_stack, to->stack, to->stack_size);
    switch_raw(from, to);
    finish_switch(from);
}

/* The fiber will not run again, but its stack will: ASan is told to keep
 * its fake stack, which hf_fiber_release pools with the stack. */
void hf_fiber_switch_final(hf_fiber *from, hf_fiber *to) {
    assert(from != to);
    switching_from = from;
    switching_to = to;
    hf_asan_start_switch(&from->fake_stack, to->stack, to->stack_size);
    switch_raw(from, to);
    assert(!"a finished fiber was resumed");
    abort();
}

#ifdef HF_ASAN
/* A frame on the fake stack, so that ASan looks at its frames now.  ASan
 * gives a function a fake frame only for a local whose address it cannot
 * follow, hence the call through a volatile pointer. */
static void keep_address(char *p) { (void)p; }
static void (*volatile escape_address)(char *) = keep_address;
static __attribute__((noinline)) void allocate_fake_frame(void) {
    char probe[16];
    escape_address(probe);
}

/* The previous fiber on a pooled fake stack ended inside calls that never
 * returned, so their fake frames are still marked in use; left so, they
 * would fill the fake stack over many fibers and ASan would then put frames
 * on the real stack, where a use after return goes unseen.  ASan frees, at
 * the first fake-frame allocation after __asan_handle_no_return, every
 * frame made deeper in the real stack than that allocation.  Every frame of
 * the previous fiber was made below the point where it called its entry
 * (its stack is ours, from the same top), and this allocation is made from
 * fiber_start itself, before the call of run_entry adds a frame: so all of
 * them are deeper, and all are freed. */
static void collect_fake_frames(void) {
    __asan_handle_no_return();
    allocate_fake_frame();
}
#else
static void collect_fake_frames(void) {}
#endif

/* A frame of its own between fiber_start and the entry, so that the entry's
 * frames are deeper than collect_fake_frames' (see there); noinline and
 * the abort keep it a real call. */
static __attribute__((noinline)) void run_entry(hf_fiber_entry *entry) {
    entry();
    assert(!"a fiber entry returned");
    abort();
}

static void fiber_start(void) {
    hf_fiber *self = switching_to;
    finish_switch(self);
    if (!self->entry) {                /* drop_fake_stack's fiber */
        hf_fiber *back = switching_from;
        switching_from = self;
        hf_asan_start_switch(NULL, back->stack, back->stack_size);   /* NULL: destroy it */
        switch_raw(self, back);
        abort();
    }
    collect_fake_frames();
    run_entry(self->entry);
}

/* ASan frees a fake stack only as its fiber's last switch names no place
 * to keep it, so a pooled one is freed by starting a fiber on it that does
 * just that at once. */
static void drop_fake_stack(char *stack, void *fake_stack) {
#ifdef HF_ASAN
    if (!fake_stack) return;
    hf_fiber here, dropper;
    memset(&here, 0, sizeof here);
    prepare(&dropper, NULL, (pooled_stack){stack, fake_stack});
    hf_fiber_switch(&here, &dropper);
#else
    (void)stack;
    (void)fake_stack;
#endif
}
