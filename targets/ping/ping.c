/*
 * ping — the smallest simulated world: a client asks a server twice over a
 * network that may drop, duplicate and reorder messages, and retries once
 * a call times out.  Small enough that every run within a few faults can be
 * enumerated (`explore --strategy dfs`): the world target whose behaviours
 * are known exactly, against which `bench --plateau` checks the plateau
 * rule.  It models no incident and has no bug.
 *
 * Invariants: the client never counts more answers than it asked for
 * (always); some call goes unanswered, some duplicate reaches the server
 * (sometimes: the faults do bite).
 */
#include "hf.h"
#include "sim.h"

enum { PING, PONG, PING_KIND_COUNT };
static const char *const ping_kind_names[PING_KIND_COUNT] = {"Ping", "Pong"};

enum { CALLS = 2, TRIES = 2 };

typedef struct ping_world {
    int server;
    int answered;             /* calls the client got an answer to */
    int pings_served;         /* requests the server answered, duplicates included */
    bool timed_out;
} ping_world;

static void server(void *arg) {
    ping_world *w = arg;
    hf_msg m;
    while (hf_recv(&m, 0)) {
        w->pings_served++;
        hf_reply(&m, PONG, NULL, 0);
    }
}

static void client(void *arg) {
    ping_world *w = arg;
    for (int call = 0; call < CALLS; call++) {
        for (int try = 0; try < TRIES; try++) {
            hf_msg reply;
            if (hf_call(w->server, PING, NULL, 0, 20 * HF_MS, &reply)) {
                w->answered++;
                break;
            }
            w->timed_out = true;
            hf_note("call %d timed out", call);
        }
    }
    hf_always(w->answered <= CALLS, "the client counts at most one answer per call");
}

static void check_end(void *arg) {
    ping_world *w = arg;
    hf_sometimes(w->timed_out, "a call timed out");
    hf_sometimes(w->pings_served > w->answered, "the server answered more pings than the client counted");
}

static void ping_main(void *arg) {
    (void)arg;
    hf_sim_options so;
    hf_sim_options_init(&so);
    so.faults = HF_FAULT_BIT(HF_FAULT_MSG_DROP) | HF_FAULT_BIT(HF_FAULT_MSG_DUPLICATE) |
                HF_FAULT_BIT(HF_FAULT_MSG_REORDER);
    so.phase.chaos_ns = 200 * HF_MS;
    so.phase.quiet_ns = 100 * HF_MS;
    so.net.kind_names = ping_kind_names;
    so.net.kind_count = PING_KIND_COUNT;
    hf_sim_start(&so);
    ping_world *w = hf_alloc(sizeof *w);
    w->server = hf_node_add("server", server, w, HF_NODE_NEVER_CRASHES);
    hf_node_add("client", client, w, HF_NODE_NEVER_CRASHES);
    hf_sim_at_end(check_end, w);
}

HF_DEFINE_TARGET(ping_target) = {
    .name = "ping",
    .summary = "the smallest world: two pings over a lossy network, one retry each (ground truth for the plateau)",
    .main = ping_main,
};
