/*
 * pthread_atomics.h — makes every GCC atomic builtin read-modify-write of a
 * pthread program a preemption point.  `heisenfuzz build-pthread` includes
 * it ahead of the program's own code (clang -include), so it includes no
 * header itself: the program's feature macros (_GNU_SOURCE) must still
 * decide what the system headers declare.  C11's <stdatomic.h> operations
 * are wrapped by the stdatomic.h beside it (pthread_stdatomic.h, found
 * first on the include path).
 *
 * Plain atomic loads and stores are loads and stores, which the load/store
 * tracing already turns into preemption points; an exchange, a
 * compare-and-swap or a fetch-and-add is neither to the tracing, so each is
 * wrapped: a call that may switch threads, then the operation itself.  A
 * function-like macro is not expanded inside its own expansion, so each
 * wrapper can name the builtin it wraps.  Operators on _Atomic objects
 * (x++, x += 2) compile to the same instructions with no call to wrap:
 * those are not preemption points (a limit, written in the README).
 */
#ifndef HF_PTHREAD_ATOMICS_H
#define HF_PTHREAD_ATOMICS_H

/* In C++ too: <atomic>'s member functions are these builtins, inline in
 * the program's code (std::atomic<int>::fetch_add is __atomic_fetch_add). */
#ifdef __cplusplus
extern "C" void hfp_atomic_point(const volatile void *object);
#else
void hfp_atomic_point(const volatile void *object);
#endif

#define HFP_RMW_(call, obj, ...) \
    __extension__({ __typeof__(obj) hfp_obj_ = (obj); hfp_atomic_point(hfp_obj_); call(hfp_obj_, __VA_ARGS__); })

/* GCC's __atomic and __sync builtins */
#define __atomic_exchange_n(p, ...) HFP_RMW_(__atomic_exchange_n, p, __VA_ARGS__)
#define __atomic_exchange(p, ...) HFP_RMW_(__atomic_exchange, p, __VA_ARGS__)
#define __atomic_compare_exchange_n(p, ...) HFP_RMW_(__atomic_compare_exchange_n, p, __VA_ARGS__)
#define __atomic_compare_exchange(p, ...) HFP_RMW_(__atomic_compare_exchange, p, __VA_ARGS__)
#define __atomic_fetch_add(p, ...) HFP_RMW_(__atomic_fetch_add, p, __VA_ARGS__)
#define __atomic_fetch_sub(p, ...) HFP_RMW_(__atomic_fetch_sub, p, __VA_ARGS__)
#define __atomic_fetch_or(p, ...) HFP_RMW_(__atomic_fetch_or, p, __VA_ARGS__)
#define __atomic_fetch_xor(p, ...) HFP_RMW_(__atomic_fetch_xor, p, __VA_ARGS__)
#define __atomic_fetch_and(p, ...) HFP_RMW_(__atomic_fetch_and, p, __VA_ARGS__)
#define __atomic_add_fetch(p, ...) HFP_RMW_(__atomic_add_fetch, p, __VA_ARGS__)
#define __atomic_sub_fetch(p, ...) HFP_RMW_(__atomic_sub_fetch, p, __VA_ARGS__)
#define __atomic_or_fetch(p, ...) HFP_RMW_(__atomic_or_fetch, p, __VA_ARGS__)
#define __atomic_xor_fetch(p, ...) HFP_RMW_(__atomic_xor_fetch, p, __VA_ARGS__)
#define __atomic_and_fetch(p, ...) HFP_RMW_(__atomic_and_fetch, p, __VA_ARGS__)
#define __atomic_test_and_set(p, ...) HFP_RMW_(__atomic_test_and_set, p, __VA_ARGS__)
#define __sync_fetch_and_add(p, ...) HFP_RMW_(__sync_fetch_and_add, p, __VA_ARGS__)
#define __sync_fetch_and_sub(p, ...) HFP_RMW_(__sync_fetch_and_sub, p, __VA_ARGS__)
#define __sync_fetch_and_or(p, ...) HFP_RMW_(__sync_fetch_and_or, p, __VA_ARGS__)
#define __sync_fetch_and_and(p, ...) HFP_RMW_(__sync_fetch_and_and, p, __VA_ARGS__)
#define __sync_fetch_and_xor(p, ...) HFP_RMW_(__sync_fetch_and_xor, p, __VA_ARGS__)
#define __sync_add_and_fetch(p, ...) HFP_RMW_(__sync_add_and_fetch, p, __VA_ARGS__)
#define __sync_sub_and_fetch(p, ...) HFP_RMW_(__sync_sub_and_fetch, p, __VA_ARGS__)
#define __sync_or_and_fetch(p, ...) HFP_RMW_(__sync_or_and_fetch, p, __VA_ARGS__)
#define __sync_and_and_fetch(p, ...) HFP_RMW_(__sync_and_and_fetch, p, __VA_ARGS__)
#define __sync_xor_and_fetch(p, ...) HFP_RMW_(__sync_xor_and_fetch, p, __VA_ARGS__)
#define __sync_bool_compare_and_swap(p, ...) HFP_RMW_(__sync_bool_compare_and_swap, p, __VA_ARGS__)
#define __sync_val_compare_and_swap(p, ...) HFP_RMW_(__sync_val_compare_and_swap, p, __VA_ARGS__)
#define __sync_lock_test_and_set(p, ...) HFP_RMW_(__sync_lock_test_and_set, p, __VA_ARGS__)

#endif
