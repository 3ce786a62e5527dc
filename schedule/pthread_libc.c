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
 *
 * The invocation: main's arguments and the bytes on stdin are what the
 * fuzzer set (hf_program_set_args, hf_program_set_stdin: the same in every
 * run until set again), and the environment is a fixed set
 * (HFP_ENVIRONMENT), never the real one, which differs between machines,
 * shells and engines: a program that branches on it would not replay.
 * stdin is the set bytes, read from the start in every run; changes the
 * program makes to its environment last until the run ends.  getopt's
 * state starts over in every run, and the processor count is fixed.
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

void hfp_retime(clockid_t from, const struct timespec *abstime, clockid_t to, struct timespec *out) {
    uint64_t ns = hfp_until(from, abstime);
    hfp_clock_now(to, out);
    uint64_t at = (uint64_t)out->tv_sec * HF_SEC + (uint64_t)out->tv_nsec + ns;
    out->tv_sec = (time_t)(at / HF_SEC);
    out->tv_nsec = (long)(at % HF_SEC);
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

/* HEISENFUZZ_PROGRAM_OUTPUT=FILE: stdout goes to FILE, which holds the
 * last run's alone (a replay's, not the calm run's made before it). */
static bool stdout_to_file;

/* Before the program's own constructors, which may print. */
__attribute__((constructor(101))) static void open_program_output(void) {
    if (!hfp_main) return;
    const char *shown = getenv("HEISENFUZZ_PROGRAM_OUTPUT");
    if (shown && *shown && strcmp(shown, "1")) {
        hfp_stdout = fopen(shown, "w");
        hfp_stderr = stderr;
        if (!hfp_stdout) {
            fprintf(stderr, "heisenfuzz: HEISENFUZZ_PROGRAM_OUTPUT=%s: %s\n", shown, strerror(errno));
            exit(2);
        }
        stdout_to_file = true;
        return;
    }
    if (shown) {
        hfp_stdout = stdout;
        hfp_stderr = stderr;
        return;
    }
    FILE *null = fopen("/dev/null", "w");
    hfp_stdout = hfp_stderr = null ? null : stderr;
}

/* A run's start: the output file emptied. */
static void start_output(void) {
    if (!stdout_to_file) return;
    fflush(hfp_stdout);
    rewind(hfp_stdout);
    if (ftruncate(fileno(hfp_stdout), 0) != 0)
        hf_fail(HF_FAIL_CONFIG, NULL, "cannot empty HEISENFUZZ_PROGRAM_OUTPUT's file: %s", strerror(errno));
}

/* The machine's processors (HFP_PROCESSORS), which differ between machines. */
long hfp_sysconf(int name);
long hfp_sysconf(int name) {
    if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) return HFP_PROCESSORS;
    return sysconf(name);
}

int hfp_get_nprocs(void);
int hfp_get_nprocs(void) { return HFP_PROCESSORS; }

int hfp_get_nprocs_conf(void);
int hfp_get_nprocs_conf(void) { return HFP_PROCESSORS; }

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

/* ---- The invocation: arguments, environment, stdin ---------------------- */

/* What every run's environment starts as.  Documented in schedule/README.md
 * ("The rest of the world"); changing it changes what programs see. */
static char *const HFP_ENVIRONMENT[] = {
    "HOME=/nonexistent", "LANG=C", "LOGNAME=nobody", "PATH=/usr/bin:/bin",
    "SHELL=/bin/sh",     "TERM=dumb", "TZ=UTC",      "USER=nobody",
};
enum { HFP_ENVIRONMENT_COUNT = sizeof HFP_ENVIRONMENT / sizeof *HFP_ENVIRONMENT };

/* Outside a run (a constructor) the program sees the fixed set too. */
static char *outside_environment[HFP_ENVIRONMENT_COUNT + 1];
char **hfp_environ;
/* glibc's other name for environ: the same variable. */
extern char **hfp___environ __attribute__((alias("hfp_environ")));

static char **environment(void) {
    if (!hfp_environ) {
        memcpy(outside_environment, HFP_ENVIRONMENT, sizeof HFP_ENVIRONMENT);
        hfp_environ = outside_environment;
    }
    return hfp_environ;
}

static struct {
    char **argv;                   /* "program", the arguments, NULL */
    int argc;
    unsigned char *stdin_data;     /* malloc'd copy; NULL: empty */
    size_t stdin_size;
    bool stdin_changed;            /* since hfp_stdin was opened */
} invocation;

void hf_program_set_args(int count, char *const *args) {
    for (int i = 1; i < invocation.argc; i++) free(invocation.argv[i]);
    free(invocation.argv);
    invocation.argv = calloc((size_t)count + 2, sizeof *invocation.argv);
    assert(invocation.argv && "no memory for the program's arguments");
    invocation.argv[0] = "program";
    for (int i = 0; i < count; i++) {
        invocation.argv[i + 1] = strdup(args[i]);
        assert(invocation.argv[i + 1] && "no memory for the program's arguments");
    }
    invocation.argc = count + 1;
}

void hf_program_set_stdin(const void *data, size_t size) {
    free(invocation.stdin_data);
    invocation.stdin_data = NULL;
    invocation.stdin_size = size;
    invocation.stdin_changed = true;
    if (!size) return;
    invocation.stdin_data = malloc(size);
    assert(invocation.stdin_data && "no memory for the program's stdin");
    memcpy(invocation.stdin_data, data, size);
}

FILE *hfp_stdin;

int hfp_invocation(char ***argv, char ***envp) {
    if (!invocation.argv) hf_program_set_args(0, NULL);
    /* A copy per run: the program may write into its arguments. */
    char **copy = hf_alloc(((size_t)invocation.argc + 1) * sizeof *copy);
    for (int i = 0; i < invocation.argc; i++) copy[i] = hf_strdup(invocation.argv[i]);
    *argv = copy;
    char **env = hf_alloc((HFP_ENVIRONMENT_COUNT + 1) * sizeof *env);
    for (int i = 0; i < HFP_ENVIRONMENT_COUNT; i++) env[i] = hf_strdup(HFP_ENVIRONMENT[i]);
    hfp_environ = *envp = env;
    /* The same bytes from the start in every run: one stream over them,
     * rewound (cheaper than a stream per run), made anew when they change. */
    if (!hfp_stdin || invocation.stdin_changed) {
        if (hfp_stdin) fclose(hfp_stdin);
        static unsigned char nothing;
        hfp_stdin = fmemopen(invocation.stdin_size ? invocation.stdin_data : &nothing, invocation.stdin_size, "r");
        assert(hfp_stdin && "fmemopen failed for the program's stdin");
        invocation.stdin_changed = false;
    }
    rewind(hfp_stdin);
    start_output();
    /* getopt's state is the C library's, not the program's globals: a run
     * would go on parsing where the last one stopped (xz's second run
     * skipped its options).  optind = 0 makes glibc's getopt start over. */
    optind = 0;
    opterr = 1;
    optopt = '?';
    optarg = NULL;
    return invocation.argc;
}

/* The entry of `name` in the environment, or NULL. */
static char **find_variable(const char *name, size_t length) {
    for (char **e = environment(); *e; e++)
        if (!strncmp(*e, name, length) && (*e)[length] == '=') return e;
    return NULL;
}

static void *environment_memory(size_t size) {
    if (hf_w.current && hfp.run) return hf_alloc(size);
    void *p = calloc(1, size);   /* a constructor's change: kept for the process */
    assert(p && "no memory for the program's environment");
    return p;
}

char *hfp_getenv(const char *name);
char *hfp_getenv(const char *name) {
    if (!name || strchr(name, '=')) return NULL;
    char **e = find_variable(name, strlen(name));
    return e ? *e + strlen(name) + 1 : NULL;
}

char *hfp_secure_getenv(const char *name);
char *hfp_secure_getenv(const char *name) { return hfp_getenv(name); }

/* Puts `entry` (NAME=VALUE) in place of NAME's, or at the end of a new array. */
static void put_entry(char *entry, size_t name_length) {
    char **e = find_variable(entry, name_length);
    if (e) { *e = entry; return; }
    size_t n = 0;
    while (environment()[n]) n++;
    char **grown = environment_memory((n + 2) * sizeof *grown);
    for (size_t i = 0; i < n; i++) grown[i] = hfp_environ[i];
    grown[n] = entry;
    hfp_environ = grown;
}

int hfp_setenv(const char *name, const char *value, int overwrite);
int hfp_setenv(const char *name, const char *value, int overwrite) {
    if (!name || !*name || strchr(name, '=')) { errno = EINVAL; return -1; }
    size_t length = strlen(name);
    if (find_variable(name, length) && !overwrite) return 0;
    char *entry = environment_memory(length + strlen(value) + 2);
    memcpy(entry, name, length);
    entry[length] = '=';
    strcpy(entry + length + 1, value);
    put_entry(entry, length);
    return 0;
}

int hfp_putenv(char *string);
int hfp_putenv(char *string) {
    char *equals = strchr(string, '=');
    if (!equals) { errno = EINVAL; return -1; }
    put_entry(string, (size_t)(equals - string));
    return 0;
}

int hfp_unsetenv(const char *name);
int hfp_unsetenv(const char *name) {
    if (!name || !*name || strchr(name, '=')) { errno = EINVAL; return -1; }
    char **e;
    while ((e = find_variable(name, strlen(name))))
        do e[0] = e[1]; while (*e++);
    return 0;
}

int hfp_clearenv(void);
int hfp_clearenv(void) {
    hfp_environ = environment_memory(sizeof *hfp_environ);
    return 0;
}

/* The calls that read stdin without naming it. */
int hfp_getchar(void);
int hfp_getchar(void) { return fgetc(hfp_stdin); }

int hfp_vscanf(const char *fmt, va_list ap) __attribute__((format(scanf, 1, 0)));
int hfp_vscanf(const char *fmt, va_list ap) { return vfscanf(hfp_stdin, fmt, ap); }

int hfp_scanf(const char *fmt, ...) __attribute__((format(scanf, 1, 2)));
int hfp_scanf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vfscanf(hfp_stdin, fmt, ap);
    va_end(ap);
    return n;
}

/* glibc's headers name scanf by the standard it follows. */
int hfp___isoc99_scanf(const char *fmt, ...) __attribute__((format(scanf, 1, 2)));
int hfp___isoc99_scanf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vfscanf(hfp_stdin, fmt, ap);
    va_end(ap);
    return n;
}

int hfp___isoc99_vscanf(const char *fmt, va_list ap) __attribute__((format(scanf, 1, 0)));
int hfp___isoc99_vscanf(const char *fmt, va_list ap) { return vfscanf(hfp_stdin, fmt, ap); }

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
