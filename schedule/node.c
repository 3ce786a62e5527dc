/*
 * node.c — simulated processes: starting, crashing and restarting them, and
 * the clock each one reads.
 *
 * A node owns the tasks spawned from its start task (the scheduler passes a
 * task's node on to the tasks it spawns).  A crash kills them all at once
 * (hf_task_kill: no more of their code runs), so the node's memory is gone
 * in effect; the disk keeps what the disk model says (disk.c).  A restart
 * runs the start function again in a fresh task.
 */
#include "sim_state.h"

#include <assert.h>

static void set_initial_skew(hf_sim *s, sim_node *n) {
    if (!sim_fault_possible(HF_FAULT_CLOCK_SKEW)) return;
    /* In microseconds, either way; the default is no skew. */
    uint64_t most = s->o.clock.skew_max_ns / HF_US;
    uint64_t v = hf_decide_range(&hf_w.decider, HF_DECISION_FAULT | HF_FAULT_CLOCK_SKEW, 0, 2 * most, most);
    if (v == most) return;
    int64_t skew = ((int64_t)v - (int64_t)most) * (int64_t)HF_US;
    n->clock_offset_ns = skew;
    sim_fault(HF_FAULT_CLOCK_SKEW, "clock skew n%d %s%s", n->id, skew < 0 ? "-" : "+",
              sim_duration((uint64_t)(skew < 0 ? -skew : skew)));
}

static void spawn_start_task(sim_node *n) {
    int id = hf_spawn(n->name, n->start, n->arg);
    hf_task_by_id(id)->node = n->id;
}

int hf_node_add(const char *name, hf_node_fn *start, void *arg, unsigned flags) {
    assert(name && start);
    hf_sim *s = sim_get();
    if (s->node_count == HF_MAX_NODES) hf_fail(HF_FAIL_LIMIT, NULL, "more than %d nodes", HF_MAX_NODES);
    sim_node *n = &s->nodes[++s->node_count];
    n->id = s->node_count;
    n->name = name;
    n->start = start;
    n->arg = arg;
    n->flags = flags;
    n->up = true;
    n->incarnation = 1;
    n->restart_at = SIM_NEVER;
    sim_note(false, "node n%d is %s", n->id, name);
    set_initial_skew(s, n);
    spawn_start_task(n);
    return n->id;
}

static sim_node *node_by_id(int node) {
    hf_sim *s = sim_get();
    assert(node >= 1 && node <= s->node_count && "no such node");
    return &s->nodes[node];
}

int hf_node_self(void) { return hf_current()->node; }
int hf_node_count(void) { return sim_get()->node_count; }
const char *hf_node_name(int node) { return node_by_id(node)->name; }
bool hf_node_up(int node) { return node_by_id(node)->up; }
uint32_t hf_node_incarnation(int node) { return node_by_id(node)->incarnation; }

/* ---- Crash and restart ------------------------------------------------------ */

void sim_node_crash(hf_sim *s, sim_node *n, bool by_chaos) {
    assert(n->up);
    /* Only the chaos decides how long a node stays down: a node that keeps
     * crashing itself comes back at the default pace, so its restarts (each
     * a new task) stay few. */
    uint64_t down = s->o.node.down_default_ns;
    if (by_chaos) down = hf_decide_range(&hf_w.decider, HF_DECISION_DETAIL, s->o.node.down_min_ns, s->o.node.down_max_ns, down);
    uint64_t back = hf_w.now + down;
    if (!s->quiet && back > s->chaos_end) back = s->chaos_end;
    n->up = false;
    n->restart_at = back;
    s->stats.crashes++;
    if (by_chaos) sim_fault(HF_FAULT_CRASH, "crash n%d (back in %s)", n->id, sim_duration(back - hf_w.now));
    else sim_note(false, "n%d crashes itself (back in %s)", n->id, sim_duration(back - hf_w.now));

    hf_task *self = hf_current();
    bool own_node = self->node == n->id;
    for (int i = 0; i < hf_w.task_count; i++) {
        hf_task *t = &hf_w.tasks[i];
        if (t->node == n->id && t != self && t->state != TASK_DONE) hf_task_kill(t);
    }
    sim_net_crash(s, n);
    sim_disk_crash(s, n);
    if (self->id != s->chaos_task) sim_agenda_changed(s);
    if (own_node) hf_task_kill(self);   /* does not return */
}

void sim_node_restart(hf_sim *s, sim_node *n) {
    assert(!n->up);
    n->up = true;
    n->incarnation++;
    n->restart_at = SIM_NEVER;
    s->stats.restarts++;
    sim_note(false, "restart n%d (incarnation %u)", n->id, n->incarnation);
    spawn_start_task(n);
}

void hf_node_crash(int node) {
    sim_node *n = node_by_id(node);
    assert(n->up && "the node is already down");
    sim_node_crash(sim_get(), n, false);
}

/* ---- Clocks ------------------------------------------------------------------ */

uint64_t hf_node_clock(int node) {
    hf_sim *s = sim_get();
    sim_node *n = node_by_id(node);
    int64_t t = (int64_t)(s->o.clock.epoch_ns + hf_w.now) + n->clock_offset_ns;
    return t < 0 ? 0 : (uint64_t)t;
}

uint64_t hf_clock(void) { return hf_node_clock(sim_self_node("hf_clock")->id); }
