/*
 * mutate.c — the decision-aware mutator (mutate.h).
 *
 * Every input the mutator works on is first known as a map: its records
 * decoded into items, what each decision of its run was about, the
 * deviations the run took (generated ones too), and where it first showed a
 * behaviour new to this process.  A mutation edits items and encodes them
 * again (decide.c's encoder), so a mutant is always a well-formed input that
 * says what the mutation meant.
 */
#include "mutate.h"
#include "behaviour.h"
#include "run.h"
#include "sanitizer.h"
#include "rng.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Maps of inputs ----------------------------------------------------------- */

/* A moment the run's target declared (a state changed, a `sometimes`
 * held) while a world fault was pending: the aim mutation's target. */
typedef struct aim_point {
    uint64_t time_ns;           /* the logical time of the last decision before it */
    uint64_t index;             /* the first decision after it, where a generator takes over */
    hf_moment_decision moment;  /* the world fault's moment decision, the last one taken before it, */
    uint64_t moment_ns;         /* at this logical time */
} aim_point;

enum { AIMS_KEPT = 16 };

typedef struct input_map {
    uint64_t hash;              /* of the input's bytes; 0 = empty slot */
    size_t size;
    uint32_t decisions;         /* decisions the run took */
    uint32_t kept;              /* of which the log kept what they were about */
    hf_decision_tag *tag;
    uint8_t *width;
    int items;                  /* -1: the input has more records than a log keeps */
    hf_item *item;
    bool complete;              /* `taken` holds all of the run's deviations */
    uint32_t deviations;
    hf_deviation *taken;
    bool novel;                 /* the run showed behaviour or code new to the process */
    uint64_t novelty;           /* first decision showing a behaviour new to the process; UINT64_MAX none */
    uint32_t aims;              /* the run's moments to aim a world fault at (the first few) */
    aim_point aim[AIMS_KEPT];
} input_map;

/* A moment few runs reach: a `sometimes` or `reachable` that held in at
 * most RARE_RUNS of the process's runs when it was kept, with the
 * deviations the calmest of those runs took before it.  A target declares
 * such properties at the steps its bugs go through, so the rarest one
 * held is the furthest a campaign has come; rarer moments displace
 * commoner ones, so the pool follows that frontier.  State values are
 * left out: rare ones are mostly the far ends of counters, an epoch only
 * storms reach.  With them, kafka_hw_truncation's bug took 124 executions
 * (median of 200 seeds) against 98 without, and the rewind found it in
 * 1.3% of tries against 8.3% after one same history of 300 runs. */
typedef struct rare_moment {
    uint64_t feature;           /* 0 = an empty slot */
    uint64_t index;             /* the decision at which that run first showed it */
    uint32_t deviations;        /* the run's deviations before it */
    hf_deviation *taken;
} rare_moment;

/* Rewinds wait for the process's first RARE_AFTER runs: before that,
 * whatever held at all has held in few runs, and rare means nothing. */
enum { RARE_KEPT = 64, RARE_RUNS = 8, RARE_AFTER = 32 };

/* The process's first FRESH_FIRST mutations are fresh generators: a
 * campaign's first inputs are the calm run and a few random schedules that
 * did not fail, and building on them finds bugs less often than drawing
 * a new random schedule does (a throwaway program, after the calm run
 * and three fresh ones, lease_lock: fresh 14.8% of tries, a reseed 13.5%,
 * the aim 10.8%, a continuation 7.6%; after forty, the aim 3.9%).  With
 * the aim there from the start, lease_lock's full search was slower than
 * coverage alone on 78 of 600 seeds and faster on 45 (median 8 against 7);
 * with the first eight mutations fresh, 25 and 13 (7 against 7), and
 * short campaigns got shorter (200 seeds: kafka_idempotent 14 -> 12,
 * metrics_race_nohint 11 -> 8, lease_lock 7 -> 6 executions), while
 * zk_newleader_ack, whose bug the aim finds, went from 91 to 98 executions
 * (median of 200 seeds, in a build with the rule as a setting). */
enum { FRESH_FIRST = 8 };

/* Maps of inputs by hash, direct-mapped: every input run goes in, but one
 * that showed new behaviour (the likely corpus) is displaced only by
 * another such; plus the last input run, which libFuzzer mutates again when
 * it stacks mutations. */
enum { CACHE_SLOTS = 1024 };

/* Reads-from pairs (run.h) the process's runs showed, whose store site is
 * known, for ordering constraints, and the load sites of all pairs: open
 * addressing, at most half full, so at most PAIRS_KEPT of each are kept.
 * They count runs, so that a constraint can ask for the outcome seen least
 * (order_constraint): a pair, the runs that showed it and those in which
 * its load read from no other store; a load site, the runs in which it
 * loaded.  Constraints are drawn only from pairs some run showed racy: a
 * load of what main stored before it spawned the loading thread, of the
 * loading thread's own store or of a thread joined before it is ordered
 * whatever the schedule, and a constraint to turn it round could never be
 * met. */
enum { PAIR_SLOTS = 2048, PAIRS_KEPT = PAIR_SLOTS / 2 };
typedef struct pair_seen { hf_reads_from_pair pair; uint32_t runs, alone; } pair_seen;   /* pair.racy: some run showed it racy */
typedef struct load_seen {
    uintptr_t site;
    uint32_t runs;
    uint64_t last_run;    /* the run that counted last, ... */
    uint32_t stores;      /* ... and the stores, the first value included, the site read from in it */
} load_seen;

static struct {
    const hf_target *target;
    pair_seen pair_slot[PAIR_SLOTS];
    uint32_t pair[PAIRS_KEPT];     /* the slots of racy pairs, in the order they first showed so, to draw from */
    uint32_t pairs, kept_pairs;
    load_seen load_slot[PAIR_SLOTS];
    uint32_t loads;
    uint64_t pair_runs;            /* runs whose pairs were learnt */
    hf_decision_log log;
    input_map cache[CACHE_SLOTS];
    input_map last;
    uint64_t runs;                 /* the mutator's own */
    struct seen { uint64_t feature; uint32_t runs; } *seen;   /* behaviour features seen in this process, */
    size_t seen_count, seen_cap;   /* with the runs that showed each: open addressing */
    rare_moment rare[RARE_KEPT];   /* in use: the first `rares`, filled in order and never emptied */
    int rares;
    uint64_t observed;             /* runs whose features were counted */
    /* What each kind of mutation, and each kind of fresh generator, has
     * found (shares that learn, pick_kind and fresh): mutants run and
     * observed, and of those the ones that showed something new. */
    uint32_t tries[HF_MUT_KINDS], finds[HF_MUT_KINDS];
    uint32_t generator_tries[16], generator_finds[16];
    bool generator_drawn[16];
    uint64_t mutant_hash;          /* the last mutant handed out (0: none pending) ... */
    hf_mutation_kind mutant_kind;  /* ... its kind ... */
    int mutant_generator;          /* ... and its fresh generator's kind, -1 for none */
    uint64_t mutations;            /* asked of the mutator in this process (splices too) */
    hf_item scratch[HF_ITEMS_MAX];
    uint8_t encoded[1 << 16];
} M;

static void *must_alloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) { fprintf(stderr, "heisenfuzz: out of memory in the mutator\n"); abort(); }
    return p;
}

static uint64_t hash_input(const uint8_t *data, size_t size) {
    uint64_t h = XXH3_64bits(data, size);
    return h ? h : 1;
}

static void map_free(input_map *m) {
    free(m->tag);
    free(m->width);
    free(m->item);
    free(m->taken);
    memset(m, 0, sizeof *m);
}

/* Forgets everything learnt of the last target's runs. */
static void forget(void) {
    for (int i = 0; i < CACHE_SLOTS; i++) map_free(&M.cache[i]);
    map_free(&M.last);
    for (int i = 0; i < RARE_KEPT; i++) free(M.rare[i].taken);
    memset(M.rare, 0, sizeof M.rare);
    M.rares = M.observed = M.mutations = 0;
    memset(M.pair_slot, 0, sizeof M.pair_slot);
    memset(M.load_slot, 0, sizeof M.load_slot);
    M.pairs = M.kept_pairs = M.loads = 0;
    M.pair_runs = 0;
    memset(M.tries, 0, sizeof M.tries);
    memset(M.finds, 0, sizeof M.finds);
    memset(M.generator_tries, 0, sizeof M.generator_tries);
    memset(M.generator_finds, 0, sizeof M.generator_finds);
    memset(M.generator_drawn, 0, sizeof M.generator_drawn);
    M.mutant_hash = 0;
    free(M.seen);
    M.seen = NULL;
    M.seen_count = M.seen_cap = 0;
}

void hf_mutator_init(const hf_target *t) {
    assert(t);
    forget();
    M.target = t;
}

hf_decision_log *hf_mutator_log(void) { return &M.log; }

uint64_t hf_mutator_runs(void) { return M.runs; }

/* The process-wide entry of a feature: its own, or the empty one where it
 * would go (feature 0, no runs). */
static struct seen *seen_entry(uint64_t feature) {
    static struct seen none;
    if (!M.seen_cap) return &none;
    size_t at = (size_t)(feature % M.seen_cap);
    while (M.seen[at].feature && M.seen[at].feature != feature) at = (at + 1) % M.seen_cap;
    return &M.seen[at];
}

/* Counts one more run showing a feature; returns how many have, this one
 * included (1: it is new to the process). */
static uint32_t count_run(uint64_t feature) {
    if (2 * (M.seen_count + 1) > M.seen_cap) {   /* room for one more, kept at most half full */
        size_t cap = M.seen_cap ? 2 * M.seen_cap : 4096;
        struct seen *grown = calloc(cap, sizeof *grown);
        if (!grown) { fprintf(stderr, "heisenfuzz: out of memory in the mutator\n"); abort(); }
        for (size_t i = 0; i < M.seen_cap; i++) {
            if (!M.seen[i].feature) continue;
            size_t at = (size_t)(M.seen[i].feature % cap);
            while (grown[at].feature) at = (at + 1) % cap;
            grown[at] = M.seen[i];
        }
        free(M.seen);
        M.seen = grown;
        M.seen_cap = cap;
    }
    struct seen *e = seen_entry(feature);
    if (!e->feature) {
        e->feature = feature;
        M.seen_count++;
    }
    return ++e->runs;
}

bool hf_behaviour_steers(void) {
    static int steers = -1;
    if (steers < 0) {
        const char *v = getenv("HEISENFUZZ_FEATURES");
        steers = !(v && !strcmp(v, "0"));
    }
    return steers;
}

/* The slot for a rare moment of `feature`, shown by `runs` runs so far:
 * its own, the next free one, or that of the commonest moment kept if that
 * is commoner; NULL when every moment kept is at least as rare. */
static rare_moment *rare_slot(uint64_t feature, uint32_t runs) {
    rare_moment *commonest = NULL;
    uint32_t most = runs;
    for (int i = 0; i < M.rares; i++) {
        rare_moment *r = &M.rare[i];
        if (r->feature == feature) return r;
        uint32_t n = seen_entry(r->feature)->runs;
        if (n > most) most = n, commonest = r;
    }
    return M.rares < RARE_KEPT ? &M.rare[M.rares] : commonest;
}

/* Keeps the run's way to `feature`, first shown at decision `at`, unless
 * a run with no more deviations before it is kept already. */
static void keep_rare(const hf_run_view *run, uint64_t feature, uint32_t runs, uint64_t at) {
    if (run->deviations > HF_DEVIATIONS_KEPT) return;   /* not all known */
    uint32_t before = 0;
    while (before < run->deviations && run->taken[before].index < at) before++;
    rare_moment *r = rare_slot(feature, runs);
    if (!r || (r->feature == feature && r->deviations <= before)) return;
    if (!r->feature) M.rares++;
    free(r->taken);
    r->taken = must_alloc(before * sizeof *r->taken);
    memcpy(r->taken, run->taken, before * sizeof *r->taken);
    r->feature = feature;
    r->index = at;
    r->deviations = before;
}

/* Counts the run's features and code coverage in the process's tally,
 * keeps the rare moments it reached, and returns the first decision at
 * which it showed a behaviour new to the process (UINT64_MAX for none);
 * `novel` says whether it showed anything new, code included. */
static uint64_t note_novelty(const hf_run_view *run, bool *novel) {
    *novel = false;
    for (uint32_t i = 0; i < run->code_count; i++)
        if (count_run(run->code[i]) == 1) *novel = true;
    if (!hf_behaviour_steers()) return UINT64_MAX;
    const hf_features *f = run->features;
    uint64_t first = UINT64_MAX;
    M.observed++;
    for (uint32_t i = 0; i < f->count; i++) {
        uint32_t runs = count_run(f->list[i]);
        if (runs == 1 && f->first_decision[i] < first) first = f->first_decision[i];
        if (f->kind[i] == HF_FEAT_PROPERTY && runs <= RARE_RUNS && f->first_decision[i] > 0)
            keep_rare(run, f->list[i], runs, f->first_decision[i]);
    }
    if (first != UINT64_MAX) *novel = true;
    return first;
}

/* The run's aim points (at most AIMS_KEPT, in run order): each state
 * change or held `sometimes` among its first `kept` decisions, with the
 * moment decision taken last before it.  Features come in the order the
 * run showed them, so one pass over the moment decisions serves them all. */
static uint32_t find_aims(const hf_run_view *run, aim_point *aims, uint32_t kept) {
    if (!hf_behaviour_steers()) return 0;
    const hf_features *f = run->features;
    const hf_decision_log *log = run->log;
    uint32_t moments = log->moments < HF_LOG_MOMENTS ? log->moments : HF_LOG_MOMENTS, next = 0, n = 0;
    for (uint32_t i = 0; i < f->count && n < AIMS_KEPT; i++) {
        uint64_t at = f->first_decision[i];
        if ((f->kind[i] != HF_FEAT_STATE && f->kind[i] != HF_FEAT_PROPERTY) || at == 0 || at > kept) continue;
        assert(i == 0 || at >= f->first_decision[i - 1]);
        while (next < moments && log->moment[next].index < at) next++;
        if (next == 0) continue;   /* no moment decision before it */
        const hf_moment_decision *pending = &log->moment[next - 1];
        aims[n++] = (aim_point){.time_ns = log->time_ns[at - 1], .index = at, .moment = *pending,
                                .moment_ns = log->time_ns[pending->index]};
    }
    return n;
}

/* Fills `m` from the run. */
static void map_fill(input_map *m, const hf_run_view *run, uint64_t hash, bool novel, uint64_t novelty) {
    map_free(m);
    const hf_decision_log *log = run->log;
    m->hash = hash;
    m->size = run->size;
    m->decisions = log->decisions;
    m->kept = log->decisions < HF_LOG_DECISIONS ? log->decisions : HF_LOG_DECISIONS;
    m->tag = must_alloc(m->kept);
    m->width = must_alloc(m->kept);
    memcpy(m->tag, log->tag, m->kept);
    memcpy(m->width, log->width, m->kept);
    m->items = hf_items_parse(log, run->data, run->size, M.scratch, HF_ITEMS_MAX);
    m->item = must_alloc((m->items > 0 ? (size_t)m->items : 0) * sizeof *m->item);
    if (m->items > 0) memcpy(m->item, M.scratch, (size_t)m->items * sizeof *m->item);
    m->complete = run->deviations <= HF_DEVIATIONS_KEPT;
    m->deviations = m->complete ? run->deviations : HF_DEVIATIONS_KEPT;
    m->taken = must_alloc(m->deviations * sizeof *m->taken);
    memcpy(m->taken, run->taken, m->deviations * sizeof *m->taken);
    m->novel = novel;
    m->novelty = novelty;
    m->aims = find_aims(run, m->aim, m->kept);
}

/* Keeps the map of the run. */
static input_map *keep(const hf_run_view *run, uint64_t hash) {
    bool novel;
    uint64_t novelty = note_novelty(run, &novel);
    input_map *slot = &M.cache[hash % CACHE_SLOTS];
    bool protected = slot->hash && slot->novel;
    input_map *m = novel || !protected ? slot : &M.last;
    map_fill(m, run, hash, novel, novelty);
    return m;
}

/* The run this process made last, of data[0..size), logged in M.log. */
static hf_run_view last_run(const uint8_t *data, size_t size) {
    const hf_decider *d = hf_last_decisions();
    hf_run_view run = {.data = data, .size = size, .log = &M.log, .taken = d->taken,
                       .deviations = d->deviations, .features = hf_last_features()};
    run.pairs = hf_last_reads_from(&run.pair_count);
    return run;
}

/* The slot of `site` among the load sites, claimed if new and there is
 * room; NULL when there is none. */
static load_seen *load_of(uintptr_t site) {
    size_t at = hf_mix64(site) % PAIR_SLOTS;
    while (M.load_slot[at].site && M.load_slot[at].site != site) at = (at + 1) % PAIR_SLOTS;
    if (!M.load_slot[at].site) {
        if (M.loads == PAIRS_KEPT) return NULL;
        M.load_slot[at].site = site;
        M.loads++;
    }
    return &M.load_slot[at];
}

/* Notes a run's reads-from pairs (distinct within the run, run.h): for
 * each load site and each pair one more run that showed it. */
static void learn_pairs(const hf_reads_from_pair *p, uint32_t count) {
    static load_seen *load_at[HF_READS_FROM_PAIRS_KEPT];   /* each pair's load site */
    assert(count <= HF_READS_FROM_PAIRS_KEPT);
    M.pair_runs++;
    for (uint32_t i = 0; i < count; i++) {
        load_seen *load = load_at[i] = load_of(p[i].load_site);
        if (!load) continue;
        if (load->last_run != M.pair_runs) {
            load->runs++;
            load->last_run = M.pair_runs;
            load->stores = 0;
        }
        load->stores++;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (!p[i].store_site) continue;   /* the first value: no store to order against */
        size_t at = hf_mix64(p[i].load_site ^ hf_mix64(p[i].store_site)) % PAIR_SLOTS;
        pair_seen *slot = &M.pair_slot[at];
        while (slot->pair.load_site && (slot->pair.load_site != p[i].load_site ||
                                        slot->pair.store_site != p[i].store_site)) {
            at = (at + 1) % PAIR_SLOTS;
            slot = &M.pair_slot[at];
        }
        if (!slot->pair.load_site) {
            if (M.kept_pairs == PAIRS_KEPT) continue;
            M.kept_pairs++;
            slot->pair = (hf_reads_from_pair){p[i].load_site, p[i].store_site, false};
        }
        if (p[i].racy && !slot->pair.racy) {
            slot->pair.racy = true;
            M.pair[M.pairs++] = (uint32_t)at;
        }
        slot->runs++;
        slot->alone += load_at[i] && load_at[i]->stores == 1;
    }
}

/* The run of input `hash` showed something new or not: when it is the
 * last mutant handed out, its kinds are credited with it. */
static void credit(uint64_t hash, bool novel) {
    if (!M.mutant_hash || hash != M.mutant_hash) return;
    M.tries[M.mutant_kind]++;
    M.finds[M.mutant_kind] += novel;
    if (M.mutant_generator >= 0) {
        M.generator_tries[M.mutant_generator]++;
        M.generator_finds[M.mutant_generator] += novel;
    }
    M.mutant_hash = 0;
}

void hf_mutator_observe(const uint8_t *data, size_t size) {
    hf_run_view run = last_run(data, size);
    uint64_t hash = hash_input(data, size);
    credit(hash, keep(&run, hash)->novel);
    learn_pairs(run.pairs, run.pair_count);
}

bool hf_mutator_observe_run(const hf_run_view *run) {
    assert(run->log && run->features && (run->taken || !run->deviations) && (run->pairs || !run->pair_count));
    uint64_t hash = hash_input(run->data, run->size);
    bool novel = keep(run, hash)->novel;
    credit(hash, novel);
    learn_pairs(run->pairs, run->pair_count);
    return novel;
}

/* The map of data[0..size): remembered, or learnt by running it. */
static const input_map *map_of(const uint8_t *data, size_t size) {
    assert(M.target && "hf_mutator_init first");
    uint64_t hash = hash_input(data, size);
    if (M.last.hash == hash && M.last.size == size) return &M.last;
    input_map *slot = &M.cache[hash % CACHE_SLOTS];
    if (slot->hash == hash && slot->size == size) return slot;
    hf_result r;
    hf_run_logged(M.target, data, size, &M.log, &r);
    M.runs++;
    hf_run_view run = last_run(data, size);
    learn_pairs(run.pairs, run.pair_count);
    return keep(&run, hash);
}

/* ---- Random choices ------------------------------------------------------------- */

static hf_rng rng;

static uint64_t below(uint64_t n) { return n ? hf_rng_below(&rng, n) : 0; }

/* Uniform in [0, 1). */
static double uniform(void) { return (double)(hf_rng_next(&rng) >> 11) * 0x1p-53; }

/* A kind's chance of making a mutant that shows something new, as this
 * campaign has seen it: (finds + 1) / (tries + 2), Laplace's rule of
 * succession, so that a kind not yet tried counts as even odds and one
 * tried often counts as what it did. */
static double success_rate(uint32_t finds, uint32_t tries) { return (finds + 1.0) / (tries + 2.0); }

/* A fresh generator for a mutant: hf_fresh_generator's table is the prior,
 * and a kind drawn from it is kept with a chance of its success rate over
 * the best rate among the kinds drawn so far (else drawn again, eight
 * times at most), so that in the end each kind comes as often as its
 * share times its rate: the table's tuning for the incident targets gives
 * way to what finds new behaviour on this target. */
static hf_item fresh(uint64_t index) {
    hf_item it = {0};
    for (int draw = 0; draw < 8; draw++) {
        it = hf_fresh_generator(&rng, M.target->preempt_at_accesses, index);
        unsigned kind = it.mode & 15;
        M.generator_drawn[kind] = true;
        double best = 0;
        for (unsigned k = 0; k < 16; k++)
            if (M.generator_drawn[k] && success_rate(M.generator_finds[k], M.generator_tries[k]) > best)
                best = success_rate(M.generator_finds[k], M.generator_tries[k]);
        if (uniform() * best < success_rate(M.generator_finds[kind], M.generator_tries[kind])) break;
    }
    M.mutant_generator = it.mode & 15;
    return it;
}

/* The raw value of an explicit deviation (decide.h: a step past the
 * default).  For a fault or a detail, half the time on a log scale, as a
 * generator draws them: small steps past a default (a gap of 3 ms where
 * the default is "never") are the ones that matter most often. */
static uint64_t random_value(unsigned width, hf_decision_tag tag) {
    uint64_t v = hf_rng_next(&rng);
    unsigned cls = HF_DECISION_CLASS(tag);
    if ((cls == HF_DECISION_FAULT || cls == HF_DECISION_DETAIL) && below(2))
        v = hf_of_bit_length((unsigned)below(8 * width + 1), v);
    return width >= 8 ? v : v & ((1ull << (8 * width)) - 1);
}

/* A decision of the run, chosen by what it is about: a class of decision
 * (task choices, workload, profile, faults, details) among those the run
 * has, then a tag of that class (a fault kind), then one of its decisions.
 * Choosing the class first keeps the nineteen profile decisions from
 * crowding out the rest. */
static bool pick_decision(const input_map *m, uint64_t *index) {
    uint32_t count[256] = {0};
    for (uint32_t i = 0; i < m->kept; i++) count[m->tag[i]]++;
    unsigned classes = 0, class_tags[8] = {0};
    for (int tag = 0; tag < 256; tag++)
        if (count[tag] && class_tags[tag >> 5]++ == 0) classes++;
    if (!classes) return false;
    uint64_t want = below(classes);
    unsigned cls = 0;
    while (!class_tags[cls] || want-- > 0) cls++;
    uint64_t nth_tag = below(class_tags[cls]);
    int tag = (int)cls << 5;
    while (!count[tag] || nth_tag-- > 0) tag++;
    uint64_t nth = below(count[tag]);
    for (uint32_t i = 0; i < m->kept; i++)
        if (m->tag[i] == tag && nth-- == 0) { *index = i; return true; }
    return false;
}

/* Deviations taken[0..count) before decision `cut`, as explicit items. */
static int explicit_before(const hf_deviation *taken, uint32_t count, uint64_t cut, hf_item *items) {
    int n = 0;
    for (uint32_t i = 0; i < count && taken[i].index < cut; i++)
        items[n++] = (hf_item){.index = taken[i].index, .width = taken[i].width, .value = taken[i].value};
    return n;
}

/* The run's own deviations before decision `cut`, as explicit items. */
static int prefix_items(const input_map *m, uint64_t cut, hf_item *items) {
    return explicit_before(m->taken, m->deviations, cut, items);
}

/* Whether the rewind has a rare moment to go back from. */
static bool can_rewind(void) { return M.rares > 0 && M.observed >= RARE_AFTER; }

/* One of the rare moments kept, the rarer of two drawn; NULL for none. */
static const rare_moment *pick_rare(void) {
    if (!can_rewind()) return NULL;
    const rare_moment *a = &M.rare[below((uint64_t)M.rares)], *b = &M.rare[below((uint64_t)M.rares)];
    assert(a->feature && b->feature);
    return seen_entry(a->feature)->runs <= seen_entry(b->feature)->runs ? a : b;
}

/* Indices of the items that are (or are not) generators. */
static int items_where(const input_map *m, bool generator, int *which) {
    int n = 0;
    for (int i = 0; i < m->items; i++)
        if (m->item[i].generator == generator) which[n++] = i;
    return n;
}

/* ---- Mutations -------------------------------------------------------------------- */

/* The n items with explicit item `it` in place of one at its decision, or
 * added; returns the new count (-1: no room). */
static int with_explicit(hf_item *items, int n, hf_item it) {
    assert(!it.generator);
    for (int i = 0; i < n; i++)
        if (!items[i].generator && items[i].index == it.index) { items[i] = it; return n; }
    if (n == HF_ITEMS_MAX) return -1;
    items[n] = it;
    return n + 1;
}

/* An ordering constraint from a reads-from pair some run showed: that
 * this load read from that store (the store before it) or read before it,
 * not from it (the load before the store), whichever the process's runs
 * showed less often (even odds on a tie).  The first outcome is counted
 * in the runs that showed the pair, the second in those where the load
 * read from another store or the first value, whether or not also from
 * this one (a load that many threads make reads from several in a run).
 * A constraint is worth what it makes new: after the calm run, where most
 * pairs have been seen once and their opposite never, a pair is worth
 * turning round, not asking for again.  This is the feedback's own rule (the
 * least seen is the most worth trying) applied to a constraint's
 * direction; it has no constant. */
static hf_item order_constraint(void) {
    assert(M.pairs > 0);
    const pair_seen *seen = &M.pair_slot[M.pair[below(M.pairs)]];
    const hf_reads_from_pair *p = &seen->pair;
    const load_seen *load = load_of(p->load_site);
    uint32_t from = seen->runs, not_from = load && load->runs > seen->alone ? load->runs - seen->alone : 0;
    bool reads_from = from == not_from ? below(2) : from < not_from;
    uint32_t before = hf_site_key(reads_from ? p->store_site : p->load_site);
    uint32_t after = hf_site_key(reads_from ? p->load_site : p->store_site);
    uint32_t keys = before | after << 12;
    return (hf_item){.index = 0, .generator = true, .mode = HF_GEN_ORDER, .seed = (uint16_t)keys,
                     .stretch = (uint8_t)(keys >> 16)};
}

/* Builds the items of one mutation of `m` in M.scratch; returns their
 * count, or -1 when the mutation does not apply to this input. */
static int build(hf_mutation_kind kind, const input_map *m) {
    hf_item *out = M.scratch;
    static int which[HF_ITEMS_MAX];
    int n = m->items > 0 ? m->items : 0;
    if (m->items > 0) memcpy(out, m->item, (size_t)m->items * sizeof *out);
    switch (kind) {
    case HF_MUT_FRESH:
        /* Among the first FRESH_FIRST, on a program, each carries one
         * ordering constraint from the pairs the runs so far showed (the
         * calm run's, mostly): RFF's input, a random schedule plus a
         * constraint, for the bugs one reordered read makes (reorder_N:
         * hold every setter before its second store until the checker has
         * read).  The constraint turns a pair round (order_constraint), so
         * each of these schedules asks for a reads-from the calm run did
         * not show and is otherwise as random as a blind one.  Half of
         * them carried one while a constraint's direction was a coin
         * flip; with the direction by what runs showed, all of them
         * (medians of 50 seeds, half -> all: SCTBench reorder_100 16 -> 7,
         * twostage_50 23 -> 10, twostage_100 34 -> 22.5, bluetooth_driver
         * 14.5 -> 24; targets/pthread/, 20 seeds, hundred_threads 10 -> 5,
         * use_after_free 6 -> 7.5; tests/HISTORY.md).  Constraints on
         * every fresh generator of a campaign, not only the first, lost
         * with coin-flip directions (twostage_100 1,496 against 864). */
        out[0] = fresh(0);
        if (!M.pairs || M.mutations > FRESH_FIRST) return 1;
        out[1] = order_constraint();
        return 2;
    case HF_MUT_ORDER: {
        /* RFF's mutation: the input's ordering constraints and one or
         * two more, over a fresh generator in place of the input's
         * schedule.  A constraint narrows the schedules a run may take;
         * within them the run should be as random as a blind one, as
         * RFF's runs are (its input is constraints alone, the rest drawn
         * anew), not the input's schedule again, which has not failed.
         * Over the input's own generators and deviations, campaigns whose
         * pairs stop changing spent this share on near-replays
         * (targets/pthread/ medians of 10 seeds, before -> after: aba 189
         * -> 89, three_preemptions 109.5 -> 75.5; tests/README.md). */
        if (m->items < 0 || !M.pairs) return -1;
        n = 0;
        for (int i = 0; i < m->items; i++)
            if (hf_item_is_order(&m->item[i])) out[n++] = m->item[i];
        if (n == HF_ITEMS_MAX) return -1;
        out[n++] = fresh(0);
        for (int orders = below(3) ? 1 : 2; orders > 0; orders--) {
            if (n == HF_ITEMS_MAX) return -1;
            out[n++] = order_constraint();
        }
        return n;
    }
    case HF_MUT_RESEED:
    case HF_MUT_RETUNE: {
        int g = items_where(m, true, which);
        if (m->items < 0 || !g) return -1;
        hf_item *it = &out[which[below((uint64_t)g)]];
        if (kind == HF_MUT_RESEED) {
            it->seed = (uint16_t)(it->seed ^ (1 + below(65535)));
        } else {
            unsigned level = it->mode >> 4;
            switch (below(3)) {
            case 0: level = (unsigned)((int)level + (below(2) ? 1 : -1) * (int)(1 + below(2))) & 15u; break;
            case 1: it->mode = fresh(0).mode; level = it->mode >> 4; break;
            default: it->stretch = below(2) ? 0 : (uint8_t)(1 + below(255)); break;
            }
            it->mode = (uint8_t)((it->mode & 15) | level << 4);
        }
        return n;
    }
    case HF_MUT_CONTINUE: {
        if (!m->complete) return -1;
        /* Mostly the moment a new behaviour showed (and a decision or two
         * after it, which may be what made it), else anywhere. */
        uint64_t cut = m->novelty != UINT64_MAX && below(3) ? m->novelty + below(3) : below((uint64_t)m->decisions + 1);
        int k = prefix_items(m, cut, out);
        out[k] = fresh(cut);
        return k + 1;
    }
    case HF_MUT_ADD: {
        uint64_t index;
        if (m->items < 0 || !pick_decision(m, &index)) return -1;
        hf_item added = {.index = index, .width = m->width[index],
                         .value = random_value(m->width[index], m->tag[index])};
        return with_explicit(out, n, added);
    }
    case HF_MUT_DROP:
    case HF_MUT_CHANGE:
    case HF_MUT_MOVE: {
        int e = m->items < 0 ? 0 : items_where(m, false, which);
        if (!e) return -1;
        int at = which[below((uint64_t)e)];
        if (kind == HF_MUT_DROP) {
            out[at] = out[--n];
        } else if (kind == HF_MUT_CHANGE) {
            if (!out[at].width) return -1;   /* a yes/no has one deviation only */
            uint64_t i = out[at].index;
            out[at].value = random_value(out[at].width, i < m->kept ? m->tag[i] : HF_DECISION_DETAIL);
        } else {
            uint64_t by = 1 + below(3);
            if (below(2)) out[at].index += by;
            else if (out[at].index >= by) out[at].index -= by;
            else return -1;
            uint64_t i = out[at].index;
            out[at].width = i < m->kept ? m->width[i] : out[at].width;   /* the width the new place reads */
        }
        return n;
    }
    case HF_MUT_SIMPLIFY: {
        if (!m->complete || m->deviations == 0) return -1;
        int k = prefix_items(m, UINT64_MAX, out);
        uint64_t from = below((uint64_t)k), length = below(4) ? 1 : 1 + below((uint64_t)k / 4 + 1);
        if (from + length > (uint64_t)k) length = (uint64_t)k - from;
        memmove(&out[from], &out[from + length], ((uint64_t)k - from - length) * sizeof *out);
        return k - (int)length;
    }
    case HF_MUT_AIM: {
        /* The moment decision pending at one of the target's moments (the
         * next world fault) made to fall `delay` after it: so many units
         * past the time it was taken, rounded up.  The run is kept up to
         * the moment and a fresh generator decides the rest: what follows
         * the fault is as open as after a continuation, where keeping the
         * input's own later decisions replayed a run that had not failed
         * (kafka_hw_truncation: 1.4% of aimed mutants fail against 0.2%;
         * zk_newleader_ack 7.3% against 6.9%). */
        if (!m->complete || !m->aims) return -1;
        const aim_point *at = &m->aim[below(m->aims)];
        const hf_moment_decision *p = &at->moment;
        uint64_t delay = hf_of_bit_length((unsigned)below(25), hf_rng_next(&rng));   /* below 16.8 ms */
        assert(at->time_ns >= at->moment_ns && p->unit_ns > 0 && p->index < at->index);
        uint64_t units = (at->time_ns - at->moment_ns + delay + p->unit_ns - 1) / p->unit_ns;
        uint64_t v = units < p->hi - p->lo ? p->lo + units : p->hi;
        if (v == p->dflt) return -1;
        hf_item aimed = {.index = p->index, .width = m->width[p->index],
                         .value = hf_raw_for_choice(p->lo, p->hi, p->dflt, v)};
        int k = with_explicit(out, prefix_items(m, at->index, out), aimed);
        if (k < 0 || k == HF_ITEMS_MAX) return -1;
        out[k] = fresh(at->index);
        return k + 1;
    }
    case HF_MUT_REWIND: {
        /* The way to a rare moment, cut a few to a few dozen decisions
         * before it (where what led there was decided), and a fresh
         * generator from the cut. */
        const rare_moment *r = pick_rare();
        if (!r) return -1;
        uint64_t back = hf_of_bit_length((unsigned)below(7), hf_rng_next(&rng));   /* below 64 */
        uint64_t cut = r->index > back ? r->index - back : 0;
        int k = explicit_before(r->taken, r->deviations, cut, out);
        out[k] = fresh(cut);
        return k + 1;
    }
    case HF_MUT_SPLICE:
    case HF_MUT_BYTES:
    case HF_MUT_KINDS:
        break;
    }
    return -1;
}

/* Shares of the mutations, in percent.  Measured with bench --search, the
 * median of 40 seeds: moving the explicit edits' 22% (add, drop, change,
 * move, simplify, bytes) to fresh generators, reseeds and continuations
 * took every buggy target to the same or fewer executions (zk_newleader_ack
 * 97 -> 61, metrics_race 20 -> 12, diskless_agent 30 -> 23).  Each edit
 * keeps a share: an input whose bug lies one explicit step away still
 * gets it.  The rewind's 10 came from the continuation, the kind with the
 * lowest bug rate on both storm-shy targets (200 seeds, before -> after:
 * kafka_hw_truncation 131 -> 102 executions, zk_newleader_ack 78 -> 95, a
 * cost); taken from fresh generators instead, it cost zk_newleader_ack a
 * third more (81 -> 107 in one build). */
static const unsigned share[HF_MUT_KINDS] = {
    [HF_MUT_FRESH] = 30, [HF_MUT_ORDER] = 10, [HF_MUT_RESEED] = 13, [HF_MUT_RETUNE] = 4, [HF_MUT_CONTINUE] = 3,  [HF_MUT_ADD] = 1,
    [HF_MUT_DROP] = 1,   [HF_MUT_CHANGE] = 1,  [HF_MUT_MOVE] = 1,   [HF_MUT_SIMPLIFY] = 1,  [HF_MUT_AIM] = 24,
    [HF_MUT_REWIND] = 10, [HF_MUT_BYTES] = 1,
};

static hf_mutation_kind forced_kind = HF_MUT_KINDS;

void hf_mutator_print_shares(FILE *out) {
    static const char *const kind_name[HF_MUT_KINDS] = {
        "fresh", "order", "reseed", "retune", "continue", "add", "drop", "change", "move", "simplify", "aim",
        "rewind", "splice", "bytes"};
    static const char *const generator_name[] = {"walk", "swarm", "pct", "tasks", "faults", "calm",
                                                 "advance", "pos", "surw", "order"};
    fprintf(out, "stat::heisenfuzz_shares:");
    for (int k = 0; k < HF_MUT_KINDS; k++)
        if (M.tries[k]) fprintf(out, " %s=%u/%u", kind_name[k], M.finds[k], M.tries[k]);
    for (unsigned g = 0; g < sizeof generator_name / sizeof generator_name[0]; g++)
        if (M.generator_tries[g])
            fprintf(out, " gen-%s=%u/%u", generator_name[g], M.generator_finds[g], M.generator_tries[g]);
    fprintf(out, "\n");
}

void hf_mutator_force_kind(hf_mutation_kind kind) {
    assert(kind <= HF_MUT_KINDS);
    forced_kind = kind;
}

/* A fresh generator among the process's first FRESH_FIRST mutations,
 * then a kind at its share times its success rate (shares that learn).
 * An input with nothing to aim at gives the aim's share to fresh
 * generators (the aim takes its share from theirs where it applies, and
 * nowhere else), and so does the rewind where it has no rare moment to go
 * back from yet, and the ordering constraint where no run has shown a
 * reads-from pair (every target but a program).  The constraint's tenth,
 * taken from fresh generators, is the rewind's, not a swept value.  On a
 * program, where runs show reads-from pairs, the idle shares go to the
 * ordering constraint instead: the aim and the rewind steer by a world's
 * moments and a target's sometimes, which a program has none of, and the
 * reads-from pairs are its own guidance, as they are all of RFF's. */
static hf_mutation_kind pick_kind(bool bytes, const input_map *m) {
    if (forced_kind != HF_MUT_KINDS && (forced_kind != HF_MUT_BYTES || bytes)) return forced_kind;
    if (M.mutations <= FRESH_FIRST) return HF_MUT_FRESH;
    /* The shares of the kinds that cannot apply go to their stand-in
     * first, so that the stand-in's own record weighs them too. */
    double weight[HF_MUT_KINDS] = {0}, total = 0;
    hf_mutation_kind stand_in = M.pairs ? HF_MUT_ORDER : HF_MUT_FRESH;
    for (int k = 0; k < HF_MUT_KINDS; k++) {
        bool idle = (k == HF_MUT_AIM && !m->aims) || (k == HF_MUT_REWIND && !can_rewind()) ||
                    (k == HF_MUT_ORDER && !M.pairs) || (k == HF_MUT_BYTES && !bytes);
        weight[idle ? stand_in : k] += k == HF_MUT_BYTES && !bytes ? 0 : share[k];
    }
    for (int k = 0; k < HF_MUT_KINDS; k++) {
        weight[k] *= success_rate(M.finds[k], M.tries[k]);
        total += weight[k];
    }
    double x = uniform() * total;
    for (int k = 0; k < HF_MUT_KINDS; k++) {
        if (x < weight[k]) return (hf_mutation_kind)k;
        x -= weight[k];
    }
    return HF_MUT_FRESH;
}

/* The mutant data[0..size), of kind M.mutant_kind, goes to the engine:
 * its run, when observed, credits that kind (credit). */
static size_t handed_out(const uint8_t *data, size_t size) {
    M.mutant_hash = hash_input(data, size);
    return size;
}

/* The engine's byte mutation of data[0..size), 0 without one.  libFuzzer
 * is not built with MSan, so what its mutator writes looks uninitialized
 * to an MSan build of the mutator, which then hashes it. */
static size_t byte_mutation(hf_byte_mutator *bytes, uint8_t *data, size_t size, size_t max_size) {
    if (!bytes) return 0;
    size_t len = bytes(data, size, max_size);
    hf_msan_unpoison(data, len);
    return len;
}

static void claim_items(hf_mutation *claim, hf_mutation_kind kind, const hf_item *items, int n) {
    if (!claim) return;
    claim->kind = kind;
    claim->count = (uint32_t)n;
    memcpy(claim->item, items, (size_t)n * sizeof *items);
}

size_t hf_mutator_mutate(uint8_t *data, size_t size, size_t max_size, uint32_t seed, hf_byte_mutator *bytes,
                         hf_mutation *claim) {
    if (max_size == 0) return 0;
    M.mutations++;
    hf_rng_seed(&rng, (uint64_t)seed << 32 ^ size);
    const input_map *m = map_of(data, size);
    for (int attempt = 0; attempt < 8; attempt++) {
        hf_mutation_kind kind = attempt == 7 ? HF_MUT_FRESH : pick_kind(bytes != NULL, m);
        M.mutant_kind = kind;
        M.mutant_generator = -1;
        if (kind == HF_MUT_BYTES) {
            if (claim) { claim->kind = kind; claim->count = 0; }
            return handed_out(data, byte_mutation(bytes, data, size, max_size));
        }
        int n = build(kind, m);
        if (n < 0) continue;
        size_t cap = max_size < sizeof M.encoded ? max_size : sizeof M.encoded;
        size_t len = hf_items_encode(M.scratch, n, M.encoded, cap);
        if (len == 0 && n > 0) continue;   /* did not fit */
        if (len == size && !memcmp(M.encoded, data, len)) continue;   /* no change */
        claim_items(claim, kind, M.scratch, n);
        memcpy(data, M.encoded, len);
        if (len == 0) return handed_out(data, byte_mutation(bytes, data, size, max_size));   /* the calm run */
        return handed_out(data, len);
    }
    M.mutant_kind = HF_MUT_BYTES;
    M.mutant_generator = -1;
    return handed_out(data, byte_mutation(bytes, data, size, max_size));
}

size_t hf_mutator_cross(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out,
                        size_t max_size, uint32_t seed, hf_mutation *claim) {
    if (M.mutations < FRESH_FIRST) return 0;   /* the caller mutates a instead, into a fresh generator */
    M.mutations++;
    hf_rng_seed(&rng, (uint64_t)seed << 32 ^ a_size ^ b_size << 16);
    /* b's map may be evicted by learning a's: copy what is needed first. */
    const input_map *mb = map_of(b, b_size);
    if (mb->items < 0) return 0;
    int nb = mb->items;
    static hf_item b_items[HF_ITEMS_MAX];
    memcpy(b_items, mb->item, (size_t)nb * sizeof *b_items);
    uint32_t b_decisions = mb->decisions;
    const input_map *ma = map_of(a, a_size);
    if (!ma->complete) return 0;
    uint64_t limit = ma->decisions < b_decisions ? ma->decisions : b_decisions;
    uint64_t cut = below(limit + 1);
    int n = prefix_items(ma, cut, M.scratch);
    const hf_item *carried = NULL;   /* b's generator running at the cut goes on from there */
    for (int i = 0; i < nb; i++) {
        const hf_item *it = &b_items[i];
        if (it->index >= cut || hf_item_is_order(it)) M.scratch[n++] = *it;   /* b's constraints hold all run */
        else if (it->generator) carried = it;
    }
    if (carried) {
        M.scratch[n] = *carried;
        M.scratch[n++].index = cut;
    }
    size_t len = hf_items_encode(M.scratch, n, out, max_size);
    if (!len) return 0;
    claim_items(claim, HF_MUT_SPLICE, M.scratch, n);
    M.mutant_kind = HF_MUT_SPLICE;
    M.mutant_generator = -1;
    return handed_out(out, len);
}
