/*
 * fiber_switch.S — the context switch: save the callee-saved registers of
 * the running fiber on its own stack, store its stack pointer, load the other
 * fiber's stack pointer and pop its registers.  Nothing else: no signal mask
 * (that is what makes glibc's swapcontext slow), no floating-point control
 * words (fibers share the thread's rounding mode).
 *
 * void hf_fiber_switch_raw(void **save_sp, void *load_sp);
 */
#if defined(__x86_64__)
    .text
    .globl hf_fiber_switch_raw
    .type hf_fiber_switch_raw, @function
hf_fiber_switch_raw:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size hf_fiber_switch_raw, .-hf_fiber_switch_raw
#elif defined(__aarch64__)
    .text
    .globl hf_fiber_switch_raw
    .type hf_fiber_switch_raw, %function
hf_fiber_switch_raw:
    sub sp, sp, #0xa0
    stp x19, x20, [sp, #0x00]
    stp x21, x22, [sp, #0x10]
    stp x23, x24, [sp, #0x20]
    stp x25, x26, [sp, #0x30]
    stp x27, x28, [sp, #0x40]
    stp x29, x30, [sp, #0x50]
    stp d8,  d9,  [sp, #0x60]
    stp d10, d11, [sp, #0x70]
    stp d12, d13, [sp, #0x80]
    stp d14, d15, [sp, #0x90]
    mov x2, sp
    str x2, [x0]
    mov sp, x1
    ldp x19, x20, [sp, #0x00]
    ldp x21, x22, [sp, #0x10]
    ldp x23, x24, [sp, #0x20]
    ldp x25, x26, [sp, #0x30]
    ldp x27, x28, [sp, #0x40]
    ldp x29, x30, [sp, #0x50]
    ldp d8,  d9,  [sp, #0x60]
    ldp d10, d11, [sp, #0x70]
    ldp d12, d13, [sp, #0x80]
    ldp d14, d15, [sp, #0x90]
    add sp, sp, #0xa0
    ret
    .size hf_fiber_switch_raw, .-hf_fiber_switch_raw
#endif
#if defined(__linux__) && defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
