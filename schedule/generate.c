/*
 * generate.c — the generators behind the decision stream's generator
 * records (format and kinds in decide.h).
 *
 * Every draw is a hash of a seed, the decision's draw key and a salt, never
 * a running random state: an explicit deviation that overrides one
 * generated decision, or a run that takes a different path, leaves every
 * other decision's draw where it was.  Task choices draw from a seed of
 * their own (derived from the record's), so that the task choice and the
 * other decision of the same ordinal are independent.  PCT keeps the
 * one state it needs (priorities lowered at change points), a function of
 * the decisions taken.
 */
#include "decide.h"
#include "behaviour.h"

#include <assert.h>
#include <string.h>

/* 2^32 * 2^(-0.8 L): the chance of a deviation at level L, 0..15, as a
 * threshold for a 32-bit draw.  Level 0 is 7/8, not certain: some
 * decisions repeat until they take their default (the next world fault
 * "now" is followed by another such decision), and those must end. */
static const uint64_t chance_at_level[16] = {
    3758096384u, 2466810934u, 1416810831u, 813744135u, 467373275u, 268435456u, 154175683u, 88550677u,
    50859008u,   29210830u,   16777216u,   9635980u,   5534417u,   3178688u,   1825677u,   1048576u,
};

enum { SALT_CHANCE, SALT_VALUE, SALT_PROFILE, SALT_LEVEL, SALT_PRIORITY, SALT_CHANGE };

/* PCT's priorities (see pct()). */
enum { FAIR_STREAK = 256 };
#define PCT_DRAWN (1ull << 60)
#define PCT_CHANGED (1ull << 32)

static uint64_t draw_from(uint64_t seed, uint64_t n, uint64_t salt) { return hf_mix64(seed ^ hf_mix64(n * 8 + salt)); }

/* The draw of the decision of key `key` (hf_draw_key), from its seed. */
static uint64_t draw(const hf_generator *g, uint64_t key, uint64_t salt) {
    return draw_from(key & 1 ? g->task_seed : g->seed, key, salt);
}

static bool chance(const hf_generator *g, uint64_t key, uint64_t threshold) {
    return (draw(g, key, SALT_CHANCE) >> 32) < threshold;
}

/* Uniform in [lo, hi]. */
static uint64_t any_option(uint64_t r, uint64_t lo, uint64_t hi) {
    if (lo == 0 && hi == UINT64_MAX) return r;
    return lo + r % (hi - lo + 1);
}

/* Uniform among the options of [lo, hi] other than `dflt` (lo < hi). */
static uint64_t other_option(uint64_t r, uint64_t lo, uint64_t hi, uint64_t dflt) {
    if (lo == 0 && hi == UINT64_MAX) return r != dflt ? r : ~r;
    uint64_t span = hi - lo, step = 1 + r % span, room = hi - dflt;
    return step <= room ? dflt + step : lo + (step - room - 1);
}

/* In [lo, hi], on a log scale above lo: a bit length is drawn uniformly,
 * then a value of that length.  Times, gaps and durations mostly matter
 * at their small end and at every scale (a fault 3 ms after the last, a
 * node down 40 ms of a possible 2 s), which a uniform draw almost never
 * gives. */
static uint64_t near_low(uint64_t r, uint64_t lo, uint64_t hi) {
    uint64_t span = hi - lo;
    unsigned bits = 0;
    while (bits < 64 && (span >> bits) != 0) bits++;
    uint64_t offset = hf_of_bit_length((unsigned)(r % (bits + 1)), r >> 8);
    return offset <= span ? lo + offset : hi;
}

static void init_swarm(hf_generator *g) {
    for (unsigned cls = 0; cls < 8; cls++)
        for (unsigned kind = 0; kind < 32; kind++) {
            uint64_t key = cls * 32 + kind;
            unsigned level = g->level + (unsigned)(draw_from(g->seed, key, SALT_LEVEL) % (16 - g->level));
            g->threshold[cls][kind] = chance_at_level[level];
        }
}

void hf_generator_init(hf_generator *g, hf_generator_kind kind, unsigned level, uint64_t seed, uint64_t start,
                       uint64_t end) {
    assert(level < 16);
    assert(start <= end);
    g->kind = kind;
    g->level = level;
    uint64_t shape = (uint64_t)kind << 56 | (uint64_t)level << 48;
    g->seed = hf_mix64(seed ^ shape);
    g->task_seed = hf_mix64(g->seed ^ 0x7461736b);   /* "task" */
    g->start = start;
    g->end = end;
    if (kind == HF_GEN_SWARM) init_swarm(g);
    if (kind == HF_GEN_PCT) {
        g->task_choices = 0;
        uint64_t k = 1ull << (5 + 2 * (level >> 2));
        for (unsigned c = 0; c < 3; c++) g->change_at[c] = (uint32_t)(1 + draw_from(g->task_seed, c, SALT_CHANGE) % k);
        memset(g->lowered, 0, sizeof g->lowered);
        g->floor = PCT_CHANGED;
    }
    g->streak_task = g->drawn_task = 0;
    g->streak = g->streak_events = g->drawn_events = 0;
    if (kind == HF_GEN_POS) {
        memset(g->redrawn, 0, sizeof g->redrawn);
        memset(g->seen, 0, sizeof g->seen);
    }
}

/* A walk: deviate with the chance `threshold`, or (threshold == UINT64_MAX)
 * draw among all options.  A fault's details are always drawn among all
 * options: the fault itself is the rare event, its shape should vary.  A
 * fault's value or a detail is drawn half the time on near_low's scale
 * (decide.h says why), task choices and yes/noes uniformly.  And the profile (which fault kinds may happen at all) is a coin toss
 * whatever the intensity: a rare walk is a run with rare faults, not a
 * run whose faults are almost never allowed.
 *
 * The time of the next world fault is drawn among all options too, at
 * every intensity (but in a swarm, whose profile gives world faults a rate
 * of their own).  It is one decision per fault, taken when the last one
 * struck, and its value, the gap, already is the rate: a chance per
 * decision would give a rare walk no world fault at all (one toss at the
 * start of the run), so that its intensity could not mean "a crash or two
 * among few lost messages", the run a two-crash bug needs. */
static uint64_t walk(const hf_generator *g, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                     uint64_t dflt, uint64_t threshold) {
    uint64_t r = draw(g, key, SALT_VALUE);
    unsigned cls = HF_DECISION_CLASS(tag);
    bool scaled = (cls == HF_DECISION_FAULT || cls == HF_DECISION_DETAIL) && hi - lo >= 2 && (r >> 63);
    if (tag == (HF_DECISION_FAULT | HF_WORLD_FAULTS) && g->kind != HF_GEN_SWARM) threshold = UINT64_MAX;
    if (threshold == UINT64_MAX || cls == HF_DECISION_DETAIL)
        return scaled ? near_low(hf_mix64(r), lo, hi) : any_option(r, lo, hi);
    if (cls == HF_DECISION_PROFILE) threshold = 1ull << 31;
    if (!chance(g, key, threshold)) return dflt;
    uint64_t v = scaled ? near_low(hf_mix64(r), lo, hi) : dflt;
    return v != dflt ? v : other_option(r, lo, hi, dflt);
}

static uint64_t swarm(const hf_generator *g, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                      uint64_t dflt) {
    unsigned cls = HF_DECISION_CLASS(tag) >> 5, kind = HF_DECISION_KIND(tag);
    /* A fault kind is on for half the seeds: the profile decision says so,
     * and a kind that is off never happens, whatever else allowed it. */
    bool on = draw_from(g->seed, kind, SALT_PROFILE) & 1;
    if (HF_DECISION_CLASS(tag) == HF_DECISION_PROFILE) return on ? other_option(0, lo, hi, dflt) : dflt;
    if (HF_DECISION_CLASS(tag) == HF_DECISION_FAULT && !on) return dflt;
    if (HF_DECISION_CLASS(tag) != HF_DECISION_FAULT) kind = 0;   /* one rate per other class */
    return walk(g, tag, key, lo, hi, dflt, g->threshold[cls][kind]);
}

/* PCT (Burckhardt et al.): the runnable task of highest priority runs; at
 * the c-th change point the task about to run drops below all others.
 * Priorities: drawn ones from PCT_DRAWN up, change points' PCT_CHANGED +
 * (d - 1 - c), and below those the demotions that keep PCT fair (pct()). */
static uint64_t pct_priority(const hf_generator *g, int id) {
    assert(id >= 1 && id <= HF_TASK_IDS_MAX);
    if (g->lowered[id - 1]) return g->lowered[id - 1];
    return PCT_DRAWN + (draw_from(g->task_seed, (uint64_t)id, SALT_PRIORITY) >> 8);
}

static uint64_t pct_best(const hf_generator *g, uint64_t n, const int *tasks) {
    uint64_t best = 0;
    for (uint64_t i = 1; i < n; i++)
        if (pct_priority(g, tasks[i]) > pct_priority(g, tasks[best])) best = i;
    return best;
}

static uint64_t pct(hf_generator *g, uint64_t lo, uint64_t hi, const int *tasks) {
    assert(tasks);
    uint64_t n = hi - lo + 1, best = pct_best(g, n, tasks);
    unsigned depth = 1 + (g->level & 3);
    g->task_choices++;
    for (unsigned c = 0; c + 1 < depth; c++) {
        if (g->change_at[c] != g->task_choices) continue;
        g->lowered[tasks[best] - 1] = PCT_CHANGED + depth - 1 - c;
        best = pct_best(g, n, tasks);
    }
    /* PCT assumes every task soon blocks.  One chosen over the others
     * FAIR_STREAK times in a row is busy-waiting (a spin on a flag, a
     * sched_yield loop) for a task it outranks, and would keep it from
     * ever running: it drops below every task, the earlier-dropped ones
     * too, so that two tasks waiting on each other take turns. */
    if (tasks[best] != g->streak_task) {
        g->streak_task = tasks[best];
        g->streak = 0;
    }
    if (++g->streak >= FAIR_STREAK) {
        g->lowered[tasks[best] - 1] = --g->floor;
        g->streak = 0;
        best = pct_best(g, n, tasks);
    }
    return lo + best;
}

/* POS (Yuan et al., "Partial order aware concurrency sampling"): the
 * runnable task whose next event has the highest priority runs.  An event
 * keeps its priority until it runs, so a task passed over stays passed over
 * (the long delays PCT makes, without PCT's bound on their number); a task
 * that made events since the last choice is at a new event and draws a new
 * priority; and a task whose next access races with the last access of a
 * task that ran (the same location, one of them a store) draws again too,
 * so that both orders of every race come about, not only the one the first
 * draw favoured.  A priority is the draw of the task's id and of how many
 * it has drawn: a function of the decisions taken, as decide.h asks.
 * A task's events are its accesses at sites that can race and its pthread
 * calls but pthread_create (profile.c, pthread_layer.h): a lock taken is
 * an event as much as a store, or two threads that share nothing but locks
 * would keep their first priorities to the end. */
static uint64_t pos_priority(const hf_generator *g, int id) {
    uint32_t slot = (uint32_t)(id - 1) % HF_TASK_IDS_MAX;
    return draw_from(g->task_seed, (uint64_t)g->redrawn[slot] << 32 | (uint32_t)id, SALT_PRIORITY);
}

static bool races(const hf_task_facts *ran, const hf_task_facts *next) {
    return ran->last_location && ran->last_location == next->next_location && (ran->last_stored || next->next_stores);
}

/* Whether task `id`, chosen now at `events` events, has been chosen
 * FAIR_STREAK times in a row with that count unchanged (pos passes 0: in
 * a row at all): it may be spinning (on a trylock, a sched_yield, a flag),
 * and the walk must let another run, as PCT's demotion does, or a run can
 * go on for as long as the spinner outranks the task it waits for. */
static bool spins(hf_generator *g, int id, uint32_t events) {
    if (id != g->streak_task || events != g->streak_events) {
        g->streak_task = id;
        g->streak_events = events;
        g->streak = 0;
    }
    if (++g->streak < FAIR_STREAK) return false;
    g->streak = 0;
    return true;
}

/* The task of highest priority but for tasks[except] (n: none excepted). */
static uint64_t pos_best(const hf_generator *g, uint64_t n, const int *tasks, uint64_t except) {
    uint64_t best = except == 0 ? 1 : 0;
    for (uint64_t i = best + 1; i < n; i++)
        if (i != except && pos_priority(g, tasks[i]) > pos_priority(g, tasks[best])) best = i;
    return best;
}

static uint64_t pos(hf_generator *g, uint64_t lo, uint64_t hi, const int *tasks, const hf_task_facts *facts) {
    uint64_t n = hi - lo + 1;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t slot = (uint32_t)(tasks[i] - 1) % HF_TASK_IDS_MAX;
        if (facts[i].events == g->seen[slot]) continue;
        g->seen[slot] = facts[i].events;
        g->redrawn[slot]++;
        for (uint64_t j = 0; j < n; j++)
            if (j != i && races(&facts[i], &facts[j])) g->redrawn[(uint32_t)(tasks[j] - 1) % HF_TASK_IDS_MAX]++;
    }
    uint64_t best = pos_best(g, n, tasks, n);
    if (spins(g, tasks[best], 0)) {   /* chosen 256 times in a row, events or not */
        /* Another runs now (a new priority alone can leave the spinner
         * above a task drawn very low for millions of steps), and the
         * spinner's next turn has a new priority. */
        g->redrawn[(uint32_t)(tasks[best] - 1) % HF_TASK_IDS_MAX]++;
        best = pos_best(g, n, tasks, best);
    }
    return lo + best;
}

/* A SURW-class walk (Ozkan et al., "Selectively uniform concurrency
 * testing"): a task is drawn with a chance in proportion to the events it
 * still has to make.  Drawn so, each interleaving of the run's events is
 * about as likely as any other; a uniform pick among tasks instead runs a
 * short task to its end almost at once, and a bug that needs a short task
 * caught halfway among many is then out of reach.  The events still to
 * make are what the task of that id made in the calm run, less what it has
 * made (at least one: it is runnable, so it has one to make), and what the
 * tasks it has yet to spawn made there, with their own descendants: until
 * it spawns them, their events can come only through it.  Without those, a
 * thread that creates a hundred workers and a checker, and makes few
 * shared accesses itself, is drawn as if it had few events left, so the
 * workers it created first run to their end before it creates the checker.
 *
 * Selectively: the events are the accesses at sites that can race and the
 * pthread calls but pthread_create, and only there does the walk choose.
 * A task at any other access (a loop bound, a constant, its own heap) or
 * creating a thread goes on, as it would on a real machine, where those
 * take no time worth interleaving.  Were they choices, a main thread that
 * creates a hundred setters and then a checker, reading its loop bound
 * between the creations, would let the setters created first run to their
 * end before the checker exists (SCTBench's reorder_100: not found in
 * 10,000 runs).  A task that has gone on 256 times in a row at such points
 * without an event (a spin on a flag no other task was seen to touch)
 * lets the draw choose.
 *
 * A draw picks the task that makes the next event.  A task drawn while
 * another runs is switched to, and reaches the point of that event as the
 * running task: there it goes on, the draw is not made again.  Drawn
 * again, the running task would get a second chance at every event
 * another was drawn for, and keep the turn more often than its weight
 * says (deadlock01's two lockers: the one that took its first lock made
 * the next event 60 times in 100 where its weight says 45, and the
 * deadlock came about in 42% of walks where a draw by weight gives 55%).
 */
static uint64_t surw(hf_generator *g, uint64_t key, uint64_t lo, uint64_t hi, const int *tasks,
                     const hf_task_facts *facts) {
    uint64_t n = hi - lo + 1, total = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (!facts[i].running) continue;
        bool drawn = tasks[i] == g->drawn_task && facts[i].events == g->drawn_events;
        if ((drawn || facts[i].creating || (facts[i].next_site && !facts[i].next_location)) &&
            !spins(g, tasks[i], facts[i].events))
            return lo + i;
    }
    for (uint64_t i = 0; i < n; i++)
        total += facts[i].calm_events > facts[i].events ? facts[i].calm_events - facts[i].events : 1;
    uint64_t r = draw(g, key, SALT_VALUE) % total;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t weight = facts[i].calm_events > facts[i].events ? facts[i].calm_events - facts[i].events : 1;
        if (r < weight) {
            g->drawn_task = facts[i].running ? 0 : tasks[i];
            g->drawn_events = facts[i].events;
            return lo + i;
        }
        r -= weight;
    }
    assert(!"the draw is below the total");
    return lo;
}

uint64_t hf_generate(hf_generator *g, hf_decision_tag tag, uint64_t key, uint64_t lo, uint64_t hi,
                     uint64_t dflt, const int *tasks, const hf_task_facts *facts) {
    assert(lo < hi && lo <= dflt && dflt <= hi);
    bool task = HF_DECISION_CLASS(tag) == HF_DECISION_TASK;
    switch (g->kind) {
    case HF_GEN_WALK:
        return walk(g, tag, key, lo, hi, dflt, g->level ? chance_at_level[g->level - 1] : UINT64_MAX);
    case HF_GEN_SWARM:
        return swarm(g, tag, key, lo, hi, dflt);
    case HF_GEN_PCT:
        return task && tasks ? pct(g, lo, hi, tasks) : walk(g, tag, key, lo, hi, dflt, UINT64_MAX);
    case HF_GEN_TASKS:
        return task ? walk(g, tag, key, lo, hi, dflt, chance_at_level[g->level]) : dflt;
    case HF_GEN_FAULTS:
        return task ? dflt : walk(g, tag, key, lo, hi, dflt, chance_at_level[g->level]);
    case HF_GEN_POS:
        return task && tasks && facts ? pos(g, lo, hi, tasks, facts) : walk(g, tag, key, lo, hi, dflt, UINT64_MAX);
    case HF_GEN_SURW:
        return task && tasks && facts ? surw(g, key, lo, hi, tasks, facts) : walk(g, tag, key, lo, hi, dflt, UINT64_MAX);
    case HF_GEN_CALM:
    case HF_GEN_ADVANCE:
    case HF_GEN_ORDER:
        return dflt;
    }
    return dflt;
}
