/*
 * mutator_afl.c — the decision-aware mutator (mutate.h) as an AFL++ custom
 * mutator library, OUT/<target>_afl_mutator.so:
 *
 *     AFL_CUSTOM_MUTATOR_ONLY=1 AFL_CUSTOM_MUTATOR_LIBRARY=out/kafka_idempotent_buggy_afl_mutator.so \
 *         afl-fuzz -i seeds -o findings -- out/kafka_idempotent_buggy_afl
 *
 * AFL++ runs it inside afl-fuzz, and with AFL_CUSTOM_MUTATOR_ONLY=1 instead
 * of its own havoc stage, which would otherwise spend hundreds of byte
 * mutations on every queue entry the library passes on.  The target runs in the
 * fuzzed binary, out of reach, so the library holds the targets too, and
 * mutates for the one its file is named after (or HEISENFUZZ_TARGET names:
 * hf_target_for_program); it runs an input itself the first time it
 * mutates it.  Those runs are executions: the library counts them and,
 * when HEISENFUZZ_MUTATOR_RUNS names a file, keeps the count there for
 * benchmarks to add (afl-fuzz may end without telling its mutators).
 */
#define _GNU_SOURCE   /* dladdr */
#include "mutate.h"
#include "files.h"
#include "run.h"
#include "targets.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct afl_mutator {
    unsigned int seed;
    uint64_t calls;
    uint64_t runs_written;
    const char *runs_file;
    uint8_t *out;
    size_t out_cap;
} afl_mutator;

/*
 * Mutations of one queue entry before AFL++ moves to the next.  AFL++'s own
 * count (hundreds, from the entry's score) kept a whole campaign on the calm
 * seed, where the mutator cannot aim at what later runs showed; 16 lets it
 * pick parents nearly as libFuzzer does (10 seeds, executions to the bug:
 * zk_newleader_ack 632 -> 204, kafka_hw_truncation 297 -> 275; 4 gave 172
 * and 474, 32 gave 317 and 204).
 */
enum { TRIES_PER_ENTRY = 16 };

void *afl_custom_init(void *afl, unsigned int seed);
unsigned int afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size);
size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size);
void afl_custom_deinit(void *data);

static void write_runs(afl_mutator *m) {
    if (!m->runs_file) return;
    char text[32], error[512];
    int n = snprintf(text, sizeof text, "%llu\n", (unsigned long long)hf_mutator_runs());
    if (hf_write_file(m->runs_file, text, (size_t)n, error, sizeof error) != 0)
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
    afl_mutator *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->seed = seed;
    m->runs_file = getenv("HEISENFUZZ_MUTATOR_RUNS");
    hf_mutator_init(t);
    write_runs(m);
    return m;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size) {
    afl_mutator *m = data;
    if (max_size > m->out_cap) {
        uint8_t *grown = realloc(m->out, max_size);
        if (!grown) { *out_buf = buf; return buf_size; }
        m->out = grown;
        m->out_cap = max_size;
    }
    uint32_t seed = (uint32_t)(m->seed * 2654435761u + (uint32_t)m->calls++);
    size_t n = 0;
    /* A quarter splice with the partner AFL++ offers, as libFuzzer's do. */
    if (add_buf && add_buf_size && seed % 4 == 0)
        n = hf_mutator_cross(buf, buf_size, add_buf, add_buf_size, m->out, max_size, seed / 4, NULL);
    if (n == 0 && buf_size <= max_size) {
        memcpy(m->out, buf, buf_size);
        n = hf_mutator_mutate(m->out, buf_size, max_size, seed, NULL, NULL);
    }
    if (hf_mutator_runs() != m->runs_written) write_runs(m);
    if (n == 0) { *out_buf = buf; return buf_size; }   /* AFL++ needs something: the input unchanged */
    *out_buf = m->out;
    return n;
}

unsigned int afl_custom_fuzz_count(void *data, const unsigned char *buf, size_t buf_size) {
    (void)data;
    (void)buf;
    (void)buf_size;
    return TRIES_PER_ENTRY;
}

void afl_custom_deinit(void *data) {
    afl_mutator *m = data;
    write_runs(m);
    free(m->out);
    free(m);
    hf_runtime_free();
}
