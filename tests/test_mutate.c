/*
 * test_mutate.c — the decision-aware mutator (fuzz/search/mutate.h): an input's
 * items encode back into bytes that replay its run; every mutant decodes
 * to the items the mutator says it made, up to the first decision it
 * changed, and its run takes the original's deviations before that point;
 * a splice keeps the first input's run up to its cut; an aimed world
 * fault lands just after one of the run's moments; a rewind reaches a
 * rare `sometimes` more often than a fresh generator; a rare walk, which
 * fresh generators draw, still times world faults; a process's first
 * mutations are fresh generators; an ordering constraint asks for the
 * outcome of a reads-from pair the runs showed less often; the mutator counts
 * the runs it makes itself; HEISENFUZZ_FEATURES=0 takes behaviour out of
 * it.  On random inputs of world and interleaving
 * targets, under every sanitizer the suite builds.
 */
#define _POSIX_C_SOURCE 200809L   /* setenv, fork */
#include "behaviour.h"
#include "check.h"
#include "mutate.h"
#include "run.h"
#include "sanitizer.h"
#include "sim.h"
#include "strategy.h"
#include "targets.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(HF_ASAN) || defined(HF_MSAN)
enum { ROUNDS = 300 };
#else
enum { ROUNDS = 1500 };
#endif

enum { MUTANT_MAX = 4096 };

static hf_decision_log log_;
static hf_item parsed[HF_ITEMS_MAX];
static hf_deviation before[HF_DEVIATIONS_KEPT];

static bool same_item(const hf_item *a, const hf_item *b) {
    if (a->index != b->index || a->generator != b->generator) return false;
    if (a->generator) return a->mode == b->mode && a->seed == b->seed && a->stretch == b->stretch;
    uint64_t mask = a->width >= 8 ? UINT64_MAX : (1ull << (8 * a->width)) - 1;
    return a->width == b->width && (a->value & mask) == (b->value & mask);
}

/* A random input: random bytes, or a generator record and some bytes. */
static size_t random_input(hf_rng *rng, uint8_t *in) {
    size_t len = (size_t)hf_rng_below(rng, 40);
    for (size_t i = 0; i < len; i++) in[i] = (uint8_t)hf_rng_next(rng);
    if (len >= 4 && hf_rng_below(rng, 2)) in[0] = HF_GENERATOR_RECORD;
    return len;
}

/* Runs `in` with the log; returns its items (sorted), or -1. */
static int run_items(const hf_target *t, const uint8_t *in, size_t len, hf_result *r) {
    hf_run_logged(t, in, len, &log_, r);
    int n = hf_items_parse(&log_, in, len, parsed, HF_ITEMS_MAX);
    if (n > 0) qsort(parsed, (size_t)n, sizeof *parsed, hf_item_order);
    return n;
}

static void check_target(const hf_target *t) {
    hf_rng rng;
    hf_rng_seed(&rng, 77);
    static uint8_t in[MUTANT_MAX], out[MUTANT_MAX];
    static hf_mutation claim;
    int roundtrips = 0, roundtrip_ok = 1, mutants = 0, claims_ok = 1, prefix_ok = 1, kinds_seen = 0;
    bool seen[HF_MUT_KINDS] = {false};
    hf_mutator_init(t);
    for (int round = 0; round < ROUNDS; round++) {
        size_t len = random_input(&rng, in);
        hf_result r;
        int n = run_items(t, in, len, &r);
        if (n < 0) continue;
        uint64_t hash = r.trace_hash;

        /* Items encode back into bytes that replay the run. */
        size_t m = hf_items_encode(parsed, n, out, sizeof out);
        if (n > 0 && m > 0) {
            hf_result again;
            hf_run(t, out, m, &again);
            roundtrip_ok &= again.trace_hash == hash;
            roundtrips++;
        }

        /* A mutant: what it claims, and the original run before its first
         * change.  Every fourth round asks for one kind in turn, so that
         * kinds of small share are checked too (the aim, which random
         * inputs seldom give a target, has a test of its own). */
        hf_mutator_force_kind(round % 4 ? HF_MUT_KINDS : (hf_mutation_kind)(round / 4 % HF_MUT_AIM));
        hf_run_logged(t, in, len, hf_mutator_log(), &r);
        uint32_t kept = hf_last_decisions()->deviations;
        if (kept > HF_DEVIATIONS_KEPT) continue;
        memcpy(before, hf_last_decisions()->taken, kept * sizeof *before);
        hf_mutator_observe(in, len);
        memcpy(out, in, len);
        size_t mutant = hf_mutator_mutate(out, len, sizeof out, (uint32_t)hf_rng_next(&rng), NULL, &claim);
        if (mutant == 0 || claim.kind == HF_MUT_BYTES) continue;
        mutants++;
        if (!seen[claim.kind]) { seen[claim.kind] = true; kinds_seen++; }
        qsort(claim.item, claim.count, sizeof *claim.item, hf_item_order);
        int got = run_items(t, out, mutant, &r);
        if (got < 0) continue;
        /* The first decision the mutant may change: its first generator, or
         * the first place where its explicit items and the original run's
         * deviations part.  Before it the run must be the original's, so
         * every item up to and including it reads back exactly. */
        uint64_t edit = UINT64_MAX;
        for (uint32_t i = 0, j = 0; i < claim.count || j < kept; ) {
            const hf_item *it = i < claim.count ? &claim.item[i] : NULL;
            const hf_deviation *dev = j < kept ? &before[j] : NULL;
            if (it && it->generator) { edit = it->index; break; }
            if (it && dev && it->index == dev->index && it->value == dev->value) { i++; j++; continue; }
            edit = !it ? dev->index : !dev ? it->index : it->index < dev->index ? it->index : dev->index;
            break;
        }
        int ok = 1;
        for (uint32_t i = 0, j = 0; i < claim.count && claim.item[i].index <= edit; i++) {
            while (j < (uint32_t)got && hf_item_order(&parsed[j], &claim.item[i]) < 0) j++;
            bool reached = claim.item[i].generator || claim.item[i].index < log_.decisions;
            if (reached) ok &= j < (uint32_t)got && same_item(&parsed[j], &claim.item[i]);
        }
        claims_ok &= ok;
        const hf_decider *d = hf_last_decisions();
        for (uint32_t i = 0; i < kept && before[i].index < edit; i++)
            prefix_ok &= i < d->deviations && d->taken[i].index == before[i].index && d->taken[i].value == before[i].value;
    }
    CHECK(roundtrips > ROUNDS / 4 && roundtrip_ok, "%s: %d inputs' items encode back into bytes that replay them",
          t->name, roundtrips);
    CHECK(mutants > ROUNDS / 2 && claims_ok, "%s: %d mutants decode to the items the mutator claims", t->name, mutants);
    CHECK(prefix_ok, "%s: every mutant's run keeps the original's deviations before the mutation's first change",
          t->name);
    hf_mutator_force_kind(HF_MUT_KINDS);
    char made[64] = "";
    for (int k = 0; k < HF_MUT_KINDS; k++) made[k] = seen[k] ? 'x' : '.';
    CHECK(kinds_seen >= (ROUNDS >= 1000 ? 8 : 6), "%s: %d kinds of mutation were made (%s, by hf_mutation_kind)",
          t->name, kinds_seen, made);
}

/* The aim: on ZOOKEEPER-4646's model (crashes of the follower, states the
 * target reports), the world fault an aimed mutant moved — the first crash
 * after the moment decision it changed — mostly falls within 3 ms and one
 * unit after one of the original run's moments (a state change, a held
 * `sometimes`) that were pending on that decision; the original run's
 * fault of that decision seldom does. */
typedef struct aim_case {
    uint64_t decision, decided_ns;     /* the moment decision the mutant changed, and its time */
    uint32_t moments;
    uint64_t moment_ns[HF_FEATURES_MAX];   /* the original's moments pending on it */
    uint64_t unit;
} aim_case;

/* The aim draws its delay on a log scale below 16.8 ms: 22 of its 25 bit
 * lengths give less than 2.1 ms, and the fault falls on the next unit. */
#define REACH_NS (3 * HF_MS)

/* Did the last run's first crash after the decision fall within reach after a moment? */
static bool crash_within_reach(const aim_case *c) {
    const hf_trace *trace = hf_last_trace();
    for (uint64_t e = 0; e < trace->count; e++) {
        const hf_event *ev = hf_trace_event(trace, e);
        if (!ev || ev->kind != HF_EV_FAULT || ev->a != HF_FAULT_CRASH || ev->time < c->decided_ns) continue;
        for (uint32_t k = 0; k < c->moments; k++)
            if (ev->time >= c->moment_ns[k] && ev->time <= c->moment_ns[k] + REACH_NS + c->unit) return true;
        return false;
    }
    return false;
}

/* The case of an aimed mutant: its explicit item at one of the original
 * run's moment decisions (logged in `log`, features `f`). */
static bool aim_case_of(const hf_mutation *claim, const hf_decision_log *log, const hf_features *f, aim_case *c) {
    uint32_t moments = log->moments < HF_LOG_MOMENTS ? log->moments : HF_LOG_MOMENTS;
    int which = -1;
    for (uint32_t i = 0; i < claim->count && which < 0; i++)
        for (uint32_t j = 0; j < moments && !claim->item[i].generator; j++)
            if (claim->item[i].index == log->moment[j].index) which = (int)j;
    if (which < 0) return false;
    c->decision = log->moment[which].index;
    c->decided_ns = log->time_ns[c->decision];
    c->unit = log->moment[which].unit_ns;
    uint64_t next = (uint32_t)which + 1 < moments ? log->moment[which + 1].index : UINT64_MAX;
    c->moments = 0;
    for (uint32_t i = 0; i < f->count; i++) {
        uint64_t at = f->first_decision[i];
        if ((f->kind[i] == HF_FEAT_STATE || f->kind[i] == HF_FEAT_PROPERTY) && at > c->decision && at <= next)
            c->moment_ns[c->moments++] = log->time_ns[at - 1];
    }
    return c->moments > 0;
}

/* The aim checks' inputs: fresh generator records of zk_newleader_ack,
 * each run for the mutator, then mutated with the aim forced. */
enum { AIM_INPUT_MAX = 64 };
static const hf_target *aim_start(hf_rng *rng) {
    const hf_target *t = hf_target_find("zk_newleader_ack_buggy");
    hf_mutator_init(t);
    hf_mutator_force_kind(HF_MUT_AIM);
    hf_rng_seed(rng, 11);
    return t;
}

/* Draws in[0..*len), runs it, and writes its mutant to out (claim says what
 * it made); returns the mutant's size, 0 when the mutator made none. */
static size_t aim_round(const hf_target *t, hf_rng *rng, uint8_t in[AIM_INPUT_MAX], size_t *len,
                        uint8_t out[MUTANT_MAX], hf_mutation *claim) {
    hf_item fresh = hf_fresh_generator(rng, false, 0);
    *len = hf_items_encode(&fresh, 1, in, AIM_INPUT_MAX);
    hf_result r;
    hf_run_logged(t, in, *len, hf_mutator_log(), &r);
    hf_mutator_observe(in, *len);
    memcpy(out, in, *len);
    return hf_mutator_mutate(out, *len, MUTANT_MAX, (uint32_t)hf_rng_next(rng), NULL, claim);
}

static void check_aim(void) {
    hf_rng rng;
    const hf_target *t = aim_start(&rng);
    static uint8_t in[AIM_INPUT_MAX], out[MUTANT_MAX];
    static hf_mutation claim;
    static aim_case c;
    int aimed = 0, landed = 0, by_chance = 0;
    for (int round = 0; round < 400 && aimed < 100; round++) {
        size_t len;
        size_t mutant = aim_round(t, &rng, in, &len, out, &claim);
        if (mutant == 0 || claim.kind != HF_MUT_AIM) continue;
        hf_result r;
        hf_run_logged(t, in, len, &log_, &r);
        if (!aim_case_of(&claim, &log_, hf_last_features(), &c)) continue;
        aimed++;
        by_chance += crash_within_reach(&c);
        hf_run(t, out, mutant, &r);
        landed += crash_within_reach(&c);
    }
    hf_mutator_force_kind(HF_MUT_KINDS);
    CHECK(aimed >= 50 && landed >= aimed * 7 / 10 && 3 * by_chance <= landed,
          "aim: %d of %d aimed mutants crash the follower within 3 ms after one of the run's moments "
          "(%d of their originals)", landed, aimed, by_chance);
}

/* Whether the last run held a `sometimes` with this message. */
static bool held(const char *message) {
    static hf_features one;   /* the property's feature, made as prop.c makes it */
    hf_features_reset(&one);
    hf_features_add(&one, HF_FEAT_PROPERTY, hf_action_hash(HF_SOMETIMES, message), 0);
    const hf_features *f = hf_last_features();
    for (uint32_t i = 0; i < f->count; i++)
        if (f->list[i] == one.list[0]) return true;
    return false;
}

/* The rewind: on KIP-101's model, after 300 fresh runs, its mutants reach
 * the bug's first step ("a broker became follower with records beyond its
 * high watermark", held in about one fresh run in seven) at least twice as
 * often as fresh generators do; before the process's first 32 runs it
 * gives way to a fresh generator. */
static void check_rewind(void) {
    const hf_target *t = hf_target_find("kafka_hw_truncation_buggy");
    const char *step = "a broker became follower with records beyond its high watermark";
    static uint8_t in[AIM_INPUT_MAX], out[MUTANT_MAX];
    static hf_mutation claim;
    hf_rng rng;
    hf_rng_seed(&rng, 3);
    hf_mutator_init(t);
    hf_mutator_force_kind(HF_MUT_REWIND);
    int early = 0, history = 300, tries = 300;
    for (int i = 0; i < history; i++) {
        hf_item fresh = hf_fresh_generator(&rng, false, 0);
        size_t len = hf_items_encode(&fresh, 1, in, sizeof in);
        hf_result r;
        hf_run_logged(t, in, len, hf_mutator_log(), &r);
        hf_mutator_observe(in, len);
        if (i < 20) {   /* the mutator's rewind must not apply yet */
            memcpy(out, in, len);
            hf_mutator_mutate(out, len, sizeof out, (uint32_t)hf_rng_next(&rng), NULL, &claim);
            early += claim.kind == HF_MUT_REWIND;
        }
    }
    int reached[2] = {0, 0};   /* by fresh generators, by rewinds */
    for (int kind = 0; kind < 2; kind++) {
        hf_mutator_force_kind(kind ? HF_MUT_REWIND : HF_MUT_FRESH);
        for (int i = 0; i < tries; i++) {
            size_t mutant = hf_mutator_mutate(out, 0, sizeof out, (uint32_t)hf_rng_next(&rng), NULL, &claim);
            if (claim.kind != (kind ? HF_MUT_REWIND : HF_MUT_FRESH)) continue;
            hf_result r;
            hf_run(t, out, mutant, &r);
            reached[kind] += held(step);
        }
    }
    hf_mutator_force_kind(HF_MUT_KINDS);
    CHECK(early == 0, "rewind: none in the process's first runs (%d of 20)", early);
    CHECK(reached[1] >= 2 * reached[0] && reached[0] > 0,
          "rewind: %d of %d rewound runs reach the bug's first step, against %d of %d fresh generators",
          reached[1], tries, reached[0], tries);
}

/* HEISENFUZZ_FEATURES=0 takes behaviour out of the mutator too: the aim
 * at a state change never applies (the input has nothing to aim at), where
 * with features it applies to most fresh inputs of zk_newleader_ack.  In a
 * child, since the setting is read once per process. */
static void check_features_off(void) {
    pid_t child = fork();
    if (child == 0) {
        setenv("HEISENFUZZ_FEATURES", "0", 1);
        hf_rng rng;
        const hf_target *t = aim_start(&rng);
        static uint8_t in[AIM_INPUT_MAX], out[MUTANT_MAX];
        static hf_mutation claim;
        int mutants = 0, aimed = 0;
        for (int round = 0; round < 100; round++) {
            size_t len;
            if (aim_round(t, &rng, in, &len, out, &claim) == 0) continue;
            mutants++;
            aimed += claim.kind == HF_MUT_AIM;
        }
        _exit(mutants >= 50 && aimed == 0 ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "HEISENFUZZ_FEATURES=0: the mutator aims at no state change (child status %d)", status);
}

/* A rare walk still has world faults: the time of the next one is drawn
 * among all its options at every level (generate.c), so on KIP-101's model
 * a walk or a fault walk at level 8 (a deviation per decision with chance
 * 1.2%) times a crash in most runs whose profile allows crashes; with that
 * chance per moment decision, a run would almost never have one. */
static void check_rare_walk_world_faults(void) {
    const hf_target *t = hf_target_find("kafka_hw_truncation_buggy");
    static const hf_generator_kind kinds[] = {HF_GEN_WALK, HF_GEN_FAULTS};
    static uint8_t in[64];
    for (unsigned k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int runs = 40, timed = 0;
        for (int seed = 1; seed <= runs; seed++) {
            hf_item g = {.index = 0, .generator = true, .mode = (uint8_t)(kinds[k] | 8 << 4), .seed = (uint16_t)seed};
            size_t len = hf_items_encode(&g, 1, in, sizeof in);
            hf_result r;
            hf_run_logged(t, in, len, &log_, &r);
            const hf_decider *d = hf_last_decisions();
            bool deviated = false;
            uint32_t moments = log_.moments < HF_LOG_MOMENTS ? log_.moments : HF_LOG_MOMENTS;
            for (uint32_t i = 0; i < d->deviations && i < HF_DEVIATIONS_KEPT && !deviated; i++)
                for (uint32_t j = 0; j < moments && !deviated; j++) deviated = d->taken[i].index == log_.moment[j].index;
            timed += deviated;
        }
        CHECK(timed >= runs / 4, "a %s generator at level 8 times a world fault in %d of %d runs",
              kinds[k] == HF_GEN_WALK ? "walk" : "faults", timed, runs);
    }
}

/* A process's first eight mutations are fresh generators and make no
 * splice; after them, mutations of other kinds come at their shares (about
 * a quarter for a generator's input with nothing to aim at or rewind to),
 * and splices are made. */
static void check_fresh_first(const hf_target *t) {
    hf_mutator_init(t);
    const uint8_t in[] = {254, 0x20, 1, 2};
    static uint8_t out[MUTANT_MAX];
    static hf_mutation claim;
    int fresh = 0, splices = 0, other = 0;
    for (uint32_t seed = 1; seed <= 8; seed++) {
        splices += hf_mutator_cross(in, sizeof in, in, sizeof in, out, sizeof out, seed, NULL) != 0;
        memcpy(out, in, sizeof in);
        hf_mutator_mutate(out, sizeof in, sizeof out, seed, NULL, &claim);
        fresh += claim.kind == HF_MUT_FRESH;
    }
    for (uint32_t seed = 9; seed < 109; seed++) {
        memcpy(out, in, sizeof in);
        hf_mutator_mutate(out, sizeof in, sizeof out, seed, NULL, &claim);
        other += claim.kind != HF_MUT_FRESH;
    }
    bool spliced = hf_mutator_cross(in, sizeof in, in, sizeof in, out, sizeof out, 109, NULL) != 0;
    CHECK(fresh == 8 && splices == 0 && other >= 10 && spliced,
          "the first 8 mutations are fresh generators (%d) and no splice (%d); of the next 100, %d of other kinds, "
          "and a splice (%d)", fresh, splices, other, spliced);
}

/* The ordering constraints the ORDER mutations of `in` with seeds
 * first..last make, as their (before, after) site keys in keys[]; returns
 * how many (at most ORDERS_SEEN). */
enum { ORDERS_SEEN = 512 };
static uint32_t keys[ORDERS_SEEN][2];
static int order_keys(const uint8_t *in, size_t len, uint32_t first, uint32_t last) {
    static uint8_t out[MUTANT_MAX];
    static hf_mutation claim;
    int n = 0;
    for (uint32_t seed = first; seed <= last; seed++) {
        memcpy(out, in, len);
        hf_mutator_mutate(out, len, sizeof out, seed, NULL, &claim);
        for (uint32_t i = 0; i < claim.count && n < ORDERS_SEEN; i++) {
            const hf_item *it = &claim.item[i];
            if (!it->generator || it->mode != HF_GEN_ORDER) continue;
            uint32_t k = it->seed | (uint32_t)it->stretch << 16;
            keys[n][0] = k & 0xfff;
            keys[n][1] = k >> 12 & 0xfff;
            n++;
        }
    }
    return n;
}

/* How many of the first n keys are (before, after). */
static int keys_are(int n, uint32_t before, uint32_t after) {
    int match = 0;
    for (int i = 0; i < n; i++) match += keys[i][0] == before && keys[i][1] == after;
    return match;
}

/* A run of `t` on `in` seen by the mutator as showing `pairs` (a world
 * target's runs show none of their own, so these are all it knows). */
static void observe_pairs(const hf_target *t, const uint8_t *in, size_t len, const hf_reads_from_pair *pairs,
                          uint32_t count) {
    hf_result r;
    hf_run_logged(t, in, len, &log_, &r);
    const hf_decider *d = hf_last_decisions();
    hf_run_view run = {.data = in, .size = len, .log = &log_, .taken = d->taken, .deviations = d->deviations,
                       .features = hf_last_features(), .pairs = pairs, .pair_count = count};
    hf_mutator_observe_run(&run);
}

/* An ordering constraint asks for the outcome of its pair that the runs
 * showed less often.  Load 5 read from store 7 in one run: every
 * constraint holds store 7 until load 5 (the pair turned round).  Then
 * load 5 read the first value in two more runs: every constraint asks for
 * store 7 before load 5 again.  A load that read from two stores in each
 * run (9 from 7 and from 8) read from others than each as often as from
 * it: both directions come.  A pair no run showed racy (11 from 12) is
 * never drawn, until one does. */
static void check_order_direction(void) {
    const hf_target *t = hf_target_find("diskless_agent_buggy");
    hf_mutator_init(t);
    hf_mutator_force_kind(HF_MUT_ORDER);
    const uint8_t in[] = {254, 0x20, 1, 2};
    const hf_reads_from_pair from_7[] = {{5, 7, true}}, first_value[] = {{5, 0, true}};
    observe_pairs(t, in, sizeof in, from_7, 1);
    int total = order_keys(in, sizeof in, 1, 40), turned = keys_are(total, 5, 7);
    CHECK(total >= 40 && turned == total, "after a run where load 5 read from store 7, %d of %d constraints hold "
          "store 7 until load 5", turned, total);
    observe_pairs(t, in, sizeof in, first_value, 1);
    observe_pairs(t, in, sizeof in, first_value, 1);
    total = order_keys(in, sizeof in, 41, 80);
    int asked = keys_are(total, 7, 5);
    CHECK(total >= 40 && asked == total, "after two more where it read the first value, %d of %d constraints ask "
          "for store 7 before load 5", asked, total);

    hf_mutator_init(t);
    const hf_reads_from_pair both[] = {{9, 7, true}, {9, 8, true}, {11, 12, false}};
    observe_pairs(t, in, sizeof in, both, 3);
    observe_pairs(t, in, sizeof in, both, 3);
    total = order_keys(in, sizeof in, 1, 80);
    int load_first = keys_are(total, 9, 7) + keys_are(total, 9, 8);
    int store_first = keys_are(total, 7, 9) + keys_are(total, 8, 9);
    CHECK(load_first >= 10 && store_first >= 10 && load_first + store_first == total,
          "a load that read from two stores in every run: %d constraints put it first, %d after the store, "
          "none of %d on a pair ordered whatever the schedule", load_first, store_first, total);
    const hf_reads_from_pair now_racy[] = {{11, 12, true}};
    observe_pairs(t, in, sizeof in, now_racy, 1);
    total = order_keys(in, sizeof in, 81, 200);
    int racy_later = keys_are(total, 11, 12) + keys_are(total, 12, 11);
    CHECK(racy_later >= 10, "that pair racy in a later run: %d of %d constraints name it", racy_later, total);
    hf_mutator_force_kind(HF_MUT_KINDS);
}

/* An ORDER mutant is the input's ordering constraints and one or two
 * more over one fresh generator: not the input's generators or its
 * explicit deviations, which would replay a schedule that did not fail. */
static void check_order_over_fresh_schedule(void) {
    const hf_target *t = hf_target_find("diskless_agent_buggy");
    hf_mutator_init(t);
    const uint8_t in[] = {254, 0x20, 1, 2};
    const hf_reads_from_pair racy[] = {{5, 7, true}, {9, 8, true}};
    observe_pairs(t, in, sizeof in, racy, 2);
    static uint8_t with_deviation[MUTANT_MAX], once[MUTANT_MAX], twice[MUTANT_MAX];
    static hf_mutation claim;
    hf_mutator_force_kind(HF_MUT_ADD);
    memcpy(with_deviation, in, sizeof in);
    size_t len = hf_mutator_mutate(with_deviation, sizeof in, sizeof with_deviation, 1, NULL, &claim);
    int deviations = 0;
    for (uint32_t i = 0; i < claim.count; i++) deviations += !claim.item[i].generator;
    CHECK(len > 0 && deviations == 1, "an ADD mutant with one explicit deviation (%d)", deviations);
    hf_mutator_force_kind(HF_MUT_ORDER);
    int bad = 0, tries = 0;
    for (uint32_t seed = 1; seed <= 40; seed++) {
        memcpy(once, with_deviation, len);
        size_t once_len = hf_mutator_mutate(once, len, sizeof once, seed, NULL, &claim);
        hf_mutation first = claim;
        memcpy(twice, once, once_len);
        hf_mutator_mutate(twice, once_len, sizeof twice, seed + 1000, NULL, &claim);
        int schedules = 0, explicit_items = 0, orders = 0, kept = 0, old_orders = 0;
        for (uint32_t i = 0; i < claim.count; i++) {
            const hf_item *it = &claim.item[i];
            if (!it->generator) explicit_items++;
            else if (hf_item_is_order(it)) orders++;
            else schedules++;
        }
        for (uint32_t j = 0; j < first.count; j++) {
            if (!hf_item_is_order(&first.item[j])) continue;
            old_orders++;
            for (uint32_t i = 0; i < claim.count; i++)
                if (hf_item_order(&claim.item[i], &first.item[j]) == 0 && hf_item_is_order(&claim.item[i])) {
                    kept++;
                    break;
                }
        }
        int added = orders - old_orders;
        tries++;
        bad += first.kind != HF_MUT_ORDER || claim.kind != HF_MUT_ORDER || schedules != 1 || explicit_items != 0 ||
               kept != old_orders || old_orders < 1 || added < 1 || added > 2;
    }
    CHECK(bad == 0, "%d of %d ORDER mutants of an ORDER mutant are not its constraints and one or two more over "
          "one generator, with no explicit deviation", bad, tries);
    hf_mutator_force_kind(HF_MUT_KINDS);
}

int main(void) {
    check_features_off();   /* first: the child must not inherit a read setting */
    check_rare_walk_world_faults();
    check_target(hf_target_find("kafka_idempotent_buggy"));
    check_target(hf_target_find("metrics_race_buggy"));
    check_target(hf_target_find("cluster"));
    check_aim();
    check_rewind();
    check_order_direction();
    check_order_over_fresh_schedule();

    /* A splice keeps the first input's deviations up to its cut (after
     * the first mutations, which make none). */
    const hf_target *t = hf_target_find("diskless_agent_buggy");
    check_fresh_first(t);
    uint8_t a[] = {254, 0x20, 1, 2}, b[] = {254, 0x34, 9, 9};
    static uint8_t out[MUTANT_MAX];
    static hf_mutation claim;
    hf_result r;
    hf_run(t, a, sizeof a, &r);
    uint32_t kept = hf_last_decisions()->deviations;
    memcpy(before, hf_last_decisions()->taken, kept * sizeof *before);
    int splices = 0, splice_ok = 1;
    for (uint32_t seed = 1; seed <= 40; seed++) {
        size_t n = hf_mutator_cross(a, sizeof a, b, sizeof b, out, sizeof out, seed, &claim);
        if (!n) continue;
        splices++;
        hf_run(t, out, n, &r);
        const hf_decider *d = hf_last_decisions();
        uint32_t explicit_prefix = 0;
        while (explicit_prefix < claim.count && !claim.item[explicit_prefix].generator) explicit_prefix++;
        for (uint32_t i = 0; i < explicit_prefix; i++)
            splice_ok &= i < d->deviations && d->taken[i].index == before[i].index && d->taken[i].value == before[i].value;
    }
    CHECK(splices > 30 && splice_ok, "%d splices keep the first input's run up to the cut", splices);

    /* Inputs the mutator has not seen it runs, and counts. */
    uint64_t runs = hf_mutator_runs();
    uint8_t fresh[] = {254, 0x13, 0x77, 0x66};
    memcpy(out, fresh, sizeof fresh);
    hf_mutator_mutate(out, sizeof fresh, sizeof out, 5, NULL, NULL);
    memcpy(out, fresh, sizeof fresh);
    hf_mutator_mutate(out, sizeof fresh, sizeof out, 6, NULL, NULL);
    CHECK(hf_mutator_runs() == runs + 1, "an unseen input costs the mutator one run, counted (%llu), and no more",
          (unsigned long long)(hf_mutator_runs() - runs));
    hf_runtime_free();
    return check_exit();
}
