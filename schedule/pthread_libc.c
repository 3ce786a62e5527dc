/*
 * pthread_libc.c — the parts of the C library a pthread program's run must
 * not take from the real world: the clock, sleeping, rand(), thread-local
 * variables, the program's output, and its globals between runs.
 *
 * Time is the logical clock: CLOCK_REALTIME reads a fixed epoch plus the
 * run's logical time, every other clock the logical time alone; sleeping
 * blocks on it, so time moves only when every thread waits.  rand(),
 * random() and rand_r() are decisions whose default is a fixed sequence
 * (srand reseeds it), so the calm run is one ordinary run and the fuzzer may
 * choose any other value.
 *
 * Thread-locals: clang's -femulated-tls compiles every access to a
 * __thread variable into a call of __emutls_get_address, which is served
 * here with one block per thread and variable, in the run's arena.
 *
 * Globals: a process runs the program many times, so the program's
 * writable data (gathered by the tool into sections hf_prog_data and
 * hf_prog_bss) is put back to its first values before every run.
 */
#define _GNU_SOURCE
#include "pthread_layer.h"
#include "sanitizer.h"

#include <assert.h>
#include <errno.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* ---- Logical time -------------------------------------------------------- */

/* What CLOCK_REALTIME reads at the start of every run: 2023-11-14 22:13:20 UTC. */
#define HFP_EPOCH_SECONDS 1700000000ull

static bool is_wall_clock(clockid_t clock) {
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI;
}

void hfp_clock_now(clockid_t clock, struct timespec *ts) {
    uint64_t ns = hf_now() + (is_wall_clock(clock) ? HFP_EPOCH_SECONDS * HF_SEC : 0);
    ts->tv_sec = (time_t)(ns / HF_SEC);
    ts->tv_nsec = (long)(ns % HF_SEC);
}

uint64_t hfp_until(clockid_t clock, const struct timespec *abstime) {
    if (abstime->tv_sec < 0) return 0;
    struct timespec now;
    hfp_clock_now(clock, &now);
    uint64_t at = (uint64_t)abstime->tv_sec * HF_SEC + (uint64_t)abstime->tv_nsec;
    uint64_t current = (uint64_t)now.tv_sec * HF_SEC + (uint64_t)now.tv_nsec;
    return at > current ? at - current : 0;
}

int hfp_clock_gettime(clockid_t clock, struct timespec *ts);
int hfp_clock_gettime(clockid_t clock, struct timespec *ts) {
    hfp_clock_now(clock, ts);
    return 0;
}

time_t hfp_time(time_t *out);
time_t hfp_time(time_t *out) {
    struct timespec ts;
    hfp_clock_now(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}

int hfp_gettimeofday(struct timeval *tv, void *tz);
int hfp_gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    struct timespec ts;
    hfp_clock_now(CLOCK_REALTIME, &ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

clock_t hfp_clock(void);
clock_t hfp_clock(void) { return (clock_t)(hf_now() / (HF_SEC / CLOCKS_PER_SEC)); }

static void sleep_ns(uint64_t ns) {
    int saved_errno = errno;
    hf_sleep(ns);
    errno = saved_errno;
}

unsigned hfp_sleep(unsigned seconds);
unsigned hfp_sleep(unsigned seconds) {
    sleep_ns((uint64_t)seconds * HF_SEC);
    return 0;
}

int hfp_usleep(useconds_t us);
int hfp_usleep(useconds_t us) {
    sleep_ns((uint64_t)us * HF_US);
    return 0;
}

int hfp_nanosleep(const struct timespec *req, struct timespec *rem);
int hfp_nanosleep(const struct timespec *req, struct timespec *rem) {
    if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) { errno = EINVAL; return -1; }
    sleep_ns((uint64_t)req->tv_sec * HF_SEC + (uint64_t)req->tv_nsec);
    if (rem) *rem = (struct timespec){0, 0};
    return 0;
}

int hfp_clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem);
int hfp_clock_nanosleep(clockid_t clock, int flags, const struct timespec *req, struct timespec *rem) {
    if (req->tv_nsec < 0 || req->tv_nsec >= 1000000000) return EINVAL;
    uint64_t ns = flags & TIMER_ABSTIME ? hfp_until(clock, req)
                                        : (uint64_t)req->tv_sec * HF_SEC + (uint64_t)req->tv_nsec;
    sleep_ns(ns);
    if (rem) *rem = (struct timespec){0, 0};
    return 0;
}

/* ---- rand(): decisions --------------------------------------------------- */

/* The default sequence: splitmix64, a fixed function of the seed. */
static uint64_t next_default(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A decision inside a run; outside one (a constructor), the default. */
static int random_value(const char *what, uint64_t dflt) {
    uint64_t v = hf_w.current && !hf_w.stopping ? hf_random64(what, dflt) : dflt;
    return (int)(v & RAND_MAX);
}

int hfp_rand(void);
int hfp_rand(void) { return random_value("rand", next_default(&hfp.rand_state)); }

long hfp_random(void);
long hfp_random(void) { return random_value("random", next_default(&hfp.rand_state)); }

void hfp_srand(unsigned seed);
void hfp_srand(unsigned seed) { hfp.rand_state = seed; }

void hfp_srandom(unsigned seed);
void hfp_srandom(unsigned seed) { hfp.rand_state = seed; }

int hfp_rand_r(unsigned *seed);
int hfp_rand_r(unsigned *seed) {
    uint64_t state = *seed;
    uint64_t dflt = next_default(&state);
    *seed = (unsigned)state;
    return random_value("rand_r", dflt);
}

/* ---- Thread-locals (-femulated-tls) -------------------------------------- */

/* compiler-rt's layout of the control block clang emits per variable. */
typedef struct hfp_emutls_control {
    size_t size;
    size_t align;
    union { uintptr_t index; void *address; } object;
    void *value;                 /* initial value, or NULL for zeros */
} hfp_emutls_control;

static void *new_tls_block(const hfp_emutls_control *c, void *(*alloc)(size_t)) {
    size_t align = c->align > alignof(max_align_t) ? c->align : 1;
    char *raw = alloc(c->size + align);
    assert(raw && "no memory for a thread-local variable");
    char *block = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (c->value) memcpy(block, c->value, c->size);
    else memset(block, 0, c->size);
    return block;
}

/* Thread-locals touched outside a run (a constructor): one process-wide
 * copy, kept for the life of the process. */
typedef struct outside_tls { const hfp_emutls_control *control; void *block; struct outside_tls *next; } outside_tls;
static outside_tls *outside_blocks;

static void *outside_run_block(hfp_emutls_control *c) {
    for (outside_tls *o = outside_blocks; o; o = o->next)
        if (o->control == c) return o->block;
    outside_tls *o = malloc(sizeof *o);
    assert(o && "no memory for a thread-local variable");
    *o = (outside_tls){c, new_tls_block(c, malloc), outside_blocks};
    outside_blocks = o;
    return o->block;
}

void *hfp___emutls_get_address(hfp_emutls_control *c);
void *hfp___emutls_get_address(hfp_emutls_control *c) {
    hfp_thread *t = hf_w.current && hfp.run ? hfp.threads[hf_w.current->id] : NULL;
    if (!t) return outside_run_block(c);
    /* The control block is in the program's data, put back before every
     * run, so variables are numbered afresh in each run. */
    if (c->object.index == 0) c->object.index = ++hfp.tls_variables;
    size_t i = c->object.index - 1;
    if (i >= t->tls_cap) {
        size_t cap = t->tls_cap ? t->tls_cap : 8;
        while (cap <= i) cap *= 2;
        void **grown = hf_alloc(cap * sizeof *grown);
        if (t->tls_cap) memcpy(grown, t->tls, t->tls_cap * sizeof *grown);
        t->tls = grown;
        t->tls_cap = cap;
    }
    if (!t->tls[i]) t->tls[i] = new_tls_block(c, hf_alloc);
    return t->tls[i];
}

/* ---- The program's output: silent unless HEISENFUZZ_PROGRAM_OUTPUT is set */

FILE *hfp_stdout, *hfp_stderr;

/* The program's main, as in pthread_thread.c. */
extern int hfp_main(int argc, char **argv, char **envp) __attribute__((weak));

/* Before the program's own constructors, which may print. */
__attribute__((constructor(101))) static void open_program_output(void) {
    if (!hfp_main) return;
    if (getenv("HEISENFUZZ_PROGRAM_OUTPUT")) {
        hfp_stdout = stdout;
        hfp_stderr = stderr;
        return;
    }
    FILE *null = fopen("/dev/null", "w");
    hfp_stdout = hfp_stderr = null ? null : stderr;
}

int hfp_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
int hfp_vprintf(const char *fmt, va_list ap) { return vfprintf(hfp_stdout, fmt, ap); }

int hfp_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int hfp_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(hfp_stdout, fmt, ap);
    va_end(ap);
    return n;
}

int hfp_puts(const char *s);
int hfp_puts(const char *s) { return fputs(s, hfp_stdout) < 0 || fputc('\n', hfp_stdout) < 0 ? EOF : 1; }

int hfp_putchar(int c);
int hfp_putchar(int c) { return fputc(c, hfp_stdout); }

void hfp_perror(const char *s);
void hfp_perror(const char *s) {
    int e = errno;
    if (s && *s) fprintf(hfp_stderr, "%s: %s\n", s, strerror(e));
    else fprintf(hfp_stderr, "%s\n", strerror(e));
}

/* ---- The program's globals, put back before every run -------------------- */

extern unsigned char __start_hf_prog_data[] __attribute__((weak));
extern unsigned char __stop_hf_prog_data[] __attribute__((weak));
extern unsigned char __start_hf_prog_bss[] __attribute__((weak));
extern unsigned char __stop_hf_prog_bss[] __attribute__((weak));

/* Byte by byte, uninstrumented: under ASan the sections hold the globals'
 * redzones, which the program itself may not touch but this copy must. */
__attribute__((no_sanitize("address", "memory")))
static void copy_raw(volatile unsigned char *to, const volatile unsigned char *from, size_t n) {
    for (size_t i = 0; i < n; i++) to[i] = from[i];
}

typedef struct saved_section { unsigned char *start, *first; size_t size; } saved_section;

/* Keeps the section's first contents the first time; puts them back after. */
static void restore_section(saved_section *s, unsigned char *start, unsigned char *stop) {
    if (!start || s->first) {
        if (s->size) copy_raw(s->start, s->first, s->size);
        hf_msan_unpoison(s->start, s->size);
        return;
    }
    s->start = start;
    s->size = (size_t)(stop - start);
    s->first = malloc(s->size ? s->size : 1);
    assert(s->first && "no memory to keep the program's globals");
    copy_raw(s->first, start, s->size);
}

void hfp_restore_globals(void) {
    static saved_section data, bss;
    /* The first run finds what the loader and the constructors left. */
    restore_section(&data, __start_hf_prog_data, __stop_hf_prog_data);
    restore_section(&bss, __start_hf_prog_bss, __stop_hf_prog_bss);
}
