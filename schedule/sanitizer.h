/*
 * sanitizer.h — which sanitizer this file is compiled under, and no-op
 * stand-ins for the annotations when it is none.
 */
#ifndef HF_SANITIZER_H
#define HF_SANITIZER_H

#include <stddef.h>

#if defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define HF_ASAN 1
#  endif
#  if __has_feature(memory_sanitizer)
#    define HF_MSAN 1
#  endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(HF_ASAN)
#  define HF_ASAN 1
#endif

#ifdef HF_ASAN
#  include <sanitizer/asan_interface.h>
#  include <sanitizer/common_interface_defs.h>
#  define hf_asan_start_switch(save, bottom, size) \
       __sanitizer_start_switch_fiber((save), (bottom), (size))
#  define hf_asan_finish_switch(fake, bottom_old, size_old) \
       __sanitizer_finish_switch_fiber((fake), (bottom_old), (size_old))
#  define hf_asan_unpoison(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#  define hf_asan_start_switch(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#  define hf_asan_finish_switch(fake, bottom_old, size_old) \
       ((void)(fake), (void)(bottom_old), (void)(size_old))
#  define hf_asan_unpoison(p, n) ((void)(p), (void)(n))
#endif

#ifdef HF_MSAN
#  include <sanitizer/msan_interface.h>
#  define hf_msan_unpoison(p, n) __msan_unpoison((p), (n))
#else
#  define hf_msan_unpoison(p, n) ((void)(p), (void)(n))
#endif

#endif
