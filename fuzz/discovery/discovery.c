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
enum { LINE_MAX_BYTES = 512 };   /* readers take lines up to 511 bytes (logread.c) */
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

/* A property's counts in this process (the held lines). */
typedef struct property_counts {
    uint64_t evaluated, held, failed;
    uint64_t first_held;     /* execution, 0 = not yet */
} property_counts;

/* A fault kind's counts in this process (the fault lines). */
typedef struct fault_counts {
    uint64_t allowed, enabled, injected;
} fault_counts;

/* A failed run waiting for its line. */
typedef struct crash_line {
    bool pending;
    char text[LINE_MAX_BYTES];
    int len;
} crash_line;

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
    /* The facts lines, once hf_discovery_declare was called. */
    bool facts;
    size_t property_count;
    property_counts *properties;
    uint32_t *changed_properties;    /* indexes whose counts changed since the last line */
    size_t changed_count;
    uint8_t *property_changed;       /* per property: in changed_properties */
    fault_counts faults[HF_FAULT_KIND_COUNT];
    uint32_t changed_faults;         /* HF_FAULT_BIT mask */
    uint8_t pending_category[PENDING_MAX];   /* 0: unknown */
    crash_line crash;
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
    free(d->properties);
    free(d->changed_properties);
    free(d->property_changed);
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

    /* afl-fuzz hands its shared memory's id to the target it runs: then
     * this process is a child of the instance's fork server (or, without
     * one, run by afl-fuzz itself), and all of them are one instance. */
    long engine_pid = getenv("__AFL_SHM_ID") ? (long)getppid() : (long)getpid();
    char line[LINE_MAX_BYTES];
    int len = snprintf(line, sizeof line, "start %s %.3f %ld %s %s %ld\n", d->instance,
                       clock_seconds(CLOCK_REALTIME), (long)getpid(), target, engine, engine_pid);
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

/* ---- Facts: properties, faults, crashes ------------------------------------ */

/* Writes `text` escaped (see discovery.h) into out[0..size), cut at an
 * escape's boundary so that it fits; "-" when empty.  False when cut. */
static bool escape_text(char *out, size_t size, const char *text) {
    assert(size >= 4);
    if (!text || !*text) { snprintf(out, size, "-"); return true; }
    if (!strcmp(text, "-")) { snprintf(out, size, "%%2D"); return true; }
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)text;
    for (; *p; p++) {
        bool plain = *p > ' ' && *p <= '~' && *p != '%';
        if (o + (plain ? 1 : 3) >= size) break;
        if (plain) out[o++] = (char)*p;
        else o += (size_t)snprintf(out + o, size - o, "%%%02X", *p);
    }
    out[o] = '\0';
    return *p == '\0';
}

/* A name as one field: spaces become '_' ("torn write" -> torn_write). */
static void word_of(char *out, size_t size, const char *name) {
    size_t o = 0;
    for (; *name && o + 1 < size; name++) out[o++] = *name == ' ' ? '_' : *name;
    out[o] = '\0';
}

void hf_discovery_declare(hf_discovery *d, const hf_log_property *properties, size_t count) {
    assert(d && !d->facts && d->now.executions == 0);
    assert(properties || count == 0);
    assert(count <= HF_LOG_PROPERTIES_MAX);
    d->properties = calloc(count ? count : 1, sizeof *d->properties);
    d->changed_properties = calloc(count ? count : 1, sizeof *d->changed_properties);
    d->property_changed = calloc(count ? count : 1, 1);
    if (!d->properties || !d->changed_properties || !d->property_changed) {
        if (d->fd >= 0) stop_logging(d, "cannot count properties", ENOMEM);
        return;
    }
    d->facts = true;
    d->property_count = count;
    char line[LINE_MAX_BYTES];
    begin_lines(d);
    append_line(d, line, snprintf(line, sizeof line, "facts %s 1\n", d->instance));
    for (size_t i = 0; i < count; i++) {
        const hf_log_property *p = &properties[i];
        char where[224], file[200], message[LINE_MAX_BYTES];
        escape_text(file, sizeof file, p->file);
        snprintf(where, sizeof where, "%s:%d", file, p->line);
        int head = snprintf(line, sizeof line, "property %s %zu %s %s ", d->instance, i, p->kind, where);
        assert(head > 0 && head < LINE_MAX_BYTES - 8);
        escape_text(message, (size_t)(LINE_MAX_BYTES - head - 1), p->message);
        append_line(d, line, snprintf(line, sizeof line, "property %s %zu %s %s %s\n", d->instance, i,
                                      p->kind, where, message));
    }
    end_lines(d);
}

/* The held, fault and crash lines due, before a stats line. */
static void write_facts(hf_discovery *d) {
    char line[LINE_MAX_BYTES];
    for (size_t i = 0; i < d->changed_count; i++) {
        uint32_t index = d->changed_properties[i];
        const property_counts *p = &d->properties[index];
        char first[24] = "-";
        if (p->first_held) snprintf(first, sizeof first, "%llu", (unsigned long long)p->first_held);
        append_line(d, line, snprintf(line, sizeof line, "held %s %u %llu %llu %llu %s\n", d->instance, index,
                                      (unsigned long long)p->evaluated, (unsigned long long)p->held,
                                      (unsigned long long)p->failed, first));
        d->property_changed[index] = 0;
    }
    d->changed_count = 0;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        if (!(d->changed_faults & HF_FAULT_BIT(k))) continue;
        char name[32];
        word_of(name, sizeof name, hf_fault_name((hf_fault_kind)k));
        const fault_counts *f = &d->faults[k];
        append_line(d, line, snprintf(line, sizeof line, "fault %s %s %llu %llu %llu\n", d->instance, name,
                                      (unsigned long long)f->allowed, (unsigned long long)f->enabled,
                                      (unsigned long long)f->injected));
    }
    d->changed_faults = 0;
    if (d->crash.pending) append_line(d, d->crash.text, d->crash.len);
    d->crash.pending = false;
}

/* The crash line of a failed run, kept for the line written right after. */
static void note_crash(hf_discovery *d, const hf_run_facts *run) {
    char outcome[32], property[24] = "-", file[256], message[LINE_MAX_BYTES];
    word_of(outcome, sizeof outcome, run->outcome && *run->outcome ? run->outcome : "?");
    if (run->property >= 0) snprintf(property, sizeof property, "%ld", run->property);
    /* A path cut short would name another file: then none is named. */
    if (!escape_text(file, sizeof file, run->replay_file)) snprintf(file, sizeof file, "-");
    assert(run->input_sha1 && strlen(run->input_sha1) == 40);
    int head = snprintf(d->crash.text, sizeof d->crash.text, "crash %s %llu %s %s %s %s ", d->instance,
                        (unsigned long long)d->now.executions, outcome, property, run->input_sha1, file);
    assert(head > 0 && head < LINE_MAX_BYTES - 8);
    escape_text(message, (size_t)(LINE_MAX_BYTES - head - 1), run->message);
    d->crash.len = snprintf(d->crash.text + head, sizeof d->crash.text - (size_t)head, "%s\n", message) + head;
    d->crash.pending = true;
}

static void count_facts(hf_discovery *d, const hf_run_facts *run) {
    uint64_t execution = d->now.executions;
    if (run->properties) {
        for (size_t i = 0; i < d->property_count; i++) {
            uint8_t bits = run->properties[i];
            if (!bits) continue;
            property_counts *p = &d->properties[i];
            p->evaluated += (bits & HF_LOG_EVALUATED) != 0;
            p->held += (bits & HF_LOG_HELD) != 0;
            p->failed += (bits & HF_LOG_FAILED) != 0;
            if ((bits & HF_LOG_HELD) && !p->first_held) p->first_held = execution;
            if (!d->property_changed[i]) {
                d->property_changed[i] = 1;
                d->changed_properties[d->changed_count++] = (uint32_t)i;
            }
        }
    }
    uint32_t touched = run->faults_allowed;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        if (!(touched & HF_FAULT_BIT(k)) && !(run->faults_injected && run->faults_injected[k])) continue;
        fault_counts *f = &d->faults[k];
        f->allowed += (run->faults_allowed & HF_FAULT_BIT(k)) != 0;
        f->enabled += (run->faults_enabled & HF_FAULT_BIT(k)) != 0;
        if (run->faults_injected) f->injected += run->faults_injected[k];
        d->changed_faults |= HF_FAULT_BIT(k);
    }
    if (run->failed) note_crash(d, run);
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
        const char *category = hf_feature_kind_name(d->pending_category[i]);
        int len = snprintf(line, sizeof line, "seen %s %016llx %llu%s%s\n", d->instance,
                           (unsigned long long)d->pending[i].behaviour,
                           (unsigned long long)d->pending[i].count, category ? " " : "",
                           category ? category : "");
        append_line(d, line, len);
    }
    d->pending_count = 0;
    if (d->facts) write_facts(d);
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
    assert(!d->facts);   /* a process that declared its facts records them with each run */
    hf_discovery_record_run(d, &(hf_run_facts){.behaviours = behaviours, .count = count,
                                               .logical_ns = logical_ns, .failed = failed});
}

void hf_discovery_record_run(hf_discovery *d, const hf_run_facts *run) {
    assert(d && run);
    const uint64_t *behaviours = run->behaviours;
    size_t count = run->count;
    bool failed = run->failed;
    assert(behaviours || count == 0);
    assert(count <= PENDING_MAX);
    /* A run adds at most one sighting per behaviour (they are distinct);
     * a crash line waiting means the line after a failure was not written. */
    if (d->pending_count + count > PENDING_MAX || (d->crash.pending && failed)) write_line(d);
    hf_progress *p = &d->now;
    p->executions++;
    p->logical_ns += run->logical_ns;
    if (failed) p->crashes++;
    if (d->facts) count_facts(d, run);
    for (size_t i = 0; i < count; i++) {
        uint64_t seen = hf_species_add(&d->species, behaviours[i]);
        if (seen == 0) {
            /* Out of memory: the counts from here on would be wrong. */
            if (d->fd >= 0) stop_logging(d, "cannot count behaviours", ENOMEM);
            return;
        }
        if (seen <= 3) {
            d->pending_category[d->pending_count] = run->categories ? run->categories[i] : 0;
            d->pending[d->pending_count++] = (sighting){behaviours[i], seen};
        }
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
    if (d->now.executions != d->line_executions || d->pending_count || d->crash.pending) write_line(d);
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
