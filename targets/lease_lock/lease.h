/*
 * lease.h — what the parts of the lease_lock model share: the wire, the
 * options, and the oracle's view of every client's belief.
 *
 * One lock server and a few clients.  A client asks for the lock; the
 * server grants it as a lease: the lock is the client's until the server's
 * clock passes the lease's expiry, after which the server may grant it to
 * another client whether or not the first has let go.
 */
#ifndef LEASE_H
#define LEASE_H

#include "sim.h"

enum { LEASE_MAX_CLIENTS = 4 };

typedef enum lease_kind {
    LEASE_ACQUIRE, LEASE_ACQUIRE_REPLY, LEASE_RELEASE, LEASE_RELEASE_REPLY, LEASE_KIND_COUNT
} lease_kind;

extern const char *const lease_kind_names[LEASE_KIND_COUNT];

typedef struct lease_acquire {
    int client;                 /* node */
} lease_acquire;

typedef struct lease_grant {
    bool granted;               /* false: another client holds an unexpired lease */
    uint64_t lease_id;
    uint64_t duration_ns;       /* the lease's length, ns */
    uint64_t expires_at;        /* the server's clock when it ends, ns */
} lease_grant;

typedef struct lease_release {
    int client;
    uint64_t lease_id;
} lease_release;

typedef struct lease_options {
    bool client_measures_locally;  /* the fix: from its own send time, minus a margin */
    int clients;
    int acquisitions;              /* each client acquires the lock this many times */
    uint64_t lease_ns;             /* lease length, ns */
    uint64_t drift_bound_ppm;      /* clock rate error the fixed client allows for, parts per million */
    uint64_t margin_ns;            /* extra safety margin of the fixed client, ns */
    uint64_t work_default_ns;      /* time a client works under the lock, undisturbed, ns */
    uint64_t work_max_ns;          /* the longest (a process pause, a slow disk), ns */
    uint64_t work_step_ns;         /* the client checks its lease between steps of this length, ns */
    uint64_t think_ns;             /* between a release and the next acquire, ns */
    uint64_t poll_ns;              /* between two acquire attempts while the lock is taken, ns */
    uint64_t call_timeout_ns;      /* a request unanswered this long is sent again, ns */
} lease_options;

/* A client's belief, as it would answer "do I hold the lock?" now.  It
 * lives outside the node, for the oracle. */
typedef struct lease_belief {
    bool holding;                  /* granted and neither released nor seen to expire */
    uint64_t until;                /* on the client's own clock, ns */
    int node;
} lease_belief;

typedef struct lease_world {
    lease_options options;
    int server;
    int client_nodes[LEASE_MAX_CLIENTS];
    lease_belief beliefs[LEASE_MAX_CLIENTS];
    int acquisitions_done[LEASE_MAX_CLIENTS];
    uint64_t overlaps_checked;
} lease_world;

typedef struct lease_client_arg {
    lease_world *world;
    int index;                     /* 0..clients-1 */
} lease_client_arg;

void lease_server(void *arg);      /* arg: lease_world */
void lease_client(void *arg);      /* arg: lease_client_arg */

/* Does client `index` believe, at this instant, that it holds the lock? */
bool lease_believes(const lease_world *w, int index);

/* Called by a client the moment it starts to believe it holds the lock:
 * checks the invariant (lease_lock.c). */
void lease_check_exclusive(lease_world *w, int index);

#endif
