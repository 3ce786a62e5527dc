/*
 * mutator_afl.c — the decision-aware mutator (mutate.h) as an AFL++ custom
 * mutator library, OUT/<target>_afl_mutator.so:
 *
 *     AFL_CUSTOM_MUTATOR_ONLY=1 AFL_CUSTOM_MUTATOR_LIBRARY=out/kafka_idempotent_buggy_afl_mutator.so \
 *         afl-fuzz -i seeds -o findings -- out/kafka_idempotent_buggy_afl
 *
 * AFL++ runs it inside afl-fuzz, and with AFL_CUSTOM_MUTATOR_ONLY=1 instead
 * of its own havoc stage, which would otherwise spend hundreds of byte
 * mutations on every queue entry the library passes on.  The target runs in
 * the fuzzed binary, out of reach, so the library holds the targets too, and
 * mutates for the one its file is named after (or HEISENFUZZ_TARGET names:
 * hf_target_for_program).  `heisenfuzz build-pthread --afl -o PATH` writes
 * one for its program, PATH_mutator.so, holding the program's code built
 * again to be loaded; its own runs give main the arguments and stdin
 * HEISENFUZZ_ARGS and HEISENFUZZ_STDIN say (invocation.h), so a program
 * that takes some needs them in afl-fuzz's environment, not only on the
 * fuzzed binary's command line.
 *
 * The fuzzed binary hands it every run through the run channel
 * (run_channel.h): decisions, behaviour features, code coverage and the
 * reads-from pairs the ORDER mutation draws on.  The
 * library judges them as libFuzzer's corpus would (new behaviour or new
 * code), keeps the inputs that showed something new, and draws its parents
 * from those, while AFL++'s map stays nearly empty (feedback.h: AFL++
 * calibrates every new queue entry with three more runs, which cost the
 * search more than half its executions).  A fuzzed binary from another
 * build, or an input longer than the channel holds, it runs itself the
 * first time it mutates it; so too a run AFL++ killed at its timeout
 * before it reported.  AFL++ derives the timeout from the seeds, and
 * the calm run takes about 1 ms in persistent mode, so give afl-fuzz
 * -t 1000, as `heisenfuzz fuzz --engine afl` and the benchmark do (with
 * AFL++'s 20 ms the library reran 728 of 909 runs).  Those runs are executions: the library counts them and,
 * when HEISENFUZZ_MUTATOR_RUNS names a file, keeps the count there for
 * benchmarks to add (afl-fuzz may end without telling its mutators).
 *
 * With AFL++'s queue empty, its instances (-M, -S) have nothing to share:
 * when HEISENFUZZ_SHARED_CORPUS names a directory, as `heisenfuzz fuzz
 * --engine afl --jobs N` does, the libraries share their corpora there
 * (shared_corpus.h).
 */
#define _GNU_SOURCE   /* dladdr */
#include "mutate.h"
#include "files.h"
#include "invocation.h"
#include "run.h"
#include "run_channel.h"
#include "shared_corpus.h"
#include "targets.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The inputs whose runs showed the library something new, the latest
 * NOVEL_KEPT of them: its own corpus, from which it draws parents (and
 * splice partners) whatever entry AFL++ hands over.  As libFuzzer does, a
 * parent's mutants are stacked DEPTH deep, each one run. */
enum { NOVEL_KEPT = 256, DEPTH = 5 };

typedef struct afl_mutator {
    unsigned int seed;
    uint64_t calls;
    uint64_t runs_written;
    const char *runs_file;
    uint8_t *out;            /* the last mutant */
    size_t out_size, out_cap;
    struct novel_input { uint8_t *bytes; size_t size; } novel[NOVEL_KEPT];
    uint64_t novels;         /* kept so far, the oldest overwritten */
    hf_shared_corpus *shared;   /* the campaign's other instances, if any */
} afl_mutator;

/*
 * Mutations of one queue entry before AFL++ moves to the next.  AFL++'s own
 * count (hundreds, from the entry's score) kept a whole campaign on the calm
 * seed when AFL++'s queue chose the parents (without a run channel, where
 * 16 did best of 4, 16, 32 and 64); with the channel it hardly matters.
 */
enum { TRIES_PER_ENTRY = 16 };

/* Mutations between two looks at what the campaign's other instances found
 * (shared_corpus.h): a few seconds of a campaign, and a listing of a
 * directory of a few thousand files. */
enum { SHARE_EVERY = 4096 };

void *afl_custom_init(void *afl, unsigned int seed);
unsigned int afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size);
void afl_custom_deinit(void *data);

static void write_runs(afl_mutator *m) {
    if (!m->runs_file) return;
    char text[32], error[512];
    int n = snprintf(text, sizeof text, "%llu\n", (unsigned long long)hf_mutator_runs());
    if (hf_publish_file(m->runs_file, text, (size_t)n, error, sizeof error) != 0)
        fprintf(stderr, "heisenfuzz: %s\n", error);
    m->runs_written = hf_mutator_runs();
}

void *afl_custom_init(void *afl, unsigned int seed) {
    (void)afl;
    Dl_info self;
    char error[512];
    const hf_target *t = dladdr((void *)afl_custom_init, &self) && self.dli_fname
                             ? hf_target_for_program(self.dli_fname, error, sizeof error)
                             : NULL;
    if (!t) {
        fprintf(stderr, "heisenfuzz: the AFL++ mutator library finds no target: %s\n",
                self.dli_fname ? error : "its own file name is unknown");
        return NULL;
    }
    if (hf_target_is_pthread_program(t)) {
        hf_invocation program;
        hf_invocation_from_env(&program);
        if (hf_invocation_apply(&program) != 0) return NULL;
    }
    afl_mutator *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->seed = seed;
    m->runs_file = getenv("HEISENFUZZ_MUTATOR_RUNS");
    hf_mutator_init(t);
    /* afl-fuzz starts the target after its mutators: the target inherits the channel. */
    if (!hf_channel_create(error, sizeof error))
        fprintf(stderr, "heisenfuzz: %s; the mutator will run inputs itself\n", error);
    const char *shared = getenv("HEISENFUZZ_SHARED_CORPUS");
    if (shared && *shared && !(m->shared = hf_shared_open(shared, error, sizeof error)))
        fprintf(stderr, "heisenfuzz: %s; this instance will not share its corpus\n", error);
    write_runs(m);
    return m;
}

/* Adds an input to the library's corpus; it owns `bytes` from here. */
static void keep_input(afl_mutator *m, uint8_t *bytes, size_t size) {
    struct novel_input *slot = &m->novel[m->novels++ % NOVEL_KEPT];
    free(slot->bytes);
    *slot = (struct novel_input){bytes, size};
}

static void take_shared(void *m, uint8_t *bytes, size_t size) { keep_input(m, bytes, size); }

/* Learns the run AFL++ made last, and keeps its input if it was new.
 * Between two calls AFL++ runs the last mutant, and calibrates it if it
 * is a new queue entry (the same run again). */
static void learn_last_run(afl_mutator *m) {
    hf_run_view run;
    if (!hf_channel_receive(&run) || !hf_mutator_observe_run(&run)) return;
    uint8_t *bytes = malloc(run.size ? run.size : 1);
    if (!bytes) return;
    if (run.size) memcpy(bytes, run.data, run.size);
    keep_input(m, bytes, run.size);
    if (m->shared) hf_shared_put(m->shared, run.data, run.size);
}

static uint64_t mix(uint64_t x) {   /* splitmix64's finaliser */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* One of the kept inputs, if there are any; else the one AFL++ offered stays. */
static void choose(const afl_mutator *m, uint64_t dice, const uint8_t **input, size_t *size) {
    if (!m->novels) return;
    const struct novel_input *n = &m->novel[dice % (m->novels < NOVEL_KEPT ? m->novels : NOVEL_KEPT)];
    *input = n->bytes;
    *size = n->size;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size) {
    afl_mutator *m = data;
    learn_last_run(m);
    if (max_size > m->out_cap) {
        uint8_t *grown = realloc(m->out, max_size);
        if (!grown) { *out_buf = buf; return buf_size; }
        m->out = grown;
        m->out_cap = max_size;
    }
    if (m->shared && m->calls % SHARE_EVERY == SHARE_EVERY - 1) hf_shared_take(m->shared, take_shared, m);
    uint64_t dice = mix((uint64_t)m->seed << 32 ^ m->calls++);
    uint32_t seed = (uint32_t)dice;
    size_t n = 0;
    if (m->out_size && m->out_size <= max_size && m->calls % DEPTH != 1) {
        n = hf_mutator_mutate(m->out, m->out_size, max_size, seed, NULL, NULL);   /* stacked */
    } else {
        const uint8_t *parent = buf, *partner = add_buf;
        size_t parent_size = buf_size, partner_size = add_buf ? add_buf_size : 0;
        choose(m, dice >> 32, &parent, &parent_size);
        choose(m, mix(dice), &partner, &partner_size);
        /* A quarter splice, as libFuzzer's do. */
        if (partner_size && seed % 4 == 0)
            n = hf_mutator_cross(parent, parent_size, partner, partner_size, m->out, max_size, seed / 4, NULL);
        if (n == 0 && parent_size <= max_size) {
            memcpy(m->out, parent, parent_size);
            n = hf_mutator_mutate(m->out, parent_size, max_size, seed, NULL, NULL);
        }
    }
    m->out_size = n;
    if (hf_mutator_runs() != m->runs_written) write_runs(m);
    if (n == 0) { *out_buf = buf; return buf_size; }   /* AFL++ needs something: the input unchanged */
    *out_buf = m->out;
    return n;
}

unsigned int afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size) {
    (void)buf;
    (void)buf_size;
    learn_last_run(data);
    return TRIES_PER_ENTRY;
}

void afl_custom_deinit(void *data) {
    afl_mutator *m = data;
    write_runs(m);
    free(m->out);
    for (int i = 0; i < NOVEL_KEPT; i++) free(m->novel[i].bytes);
    hf_shared_close(m->shared);
    free(m);
    hf_channel_close();
    hf_runtime_free();
}
