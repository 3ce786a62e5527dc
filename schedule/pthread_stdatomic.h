/*
 * pthread_stdatomic.h — installed as stdatomic.h on the include path of a
 * program built by `heisenfuzz build-pthread`: the compiler's own
 * <stdatomic.h>, then its read-modify-write operations redefined as
 * preemption points (see pthread_atomics.h, which is always included first
 * and declares hfp_atomic_point and HFP_RMW_).
 */
#ifndef HF_PTHREAD_STDATOMIC_H
#define HF_PTHREAD_STDATOMIC_H

#include_next <stdatomic.h>

#ifndef __cplusplus
/* C11 <stdatomic.h> */
#undef atomic_exchange
#undef atomic_exchange_explicit
#undef atomic_compare_exchange_strong
#undef atomic_compare_exchange_strong_explicit
#undef atomic_compare_exchange_weak
#undef atomic_compare_exchange_weak_explicit
#undef atomic_fetch_add
#undef atomic_fetch_add_explicit
#undef atomic_fetch_sub
#undef atomic_fetch_sub_explicit
#undef atomic_fetch_or
#undef atomic_fetch_or_explicit
#undef atomic_fetch_xor
#undef atomic_fetch_xor_explicit
#undef atomic_fetch_and
#undef atomic_fetch_and_explicit
#undef atomic_flag_test_and_set
#undef atomic_flag_test_and_set_explicit
#define atomic_exchange(o, v) HFP_RMW_(__c11_atomic_exchange, o, v, __ATOMIC_SEQ_CST)
#define atomic_exchange_explicit(o, v, m) HFP_RMW_(__c11_atomic_exchange, o, v, m)
#define atomic_compare_exchange_strong(o, e, d) \
    HFP_RMW_(__c11_atomic_compare_exchange_strong, o, e, d, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define atomic_compare_exchange_strong_explicit(o, e, d, s, f) \
    HFP_RMW_(__c11_atomic_compare_exchange_strong, o, e, d, s, f)
#define atomic_compare_exchange_weak(o, e, d) \
    HFP_RMW_(__c11_atomic_compare_exchange_weak, o, e, d, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define atomic_compare_exchange_weak_explicit(o, e, d, s, f) \
    HFP_RMW_(__c11_atomic_compare_exchange_weak, o, e, d, s, f)
#define atomic_fetch_add(o, v) HFP_RMW_(__c11_atomic_fetch_add, o, v, __ATOMIC_SEQ_CST)
#define atomic_fetch_add_explicit(o, v, m) HFP_RMW_(__c11_atomic_fetch_add, o, v, m)
#define atomic_fetch_sub(o, v) HFP_RMW_(__c11_atomic_fetch_sub, o, v, __ATOMIC_SEQ_CST)
#define atomic_fetch_sub_explicit(o, v, m) HFP_RMW_(__c11_atomic_fetch_sub, o, v, m)
#define atomic_fetch_or(o, v) HFP_RMW_(__c11_atomic_fetch_or, o, v, __ATOMIC_SEQ_CST)
#define atomic_fetch_or_explicit(o, v, m) HFP_RMW_(__c11_atomic_fetch_or, o, v, m)
#define atomic_fetch_xor(o, v) HFP_RMW_(__c11_atomic_fetch_xor, o, v, __ATOMIC_SEQ_CST)
#define atomic_fetch_xor_explicit(o, v, m) HFP_RMW_(__c11_atomic_fetch_xor, o, v, m)
#define atomic_fetch_and(o, v) HFP_RMW_(__c11_atomic_fetch_and, o, v, __ATOMIC_SEQ_CST)
#define atomic_fetch_and_explicit(o, v, m) HFP_RMW_(__c11_atomic_fetch_and, o, v, m)
#define atomic_flag_test_and_set(o) HFP_RMW_(__c11_atomic_exchange, &(o)->_Value, 1, __ATOMIC_SEQ_CST)
#define atomic_flag_test_and_set_explicit(o, m) HFP_RMW_(__c11_atomic_exchange, &(o)->_Value, 1, m)

#endif

#endif
