/*
 * lease_lock — a lock service with leases, the system AWS first tested by
 * deterministic simulation: a lock server and three clients, under clock
 * skew (each node's clock starts off true time, up to 10 ms either way)
 * message delay and loss, and links that clog for a while (lock_server.c,
 * lock_client.c).
 *
 * Invariants:
 *   always      at most one client believes it holds the lock at any
 *               logical instant (checked whenever a client comes to
 *               believe it holds it)
 *   eventually  every client has completed its acquisitions
 *
 * The bug (buggy variant): a client trusts its own clock with no safety
 * margin: the lease is its until its clock reads the expiry the server
 * stamped on the grant.  On the undisturbed schedule the clocks agree and
 * a client releases the lock long before its lease ends.  It takes a
 * client whose clock is behind the server's (the fault profile allows
 * skew, and the skew of that client's node) holding the lock past its
 * lease (its work under the lock is slow): the server grants the lock to
 * a waiting client while the first still believes it holds it.  Depth 3.
 *
 * The fix: the client measures the lease on its own clock from the moment
 * it sent the request, less a margin for clock rate error, and trusts no
 * other clock.
 */
#include "lease.h"

#include <assert.h>

const char *const lease_kind_names[LEASE_KIND_COUNT] = {
    [LEASE_ACQUIRE] = "Acquire",
    [LEASE_ACQUIRE_REPLY] = "AcquireReply",
    [LEASE_RELEASE] = "Release",
    [LEASE_RELEASE_REPLY] = "ReleaseReply",
};

bool lease_believes(const lease_world *w, int index) {
    assert(index >= 0 && index < w->options.clients);
    const lease_belief *b = &w->beliefs[index];
    return b->holding && hf_node_clock(b->node) < b->until;
}

void lease_check_exclusive(lease_world *w, int index) {
    int others = 0;
    for (int i = 0; i < w->options.clients; i++)
        if (i != index && lease_believes(w, i)) {
            hf_note("but %s still believes it holds the lock, for %.3f ms more on its clock",
                    hf_node_name(w->beliefs[i].node),
                    (double)(w->beliefs[i].until - hf_node_clock(w->beliefs[i].node)) / HF_MS);
            others++;
        }
    w->overlaps_checked++;
    hf_always(others == 0, "at most one client believes it holds the lock at any logical instant");
}

static void check_all_done(void *arg) {
    lease_world *w = arg;
    bool done = true;
    for (int i = 0; i < w->options.clients; i++) done &= w->acquisitions_done[i] == w->options.acquisitions;
    hf_eventually(done, "every client has completed its acquisitions");
}

static void run_lease_lock(bool fixed) {
    hf_sim_options so;
    hf_sim_options_init(&so);
    /* Clogged links too: a release or a grant held up for a while and then
     * delivered late, as a stalled connection does.  `heisenfuzz report`
     * showed the message orders and faults of the other three kinds all
     * found within seconds while discovery went on plateauing. */
    so.faults = HF_FAULT_BIT(HF_FAULT_CLOCK_SKEW) | HF_FAULT_BIT(HF_FAULT_MSG_DELAY) |
                HF_FAULT_BIT(HF_FAULT_MSG_DROP) | HF_FAULT_BIT(HF_FAULT_CLOG);
    so.phase.chaos_ns = 1 * HF_SEC;
    so.phase.quiet_ns = 1 * HF_SEC;
    so.clock.skew_max_ns = 10 * HF_MS;   /* clocks kept within 10 ms of true time, as by NTP */
    so.net.kind_names = lease_kind_names;
    so.net.kind_count = LEASE_KIND_COUNT;
    hf_sim_start(&so);

    lease_world *w = hf_alloc(sizeof *w);
    w->options = (lease_options){
        .client_measures_locally = fixed,
        .clients = 3,
        .acquisitions = 4,
        .lease_ns = 50 * HF_MS,
        .drift_bound_ppm = 1000,
        .margin_ns = 1 * HF_MS,
        .work_default_ns = 10 * HF_MS,
        .work_max_ns = 100 * HF_MS,
        .work_step_ns = 5 * HF_MS,
        .think_ns = 10 * HF_MS,
        .poll_ns = 10 * HF_MS,
        .call_timeout_ns = 30 * HF_MS,
    };
    assert(w->options.clients <= LEASE_MAX_CLIENTS);
    w->server = hf_node_add("lockserver", lease_server, w, HF_NODE_NEVER_CRASHES);
    for (int i = 0; i < w->options.clients; i++) {
        lease_client_arg *a = hf_alloc(sizeof *a);
        *a = (lease_client_arg){w, i};
        w->client_nodes[i] = hf_node_add(hf_printf("client%d", i + 1), lease_client, a, HF_NODE_NEVER_CRASHES);
    }
    hf_sim_at_end(check_all_done, w);
}

static void lease_buggy_main(void *arg) { (void)arg; run_lease_lock(false); }
static void lease_fixed_main(void *arg) { (void)arg; run_lease_lock(true); }

HF_DEFINE_TARGET_PAIR(lease_lock,
    "lock leases: a client trusts its own clock against the server's expiry, no margin", lease_buggy_main,
    "lock leases: a client measures its lease from its send time, with a margin", lease_fixed_main);
