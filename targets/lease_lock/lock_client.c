/*
 * lock_client.c — a client of the lock service.  It acquires the lock
 * (polling while another holds it), works under it in steps, checking
 * before each step that its lease still runs, releases it, thinks, and
 * does it again.
 *
 * How long does the lease run?  The two variants differ here.
 *
 *   buggy  It trusts its own clock: the lease is its until its clock
 *          reads the expiry the server stamped on the grant — as if the
 *          two clocks agreed — with no margin.  A client whose clock is
 *          behind the server's keeps working after the server has given
 *          the lock to another.
 *   fixed  It trusts no other clock and not the network: the lease runs
 *          from the moment it *sent* the request (the server granted it
 *          later than that), for the lease's length less a margin for its
 *          clock's rate error, measured on its own clock.
 */
#include "lease.h"

#include <assert.h>

static bool acquire(lease_world *w, lease_grant *out, uint64_t *sent_at) {
    lease_acquire req = {hf_node_self()};
    hf_msg reply;
    *sent_at = hf_clock();
    if (!hf_call(w->server, LEASE_ACQUIRE, &req, sizeof req, w->options.call_timeout_ns, &reply)) return false;
    *out = *(const lease_grant *)reply.data;
    return out->granted;
}

static uint64_t believed_until(const lease_options *o, const lease_grant *g, uint64_t sent_at) {
    if (!o->client_measures_locally) return g->expires_at;
    uint64_t margin = g->duration_ns / 1000000 * o->drift_bound_ppm + o->margin_ns;
    return g->duration_ns > margin ? sent_at + g->duration_ns - margin : sent_at;
}

static void release(lease_world *w, uint64_t lease_id) {
    lease_release req = {hf_node_self(), lease_id};
    hf_msg reply;
    /* Best effort: an unanswered release leaves the lease to expire. */
    (void)hf_call(w->server, LEASE_RELEASE, &req, sizeof req, w->options.call_timeout_ns, &reply);
}

void lease_client(void *arg) {
    lease_client_arg *a = arg;
    lease_world *w = a->world;
    const lease_options *o = &w->options;
    lease_belief *belief = &w->beliefs[a->index];
    belief->node = hf_node_self();
    for (int round = 0; round < o->acquisitions; round++) {
        lease_grant g;
        uint64_t sent_at;
        while (!acquire(w, &g, &sent_at)) hf_sleep(o->poll_ns);
        belief->until = believed_until(o, &g, sent_at);
        belief->holding = true;
        if (!lease_believes(w, a->index)) {
            hf_note("lease %llu came too late to use", (unsigned long long)g.lease_id);
            belief->holding = false;
        } else {
            hf_note("holds the lock (lease %llu) until its clock reads %+.3f ms from now",
                    (unsigned long long)g.lease_id, ((double)belief->until - (double)hf_clock()) / HF_MS);
            lease_check_exclusive(w, a->index);
        }
        uint64_t work = hf_pick("work under the lock (us)", 1, o->work_max_ns / HF_US, o->work_default_ns / HF_US) * HF_US;
        for (uint64_t done = 0; done < work && belief->holding; done += o->work_step_ns) {
            if (!lease_believes(w, a->index)) {
                /* The race the fixed variant must survive: the control
                 * group has to reach it. */
                hf_sometimes(true, "a client's lease ran out while it worked, and it stopped");
                hf_note("lease %llu has run out: stop working", (unsigned long long)g.lease_id);
                belief->holding = false;
                break;
            }
            hf_sleep(work - done < o->work_step_ns ? work - done : o->work_step_ns);
        }
        belief->holding = false;
        release(w, g.lease_id);
        w->acquisitions_done[a->index]++;
        hf_sleep(o->think_ns);
    }
    hf_note("done: %d acquisitions", o->acquisitions);
}
