/*
 * discovery.c — the discovery log writer: species counts per execution,
 * lines appended now and then, the status line.
 *
 * The hot path, hf_discovery_record, is a table update per behaviour the
 * run showed and a look at the coarse monotonic clock (read from the vDSO,
 * no system call); a line costs a few write()s, and lines are spaced so
 * that their cost vanishes.
 */
#define _GNU_SOURCE   /* CLOCK_MONOTONIC_COARSE */
#include "discovery.h"
#include "behaviour.h"
#include "species.h"
#include "status.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Sightings logged between two stats lines at most; a full buffer is one
 * more reason to write a line, so the buffer never grows. */
enum { PENDING_MAX = 4096 };
enum { LINE_MAX_BYTES = 256 };
#define PERIOD_MIN_S 1.0
#define PERIOD_MAX_S 60.0
#define STATUS_PERIOD_S 60.0

typedef struct sighting {
    uint64_t behaviour;
    uint64_t count;          /* 1, 2 or 3 */
} sighting;

/* Lines gather here and leave in write()s that end at the next 4 KiB
 * boundary of the file at the latest (see append_line). */
typedef struct chunk {
    char bytes[HF_LOG_PAGE];
    size_t used;
    size_t room;             /* bytes from the chunk's start to the boundary */
} chunk;

struct hf_discovery {
    int fd;                  /* -1 once a write failed: counting goes on */
    char *path;
    char instance[13];
    double started;          /* monotonic seconds */
    FILE *status;
    hf_species species;
    hf_progress now;         /* counts at the latest execution; wall_s at the latest line */
    hf_plateau plateau;      /* the rule, fed at each line */
    sighting pending[PENDING_MAX];
    chunk out;
    size_t pending_count;
    uint64_t line_executions;    /* at the latest line */
    uint64_t next_line_executions;
    double next_line_s;          /* coarse monotonic seconds */
    uint64_t next_status_executions;
    double next_status_s;
};

static double clock_seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A name for this process's stretch of the log.  Process ids repeat (and
 * start at 1 in every container), so mix in the clocks and an address
 * that ASLR moves. */
static void make_instance_id(char out[13]) {
    struct timespec real, mono;
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    uint64_t x = hf_mix64((uint64_t)real.tv_sec * 1000000007u ^ (uint64_t)real.tv_nsec ^
                          (uint64_t)mono.tv_nsec << 20 ^ (uint64_t)getpid() << 40 ^ (uint64_t)(uintptr_t)out);
    snprintf(out, 13, "%012llx", (unsigned long long)(x >> 16));
}

static void stop_logging(hf_discovery *d, const char *what, int error) {
    fprintf(stderr, "heisenfuzz: discovery log %s: %s: %s; logging stops, fuzzing goes on\n", d->path,
            what, strerror(error));
    close(d->fd);
    d->fd = -1;
}

static void write_all(hf_discovery *d, const char *bytes, size_t size) {
    assert(size <= HF_LOG_PAGE);
    if (d->fd < 0 || size == 0) return;
    ssize_t n;
    do n = write(d->fd, bytes, size); while (n < 0 && errno == EINTR);
    if (n < 0) stop_logging(d, "write failed", errno);
    else if ((size_t)n != size) stop_logging(d, "short write", ENOSPC);
}

/*
 * Why lines never cross a 4 KiB boundary of the file: Linux copies a
 * write() into the file page by page and gives up between two pages when
 * the process is being killed, so a write that spans a boundary can be cut
 * there, leaving half a line.  A write within one page is whole or absent.
 * So a batch of lines takes the file lock (other processes may append to
 * the same file), learns where the file ends, and fills each page to its
 * boundary with whole lines, padding the rest with a comment line.
 */
static void begin_lines(hf_discovery *d) {
    chunk *c = &d->out;
    c->used = 0;
    c->room = HF_LOG_PAGE;
    if (d->fd < 0) return;
    while (flock(d->fd, LOCK_EX) != 0 && errno == EINTR) {}
    off_t end = lseek(d->fd, 0, SEEK_END);
    if (end > 0) c->room = HF_LOG_PAGE - (size_t)end % HF_LOG_PAGE;
}

static void append_line(hf_discovery *d, const char *line, int len) {
    chunk *c = &d->out;
    assert(len > 0 && len < LINE_MAX_BYTES);
    if (c->used + (size_t)len > c->room) {
        size_t pad = c->room - c->used;
        if (pad > 0) {
            memset(c->bytes + c->used, ' ', pad);
            c->bytes[c->used] = '#';
            c->bytes[c->room - 1] = '\n';
        }
        write_all(d, c->bytes, c->room);
        c->used = 0;
        c->room = HF_LOG_PAGE;
    }
    memcpy(c->bytes + c->used, line, (size_t)len);
    c->used += (size_t)len;
}

static void end_lines(hf_discovery *d) {
    write_all(d, d->out.bytes, d->out.used);
    if (d->fd >= 0) flock(d->fd, LOCK_UN);
}

static void free_discovery(hf_discovery *d) {
    if (d->fd >= 0) close(d->fd);
    hf_species_free(&d->species);
    free(d->path);
    free(d);
}

hf_discovery *hf_discovery_open(const char *path, const char *target, const char *engine,
                                FILE *status, char *error, size_t error_size) {
    assert(path && *path && target && *target && engine && *engine);
    assert(!strpbrk(target, " \t\n") && !strpbrk(engine, " \t\n"));
    assert(strlen(target) + strlen(engine) < 128);
    hf_discovery *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(error, error_size, "out of memory opening the discovery log %s", path);
        return NULL;
    }
    d->fd = -1;
    if (!(d->path = strdup(path)) || !hf_species_init(&d->species)) {
        snprintf(error, error_size, "out of memory opening the discovery log %s", path);
        free_discovery(d);
        return NULL;
    }
    d->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (d->fd < 0) {
        snprintf(error, error_size, "cannot open the discovery log %s: %s", path, strerror(errno));
        free_discovery(d);
        return NULL;
    }
    make_instance_id(d->instance);
    d->status = status;
    d->started = clock_seconds(CLOCK_MONOTONIC);
    d->next_line_executions = 1;
    d->next_line_s = clock_seconds(CLOCK_MONOTONIC_COARSE) + PERIOD_MIN_S;
    d->next_status_executions = 1024;
    d->next_status_s = d->next_line_s + STATUS_PERIOD_S;

    char line[LINE_MAX_BYTES];
    int len = snprintf(line, sizeof line, "start %s %.3f %ld %s %s\n", d->instance,
                       clock_seconds(CLOCK_REALTIME), (long)getpid(), target, engine);
    begin_lines(d);
    append_line(d, line, len);
    end_lines(d);
    if (d->fd < 0) {
        snprintf(error, error_size, "cannot write the discovery log %s", path);
        free_discovery(d);
        return NULL;
    }
    return d;
}

static void print_status(hf_discovery *d) {
    if (!d->status) return;
    char line[512];
    hf_status_line(line, sizeof line, &d->now, &d->plateau);
    fprintf(d->status, "%s\n", line);
    fflush(d->status);
}

static void write_line(hf_discovery *d) {
    double now_s = clock_seconds(CLOCK_MONOTONIC);
    hf_progress *p = &d->now;
    p->wall_s = now_s - d->started;

    begin_lines(d);
    char line[LINE_MAX_BYTES];
    for (size_t i = 0; i < d->pending_count; i++) {
        int len = snprintf(line, sizeof line, "seen %s %016llx %llu\n", d->instance,
                           (unsigned long long)d->pending[i].behaviour,
                           (unsigned long long)d->pending[i].count);
        append_line(d, line, len);
    }
    d->pending_count = 0;
    int len = snprintf(line, sizeof line,
                       "stats %s %.3f %llu %llu.%09llu %llu %llu %llu %.6e %.3f %llu\n",
                       d->instance, p->wall_s, (unsigned long long)p->executions,
                       (unsigned long long)(p->logical_ns / 1000000000u),
                       (unsigned long long)(p->logical_ns % 1000000000u),
                       (unsigned long long)p->behaviours, (unsigned long long)p->f1, (unsigned long long)p->f2,
                       hf_good_turing(p->f1, p->executions), hf_chao1(p->behaviours, p->f1, p->f2),
                       (unsigned long long)p->crashes);
    append_line(d, line, len);
    end_lines(d);

    /* The next line: after a sixteenth more executions, or a period that
     * grows with the campaign's age, so a day-long log stays small and a
     * short one still draws a curve. */
    d->line_executions = p->executions;
    d->next_line_executions = p->executions + (p->executions / 16 > 1 ? p->executions / 16 : 1);
    double period = p->wall_s / 64;
    period = period < PERIOD_MIN_S ? PERIOD_MIN_S : period > PERIOD_MAX_S ? PERIOD_MAX_S : period;
    d->next_line_s = clock_seconds(CLOCK_MONOTONIC_COARSE) + period;

    bool held = d->plateau.holds;
    hf_plateau_update(&d->plateau, p);
    bool status_due = held != d->plateau.holds || p->executions >= d->next_status_executions ||
                      now_s >= d->next_status_s;
    if (status_due) {
        while (d->next_status_executions <= p->executions) d->next_status_executions *= 2;
        d->next_status_s = now_s + STATUS_PERIOD_S;
        print_status(d);
    }
}

void hf_discovery_record(hf_discovery *d, const uint64_t *behaviours, size_t count, uint64_t logical_ns,
                         bool failed) {
    assert(d);
    assert(behaviours || count == 0);
    assert(count <= PENDING_MAX);
    /* A run adds at most one sighting per behaviour (they are distinct). */
    if (d->pending_count + count > PENDING_MAX) write_line(d);
    hf_progress *p = &d->now;
    p->executions++;
    p->logical_ns += logical_ns;
    if (failed) p->crashes++;
    for (size_t i = 0; i < count; i++) {
        uint64_t seen = hf_species_add(&d->species, behaviours[i]);
        if (seen == 0) {
            /* Out of memory: the counts from here on would be wrong. */
            if (d->fd >= 0) stop_logging(d, "cannot count behaviours", ENOMEM);
            return;
        }
        if (seen <= 3) d->pending[d->pending_count++] = (sighting){behaviours[i], seen};
    }
    p->behaviours = d->species.distinct;
    p->f1 = d->species.f1;
    p->f2 = d->species.f2;

    if (failed || d->pending_count == PENDING_MAX || p->executions >= d->next_line_executions ||
        clock_seconds(CLOCK_MONOTONIC_COARSE) >= d->next_line_s)
        write_line(d);
}

void hf_discovery_flush(hf_discovery *d) {
    assert(d);
    if (d->now.executions != d->line_executions || d->pending_count) write_line(d);
}

void hf_discovery_close(hf_discovery *d) {
    if (!d) return;
    hf_discovery_flush(d);
    print_status(d);
    free_discovery(d);
}

const hf_progress *hf_discovery_progress(const hf_discovery *d) { return &d->now; }
const hf_plateau *hf_discovery_plateau(const hf_discovery *d) { return &d->plateau; }

static hf_discovery *env_log;

static void close_env_log(void) {
    hf_discovery_close(env_log);
    env_log = NULL;
}

hf_discovery *hf_discovery_from_env(const char *target, const char *engine) {
    static bool looked;
    if (looked) return env_log;
    looked = true;
    const char *path = getenv("HEISENFUZZ_LOG");
    if (!path || !*path) return NULL;
    char error[512];
    env_log = hf_discovery_open(path, target, engine, stderr, error, sizeof error);
    if (!env_log) {
        fprintf(stderr, "heisenfuzz: HEISENFUZZ_LOG: %s\n", error);
        /* _exit: the engine's exit hooks would report this as a crash of
         * the input at hand. */
        _exit(2);
    }
    atexit(close_env_log);
    return env_log;
}
