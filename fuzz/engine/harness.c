/*
 * harness.c — the engine-agnostic fuzz entry point.  libFuzzer calls it
 * directly, AFL++ through its libFuzzer driver, the replayer (replayer.c)
 * from its main.  It is built once per engine, not once per target: the
 * target is found at start-up in the registry of the binary
 * (hf_target_for_program), so a user's fuzzer is their target file linked
 * with this harness.
 *
 * Each run's behaviour features go to the engine as coverage (feedback.h).
 * A failed run (property, deadlock, budget) is reported with its timeline
 * and ends in abort(), which every engine records as a crash.
 *
 * With HEISENFUZZ_TOOL set, the binary is the heisenfuzz tool instead
 * (replay, minimize, chart... of the targets it holds): the installed tool
 * runs a user's fuzzer that way, since only that binary has their target.
 * With HEISENFUZZ_LOG=path set, every execution is also counted in a
 * discovery log (discovery.h) for `heisenfuzz chart`.  With
 * HEISENFUZZ_TRACE_HASH set, every run prints its trace hash, so tests can
 * check that engines and the replayer see the same runs.
 *
 * A program's fuzzer under libFuzzer makes its second execution a SURW walk
 * drawn from -seed (draw_second_execution) instead of libFuzzer's fixed "\n".
 * libFuzzer builds mutate with the decision-aware mutator (mutate.h):
 * LLVMFuzzerCustomMutator and LLVMFuzzerCustomCrossOver, with libFuzzer's own
 * byte mutation as a share.  Built with -DHF_BYTE_MUTATOR_ONLY, a fuzzer
 * keeps libFuzzer's byte mutation alone: the control of `bench --search`.
 * AFL++ builds hand each run to the mutator library in afl-fuzz, when it
 * asks for them (run_channel.h).
 * The runs the fuzzer makes beyond the engine's (the mutator's own, and a
 * program's calm profile: profile.c) are printed as
 * "stat::heisenfuzz_mutator_runs: N" at a failure and at exit, so that
 * benchmarks count them as executions.
 *
 * ^C: libFuzzer's handler ends the process with _Exit, which skips the exit
 * hook that writes the discovery log's last line.  So the harness puts its
 * own handler in front of the engine's: it notes the signal, the run under
 * way finishes, the log is flushed, and then the engine's handler runs
 * (it prints libFuzzer's final statistics).  A second ^C goes straight to
 * the engine.
 */
#define _GNU_SOURCE   /* program_invocation_name, sigaction */
#include "behaviour.h"
#include "commands.h"
#include "discovery.h"
#include "feedback.h"
#include "mutate.h"
#include "prop.h"
#include "records.h"
#include "rng.h"
#include "run.h"
#include "run_channel.h"
#include "sha1.h"
#include "sim.h"
#include "targets.h"
#include "tool.h"

#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const hf_target *target;

static const hf_target *fuzz_target(void) {
    if (target) return target;
    char error[512];
    target = hf_target_for_program(program_invocation_name, error, sizeof error);
    if (!target) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        /* _exit: an engine's exit hooks would call this a crash of an input. */
        _exit(2);
    }
    return target;
}

/* A fuzzer may bring its own target and start-up instead of the registry:
 * a pthread program's fuzzer does (fuzz/engine/pthread_driver.c). */
const hf_target *hf_fuzzer_start(int *argc, char ***argv) __attribute__((weak));

/* Where libFuzzer writes a crashing input: -exact_artifact_path=, or
 * -artifact_prefix= followed by crash-SHA1; NULL when not libFuzzer. */
static const char *artifact_exact, *artifact_prefix;

static void note_artifact_flags(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "-exact_artifact_path=", 21)) artifact_exact = argv[i] + 21;
        else if (!strncmp(argv[i], "-artifact_prefix=", 17)) artifact_prefix = argv[i] + 17;
    }
}

/* ... and the target it brings, for the tool's commands run inside it
 * (`heisenfuzz replay ./prog_fuzzer crash`). */
void hf_fuzzer_tool_start(void) __attribute__((weak));

/* ... and what it does at each run's start and at a failure before the
 * engine records it (a program's fuzzer keeps the program's arguments beside
 * the crash file: pthread_driver.c). */
void hf_fuzzer_run_starts(const uint8_t *data, size_t size) __attribute__((weak));
void hf_fuzzer_run_failed(void) __attribute__((weak));

static void draw_second_execution(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    if (getenv("HEISENFUZZ_TOOL")) {
        if (hf_fuzzer_tool_start) hf_fuzzer_tool_start();
        exit(hf_tool_main_in_fuzzer(*argc, *argv));
    }
    note_artifact_flags(*argc, *argv);
    if (hf_fuzzer_start) {
        target = hf_fuzzer_start(argc, argv);
        draw_second_execution(argc, argv);
    }
    fuzz_target();
    return 0;
}

static struct sigaction engine_on_interrupt;
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
    if (interrupted) {
        sigaction(SIGINT, &engine_on_interrupt, NULL);
        raise(sig);
        return;
    }
    interrupted = 1;
}

/* Called at the first run, once the engine has installed its handlers;
 * an engine without a ^C handler (AFL++'s driver, the replayer) keeps the
 * default. */
static void hook_interrupt(void) {
    static bool hooked;
    if (hooked) return;
    hooked = true;
    struct sigaction ours = {0};
    ours.sa_handler = on_interrupt;
    sigemptyset(&ours.sa_mask);
    struct sigaction current;
    if (sigaction(SIGINT, NULL, &current) != 0) return;
    if (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN) return;
    sigaction(SIGINT, &ours, &engine_on_interrupt);
}

static void hand_interrupt_to_engine(hf_discovery *log) {
    if (log) hf_discovery_flush(log);
    sigaction(SIGINT, &engine_on_interrupt, NULL);
    raise(SIGINT);
}

#if defined(HF_ENGINE_LIBFUZZER) && !defined(HF_BYTE_MUTATOR_ONLY)
#define DECISION_MUTATOR 1
#else
#define DECISION_MUTATOR 0
#endif

#if DECISION_MUTATOR
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);

static void print_mutator_runs(void) {
    fprintf(stderr, "stat::heisenfuzz_mutator_runs: %llu\n",
            (unsigned long long)(hf_mutator_runs() + hf_profile_runs()));
    hf_mutator_print_shares(stderr);
}

static void start_mutator(void) {
    static bool started;
    if (started) return;
    started = true;
    hf_mutator_init(fuzz_target());
    atexit(print_mutator_runs);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
    start_mutator();
    return hf_mutator_mutate(data, size, max_size, seed, LLVMFuzzerMutate, NULL);
}

/* libFuzzer draws this as often as the mutator itself: a quarter of the
 * calls splice, the rest mutate the first input. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed) {
    start_mutator();
    if (seed % 4 == 0) {
        size_t n = hf_mutator_cross(data1, size1, data2, size2, out, max_out_size, seed / 4, NULL);
        if (n) return n;
    }
    if (size1 > max_out_size) return 0;
    memcpy(out, data1, size1);
    return hf_mutator_mutate(out, size1, max_out_size, seed, LLVMFuzzerMutate, NULL);
}
#endif

/* ---- A program's second execution -------------------------------------------- */

/* From an empty corpus libFuzzer runs the empty input (the calm run), then
 * the one-byte input "\n" (the calm run with one deviation, at decision
 * 10), then mutations: its first two executions are the same two schedules
 * in every campaign, whatever -seed says.  A program's fuzzer draws the
 * second from -seed instead: one SURW walk (decide.h, kind 8) with a seed
 * drawn from -seed, in an anonymous file handed to libFuzzer as
 * -seed_inputs, which runs it in place of "\n".  So its second execution is
 * a random schedule, as a blind strategy's is after the calm run that
 * learns the profile, instead of one fixed schedule every seed shares.
 *
 * Why SURW, and not a draw from the table the fresh mutations use: that
 * table is a mix, so that many draws cover bugs of many shapes; a single
 * draw should be the one kind that finds most on its own, and on programs
 * that is SURW, by the published comparisons (in its artifact's data it
 * found the bug in 35 of 38 programs, PCT-3 in 33, POS 30, a uniform walk
 * 21) and by the chance per run measured here (../README.md, "A program's
 * second execution").
 * World targets keep "\n": with a draw from the mix, metrics_race_nohint
 * lost (10 -> 45), and four others did at an earlier commit.
 *
 * Not done where libFuzzer would run no such second input or the flag
 * would mean something else: inputs given as files (they are run, not
 * fuzzed), the user's own -seed_inputs, and modes that are not one
 * campaign in this process (merge, fork, jobs, workers, crash minimizing
 * and cleansing).  Without -seed (or with 0) libFuzzer draws its seed from
 * the clock; so does this.  Only the search is drawn so: the input is
 * bytes like any other, and replays the same run wherever it is run. */
static void draw_second_execution(int *argc, char ***argv) {
#if DECISION_MUTATOR
    static const char *const not_one_campaign[] = {"-seed_inputs=", "-merge=", "-set_cover_merge=", "-fork=",
                                                   "-jobs=", "-workers=", "-minimize_crash=", "-cleanse_crash="};
    uint64_t seed = 0;
    for (int i = 1; i < *argc; i++) {
        const char *arg = (*argv)[i];
        struct stat st;
        if (arg[0] != '-') {
            if (stat(arg, &st) == 0 && !S_ISDIR(st.st_mode)) return;   /* an input to run */
            continue;                                                  /* a corpus */
        }
        if (!strncmp(arg, "-seed=", 6)) seed = strtoull(arg + 6, NULL, 10);
        for (size_t k = 0; k < sizeof not_one_campaign / sizeof not_one_campaign[0]; k++)
            if (!strncmp(arg, not_one_campaign[k], strlen(not_one_campaign[k]))) return;
    }
    if (!seed) seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
    hf_rng rng;
    hf_rng_seed(&rng, seed);
    hf_item walk = {.generator = true, .mode = HF_GEN_SURW, .seed = (uint16_t)hf_rng_below(&rng, 65536)};
    uint8_t bytes[32];
    size_t size = hf_items_encode(&walk, 1, bytes, sizeof bytes);
    assert(size > 0);
    /* Static, so that LeakSanitizer sees the new command line reachable
     * for the process's life, as libFuzzer may keep it. */
    static char **args, flag[64];
    int fd = memfd_create("heisenfuzz-second-input", 0);
    args = calloc((size_t)*argc + 2, sizeof *args);
    if (fd < 0 || write(fd, bytes, size) != (ssize_t)size || !args) {   /* "\n" it is, then */
        if (fd >= 0) close(fd);
        return;
    }
    snprintf(flag, sizeof flag, "-seed_inputs=/proc/self/fd/%d", fd);
    memcpy(args, *argv, (size_t)*argc * sizeof *args);
    args[(*argc)++] = flag;
    *argv = args;
#else
    (void)argc;
    (void)argv;
#endif
}

/* ---- What the discovery log's report needs (discovery.h: facts) ---------- */

/* The catalogue's counts before the run, to tell what this run did to each
 * property (the mutator's own runs between two of ours count too). */
static uint64_t *reached_before, *held_before;
static uint8_t *property_bits;
static size_t property_count;

static hf_discovery *open_log(const hf_target *t) {
    static bool declared;
    char name[64];   /* a log's TARGET (logread.h keeps 63 bytes) */
    hf_target_log_name(t, program_invocation_name, name, sizeof name);
    hf_discovery *log = hf_discovery_from_env(name, hf_feedback_engine());
    if (!log || declared) return log;
    declared = true;
    size_t n = hf_prop_count();
    if (n > HF_LOG_PROPERTIES_MAX) n = HF_LOG_PROPERTIES_MAX;
    hf_log_property *props = calloc(n ? n : 1, sizeof *props);
    reached_before = calloc(n ? n : 1, sizeof *reached_before);
    held_before = calloc(n ? n : 1, sizeof *held_before);
    property_bits = calloc(n ? n : 1, 1);
    if (!props || !reached_before || !held_before || !property_bits) {
        fprintf(stderr, "heisenfuzz: out of memory declaring properties to the discovery log\n");
        _exit(2);
    }
    for (size_t i = 0; i < n; i++) {
        const hf_prop *p = hf_prop_at(i);
        props[i] = (hf_log_property){hf_prop_kind_name(p->kind), p->file, p->line, p->message};
    }
    property_count = n;
    hf_discovery_declare(log, props, n);
    free(props);
    return log;
}

static void note_properties_before(void) {
    for (size_t i = 0; i < property_count; i++) {
        const hf_prop *p = hf_prop_at(i);
        reached_before[i] = p->reached;
        held_before[i] = p->held;
    }
}

/* Per property, what the run did to it; false when it touched none. */
static bool properties_of_run(void) {
    bool any = false;
    for (size_t i = 0; i < property_count; i++) {
        const hf_prop *p = hf_prop_at(i);
        uint64_t reached = p->reached - reached_before[i], held = p->held - held_before[i];
        property_bits[i] = (uint8_t)((reached ? HF_LOG_EVALUATED : 0) | (held ? HF_LOG_HELD : 0) |
                                     (held < reached ? HF_LOG_FAILED : 0));
        any |= reached != 0;
    }
    return any;
}

static long property_index(const hf_prop *failing) {
    for (size_t i = 0; failing && i < property_count; i++)
        if (hf_prop_at(i) == failing) return (long)i;
    return -1;
}

static void record_run(hf_discovery *log, const hf_features *features, const hf_result *r, const uint8_t *data,
                       size_t size) {
    const hf_sim_stats *world = hf_sim_stats_of_run();
    hf_run_facts facts = {
        .behaviours = features->list, .categories = features->kind, .count = features->count,
        .logical_ns = r->time_ns, .properties = properties_of_run() ? property_bits : NULL,
        .faults_allowed = world->allowed, .faults_enabled = world->profile,
        .faults_injected = world->faults, .failed = r->outcome != HF_OK,
    };
    char sha1[41], replay[4096];
    if (facts.failed) {
        hf_sha1_hex(data, size, sha1);
        facts.outcome = hf_outcome_name(r->outcome);
        facts.message = r->message;
        facts.property = property_index(r->property);
        facts.input_sha1 = sha1;
        if (artifact_exact) facts.replay_file = artifact_exact;
        else if (strcmp(hf_feedback_engine(), "libFuzzer") == 0) {
            snprintf(replay, sizeof replay, "%scrash-%s", artifact_prefix ? artifact_prefix : "", sha1);
            facts.replay_file = replay;
        }
    }
    hf_discovery_record_run(log, &facts);
}

#ifdef HF_ENGINE_AFL
/* With the decision mutator library listening in afl-fuzz (run_channel.h),
 * it judges the run: it gets the run's decisions, behaviour features and
 * code coverage, and AFL++'s map is left nearly empty (feedback.h says
 * why).  The library then mutates the inputs it found new, whichever
 * entry AFL++ hands it.  Returns false, having run nothing, without one. */
static bool run_for_mutator_library(const hf_target *t, const uint8_t *data, size_t size, hf_result *r) {
    static hf_decision_log log;
    static uint64_t code[HF_CHANNEL_CODE_MAX];
    if (!hf_channel_connected()) return false;
    hf_run_logged(t, data, size, &log, r);
    uint32_t n = hf_feedback_take_coverage(code, HF_CHANNEL_CODE_MAX, r->outcome != HF_OK);
    uint32_t pairs;
    const hf_reads_from_pair *pair = hf_last_reads_from(&pairs);
    hf_channel_send(data, size, &log, hf_last_decisions(), hf_last_features(), code, n, pair, pairs);
    return true;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int print_hashes = -1;
    hook_interrupt();
    if (print_hashes < 0) print_hashes = getenv("HEISENFUZZ_TRACE_HASH") != NULL;
    const hf_target *t = fuzz_target();
    if (hf_fuzzer_run_starts) hf_fuzzer_run_starts(data, size);
    hf_discovery *log = open_log(t);
    if (log) note_properties_before();
    hf_result r;
#if DECISION_MUTATOR
    start_mutator();
    hf_run_logged(t, data, size, hf_mutator_log(), &r);
    hf_mutator_observe(data, size);
    hf_feedback_run(hf_last_features(), r.deviations);
#elif defined(HF_ENGINE_AFL)
    if (!run_for_mutator_library(t, data, size, &r)) {
        hf_run(t, data, size, &r);
        hf_feedback_run(hf_last_features(), r.deviations);
    }
#else
    hf_run(t, data, size, &r);
    hf_feedback_run(hf_last_features(), r.deviations);
#endif
    const hf_features *features = hf_last_features();
    if (log) record_run(log, features, &r, data, size);
    if (print_hashes && r.outcome == HF_OK)
        fprintf(stderr, "trace-hash: %016llx\n", (unsigned long long)r.trace_hash);
    if (r.outcome != HF_OK) {
        hf_print_failure(stderr, &r);
        fprintf(stderr, "trace-hash: %016llx\n", (unsigned long long)r.trace_hash);
#if DECISION_MUTATOR
        print_mutator_runs();
#endif
        if (hf_fuzzer_run_failed) hf_fuzzer_run_failed();
        abort();
    }
    if (interrupted) hand_interrupt_to_engine(log);
    return 0;
}
