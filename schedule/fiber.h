/*
 * fiber.h — cooperative fibers: a stack, a saved context, and a switch.
 *
 * A fiber is the unit the scheduler runs.  Switching is a hand-written
 * register save/restore (fiber_switch.S) on x86-64 and aarch64, because
 * glibc's swapcontext makes a signal-mask system call on every switch
 * (~1,300 ns here against ~10 ns).  Other machines fall back to ucontext.
 *
 * Every switch is announced to AddressSanitizer, so that fake stacks
 * (detect_stack_use_after_return=1) and stack bounds follow the fiber; a
 * stack handed to a new fiber is unpoisoned for ASan and MSan alike.
 *
 * Stacks (with their fake stacks) come from a pool and are reused between
 * executions; each has an inaccessible guard page below it, so an overflow
 * faults at once instead of scribbling on a neighbour.
 */
#ifndef HF_FIBER_H
#define HF_FIBER_H

#include <stddef.h>
#include <stdbool.h>

#if !defined(__x86_64__) && !defined(__aarch64__)
#define HF_FIBER_UCONTEXT 1
#include <ucontext.h>
#endif

typedef struct hf_fiber hf_fiber;
typedef void hf_fiber_entry(void);

struct hf_fiber {
#ifdef HF_FIBER_UCONTEXT
    ucontext_t uc;
#else
    void *sp;                 /* saved stack pointer; registers live on the stack */
#endif
    char *stack;              /* lowest usable byte (just above the guard page) */
    size_t stack_size;        /* usable bytes */
    void *fake_stack;         /* ASan's fake-stack handle while switched out */
    hf_fiber_entry *entry;    /* what the fiber runs */
};

/* The stack size of every fiber, in bytes. */
enum { HF_FIBER_STACK_SIZE = 256 * 1024 };

/* The context of the OS thread that runs the scheduler.  It needs no stack
 * of its own; its bounds are learnt on the first switch into a fiber. */
void hf_fiber_init_main(hf_fiber *main_fiber);

/* Gives `f` a stack (from the pool) and prepares it to call `entry` on its
 * first switch-in.  `entry` must never return: it ends with
 * hf_fiber_switch_final().  Returns false when no memory is left. */
bool hf_fiber_create(hf_fiber *f, hf_fiber_entry *entry);

/* Returns f's stack to the pool.  `f` must not be running. */
void hf_fiber_release(hf_fiber *f);

/* Suspends `from` (the running fiber) and resumes `to`. */
void hf_fiber_switch(hf_fiber *from, hf_fiber *to);

/* Like hf_fiber_switch, for a fiber that will never be resumed; then
 * hf_fiber_release gives its stack back. */
void hf_fiber_switch_final(hf_fiber *from, hf_fiber *to);

/* Frees pooled stacks and their fake stacks (tests call it before checking
 * for leaks). */
void hf_fiber_pool_drain(void);

#endif
