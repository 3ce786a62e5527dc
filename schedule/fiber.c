/*
 * fiber.c — fiber stacks, their pool, and the sanitizer-aware switch.
 * See fiber.h for why the switch is hand-written.
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
static char *pool[POOL_CAPACITY];
static int pool_count;

static hf_fiber *main_fiber;        /* the scheduler's OS-thread context */
static hf_fiber *switching_from;    /* set across a switch, read by the new fiber */

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
    main_fiber = f;
}

bool hf_fiber_create(hf_fiber *f, hf_fiber_entry *entry) {
    assert(entry);
    char *stack = pool_count ? pool[--pool_count] : stack_map();
    if (!stack) return false;
    memset(f, 0, sizeof *f);
    f->stack = stack;
    f->stack_size = HF_FIBER_STACK_SIZE;
    /* A reused stack still carries the previous fiber's redzones and
     * shadow; the new fiber starts on clean memory. */
    hf_asan_unpoison(stack, HF_FIBER_STACK_SIZE);
    hf_msan_unpoison(stack, HF_FIBER_STACK_SIZE);
#ifdef HF_FIBER_UCONTEXT
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = stack;
    f->uc.uc_stack.ss_size = HF_FIBER_STACK_SIZE;
    f->uc.uc_link = NULL;
    makecontext(&f->uc, entry, 0);
#else
    uintptr_t top = ((uintptr_t)stack + HF_FIBER_STACK_SIZE) & ~(uintptr_t)15;
    void **sp = (void **)top;
#  if defined(__x86_64__)
    /* Popped by the switch: six callee-saved registers, then `entry` as the
     * return address; the zero above it is entry's own (never used) return
     * address, which leaves rsp at 8 mod 16 as the ABI expects on entry. */
    *--sp = NULL;
    *--sp = (void *)entry;
    for (int i = 0; i < 6; i++) *--sp = NULL;
#  elif defined(__aarch64__)
    /* The switch's 0xa0-byte frame: x30 (at 0x58) is where `ret` goes. */
    sp -= 0xa0 / sizeof(void *);
    memset(sp, 0, 0xa0);
    sp[0x58 / sizeof(void *)] = (void *)entry;
#  endif
    f->sp = sp;
#endif
    return true;
}

void hf_fiber_release(hf_fiber *f) {
    assert(f->stack);
    if (pool_count < POOL_CAPACITY) pool[pool_count++] = f->stack;
    else stack_unmap(f->stack);
    f->stack = NULL;
}

void hf_fiber_pool_drain(void) {
    while (pool_count) stack_unmap(pool[--pool_count]);
}

static void switch_raw(hf_fiber *from, hf_fiber *to) {
#ifdef HF_FIBER_UCONTEXT
    swapcontext(&from->uc, &to->uc);
#else
    hf_fiber_switch_raw(&from->sp, to->sp);
#endif
}

/* Runs in the fiber that was just resumed: finishes the ASan hand-over and,
 * the first time we leave the OS thread's own stack, learns its bounds so
 * that switching back to it can be announced too. */
static void finish_switch(hf_fiber *self) {
    const void *bottom_old = NULL;
    size_t size_old = 0;
    hf_asan_finish_switch(self ? self->fake_stack : NULL, &bottom_old, &size_old);
    if (switching_from == main_fiber && main_fiber && !main_fiber->stack) {
        main_fiber->stack = (char *)bottom_old;
        main_fiber->stack_size = size_old;
    }
}

void hf_fiber_switch(hf_fiber *from, hf_fiber *to) {
    assert(from != to);
    switching_from = from;
    hf_asan_start_switch(&from->fake_stack, to->stack, to->stack_size);
    switch_raw(from, to);
    finish_switch(from);
}

void hf_fiber_switch_final(hf_fiber *from, hf_fiber *to) {
    assert(from != to);
    switching_from = from;
    hf_asan_start_switch(NULL, to->stack, to->stack_size);
    switch_raw(from, to);
    assert(!"a finished fiber was resumed");
    abort();
}

void hf_fiber_started(void) {
    finish_switch(NULL);
}
