/*
 * trace.h — what happened in a run, in order: a bounded ring of events for
 * the readable timeline, and a hash over every event of the run.
 *
 * The hash (XXH3-64 over each event's time, task, kind, numbers and text) is
 * the run's fingerprint: the same input bytes must give the same hash under
 * every engine, optimisation level and sanitizer.  So no event may carry an
 * address, and the text of an event is hashed by content.
 */
#ifndef HF_TRACE_H
#define HF_TRACE_H

#include <stdint.h>
#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

typedef enum hf_event_kind {
    HF_EV_SPAWN,      /* a = new task id; text = its name */
    HF_EV_RUN,        /* the running task changed to this one */
    HF_EV_BLOCK,      /* text = what the task now waits for */
    HF_EV_WAKE,       /* a = task made runnable */
    HF_EV_SLEEP,      /* a = nanoseconds */
    HF_EV_TIMEOUT,    /* a wait ended by its deadline */
    HF_EV_EXIT,       /* the task returned */
    HF_EV_KILL,       /* the task was killed (its node crashed) */
    HF_EV_DECIDE,     /* a workload decision that deviated; text = what, a = value, b = default */
    HF_EV_NOTE,       /* text = the target's own words */
    HF_EV_FAIL,       /* text = why the run failed */
    HF_EV_MSG,        /* a message moved: a = its id, b = HF_MSG_EVENT(...), text = its kind's name */
    HF_EV_FAULT,      /* a fault of the simulated world: a = hf_fault_kind, text = what happened */
    HF_EV_KIND_COUNT
} hf_event_kind;

/* What happened to a message (HF_EV_MSG).  Message events are the hot path
 * of a simulation, so they carry numbers and are put into words only when
 * printed. */
typedef enum hf_msg_event {
    HF_MSG_SEND,
    HF_MSG_DELIVER,
    HF_MSG_LOST_PARTITION,   /* arrived across a partition */
    HF_MSG_LOST_DOWN,        /* arrived at a crashed node, or was in its inbox at the crash */
    HF_MSG_UNMATCHED,        /* a reply no call waits for any more */
} hf_msg_event;

/* b of an HF_EV_MSG event: what, the two nodes, and whether this is the
 * network's extra copy of the message. */
#define HF_MSG_EVENT(what, from, to, copy) \
    ((int64_t)(what) | (int64_t)(from) << 8 | (int64_t)(to) << 16 | (int64_t)((copy) ? 1 : 0) << 24)
#define HF_MSG_EVENT_WHAT(b) ((hf_msg_event)((b) & 0xff))
#define HF_MSG_EVENT_FROM(b) ((int)(((b) >> 8) & 0xff))
#define HF_MSG_EVENT_TO(b)   ((int)(((b) >> 16) & 0xff))
#define HF_MSG_EVENT_COPY(b) ((int)(((b) >> 24) & 1))

enum { HF_EV_DEVIATED = 1 };   /* flag: caused by a non-default decision */

typedef struct hf_event {
    uint64_t time;      /* logical nanoseconds */
    int64_t a, b;       /* kind-specific numbers */
    const char *text;   /* a literal, or a string in the run's arena */
    uint16_t task;      /* task id; 0 = the runtime itself */
    uint8_t kind;       /* hf_event_kind */
    uint8_t flags;      /* HF_EV_DEVIATED */
} hf_event;

enum { HF_TRACE_CAPACITY = 1 << 14 };   /* events kept for the timeline */
enum { HF_TRACE_STAGE = 4096 };         /* bytes hashed in one block */

typedef struct hf_trace {
    hf_event ring[HF_TRACE_CAPACITY];
    uint64_t count;                     /* events recorded, kept or not */
    /* Events are packed here and hashed a block at a time: one XXH3 update
     * per event would cost more than the context switch it records. */
    uint8_t stage[HF_TRACE_STAGE];
    size_t staged;
    XXH3_state_t hash;
} hf_trace;

void hf_trace_reset(hf_trace *t);
void hf_trace_add(hf_trace *t, const hf_event *e);
uint64_t hf_trace_hash(hf_trace *t);

/* The i-th event of the run, or NULL when it fell out of the ring. */
const hf_event *hf_trace_event(const hf_trace *t, uint64_t i);

/* One timeline line: time, task name in a fixed column, what happened.
 * `task_name` maps a task id to its name. */
void hf_trace_print_event(FILE *out, const hf_event *e, const char *(*task_name)(int id));

/* The last `last` events (all kept ones when last is 0), one per line. */
void hf_trace_print(FILE *out, const hf_trace *t, uint64_t last, const char *(*task_name)(int id));

#endif
