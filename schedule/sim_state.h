/*
 * sim_state.h — the state of the simulated world of a run, shared by its
 * files: sim.c (options, start, counters), chaos.c (fault profile, phases,
 * world faults), node.c (nodes, crashes, clocks), net.c, disk.c and
 * objstore.c.  Targets never include it; they use sim.h.
 *
 * Everything lives in the run's arena, hanging off hf_w.sim, so a run that
 * ends in any way leaves nothing behind.
 */
#ifndef HF_SIM_STATE_H
#define HF_SIM_STATE_H

#include "sim.h"
#include "world.h"

#define SIM_NEVER UINT64_MAX          /* "no such time": nothing scheduled */

/* A message on the wire or in an inbox. */
typedef struct sim_packet {
    struct sim_packet *next;          /* in an inbox, or the free list */
    hf_msg m;
    bool is_reply;                    /* a reply to call m.call (goes to the call, not the inbox) */
    bool copy;                        /* the network's duplicate of an earlier packet */
} sim_packet;

/* A caller of hf_call waiting for its reply (on the caller's stack). */
typedef struct sim_call {
    struct sim_call *next;            /* in its node's list of waiting calls */
    uint64_t id;
    hf_waitq waiter;
    bool answered;
    hf_msg reply;
} sim_call;

/* A write not yet made durable by an fsync, oldest first. */
typedef struct sim_write {
    struct sim_write *next;
    uint64_t offset;
    size_t size;
    uint8_t *data;
} sim_write;

/* A byte image of a file: what reads see, or what survives a crash. */
typedef struct sim_image {
    uint8_t *bytes;
    uint64_t size, cap;
} sim_image;

typedef struct sim_file {
    struct sim_file *next;
    const char *name;
    sim_image live;                   /* what reads see */
    sim_image durable;                /* what reaches the media (survives a crash) */
    sim_write *volatile_head, *volatile_tail;
    uint32_t volatile_count;
} sim_file;

typedef struct sim_node {
    int id;
    const char *name;
    hf_node_fn *start;
    void *arg;
    unsigned flags;                   /* HF_NODE_* */
    bool up;
    uint32_t incarnation;
    uint64_t restart_at;              /* when a crashed node comes back; SIM_NEVER when up */
    int64_t clock_offset_ns;          /* skew plus jumps */
    sim_packet *inbox_head, *inbox_tail;
    hf_waitq receivers;
    sim_call *calls;                  /* waiting hf_call callers */
    sim_file *files;                  /* its disk */
    int last_kind_in;                 /* kind + 1 of the last message it received; 0: none */
} sim_node;

typedef struct sim_link {
    uint64_t last_arrival;            /* latest arrival scheduled on the link: FIFO order */
    uint64_t last_id;                 /* the message arriving then */
    uint64_t clogged_until;           /* messages arriving before then wait until then */
    bool cut;                         /* a partition blocks this direction */
} sim_link;

typedef struct sim_check {
    struct sim_check *next;
    hf_check_fn *fn;
    void *arg;
} sim_check;

typedef struct sim_object {
    struct sim_object *next;          /* sorted by key */
    const char *key;
    const void *data;
    size_t size;
} sim_object;

typedef struct hf_sim {
    hf_sim_options o;
    uint32_t profile;                 /* fault kinds this run allows */
    bool quiet;                       /* the quiet period has begun */
    uint64_t chaos_end, quiet_end;    /* logical times */
    uint64_t first_fault_at;          /* the first world fault, decided with the profile */
    int chaos_task;
    hf_waitq agenda;                  /* the chaos task waits here; woken when its agenda changes */
    uint64_t heal_at;                 /* end of the current partition; SIM_NEVER if none */
    int node_count;
    sim_node nodes[HF_MAX_NODES + 1]; /* by id; 0 unused */
    sim_link links[HF_MAX_NODES + 1][HF_MAX_NODES + 1];   /* [from][to] */
    uint64_t last_msg_id, last_call_id;
    sim_packet *free_packets;
    sim_check *checks, *checks_tail;
    sim_object *objects;              /* the object store */
    hf_sim_stats stats;
} hf_sim;

/* sim.c */
hf_sim *sim_get(void);                           /* asserts there is a world */
/* The caller's node; a call from a task outside every node fails the run
 * (HF_FAIL_CONFIG) naming the operation. */
sim_node *sim_self_node(const char *operation);
/* Is fault kind `kind` possible now: in the profile, in the chaos period? */
bool sim_fault_possible(hf_fault_kind kind);
/* Counts a fault and puts it in the timeline (marked as deviating). */
void sim_fault(hf_fault_kind kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A note of the world's in the timeline. */
void sim_note(bool deviated, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Blocks the calling task on `q` until woken or until logical time
 * `deadline` (SIM_NEVER: no deadline); false when the deadline passed. */
bool sim_wait_until(hf_waitq *q, const char *what, uint64_t deadline);
/* "1.250 ms", "3 s": a duration for the timeline. */
const char *sim_duration(uint64_t ns);

/* chaos.c */
void sim_chaos_start(hf_sim *s);
void sim_agenda_changed(hf_sim *s);   /* a crash or restart happened outside the chaos task */

/* node.c */
void sim_node_crash(hf_sim *s, sim_node *n, bool by_chaos);
void sim_node_restart(hf_sim *s, sim_node *n);

/* net.c */
void sim_net_crash(hf_sim *s, sim_node *n);     /* empties its inbox and waiting calls */
void sim_net_quiet(hf_sim *s);                  /* lifts every partition and clog */

/* disk.c */
void sim_disk_crash(hf_sim *s, sim_node *n);    /* what survives on the media */

#endif
