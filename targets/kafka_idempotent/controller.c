/*
 * controller.c — the cluster's controller: it has created input-topic-0
 * with broker1 as leader and broker2 as follower, and
 *
 *   - propagates that to both brokers with LeaderAndIsr, resending until
 *     each answers (so a slow or cut link delays a broker's knowledge, and
 *     never loses it);
 *   - answers Metadata (the partition's leader, as the controller knows
 *     it: at once, whatever the brokers have heard yet);
 *   - hands out producer ids and bumps their epochs (InitProducerId).
 */
#include "kafka.h"

#include <assert.h>

enum { FIRST_PRODUCER_ID = 1000 };

typedef struct controller {
    kafka_cluster *cluster;
    int32_t producer_epoch;       /* of the one producer id handed out; -1 before */
} controller;

typedef struct propagation {
    kafka_cluster *cluster;
    int broker;
} propagation;

static void propagate(void *arg) {
    propagation *p = arg;
    kafka_leader_and_isr req = {p->cluster->leader, p->cluster->follower, 1};
    hf_msg reply;
    while (!hf_call(p->broker, KAFKA_LEADER_AND_ISR, &req, sizeof req, p->cluster->options.controller_retry_ns,
                    &reply))
        hf_note("LeaderAndIsr to %s unanswered: resend", hf_node_name(p->broker));
}

static void start_propagation(kafka_cluster *c, int broker) {
    propagation *p = hf_alloc(sizeof *p);
    *p = (propagation){c, broker};
    hf_spawn(hf_printf("controller.to-%s", hf_node_name(broker)), propagate, p);
}

static void init_producer_id(controller *ctl, const hf_msg *m) {
    const kafka_init_producer_id *req = m->data;
    if (req->producer_id < 0) {
        ctl->producer_epoch = 0;
    } else if (req->producer_epoch == ctl->producer_epoch) {
        ctl->producer_epoch++;   /* a bump; a repeated request gets the same answer */
        hf_note("InitProducerId: producer %lld bumped to epoch %d", (long long)req->producer_id,
                ctl->producer_epoch);
    }
    kafka_init_producer_id r = {FIRST_PRODUCER_ID, ctl->producer_epoch};
    hf_reply(m, KAFKA_INIT_PRODUCER_ID_RESPONSE, &r, sizeof r);
}

void kafka_controller(void *arg) {
    controller *ctl = hf_alloc(sizeof *ctl);
    ctl->cluster = arg;
    ctl->producer_epoch = KAFKA_NO_PRODUCER_EPOCH;
    hf_note("create input-topic-0: leader %s, replicas {%s, %s}, min.insync.replicas=%d",
            hf_node_name(ctl->cluster->leader), hf_node_name(ctl->cluster->leader),
            hf_node_name(ctl->cluster->follower), ctl->cluster->options.min_insync_replicas);
    start_propagation(ctl->cluster, ctl->cluster->leader);
    start_propagation(ctl->cluster, ctl->cluster->follower);
    for (;;) {
        hf_msg m;
        hf_recv(&m, 0);
        switch (m.kind) {
        case KAFKA_METADATA: {
            kafka_metadata_response r = {ctl->cluster->leader};
            hf_reply(&m, KAFKA_METADATA_RESPONSE, &r, sizeof r);
            break;
        }
        case KAFKA_INIT_PRODUCER_ID: init_producer_id(ctl, &m); break;
        default: assert(!"the controller gets no such request");
        }
    }
}
