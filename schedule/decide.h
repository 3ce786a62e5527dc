/*
 * decide.h — the decision stream: fuzzer bytes in, decisions out.
 *
 * Every nondeterministic choice of a run (which task runs next, is this
 * message dropped, how long is this delay, the workload's own randomness) is
 * a decision with a default.  The input bytes store only the decisions that
 * deviate from their default, so that the empty input is the undisturbed
 * schedule, a shorter input is a simpler schedule, and one mutated byte
 * changes one decision (PCT's observation: real bugs need few, well-placed
 * deviations).  A generator record hands a whole stretch of decisions to a
 * seeded generator, so that a few bytes are also a good random schedule
 * (reads-from fuzzing's observation: a search that starts from random
 * schedules and refines them beats one that starts from the calm run).
 *
 * Format.  The input is a sequence of records, read against a position p
 * (a decision index; 0 at the start):
 *
 *   skip < 254   explicit deviation: decision p + skip deviates, reading `w`
 *                value bytes (little-endian) after the skip byte; then
 *                p = that decision + 1
 *   skip == 255  p += 255; no deviation
 *   skip == 254  generator record, six bytes in all:
 *                    254 mode seed:u8[2] stretch gap
 *                the generator starts at decision p + gap (then p = that
 *                decision) and takes every decision from there for `stretch`
 *                decisions: 0 means the rest of the run, s > 0 means
 *                ceil(2^(s/8)) decisions (a log scale, 1 .. 2^32).  After its
 *                stretch, decisions take their default again; a later
 *                generator record replaces an earlier one.
 *
 * Why these fields: the escape and mode come first and the seed right after,
 * so that four bytes — the longest input libFuzzer tries at the start of a
 * campaign — are already a generated run; missing trailing bytes read as 0,
 * so "the rest of the run, starting here" costs nothing.  The stretch is on
 * a log scale so that one byte reaches from a burst of two decisions to a
 * whole run, and a mutated stretch byte changes the length by a ratio, not
 * by one.  The gap lets a generator start anywhere without an explicit
 * deviation before it (the mutator's "continue from this moment").
 *
 * `mode` is kind (low four bits) and level (high four bits); levels are a
 * log scale of intensity, from storm (0) to rare (15):
 *
 *   0 walk     every decision deviates with chance 2^(-0.8 (level - 1)) (but
 *              7/8 at most: a decision may repeat until it takes its default), or,
 *              at level 0, is drawn among all its options, the default
 *              included; a deviation picks among the options other than
 *              the default.  A task choice or a yes/no picks uniformly (a
 *              level-0 walk's task choices and yes/noes are the "uniform
 *              random" baseline's); a fault's value or a detail (a time, a gap, a
 *              duration, an index) half the time uniformly and half the
 *              time on a log scale above the lowest option (a bit length
 *              drawn uniformly, then a value of that length), because such
 *              values matter at every scale and mostly at the small end: a
 *              crash 3 ms after the last fault, a node down 40 ms of a
 *              possible 2 s, which a uniform draw almost never gives.
 *              The time of the next world fault is drawn as at level 0
 *              at every level (walk, faults, pct): the gap is the rate of
 *              such faults, and a chance per decision would leave a rare
 *              walk without any (generate.c says more).
 *   1 swarm    the seed draws a fault profile, as FoundationDB's and
 *              TigerBeetle's simulators do: each fault kind on or off, each
 *              class of decision (task choices, workload, each fault kind,
 *              world faults) with its own chance 2^(-0.8 L), L drawn in
 *              [level, 15]; a fault kind that is off never happens.
 *   2 pct      PCT over task choices: random task priorities and d - 1 change
 *              points, d = 1 + (level & 3), among the first
 *              k = 2^(5 + 2 (level >> 2)) task choices; a task chosen 256
 *              times in a row over others drops below them all (it is
 *              busy-waiting for one of them); other decisions as a
 *              level-0 walk draws them.
 *   3 tasks    walk over task choices only, chance 2^(-0.8 level); all
 *              other decisions take their default.
 *   4 faults   walk over everything but task choices, chance
 *              2^(-0.8 level); the schedule of tasks stays undisturbed.
 *   5 calm     no generator: defaults (ends an earlier generator's stretch).
 *   6 advance  moves p by `gap` and changes nothing else (the encoder's way
 *              to reach a deviation 254 decisions past p).
 *   7 pos      partial order sampling (Yuan et al.) over task choices: each
 *              task's next event has a random priority and the highest
 *              runs; a task that made events since the last choice draws
 *              a new one, and so does every task whose next access races
 *              with the last access of one that ran (same location, one a
 *              store); other decisions as a level-0 walk draws them.
 *   8 surw     a SURW-class walk over task choices (selectively uniform
 *              random walk, Ozkan et al.): a task is drawn with a chance in
 *              proportion to the shared accesses it still has to make, as
 *              the task of its id made them in the calm run (with those of
 *              the tasks it has yet to spawn), so that
 *              interleavings of the run's accesses come about equally
 *              often, where a uniform pick among tasks lets a short task
 *              finish at once; a draw picks the task that makes the next
 *              event (one drawn while another ran is not drawn again when
 *              it reaches it); a task at a point that is no event (an
 *              access that cannot race, a pthread_create) goes on; other
 *              decisions as a level-0 walk draws them.
 *   9 order    no generator: an ordering constraint between two access
 *              sites (a lock call's site is one), in force from where the
 *              decoder reads it to the end of the run: a task about to make
 *              an access at site `after` is held back until an access at
 *              site `before` has run, as
 *              long as another task can run.  The seed bytes and the
 *              stretch byte hold the two site keys (hf_site_key), 12 bits
 *              each: before | after << 12, the seed the low 16 bits; `gap`
 *              moves p as for any record.  "Load L reads from store S" is
 *              S before L; "L reads before S, not from it" is L before S:
 *              the reads-from constraints of RFF (Wolff et al.), which the
 *              mutator draws from the racy reads-from pairs runs showed
 *              (run.h).  The task chosen instead is the first one after
 *              the held choice, in id order, that is not held; it is
 *              recorded as the decision's deviation, so a constrained run
 *              re-encodes into explicit records alone.  At most
 *              HF_ORDERS_MAX are kept; a later one past that is ignored.
 *              After overriding 256 choices in a run the constraints are
 *              given up: the others may be waiting for a held task (a
 *              spin on a lock it holds), or the `before` site may be on a
 *              path the run does not take.
 *   10-15      as calm.
 *
 *              pos and surw see each option's hf_task_facts (below): what
 *              the runtime knows of the tasks' shared accesses.  The level
 *              is not used by either.  A target that does not preempt at
 *              its accesses (a world) gives no facts, and there both draw
 *              as a level-0 walk does.  As in pct, a task chosen 256 times
 *              in a row (here: without making an access) is spinning, and
 *              another gets a turn: pos draws the spinner a new priority,
 *              surw draws among all tasks by their weights.
 *
 * Every generated decision is a function of the seed, the record's kind and
 * level and the decision's draw key alone, so an explicit deviation inside a
 * generated stretch — an explicit record always wins — changes that one
 * decision and leaves the draws of the others where they were.  The draw
 * key is a decision's ordinal among the run's task choices, or among its
 * other decisions (hf_draw_key), not its index in the run: the k-th task
 * choice draws the same however many fault decisions came before it, so a
 * mutation that adds a fault (and the decisions about its details) leaves
 * the schedule's draws where they were, and the reverse.
 *
 * `w` is set by the deviating decision: 0 for a yes/no (a deviation flips
 * it), the bytes needed for (hi - lo) for a choice in [lo, hi], 8 for a
 * 64-bit workload value.  For a choice, value v selects
 *     lo + (dflt - lo + 1 + v mod (hi - lo)) mod (hi - lo + 1)
 * which is never the default, so every deviation deviates.  Bytes missing at
 * the end of the input read as 0; after the last record every decision takes
 * its default.  Hence every byte string is a valid schedule.
 *
 * A choice with a single option (lo == hi) is not a decision: it reads
 * nothing.  The stream records each deviation it took (its decision index
 * and the raw value an explicit record needs to take it), generated or not,
 * so a run re-encodes into explicit records alone that replay it exactly —
 * the minimizer and the regression tests work on that form.
 *
 * Every decision carries a tag saying what it is about (hf_decision_tag), so
 * that generators and the mutator can treat task choices, workload values
 * and each fault kind differently.
 *
 * A run given a log (hf_run_logged) notes there what every decision was
 * about, its width and the logical time it was taken at, and which
 * decisions name a moment (hf_decide_moment: the time of the next world
 * fault, in units of the fault step from now), so that a mutator can aim
 * such a decision at a time of its choosing.
 *
 * Instead of bytes, a strategy (uniform random, PCT: fuzz/search/strategy.c) may
 * take the decisions.  They are recorded the same way, so a run driven by a
 * strategy re-encodes into an ordinary input file that replays it.
 */
#ifndef HF_DECIDE_H
#define HF_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- What a decision is about ---------------------------------------------
 * A tag is a class (high three bits) and, for the fault classes, a fault
 * kind (low five bits: sim.h's hf_fault_kind, or HF_WORLD_FAULTS). */
enum {
    HF_DECISION_TASK = 0 << 5,       /* which runnable task runs next */
    HF_DECISION_WORKLOAD = 1 << 5,   /* the target's own randomness (hf_pick, ...) */
    HF_DECISION_DETAIL = 2 << 5,     /* a detail of a fault already decided: which node, how long */
    HF_DECISION_PROFILE = 3 << 5,    /* may this run have faults of a kind at all */
    HF_DECISION_FAULT = 4 << 5,      /* does a fault of a kind happen here, now */
};
enum { HF_WORLD_FAULTS = 31 };       /* the fault "kind" of the time of the next world fault */
#define HF_DECISION_CLASS(tag) ((tag) & 0xe0)
#define HF_DECISION_KIND(tag) ((tag) & 0x1f)
typedef uint8_t hf_decision_tag;

/* ---- Generators ------------------------------------------------------------ */

typedef enum hf_generator_kind {
    HF_GEN_WALK, HF_GEN_SWARM, HF_GEN_PCT, HF_GEN_TASKS, HF_GEN_FAULTS, HF_GEN_CALM, HF_GEN_ADVANCE,
    HF_GEN_POS, HF_GEN_SURW, HF_GEN_ORDER,
} hf_generator_kind;

enum { HF_ORDERS_MAX = 8 };   /* ordering constraints kept per run */
enum { HF_HELD_MAX = 256 };   /* choices overridden before the constraints give up (as pct's streak) */

/* The 12-bit key an ordering constraint names a site by: a site is
 * numbered by the order the calm run first reached it (schedule/profile.c),
 * and a record has room for two keys; past 4,096 sites, numbers share keys. */
static inline uint16_t hf_site_key(uintptr_t site) { return (uint16_t)(site & 0xfff); }

/* What the runtime knows of a task's shared accesses at a choice of task:
 * its events (shared memory accesses) so far, the location of the access
 * it is about to make and of the last one it made (0: none, or it stands
 * at another kind of point: a pthread call, a yield), how many events the
 * task of its id made in the target's calm run (0: none such), and whether
 * it is the task running now, at a switch point.  Locations are compared
 * for equality only, never ordered or hashed, so that a run does not
 * depend on where things happen to lie in memory. */
typedef struct hf_task_facts {
    uint32_t events;
    uint32_t calm_events;
    uintptr_t next_location, last_location;
    uintptr_t next_site;     /* the site number of the shared access it is about to make (0: none) */
    bool next_stores, last_stored;
    bool running;
    bool creating;           /* it is creating a thread (pthread_create) */
} hf_task_facts;

enum { HF_GENERATOR_RECORD = 254, HF_GENERATOR_RECORD_SIZE = 6 };
enum { HF_TASK_IDS_MAX = 256 };   /* task ids a PCT generator keeps a priority for */

/* The value of bit length `length` (0..64) whose bits below the top one
 * are the low bits of `bits`: the second half of a draw on a log scale
 * (a length drawn uniformly first), which generators and the mutator make. */
static inline uint64_t hf_of_bit_length(unsigned length, uint64_t bits) {
    if (length == 0) return 0;
    uint64_t top = 1ull << (length - 1);
    return top | (bits & (top - 1));
}

/* The key a generator draws decision values by (see above). */
static inline uint64_t hf_draw_key(bool task_choice, uint64_t ordinal) { return ordinal << 1 | task_choice; }

typedef struct hf_generator {
    hf_generator_kind kind;
    unsigned level;                  /* 0..15 */
    uint64_t seed;                   /* draws everything but task choices */
    uint64_t task_seed;              /* draws task choices: derived from `seed` */
    uint64_t start, end;             /* decisions [start, end) are generated */
    uint64_t threshold[8][32];       /* swarm: chance * 2^32 by class and fault kind */
    uint32_t task_choices;           /* pct: task choices seen so far */
    uint32_t change_at[3];           /* pct: the task choices where priorities change */
    uint64_t lowered[HF_TASK_IDS_MAX];   /* pct: by task id - 1, 0 or the priority a change point
                                          * or a demotion gave */
    int streak_task;                 /* pct, pos, surw: the task chosen at the last choices ... */
    uint32_t streak;                 /* ... this many in a row ... */
    uint32_t streak_events;          /* ... (pos, surw: without an event; it had this many) */
    uint64_t floor;                  /* pct: the lowest priority given so far */
    uint32_t redrawn[HF_TASK_IDS_MAX];   /* pos: by task id - 1, priorities drawn so far ... */
    uint32_t seen[HF_TASK_IDS_MAX];      /* ... and the task's events at its last draw */
    int drawn_task;                  /* surw: the task the last draw switched to (0: none) ... */
    uint32_t drawn_events;           /* ... and its events then: it makes the next one */
} hf_generator;

/* Sets up a generator; `seed` is any 64-bit value (a record supplies 16
 * bits, a baseline strategy 64). */
void hf_generator_init(hf_generator *g, hf_generator_kind kind, unsigned level, uint64_t seed, uint64_t start,
                       uint64_t end);

/* The generator's value for the decision of draw key `key`, tagged `tag`,
 * in [lo, hi] with default `dflt`; `tasks` lists the option's task ids for
 * a task choice and `facts` what is known of each (both NULL otherwise). */
uint64_t hf_generate(hf_generator *g, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                     uint64_t dflt, const int *tasks, const hf_task_facts *facts);

/* ---- The decider ----------------------------------------------------------- */

/* One deviation from the default, as the run took it. */
typedef struct hf_deviation {
    uint64_t index;      /* which decision of the run (0-based) */
    uint64_t value;      /* the raw value an explicit record reads to take it */
    uint8_t width;       /* value bytes it read: 0 (yes/no), 1..8 */
} hf_deviation;

enum { HF_DEVIATIONS_KEPT = 4096 };   /* deviations recorded per run */

/* Where the decoder found each record of the input, and what the run's
 * decisions were about: what a mutator needs to edit an input at the level
 * of decisions.  Kept only when a run is given one (hf_run_logged). */
typedef struct hf_record_info {
    uint32_t offset;     /* of the record's first byte in the input */
    uint32_t size;       /* bytes it spans (it may run past the input's end) */
    uint64_t index;      /* the decision it deviates, or where its generator starts */
    bool generator;
} hf_record_info;

/* A decision whose value is a moment: `value` units of `unit_ns` after the
 * logical time it was taken at (hf_decide_moment).  A mutator that wants
 * something to happen at a given time can so compute the value that makes
 * it happen then. */
typedef struct hf_moment_decision {
    uint64_t index;      /* which decision of the run */
    uint64_t lo, hi, dflt;
    uint64_t unit_ns;
} hf_moment_decision;

enum { HF_LOG_RECORDS = 512, HF_LOG_DECISIONS = 1 << 16, HF_LOG_MOMENTS = 256 };

typedef struct hf_decision_log {
    uint32_t records;                       /* records read (only the first HF_LOG_RECORDS kept) */
    hf_record_info record[HF_LOG_RECORDS];
    uint32_t decisions;                     /* decisions taken (only the first HF_LOG_DECISIONS kept) */
    hf_decision_tag tag[HF_LOG_DECISIONS];
    uint8_t width[HF_LOG_DECISIONS];        /* value bytes an explicit deviation there reads */
    uint64_t time_ns[HF_LOG_DECISIONS];     /* the run's logical time when it was taken */
    uint32_t moments;                       /* moment decisions (only the first HF_LOG_MOMENTS kept) */
    hf_moment_decision moment[HF_LOG_MOMENTS];
} hf_decision_log;

typedef struct hf_strategy hf_strategy;
struct hf_strategy {
    /* Returns the value of the next decision, of draw key `key` (see
     * hf_draw_key), tagged `tag`, in [lo, hi] whose default is `dflt`.  For
     * a choice of the next task, `tasks` lists the ids of the options in
     * order (hi - lo + 1 of them) and `facts` what is known of each; for
     * any other decision both are NULL. */
    uint64_t (*decide)(hf_strategy *s, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                       uint64_t dflt, const int *tasks, const hf_task_facts *facts);
};

typedef struct hf_decider {
    const uint8_t *data;
    size_t size;
    size_t pos;              /* next unread byte */
    uint64_t index;          /* decisions made so far */
    uint64_t ordinal[2];     /* of which other decisions [0] and task choices [1] */
    uint64_t at;             /* the position records are read against */
    uint64_t next_deviation; /* index of the next explicit deviation, or UINT64_MAX */
    uint64_t next_generator; /* index where the pending generator starts, or UINT64_MAX */
    uint32_t deviations;     /* deviations taken */
    hf_strategy *strategy;   /* when set, it decides instead of the bytes */
    const int *task_options; /* set by the scheduler around a choice of task ... */
    const hf_task_facts *task_facts;   /* ... with these */
    hf_decision_log *log;    /* when set, filled as the run goes */
    const uint64_t *clock;   /* the run's logical time, for the log (NULL: 0) */
    bool generating;         /* `active` covers the current decision */
    uint8_t orders;          /* ordering constraints read (kind 9) ... */
    uint8_t orders_met;      /* ... a bit each: its `before` site has run, or it was given up */
    uint16_t order_before[HF_ORDERS_MAX], order_after[HF_ORDERS_MAX];
    uint32_t holds;          /* choices the constraints have overridden in this run */
    hf_generator active, pending;
    hf_deviation taken[HF_DEVIATIONS_KEPT];
} hf_decider;

void hf_decider_init(hf_decider *d, const uint8_t *data, size_t size);
/* As hf_decider_init, filling `log` (when not NULL) as the run goes. */
void hf_decider_init_logged(hf_decider *d, const uint8_t *data, size_t size, hf_decision_log *log);
void hf_decider_init_strategy(hf_decider *d, hf_strategy *strategy);

/* The bytes that replay the decisions taken so far (see
 * hf_encode_deviations); NULL-safe counts as for that function. */
size_t hf_decider_encode(const hf_decider *d, uint8_t *out, size_t cap);

/* A value in [lo, hi]; `dflt` (within the range) when undisturbed. */
uint64_t hf_decide_range(hf_decider *d, hf_decision_tag tag, uint64_t lo, uint64_t hi, uint64_t dflt);

/* As hf_decide_range, for a value that names a moment: so many units of
 * `unit_ns` from now (the log notes it as a hf_moment_decision). */
uint64_t hf_decide_moment(hf_decider *d, hf_decision_tag tag, uint64_t lo, uint64_t hi, uint64_t dflt,
                          uint64_t unit_ns);

/* The raw value an explicit record reads to choose `v` in [lo, hi] whose
 * default is `dflt` (v != dflt): the inverse of hf_decide_range's mapping. */
uint64_t hf_raw_for_choice(uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t v);

/* Which of `n` tasks runs next (the scheduler sets task_options and
 * task_facts around it): hf_decide_range's choice, unless an ordering
 * constraint holds that task back while another could run. */
uint64_t hf_decide_task(hf_decider *d, uint64_t n, uint64_t dflt);

/* An access at `site` ran: the constraints waiting for it are met. */
static inline void hf_decider_site_ran(hf_decider *d, uintptr_t site) {
    if (d->orders_met == (1u << d->orders) - 1) return;   /* none, or all met */
    uint16_t key = hf_site_key(site);
    for (unsigned i = 0; i < d->orders; i++)
        if (d->order_before[i] == key) d->orders_met |= (uint8_t)(1u << i);
}

/* Yes or no; `dflt` when undisturbed. */
bool hf_decide_bool(hf_decider *d, hf_decision_tag tag, bool dflt);

/* Any 64-bit value; `dflt` when undisturbed. */
uint64_t hf_decide_u64(hf_decider *d, hf_decision_tag tag, uint64_t dflt);

/* Encodes a list of deviations (indices strictly increasing) back into
 * bytes.  Writes at most `cap` bytes and returns the length the whole
 * encoding needs. */
size_t hf_encode_deviations(const hf_deviation *devs, size_t count, uint8_t *out, size_t cap);

/* Appends the bytes that move the position from `*at` to `index` and
 * deviate decision `index` with `value` (`width` bytes); or, with
 * `generator` set, that start it at `index` (generator: mode, seed, stretch
 * bytes as in the format).  Returns the new length; writes only below
 * `cap`. */
size_t hf_encode_deviation(uint64_t *at, const hf_deviation *dev, uint8_t *out, size_t len, size_t cap);
size_t hf_encode_generator(uint64_t *at, uint64_t index, uint8_t mode, uint16_t seed, uint8_t stretch,
                           uint8_t *out, size_t len, size_t cap);

/* Decisions a stretch byte covers: 0 = the rest of the run. */
uint64_t hf_stretch_decisions(uint8_t stretch);

#endif
