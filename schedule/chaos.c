/*
 * chaos.c — the run's fault profile, its two phases, and the faults of the
 * world as a whole (crash a node, partition, clog a link, jump a clock).
 *
 * Swarm testing: rather than every fault kind being possible in every run,
 * the first decisions pick the kinds this run allows, so some runs are calm
 * and others stormy in one way or another; a fault kind that is not in the
 * profile takes no decisions at all, which keeps the others' decisions few
 * and easy for the fuzzer to reach.  The empty input allows none.
 *
 * The chaos task keeps the world's agenda: the next world fault (its time is
 * a decision whose default is "none before the quiet period"), the restarts
 * of crashed nodes, the end of a partition, and the two phase changes.
 */
#include "sim_state.h"

#include <assert.h>
#include <inttypes.h>
#include <string.h>

static const hf_fault_kind world_faults[] = {
    HF_FAULT_CRASH, HF_FAULT_PARTITION, HF_FAULT_PARTITION_ONE_WAY, HF_FAULT_CLOG, HF_FAULT_CLOCK_JUMP,
};
enum { WORLD_FAULT_KINDS = sizeof world_faults / sizeof world_faults[0] };

static void choose_profile(hf_sim *s) {
    char words[512] = "";
    size_t used = 0;
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        if (!(s->o.faults & HF_FAULT_BIT(k))) continue;
        if (!hf_decide_bool(&hf_w.decider, HF_DECISION_PROFILE | k, false)) continue;
        s->profile |= HF_FAULT_BIT(k);
        used += (size_t)snprintf(words + used, used < sizeof words ? sizeof words - used : 0, "%s%s",
                                 used ? ", " : "", hf_fault_name((hf_fault_kind)k));
    }
    if (s->profile) sim_note(true, "faults this run allows: %s", words);
    s->stats.allowed = s->o.faults;
    s->stats.profile = s->profile;
}

/* The time of the next world fault, or SIM_NEVER (the default). */
static uint64_t next_fault_time(hf_sim *s) {
    bool any = false;
    for (int i = 0; i < WORLD_FAULT_KINDS; i++) any |= sim_fault_possible(world_faults[i]);
    uint64_t now = hf_w.now, step = s->o.phase.fault_step_ns;
    if (!any || now >= s->chaos_end) return SIM_NEVER;
    uint64_t steps = (s->chaos_end - now) / step;   /* "steps" itself means: none */
    uint64_t gap = hf_decide_moment(&hf_w.decider, HF_DECISION_FAULT | HF_WORLD_FAULTS, 0, steps, steps, step);
    return gap == steps ? SIM_NEVER : now + gap * step;
}

/* A duration of at least one step and at most `max_ns`, in steps. */
static uint64_t decide_duration(hf_sim *s, uint64_t max_ns) {
    uint64_t step = s->o.phase.fault_step_ns, most = max_ns / step;
    assert(most >= 1);
    return hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 1, most, (most + 1) / 2) * step;
}

static const char *node_set(hf_sim *s, uint64_t mask, bool inside) {
    char text[HF_MAX_NODES * 4 + 3] = "{";
    size_t used = 1;
    for (int i = 1; i <= s->node_count; i++) {
        if (((mask >> (i - 1)) & 1) != inside) continue;
        used += (size_t)snprintf(text + used, sizeof text - used, "%sn%d", used > 1 ? "," : "", i);
    }
    snprintf(text + used, sizeof text - used, "}");
    return hf_strdup(text);
}

static void heal_partition(hf_sim *s) {
    for (int i = 1; i <= s->node_count; i++)
        for (int j = 1; j <= s->node_count; j++) s->links[i][j].cut = false;
    s->heal_at = SIM_NEVER;
    sim_note(false, "partition healed");
}

static void crash_some_node(hf_sim *s) {
    if (s->stats.faults[HF_FAULT_CRASH] >= s->o.node.crashes_max) return;
    int candidates[HF_MAX_NODES], n = 0;
    for (int i = 1; i <= s->node_count; i++)
        if (s->nodes[i].up && !(s->nodes[i].flags & HF_NODE_NEVER_CRASHES)) candidates[n++] = i;
    if (n == 0) return;
    sim_node *victim = &s->nodes[candidates[hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, (uint64_t)n - 1, 0)]];
    sim_node_crash(s, victim, true);
}

static void partition(hf_sim *s, bool one_way) {
    int n = s->node_count;
    if (n < 2) return;
    if (s->heal_at != SIM_NEVER) heal_partition(s);
    /* Side A is a proper, non-empty subset of the nodes: bit i-1 for node i. */
    uint64_t all = (1ull << n) - 1;
    uint64_t side = hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 1, all - 1, 1);
    uint64_t length = decide_duration(s, s->o.net.partition_max_ns);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            bool a_i = (side >> (i - 1)) & 1, a_j = (side >> (j - 1)) & 1;
            s->links[i][j].cut = one_way ? (a_i && !a_j) : (a_i != a_j);
        }
    uint64_t until = hf_w.now + length;
    s->heal_at = until < s->chaos_end ? until : s->chaos_end;
    if (one_way)
        sim_fault(HF_FAULT_PARTITION_ONE_WAY, "one-way partition %s -> %s cut for %s", node_set(s, side, true),
                  node_set(s, side, false), sim_duration(s->heal_at - hf_w.now));
    else
        sim_fault(HF_FAULT_PARTITION, "partition %s | %s for %s", node_set(s, side, true),
                  node_set(s, side, false), sim_duration(s->heal_at - hf_w.now));
}

static void clog(hf_sim *s) {
    int n = s->node_count;
    if (n < 2) return;
    uint64_t pair = hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, (uint64_t)(n * (n - 1)) - 1, 0);
    int from = (int)(pair / (uint64_t)(n - 1)) + 1, to = (int)(pair % (uint64_t)(n - 1)) + 1;
    if (to >= from) to++;
    uint64_t until = hf_w.now + decide_duration(s, s->o.net.partition_max_ns);
    if (until > s->chaos_end) until = s->chaos_end;
    sim_link *l = &s->links[from][to];
    if (until > l->clogged_until) l->clogged_until = until;
    sim_fault(HF_FAULT_CLOG, "clog n%d->n%d for %s", from, to, sim_duration(until - hf_w.now));
}

static void jump_clock(hf_sim *s) {
    if (s->node_count == 0) return;
    sim_node *n = &s->nodes[hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 1, (uint64_t)s->node_count, 1)];
    /* In microseconds, either way; the default is half the largest jump forward. */
    uint64_t most = s->o.clock.jump_max_ns / HF_US;
    if (most == 0) return;
    uint64_t v = hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, 2 * most, most + (most + 1) / 2);
    int64_t jump = ((int64_t)v - (int64_t)most) * (int64_t)HF_US;
    n->clock_offset_ns += jump;
    sim_fault(HF_FAULT_CLOCK_JUMP, "clock jump n%d %s%s", n->id, jump < 0 ? "-" : "+",
              sim_duration((uint64_t)(jump < 0 ? -jump : jump)));
}

static void world_fault(hf_sim *s) {
    hf_fault_kind options[WORLD_FAULT_KINDS];
    int n = 0;
    for (int i = 0; i < WORLD_FAULT_KINDS; i++)
        if (sim_fault_possible(world_faults[i])) options[n++] = world_faults[i];
    assert(n > 0);
    switch (options[hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, 0, (uint64_t)n - 1, 0)]) {
    case HF_FAULT_CRASH: crash_some_node(s); break;
    case HF_FAULT_PARTITION: partition(s, false); break;
    case HF_FAULT_PARTITION_ONE_WAY: partition(s, true); break;
    case HF_FAULT_CLOG: clog(s); break;
    case HF_FAULT_CLOCK_JUMP: jump_clock(s); break;
    default: assert(!"not a world fault");
    }
}

static void begin_quiet(hf_sim *s) {
    s->quiet = true;
    sim_note(false, "quiet period: no new faults until the end at %.3f s", (double)s->quiet_end / HF_SEC);
    if (s->heal_at != SIM_NEVER) heal_partition(s);
    sim_net_quiet(s);
    for (int i = 1; i <= s->node_count; i++)
        if (!s->nodes[i].up && s->nodes[i].restart_at > hf_w.now) s->nodes[i].restart_at = hf_w.now;
}

static void restart_due_nodes(hf_sim *s) {
    for (int i = 1; i <= s->node_count; i++)
        if (!s->nodes[i].up && s->nodes[i].restart_at <= hf_w.now) sim_node_restart(s, &s->nodes[i]);
}

static void run_end_checks(hf_sim *s) {
    hf_w.in_end_checks = true;
    for (sim_check *c = s->checks; c; c = c->next) c->fn(c->arg);
    hf_w.in_end_checks = false;
}

static void chaos_main(void *arg) {
    hf_sim *s = arg;
    uint64_t next_fault = s->first_fault_at;
    for (;;) {
        uint64_t now = hf_w.now;
        if (!s->quiet && now >= s->chaos_end) begin_quiet(s);
        if (s->heal_at <= now) heal_partition(s);
        restart_due_nodes(s);
        if (now >= s->quiet_end) break;
        if (!s->quiet && next_fault <= now) {
            world_fault(s);
            next_fault = next_fault_time(s);
        }
        uint64_t wake = s->quiet ? s->quiet_end : s->chaos_end;
        if (next_fault < wake && !s->quiet) wake = next_fault;
        if (s->heal_at < wake) wake = s->heal_at;
        for (int i = 1; i <= s->node_count; i++)
            if (!s->nodes[i].up && s->nodes[i].restart_at < wake) wake = s->nodes[i].restart_at;
        if (wake > hf_w.now) sim_wait_until(&s->agenda, "the world's next event", wake);
    }
    sim_note(false, "end of the quiet period: final checks");
    run_end_checks(s);
    hf_end_run();
}

void sim_chaos_start(hf_sim *s) {
    choose_profile(s);
    /* Decided here rather than in the chaos task, so that it comes right
     * after the profile: an input can aim at it without knowing how the
     * target's start is scheduled. */
    s->first_fault_at = next_fault_time(s);
    s->chaos_task = hf_spawn_flags("chaos", chaos_main, s, HF_TASK_DAEMON);
}

void sim_agenda_changed(hf_sim *s) {
    hf_task *chaos = hf_task_by_id(s->chaos_task);
    if (chaos->state == TASK_BLOCKED && chaos->waiting_in == &s->agenda) hf_wake(chaos);
}
