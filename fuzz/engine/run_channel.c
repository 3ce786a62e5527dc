/*
 * run_channel.c — the runs of an AFL++ fuzzer, handed to its decision
 * mutator (run_channel.h): an anonymous shared file of one fixed layout,
 * which both ends are built with.
 */
#define _GNU_SOURCE   /* memfd_create */
#include "run_channel.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHANNEL_ENV "HEISENFUZZ_RUN_CHANNEL"

/* Longer inputs are not sent.  The mutator's own encoder writes at most as
 * much (mutate.c), and AFL++'s inputs grow only through it. */
enum { CHANNEL_INPUT_MAX = 1 << 16 };

typedef struct channel {
    uint64_t magic;     /* channel_magic(): both ends built alike */
    uint64_t writing;   /* the run being written: written + 1 until it is whole */
    uint64_t written;   /* runs written whole */
    uint32_t size;
    uint32_t deviations;
    uint32_t code_count;
    uint32_t pair_count;
    uint8_t input[CHANNEL_INPUT_MAX];
    uint64_t code[HF_CHANNEL_CODE_MAX];
    hf_reads_from_pair pairs[HF_READS_FROM_PAIRS_KEPT];
    hf_deviation taken[HF_DEVIATIONS_KEPT];
    hf_features features;   /* count, list, first_decision and kind: what the mutator reads */
    hf_decision_log log;    /* each array up to its count (or its capacity) */
} channel;

static uint64_t channel_magic(void) { return 0x6866206368616e00ull ^ (uint64_t)sizeof(channel); }

static size_t at_most(uint64_t count, size_t capacity) { return count < capacity ? (size_t)count : capacity; }

/* ---- The mutator's end ----------------------------------------------------- */

static struct {
    channel *c;
    int fd;
    uint64_t received;
} reader = {.fd = -1};

bool hf_channel_create(char *error, size_t error_size) {
    hf_channel_close();
    /* Not close-on-exec: afl-fuzz's target inherits it. */
    int fd = memfd_create("heisenfuzz-runs", 0);
    if (fd < 0 || ftruncate(fd, sizeof(channel)) != 0) {
        snprintf(error, error_size, "cannot make the run channel: %m");
        if (fd >= 0) close(fd);
        return false;
    }
    void *p = mmap(NULL, sizeof(channel), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(error, error_size, "cannot map the run channel: %m");
        close(fd);
        return false;
    }
    char name[16];
    snprintf(name, sizeof name, "%d", fd);
    setenv(CHANNEL_ENV, name, 1);
    reader.c = p;
    reader.fd = fd;
    reader.received = 0;
    reader.c->magic = channel_magic();
    return true;
}

bool hf_channel_receive(hf_run_view *run) {
    channel *c = reader.c;
    if (!c) return false;
    uint64_t n = __atomic_load_n(&c->written, __ATOMIC_ACQUIRE);
    if (n == 0 || n == reader.received || __atomic_load_n(&c->writing, __ATOMIC_ACQUIRE) != n) return false;
    reader.received = n;
    if (c->size > CHANNEL_INPUT_MAX || c->features.count > HF_FEATURES_MAX || c->code_count > HF_CHANNEL_CODE_MAX ||
        c->pair_count > HF_READS_FROM_PAIRS_KEPT)
        return false;
    *run = (hf_run_view){.data = c->input, .size = c->size, .log = &c->log, .taken = c->taken,
                         .deviations = c->deviations, .features = &c->features, .code = c->code,
                         .code_count = c->code_count, .pairs = c->pairs, .pair_count = c->pair_count};
    return true;
}

void hf_channel_close(void) {
    if (reader.c) munmap(reader.c, sizeof(channel));
    if (reader.fd >= 0) close(reader.fd);
    reader.c = NULL;
    reader.fd = -1;
    unsetenv(CHANNEL_ENV);
}

/* ---- The fuzzer's end ---------------------------------------------------------- */

/* The channel the environment names, mapped on first use; NULL when there
 * is none or it is not one this build wrote (said once on stderr). */
static channel *writer(void) {
    static int state = -1;   /* -1 not looked at, 0 none, 1 mapped */
    static channel *c;
    if (state >= 0) return c;
    state = 0;
    const char *name = getenv(CHANNEL_ENV);
    if (!name) return NULL;
    char *end;
    long fd = strtol(name, &end, 10);
    struct stat st;
    if (!*name || *end || fd < 0 || fd > INT_MAX || fstat((int)fd, &st) != 0 || st.st_size != (off_t)sizeof(channel)) {
        fprintf(stderr, "heisenfuzz: %s=%s is not a run channel of this build; the mutator will run inputs itself\n",
                CHANNEL_ENV, name);
        return NULL;
    }
    void *p = mmap(NULL, sizeof(channel), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
    if (p == MAP_FAILED || ((channel *)p)->magic != channel_magic()) {
        fprintf(stderr, "heisenfuzz: %s=%s cannot be used as a run channel; the mutator will run inputs itself\n",
                CHANNEL_ENV, name);
        if (p != MAP_FAILED) munmap(p, sizeof(channel));
        return NULL;
    }
    c = p;
    state = 1;
    return c;
}

bool hf_channel_connected(void) { return writer() != NULL; }

static void copy_log(hf_decision_log *to, const hf_decision_log *from) {
    to->records = from->records;
    memcpy(to->record, from->record, at_most(from->records, HF_LOG_RECORDS) * sizeof *to->record);
    to->decisions = from->decisions;
    size_t kept = at_most(from->decisions, HF_LOG_DECISIONS);
    memcpy(to->tag, from->tag, kept * sizeof *to->tag);
    memcpy(to->width, from->width, kept * sizeof *to->width);
    memcpy(to->time_ns, from->time_ns, kept * sizeof *to->time_ns);
    to->moments = from->moments;
    memcpy(to->moment, from->moment, at_most(from->moments, HF_LOG_MOMENTS) * sizeof *to->moment);
}

static void copy_features(hf_features *to, const hf_features *from) {
    to->count = from->count;
    memcpy(to->list, from->list, from->count * sizeof *to->list);
    memcpy(to->first_decision, from->first_decision, from->count * sizeof *to->first_decision);
    memcpy(to->kind, from->kind, from->count * sizeof *to->kind);
}

void hf_channel_send(const uint8_t *data, size_t size, const hf_decision_log *log, const hf_decider *d,
                     const hf_features *f, const uint64_t *code, uint32_t code_count,
                     const hf_reads_from_pair *pairs, uint32_t pair_count) {
    assert(code_count <= HF_CHANNEL_CODE_MAX && pair_count <= HF_READS_FROM_PAIRS_KEPT);
    channel *c = writer();
    if (!c || size > CHANNEL_INPUT_MAX) return;
    /* A run killed half-way (AFL++'s timeout) leaves `writing` ahead of
     * `written`, and the reader takes nothing. */
    uint64_t n = c->written + 1;
    __atomic_store_n(&c->writing, n, __ATOMIC_RELEASE);
    c->size = (uint32_t)size;
    if (size) memcpy(c->input, data, size);
    c->deviations = d->deviations;
    memcpy(c->taken, d->taken, at_most(d->deviations, HF_DEVIATIONS_KEPT) * sizeof *c->taken);
    copy_features(&c->features, f);
    c->code_count = code_count;
    if (code_count) memcpy(c->code, code, code_count * sizeof *c->code);
    c->pair_count = pair_count;
    if (pair_count) memcpy(c->pairs, pairs, pair_count * sizeof *c->pairs);
    copy_log(&c->log, log);
    __atomic_store_n(&c->written, n, __ATOMIC_RELEASE);
}
