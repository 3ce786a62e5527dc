/*
 * test_decide.c — the decision stream: totality on arbitrary bytes, the
 * empty input is all defaults, a deviation never equals its default,
 * re-encoding the deviations a run took reproduces its decisions, and one
 * changed value byte changes one decision.  Generator records: a few bytes
 * make a whole generated run, that re-encodes into explicit records alone;
 * an explicit record overrides one generated decision and leaves the
 * others; a stretch ends where it says; a swarm's fault kind that is off
 * never happens.  Ordering constraints hold a task back until their
 * `before` site has run, and a constrained run re-encodes into explicit
 * records alone; POS and SURW choose among tasks as their facts say.
 */
#include "check.h"
#include "decide.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252u;
static uint64_t next_random(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* A fixed mix of decision kinds driven by the decider itself, as a run
 * would: returns a digest of the values taken. */
static uint64_t drive(hf_decider *d, int count, uint64_t *values) {
    uint64_t digest = 0;
    for (int i = 0; i < count; i++) {
        uint64_t v;
        switch (i % 4) {
        case 0: v = hf_decide_range(d, HF_DECISION_TASK, 0, 2, 0); break;
        case 1: v = hf_decide_bool(d, HF_DECISION_FAULT | 3, false); break;
        case 2: v = hf_decide_range(d, HF_DECISION_DETAIL, 100, 100 + 70000, 100 + 5); break;
        default: v = hf_decide_u64(d, HF_DECISION_WORKLOAD, 7); break;
        }
        if (values) values[i] = v;
        digest = digest * 1000003u ^ v;
    }
    return digest;
}

/* A site whose key (hf_site_key) is `key`: sites are searched upwards. */
static uintptr_t site_with_key(uint16_t key) {
    uintptr_t site = 0x1000;
    while (hf_site_key(site) != key) site++;
    return site;
}

/* Three task choices among tasks 1..3, task 1 the default, as facts say:
 * before the first, task 1 is about to access `after`; the access at
 * `before` runs after the first choice.  Returns the digest of choices. */
static uint64_t constrained_choices(hf_decider *d, uintptr_t before, uintptr_t after, uint64_t *choice) {
    static const int ids[3] = {1, 2, 3};
    hf_task_facts facts[3] = {{.next_site = after}, {.next_site = 0x10}, {.next_site = 0x20}};
    d->task_options = ids;
    d->task_facts = facts;
    uint64_t digest = 0;
    for (int i = 0; i < 3; i++) {
        choice[i] = hf_decide_task(d, 3, 0);
        digest = digest * 31 + choice[i];
        if (i == 0) hf_decider_site_ran(d, before);
    }
    d->task_options = NULL;
    d->task_facts = NULL;
    return digest;
}

static void check_orders(hf_decider *d) {
    uint16_t before_key = 0x123, after_key = 0xabc;
    uintptr_t before = site_with_key(before_key), after = site_with_key(after_key);
    uint32_t keys = before_key | (uint32_t)after_key << 12;
    uint8_t record[6] = {HF_GENERATOR_RECORD, HF_GEN_ORDER, (uint8_t)keys, (uint8_t)(keys >> 8), (uint8_t)(keys >> 16), 0};
    uint64_t choice[3], again[3];

    hf_decider_init(d, record, sizeof record);
    constrained_choices(d, before, after, choice);
    CHECK(choice[0] == 1 && choice[1] == 0 && choice[2] == 0 && d->deviations == 1,
          "an ordering constraint holds task 1 back (task 2 runs) until its before site has run, then task 1 "
          "runs by default (choices %llu %llu %llu, %u deviation)", (unsigned long long)choice[0],
          (unsigned long long)choice[1], (unsigned long long)choice[2], d->deviations);

    uint8_t encoded[64];
    size_t n = hf_decider_encode(d, encoded, sizeof encoded);
    int explicit_only = n < sizeof encoded;
    for (size_t i = 0; i < n; i++) explicit_only &= encoded[i] != HF_GENERATOR_RECORD;
    hf_decider_init(d, encoded, n);
    constrained_choices(d, 0x30, 0x40, again);   /* sites no constraint names */
    CHECK(explicit_only && !memcmp(choice, again, sizeof choice),
          "the constrained choices re-encode into %zu bytes of explicit records that replay them", n);

    /* Where every option is held back, the choice stands. */
    static const int ids[2] = {1, 2};
    hf_task_facts held[2] = {{.next_site = after}, {.next_site = after}};
    hf_decider_init(d, record, sizeof record);
    d->task_options = ids;
    d->task_facts = held;
    uint64_t v = hf_decide_task(d, 2, 1);
    CHECK(v == 1 && d->deviations == 0, "a constraint that holds back every option changes nothing");

    /* A task held back again and again while another runs (it spins on a
     * lock the held one has): the constraint is given up. */
    hf_task_facts spun[2] = {{.next_site = after}, {.next_site = 0x10}};
    hf_decider_init(d, record, sizeof record);
    d->task_options = ids;
    d->task_facts = spun;
    int first_kept = -1;
    for (int i = 0; i < 2 * HF_HELD_MAX && first_kept < 0; i++)
        if (hf_decide_task(d, 2, 0) == 0) first_kept = i;
    CHECK(first_kept == HF_HELD_MAX - 1 && hf_decide_task(d, 2, 0) == 0,
          "after %d choices held back the task runs, and its constraint is given up (it ran at choice %d)",
          HF_HELD_MAX, first_kept);

    /* The other way round: the before site names task 1's access, so
     * nothing is held. */
    keys = after_key | (uint32_t)before_key << 12;
    uint8_t reversed[6] = {HF_GENERATOR_RECORD, HF_GEN_ORDER, (uint8_t)keys, (uint8_t)(keys >> 8), (uint8_t)(keys >> 16), 0};
    hf_decider_init(d, reversed, sizeof reversed);
    constrained_choices(d, before, after, choice);
    CHECK(choice[0] == 0 && choice[1] == 0 && d->deviations == 0,
          "a constraint on a site no option is about to access leaves the default");
}

/* POS runs the highest priority and draws a task's again after its events;
 * SURW weighs tasks by the events they have left, lets a task it drew while
 * another ran make the event it was drawn for, and lets a running task at
 * an access that cannot race go on, but not one at a pthread call. */
static void check_pos_surw(void) {
    static const int ids[2] = {1, 2};
    hf_generator g;
    int surw_second = 0, surw_drawn_goes_on = 1, surw_runs_on = 1, surw_at_call = 0, pos_changes = 0;
    for (uint64_t seed = 0; seed < 400; seed++) {
        hf_generator_init(&g, HF_GEN_SURW, 0, seed, 0, UINT64_MAX);
        hf_task_facts facts[2] = {{.calm_events = 91, .events = 0, .next_location = 8},
                                  {.calm_events = 10, .events = 0, .next_location = 16}};
        uint64_t drawn = hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, seed), 0, 1, 0, ids, facts);
        surw_second += drawn == 1;
        facts[drawn].running = true;   /* switched to, at the point of its event: a pthread call */
        facts[drawn].next_location = 0;
        surw_drawn_goes_on &= hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, seed + 3), 0, 1, drawn, ids,
                                          facts) == drawn;
        facts[drawn].running = false;
        facts[drawn].next_location = drawn ? 16 : 8;
        facts[0].events = 1;           /* task 1 made its event, and runs on */
        facts[0].running = true;
        facts[0].next_location = 0;   /* a site that cannot race */
        facts[0].next_site = 5;
        surw_runs_on &= hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, seed + 1), 0, 1, 1, ids, facts) == 0;
        facts[0].next_site = 0;       /* a pthread call */
        surw_at_call += hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, seed + 2), 0, 1, 1, ids, facts) == 1;

        hf_generator_init(&g, HF_GEN_POS, 0, seed, 0, UINT64_MAX);
        hf_task_facts pos_facts[2] = {{.events = 0}, {.events = 0}};
        uint64_t first = hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, 0), 0, 1, 0, ids, pos_facts);
        uint64_t stays = hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, 1), 0, 1, 0, ids, pos_facts);
        pos_facts[first].events = 1;   /* it made an event: a new priority */
        pos_changes += hf_generate(&g, HF_DECISION_TASK, hf_draw_key(true, 2), 0, 1, 0, ids, pos_facts) != first;
        surw_runs_on &= stays == first;
    }
    CHECK(surw_second > 8 && surw_second < 80,
          "SURW picks a task with 10 of 101 events left about a tenth of the time (%d of 400)", surw_second);
    CHECK(surw_drawn_goes_on, "a task SURW drew while another ran makes the event it was drawn for: at that "
                              "point it goes on, not drawn again");
    CHECK(surw_runs_on, "SURW lets a running task at an access that cannot race go on, and POS keeps its "
                        "choice while no task made an event");
    CHECK(surw_at_call > 8 && surw_at_call < 80,
          "at a pthread call SURW draws again: the other task, with a tenth of the events left, runs %d of 400 "
          "times", surw_at_call);
    CHECK(pos_changes > 100 && pos_changes < 300,
          "POS draws a new priority for a task after its event: the other runs next about half the time "
          "(%d of 400)", pos_changes);
}

int main(void) {
    hf_decider *d = malloc(sizeof *d);
    hf_decision_log *log = malloc(sizeof *log);
    uint64_t va[256], vb[256];

    /* The empty input is the undisturbed schedule. */
    hf_decider_init(d, NULL, 0);
    drive(d, 64, va);
    int defaults = 1;
    for (int i = 0; i < 64; i++) {
        uint64_t want = i % 4 == 0 ? 0 : i % 4 == 1 ? 0 : i % 4 == 2 ? 105 : 7;
        defaults &= va[i] == want;
    }
    CHECK(defaults && d->deviations == 0, "the empty input takes every default");

    /* Totality: random byte strings of every length decode without a fault,
     * every value stays in range, and a deviation is never the default. */
    int in_range = 1, never_default = 1;
    uint8_t bytes[512];
    for (int round = 0; round < 20000; round++) {
        size_t len = next_random() % sizeof bytes;
        for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)next_random();
        hf_decider_init(d, bytes, len);
        for (int i = 0; i < 200; i++) {
            uint64_t lo = next_random() % 1000, span = next_random() % (i % 3 == 0 ? 3 : 100000);
            uint64_t dflt = lo + (span ? next_random() % (span + 1) : 0);
            uint32_t before = d->deviations;
            uint64_t v = hf_decide_range(d, (hf_decision_tag)next_random(), lo, lo + span, dflt);
            in_range &= v >= lo && v <= lo + span;
            if (d->deviations != before) never_default &= v != dflt;
        }
    }
    CHECK(in_range, "20,000 random inputs: every decided value lies within its range");
    CHECK(never_default, "a deviation never takes its default");

    /* Re-encoding a run's deviations gives the same decisions. */
    int same = 1, shorter_or_equal = 1;
    for (int round = 0; round < 5000; round++) {
        size_t len = next_random() % 64;
        for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)next_random();
        hf_decider_init_logged(d, bytes, len, log);
        uint64_t digest = drive(d, 64, va);
        bool generated = false;
        for (uint32_t r = 0; r < log->records; r++) generated |= log->record[r].generator;
        uint8_t encoded[1024];
        size_t n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
        hf_decider_init(d, encoded, n);
        same &= drive(d, 64, vb) == digest;
        if (!generated) shorter_or_equal &= n <= len + 8;   /* a truncated value may need its zero bytes */
    }
    CHECK(same, "5,000 inputs: re-encoded deviations reproduce every decision");
    CHECK(shorter_or_equal, "a re-encoding of explicit records is no longer than the input (plus padding of a cut value)");

    /* Skip counts: 255 means "skip and no deviation". */
    uint8_t far[] = {255, 255, 10, 1};
    hf_decider_init(d, far, sizeof far);
    uint64_t index = 0;
    for (int i = 0; i < 600; i++) {
        if (hf_decide_range(d, HF_DECISION_TASK, 0, 1, 0) != 0) { index = (uint64_t)i; break; }
    }
    CHECK(index == 520, "skip bytes 255,255,10 put the one deviation at decision 520 (got %llu)",
          (unsigned long long)index);

    /* One changed value byte changes exactly one decision. */
    uint8_t one[] = {3, 0, 5, 1};
    hf_decider_init(d, one, sizeof one);
    drive(d, 64, va);
    one[1] = 1;
    hf_decider_init(d, one, sizeof one);
    drive(d, 64, vb);
    int changed = 0;
    for (int i = 0; i < 64; i++) changed += va[i] != vb[i];
    CHECK(changed == 1, "one mutated value byte changes one decision (changed %d)", changed);

    /* A generator record alone: a whole run of generated decisions, which
     * re-encodes into explicit records only. */
    uint8_t walk[] = {254, 0x30, 0x34, 0x12};   /* walk, level 3, seed 0x1234, rest of the run */
    hf_decider_init(d, walk, sizeof walk);
    uint64_t walk_digest = drive(d, 200, va);
    uint32_t walk_deviations = d->deviations;
    CHECK(walk_deviations > 20 && walk_deviations < 180, "a 4-byte walk record deviates %u of 200 decisions",
          walk_deviations);
    uint8_t encoded[4096];
    size_t n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
    hf_decider_init_logged(d, encoded, n, log);
    int explicit_only = 1;
    for (uint32_t r = 0; r < log->records; r++) explicit_only &= !log->record[r].generator;
    CHECK(drive(d, 200, vb) == walk_digest && explicit_only,
          "the generated run re-encodes into %zu bytes of explicit records that replay it", n);
    hf_decider_init(d, walk, sizeof walk);
    CHECK(drive(d, 200, vb) == walk_digest, "the same record gives the same run");
    walk[2] ^= 1;
    hf_decider_init(d, walk, sizeof walk);
    CHECK(drive(d, 200, vb) != walk_digest, "another seed gives another run");
    walk[2] ^= 1;

    /* An explicit record overrides one generated decision (decision 11, after
     * the generator's start) and leaves the draws of the others. */
    uint8_t walk_and_one[] = {254, 0x30, 0x34, 0x12, 0, 0, 11, 0x42, 0};
    hf_decider_init(d, walk, sizeof walk);
    drive(d, 200, va);
    hf_decider_init(d, walk_and_one, sizeof walk_and_one);
    drive(d, 200, vb);
    changed = 0;
    for (int i = 0; i < 200; i++) changed += i != 11 && va[i] != vb[i];
    CHECK(changed == 0 && vb[11] != 105, "an explicit record changes its decision and no other (%d others)", changed);

    /* A stretch: a walk at level 1 (7 deviations in 8) covers exactly
     * hf_stretch_decisions(s) decisions from where its gap puts it. */
    uint8_t stretch[] = {254, 0x10, 7, 0, 40, 5};   /* starts at decision 5, 32 decisions */
    hf_decider_init_logged(d, stretch, sizeof stretch, log);
    drive(d, 100, va);
    uint32_t inside = d->deviations;
    CHECK(hf_stretch_decisions(40) == 32 && inside >= 20 && inside <= 32 && d->taken[0].index >= 5 &&
              d->taken[inside - 1].index <= 36 && log->records == 1 && log->record[0].index == 5,
          "stretch byte 40 and gap 5 generate within decisions 5..36 only (%u deviations there)", inside);
    CHECK(hf_stretch_decisions(0) == UINT64_MAX && hf_stretch_decisions(8) == 2 && hf_stretch_decisions(64) == 256,
          "stretch bytes read on a log scale: 0 is the rest of the run, 8 is 2, 64 is 256");

    /* Level 0 is the uniform baseline: a yes/no is yes about half the time. */
    uint8_t uniform[] = {254, 0x00, 9, 9};
    hf_decider_init(d, uniform, sizeof uniform);
    int yes = 0;
    for (int i = 0; i < 2000; i++) yes += hf_decide_bool(d, HF_DECISION_FAULT | 1, false);
    CHECK(yes > 900 && yes < 1100, "a uniform walk answers yes %d times of 2000", yes);

    /* A walk's fault values fall at every scale, not only where a uniform
     * draw puts them: of the non-default values of a time in [0, 10^9 ns],
     * many are below a millisecond and many above, and few sit at the end. */
    uint8_t storm[] = {254, 0x10, 3, 1};   /* walk, level 1 */
    hf_decider_init(d, storm, sizeof storm);
    int small = 0, large = 0, taken = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t v = hf_decide_range(d, HF_DECISION_FAULT | 4, 0, 1000000000, 1000000000);
        if (v == 1000000000) continue;
        taken++;
        small += v < 1000000;
        large += v >= 1000000;
    }
    CHECK(taken > 1500 && small > taken / 6 && large > taken / 2,
          "a walk's times: %d of %d below 1 ms (a uniform draw: 1 in 1000), %d above", small, taken, large);

    /* Regression (the decoder's fuzzer, fuzz/self/decide_fuzzer.c): a
     * generated value above the default of a range nearly 2^64 wide
     * re-encodes into the raw value that replays it (it overflowed). */
    hf_decider_init(d, walk, sizeof walk);
    for (int i = 0; i < 64; i++) va[i] = hf_decide_range(d, HF_DECISION_DETAIL, 500, UINT64_MAX, 1000);
    n = hf_encode_deviations(d->taken, d->deviations, encoded, sizeof encoded);
    hf_decider_init(d, encoded, n);
    int replayed = 0;
    for (int i = 0; i < 64; i++) replayed += hf_decide_range(d, HF_DECISION_DETAIL, 500, UINT64_MAX, 1000) == va[i];
    CHECK(replayed == 64, "a range of 2^64 - 500 values: %d of 64 generated decisions replay from explicit records",
          replayed);

    /* Draw keys: a walk's task choices do not move when fault decisions
     * are added between them. */
    {
        uint64_t tasks[2][100];
        for (int v = 0; v < 2; v++) {
            uint8_t rec[] = {254, 0x20, 0x11, 0x22};
            hf_decider_init(d, rec, sizeof rec);
            for (int i = 0; i < 100; i++) {
                tasks[v][i] = hf_decide_range(d, HF_DECISION_TASK, 0, 3, 0);
                if (v == 1 && i % 7 == 3) hf_decide_bool(d, HF_DECISION_FAULT | 5, false);   /* added faults */
                hf_decide_range(d, HF_DECISION_FAULT | 6, 0, 1000, 1000);
            }
        }
        int same = 0, varied = 0;
        for (int i = 0; i < 100; i++) same += tasks[1][i] == tasks[0][i], varied += tasks[0][i] != 0;
        CHECK(same == 100 && varied > 20,
              "a walk's task choices (%d of 100 off the default) stay where they were when fault decisions are added between them",
              varied);
    }

    /* Swarm: a fault kind the profile leaves off never happens. */
    int off_kinds = 0, off_faults = 0, on_kinds = 0, on_faults = 0;
    for (uint16_t seed = 0; seed < 64; seed++) {
        uint8_t swarm[] = {254, 0x01, (uint8_t)seed, (uint8_t)(seed >> 8)};
        hf_decider_init(d, swarm, sizeof swarm);
        bool on = hf_decide_bool(d, HF_DECISION_PROFILE | 2, false);
        int faults = 0;
        for (int i = 0; i < 500; i++) faults += hf_decide_bool(d, HF_DECISION_FAULT | 2, false);
        if (on) { on_kinds++; on_faults += faults; } else { off_kinds++; off_faults += faults; }
    }
    CHECK(off_kinds > 10 && on_kinds > 10 && off_faults == 0 && on_faults > 0,
          "64 swarm seeds: %d leave the kind off (%d faults), %d turn it on (%d faults)", off_kinds, off_faults,
          on_kinds, on_faults);

    /* The encoder reaches a deviation 254 decisions away (254 is the escape)
     * and places a generator where asked. */
    hf_deviation far_one = {254 + 255, 0, 0};
    uint64_t at = 0;
    n = hf_encode_deviation(&at, &far_one, encoded, 0, sizeof encoded);
    n = hf_encode_generator(&at, 700, 0x13, 0x55aa, 0, encoded, n, sizeof encoded);
    hf_decider_init_logged(d, encoded, n, log);
    int first = -1, at_700 = 0;
    for (int i = 0; i < 701; i++) {
        bool v = hf_decide_bool(d, HF_DECISION_TASK, false);
        if (v && first < 0) first = i;
        if (i == 700) at_700 = d->generating;
    }
    CHECK(first == 509 && at_700 && log->records == 3 && log->record[2].generator && log->record[2].index == 700,
          "a deviation 509 decisions in and a generator at 700 encode and decode where they were put (first %d)",
          first);

    check_orders(d);
    check_pos_surw();
    free(log);
    free(d);
    return check_exit();
}
