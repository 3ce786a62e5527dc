/*
 * sim.h — the simulated world a target models its system in: nodes that
 * crash and restart, a network between them, a disk per node, a shared
 * object store, and a clock per node.  Every fault is a decision taken from
 * the input bytes, so a stormy run replays exactly like a calm one.
 *
 * A small cluster in a few lines:
 *
 *     static void main_task(void *arg) {
 *         hf_sim_options o;
 *         hf_sim_options_init(&o);           // every fault allowed, sane bounds
 *         o.net.kind_names = kind_names;     // "Produce", "ProduceResponse", ...
 *         o.net.kind_count = KIND_COUNT;
 *         hf_sim_start(&o);                  // first thing: picks the fault profile
 *         for (int i = 0; i < 3; i++) hf_node_add(hf_printf("broker%d", i + 1), broker, cfg, 0);
 *         hf_node_add("client", client, cfg, HF_NODE_NEVER_CRASHES);
 *         hf_sim_at_end(check, cfg);         // hf_eventually(...) goes in there
 *     }
 *
 * Life of a run.  hf_sim_start validates the options (a bad one fails the
 * run as HF_FAIL_CONFIG with a message naming the field), then takes the
 * fault profile: one yes/no decision per fault kind the options allow, in
 * hf_fault_kind order, default no; then, if the profile has world faults
 * (below), the time of the first one.  Those are the run's first decisions
 * when the target calls hf_sim_start first, so the empty input is calm and
 * the input byte K alone allows exactly the K-th allowed kind (fault kind K
 * when the options allow all).  Then:
 *
 *   chaos period  [0, chaos_ns)          faults of the profile may happen
 *   quiet period  [chaos_ns, +quiet_ns)  no new faults; partitions and clogs
 *                                        have healed, crashed nodes restart
 *   end           the checks registered with hf_sim_at_end run (that is
 *                 where hf_eventually is evaluated); then the run ends, ok
 *                 unless a check failed, whatever tasks are still running.
 *
 * Faults of a single operation (drop this message, fail this fsync) are
 * decided where the operation happens.  Faults of the world (crash a node,
 * partition, clog a link, jump a clock) are decided by the world's own
 * task, "chaos": the time of the next such fault is a decision whose
 * default is "none before the quiet period".  Every fault is a trace event
 * (HF_EV_FAULT, a = its kind) marked as deviating, in plain words:
 * "drop msg#12 n1->n3 Produce", "crash n2", "torn write n1 log.0 512/4096".
 *
 * Nodes are numbered 1..hf_node_count() in the order they were added and
 * appear as n1, n2, ... in the timeline.  Network, disk and store calls act
 * for the node of the calling task (tasks inherit the node of the task that
 * spawned them); a call from a task outside every node fails the run
 * (HF_FAIL_CONFIG).
 */
#ifndef HF_SIM_H
#define HF_SIM_H

#include "hf.h"

enum { HF_MAX_NODES = 16 };

/* ---- Fault kinds ----------------------------------------------------------
 * The order is part of the input format (the profile decisions follow it):
 * append new kinds at the end. */
typedef enum hf_fault_kind {
    HF_FAULT_MSG_DROP,            /* a message is lost on the wire */
    HF_FAULT_MSG_DUPLICATE,       /* a message arrives twice */
    HF_FAULT_MSG_DELAY,           /* a message's delay leaves the default, within the bounds */
    HF_FAULT_MSG_REORDER,         /* a message overtakes earlier ones on its link */
    HF_FAULT_PARTITION,           /* two sides of the cluster cannot reach each other */
    HF_FAULT_PARTITION_ONE_WAY,   /* one side cannot reach the other; the way back works */
    HF_FAULT_CLOG,                /* a link holds its messages for a while, then delivers them */
    HF_FAULT_CRASH,               /* a node crashes; it restarts after a decided downtime */
    HF_FAULT_DISK_WRITE_ERROR,    /* a write fails and writes nothing */
    HF_FAULT_DISK_FSYNC_ERROR,    /* an fsync fails; the writes it covered never reach the media */
    HF_FAULT_DISK_TORN_WRITE,     /* at a crash, a prefix of the unsynced writes survives, the last one torn */
    HF_FAULT_DISK_LOST_WRITES,    /* a crash loses the unsynced writes (otherwise it is a process
                                     crash: the operating system keeps them) */
    HF_FAULT_DISK_READ_CORRUPTION,/* a read returns a flipped byte (the media stay intact) */
    HF_FAULT_STORE_ERROR,         /* an object-store request fails and changes nothing */
    HF_FAULT_STORE_TIMEOUT,       /* a request is lost or slow: the caller times out; a slow one may
                                     still take effect after that */
    HF_FAULT_STORE_REPLY_LOST,    /* a request takes effect but its reply is lost: the caller times out */
    HF_FAULT_STORE_LATENCY,       /* a request's latency leaves the default, within the bounds */
    HF_FAULT_CLOCK_SKEW,          /* a node starts with its clock off true time */
    HF_FAULT_CLOCK_JUMP,          /* a node's clock jumps forward or back */
    HF_FAULT_KIND_COUNT
} hf_fault_kind;

#define HF_FAULT_BIT(kind) (1u << (kind))
#define HF_FAULTS_ALL ((1u << HF_FAULT_KIND_COUNT) - 1)

/* "drop", "crash", "torn write", ... */
const char *hf_fault_name(hf_fault_kind kind);

/* ---- Options: one struct per simulated part ------------------------------ */

typedef struct hf_phase_options {
    uint64_t chaos_ns;            /* length of the chaos period, ns */
    uint64_t quiet_ns;            /* length of the quiet period after it, ns */
    uint64_t fault_step_ns;       /* granularity of the times of world faults, ns */
} hf_phase_options;

typedef struct hf_node_options {
    uint64_t down_min_ns;         /* shortest time a crashed node stays down, ns */
    uint64_t down_max_ns;         /* longest, ns (all are up again when the quiet period begins) */
    uint64_t down_default_ns;     /* downtime unless a decision says otherwise, ns */
    uint32_t crashes_max;         /* most crashes the chaos causes in one run, count (each
                                     restart takes a task, and a run's tasks are limited) */
} hf_node_options;

typedef struct hf_net_options {
    uint64_t delay_min_ns;        /* shortest one-way delay, ns */
    uint64_t delay_max_ns;        /* longest one-way delay, ns */
    uint64_t delay_default_ns;    /* one-way delay of the undisturbed schedule, ns */
    uint64_t partition_max_ns;    /* longest partition or clog, ns */
    const char *const *kind_names;/* message kind -> name in the timeline; NULL: "kind N" */
    int kind_count;               /* entries in kind_names */
} hf_net_options;

typedef struct hf_disk_options {
    uint64_t write_ns;            /* time a write takes, ns */
    uint64_t read_ns;             /* time a read takes, ns */
    uint64_t fsync_ns;            /* time an fsync takes, ns */
} hf_disk_options;

typedef struct hf_store_options {
    uint64_t latency_min_ns;      /* fastest request round trip, ns */
    uint64_t latency_max_ns;      /* slowest round trip, ns */
    uint64_t latency_default_ns;  /* round trip of the undisturbed schedule, ns */
} hf_store_options;

typedef struct hf_clock_options {
    uint64_t epoch_ns;            /* what every node clock reads at logical time 0, ns (Unix time) */
    uint64_t skew_max_ns;         /* largest initial offset of a node clock, either way, ns */
    uint64_t jump_max_ns;         /* largest single clock jump, either way, ns */
} hf_clock_options;

typedef struct hf_sim_options {
    uint32_t faults;              /* fault kinds a run may allow (HF_FAULT_BIT mask) */
    hf_phase_options phase;
    hf_node_options node;
    hf_net_options net;
    hf_disk_options disk;
    hf_store_options store;
    hf_clock_options clock;
} hf_sim_options;

/* Defaults: every fault kind allowed; 2 s of chaos, 1 s quiet; delays
 * 50 us..20 ms (default 200 us); and so on (see sim.c). */
void hf_sim_options_init(hf_sim_options *o);

/* ---- The world ------------------------------------------------------------ */

/* Creates the world for this run (once per run, from a task outside any
 * node, normally first thing in the target's main task). */
void hf_sim_start(const hf_sim_options *o);

/* Is fault kind `kind` in this run's profile? */
bool hf_sim_fault_allowed(hf_fault_kind kind);

/* Has the quiet period begun? */
bool hf_sim_quiet(void);

/* Registers a check to run at the end of the quiet period (in registration
 * order), in the world's task: the place for hf_eventually. */
typedef void hf_check_fn(void *arg);
void hf_sim_at_end(hf_check_fn *check, void *arg);

/* ---- Nodes ----------------------------------------------------------------
 * A node is a process: its start function runs as its first task and
 * spawns the rest.  A crash ends all of its tasks at once, loses what its
 * inbox held and what its disk model says; a restart runs the start
 * function again (with the same arg) in a fresh task.  Whatever the node
 * keeps in memory must hang off what its start function allocates, so that
 * a restart begins from nothing but its disk. */
typedef void hf_node_fn(void *arg);

enum {
    HF_NODE_NEVER_CRASHES = 1,    /* the chaos never crashes it (a test client, say) */
};

/* Adds and starts a node; returns its id (1, 2, ...).  `name` must outlive
 * the run (a literal or hf_printf). */
int hf_node_add(const char *name, hf_node_fn *start, void *arg, unsigned flags);

int hf_node_self(void);                 /* node of the running task; 0 for none */
int hf_node_count(void);
const char *hf_node_name(int node);
bool hf_node_up(int node);
uint32_t hf_node_incarnation(int node); /* 1 on the first start, +1 per restart */

/* A crash the target itself causes (a process that panics on an fsync
 * error, a test).  Crashing the caller's own node does not return.  The
 * node restarts after node.down_default_ns (no later than the end of the
 * chaos period when it crashed in it). */
void hf_node_crash(int node);

/* ---- Clocks ----------------------------------------------------------------
 * A node's clock is the logical clock plus the node's offset: an initial
 * skew and any jumps, forward or back.  hf_now() stays the true time. */
uint64_t hf_clock(void);                /* the calling node's clock, ns */
uint64_t hf_node_clock(int node);

/* ---- Network ---------------------------------------------------------------
 * Messages between nodes: bytes plus a kind (the target's numbering; its
 * name shows in the timeline).  Links are FIFO on the undisturbed schedule.
 * A message is lost when it arrives at a crashed node or across a
 * partition; a reply that finds no waiting call (it timed out, or is a
 * duplicate) is discarded. */
typedef struct hf_msg {
    uint64_t id;                  /* msg#id in the timeline, unique in the run */
    int from, to;                 /* nodes */
    int kind;
    uint64_t call;                /* for a request and its reply: the call's id; 0 otherwise */
    size_t size;                  /* payload bytes */
    const void *data;             /* the payload; lives until the run ends */
} hf_msg;

/* Sends a one-way message; never blocks (a switch point). */
void hf_send(int to, int kind, const void *data, size_t size);

/* Takes the next message of the calling node's inbox (one-way messages and
 * requests).  Waits at most `timeout_ns` (0: for ever); false on timeout. */
bool hf_recv(hf_msg *m, uint64_t timeout_ns);

/* Sends a request and waits for its reply, at most `timeout_ns` (> 0).
 * True with the reply in *reply; false on timeout, when nothing is known:
 * the request may have been lost, or served with its reply lost. */
bool hf_call(int to, int kind, const void *data, size_t size, uint64_t timeout_ns, hf_msg *reply);

/* Answers a request taken by hf_recv.  (For several requests in flight
 * from one task, as a pipelining client does, send them with hf_send and
 * match the answers by a correlation id of the target's own.) */
void hf_reply(const hf_msg *request, int kind, const void *data, size_t size);

/* The timeline name of a message kind. */
const char *hf_msg_kind_name(int kind);

/* ---- Disk: one per node, surviving its crashes -----------------------------
 * Files by name.  A write is volatile until an fsync of its file succeeds.
 * When the run's profile has HF_FAULT_DISK_LOST_WRITES, a crash in the
 * chaos period is a machine crash: it loses the volatile writes (with
 * HF_FAULT_DISK_TORN_WRITE, all but a prefix of them, the last one torn);
 * otherwise a crash is a process crash and the volatile writes survive.
 * A failed fsync forgets the writes it covered: they never reach the media
 * but stay readable until a machine crash, as on Linux.  Creating, renaming
 * and deleting a file is atomic and durable at once (as if every such call
 * synced its directory).  Each call takes its time from hf_disk_options and
 * is a scheduling point. */
typedef enum hf_io {
    HF_IO_OK,
    HF_IO_ERROR,                  /* the operation failed (an injected fault) */
    HF_IO_NOT_FOUND,              /* no such file */
} hf_io;

/* Writes at `offset` (the file is created when missing; a gap reads as
 * zeros). */
hf_io hf_disk_write(const char *file, uint64_t offset, const void *data, size_t size);
/* Writes at the end; the offset written at goes to *offset when not NULL. */
hf_io hf_disk_append(const char *file, const void *data, size_t size, uint64_t *offset);
/* Reads up to `size` bytes at `offset`; *got = bytes read (short at the end). */
hf_io hf_disk_read(const char *file, uint64_t offset, void *buf, size_t size, size_t *got);
hf_io hf_disk_fsync(const char *file);
hf_io hf_disk_rename(const char *from, const char *to);   /* replaces `to` */
hf_io hf_disk_delete(const char *file);
/* The file's size, or HF_IO_NOT_FOUND.  Not a scheduling point. */
hf_io hf_disk_size(const char *file, uint64_t *size);

/* ---- Object store: one for the whole world ---------------------------------
 * Strongly consistent, like S3 today.  Each request has a latency (a
 * decision within hf_store_options) and ends with a status; a timeout means
 * the caller does not know whether it took effect. */
typedef enum hf_store_status {
    HF_STORE_OK,
    HF_STORE_NOT_FOUND,
    HF_STORE_ERROR,               /* failed, and changed nothing */
    HF_STORE_TIMEOUT,             /* no reply within the caller's timeout: effect unknown */
} hf_store_status;

/* Each waits at most `timeout_ns` (> 0). */
hf_store_status hf_store_put(const char *key, const void *data, size_t size, uint64_t timeout_ns);
/* On OK, *data (valid until the run ends) and *size hold the object. */
hf_store_status hf_store_get(const char *key, const void **data, size_t *size, uint64_t timeout_ns);
/* On OK, *keys (sorted, valid until the run ends) holds the *count keys
 * beginning with `prefix`. */
hf_store_status hf_store_list(const char *prefix, const char *const **keys, size_t *count,
                              uint64_t timeout_ns);
/* Deleting a missing key is no error, as in S3. */
hf_store_status hf_store_delete(const char *key, uint64_t timeout_ns);

const char *hf_store_status_name(hf_store_status s);

/* ---- Counters, for tests and benchmarks ------------------------------------
 * Message conservation: sent = delivered + dropped + in_flight, and apart
 * from them, duplicates = dup_delivered + dup_dropped + dup_in_flight. */
typedef struct hf_sim_stats {
    uint64_t sent;                /* messages sent (requests, replies, one-way) */
    uint64_t delivered;           /* reached a live node */
    uint64_t dropped;             /* lost: decided drop, partition, crashed receiver */
    uint64_t in_flight;           /* still on the wire */
    uint64_t duplicates;          /* extra copies the network made */
    uint64_t dup_delivered, dup_dropped, dup_in_flight;
    uint64_t faults[HF_FAULT_KIND_COUNT];   /* faults that happened, by kind */
    uint64_t crashes, restarts;   /* of nodes, whoever caused them */
    uint32_t allowed;             /* fault kinds the options allowed (HF_FAULT_BIT mask) */
    uint32_t profile;             /* fault kinds the run's profile enabled, a subset of allowed */
} hf_sim_stats;

/* The counters of the current run, or of the last one once it is over (all
 * zero when it had no world). */
const hf_sim_stats *hf_sim_stats_of_run(void);

#endif
