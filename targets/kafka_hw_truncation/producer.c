/*
 * producer.c — a producer with acks=all: it sends its records one at a
 * time to the leader the controller names, and tries a record again
 * (asking the controller anew) when the answer is an error or does not
 * come within request_timeout_ns; after produce_attempts it gives the
 * record up, as a client with a delivery timeout does.  What it is
 * acknowledged goes to the oracle.
 */
#include "replication.h"

static int find_leader(repl_world *w) {
    hf_msg reply;
    if (!hf_call(w->controller, REPL_METADATA, NULL, 0, w->options.request_timeout_ns, &reply)) return -1;
    return ((const repl_metadata_response *)reply.data)->leader_node;
}

static bool produce(repl_world *w, int leader_node, int32_t value, int64_t *offset) {
    repl_produce p = {value};
    hf_msg reply;
    if (!hf_call(leader_node, REPL_PRODUCE, &p, sizeof p, w->options.request_timeout_ns, &reply)) return false;
    const repl_produce_response *r = reply.data;
    *offset = r->offset;
    return r->ok;
}

void repl_producer(void *arg) {
    repl_world *w = arg;
    const repl_options *o = &w->options;
    int leader_node = w->broker_node[1];   /* the metadata it starts with */
    for (int i = 0; i < REPL_RECORDS; i++) {
        int32_t value = 100 + i;
        bool acked = false;
        for (int attempt = 0; attempt < o->produce_attempts && !acked; attempt++) {
            if (leader_node < 0) leader_node = find_leader(w);
            int64_t offset;
            if (leader_node >= 0 && produce(w, leader_node, value, &offset)) {
                repl_oracle *or = &w->oracle;
                or->acked_value[or->acked] = value;
                or->acked_offset[or->acked] = offset;
                or->acked++;
                hf_note("record %d acknowledged at offset %lld", (int)value, (long long)offset);
                acked = true;
            } else {
                leader_node = -1;
                hf_sleep(o->produce_interval_ns);
            }
        }
        if (!acked) {
            w->oracle.given_up++;
            hf_note("record %d given up", (int)value);
        }
        hf_sleep(o->produce_interval_ns);
    }
}
