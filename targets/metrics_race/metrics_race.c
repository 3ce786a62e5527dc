/*
 * metrics_race — WarpStream's first find: a data race in a metrics
 * instrumentation library that had been there since the project's first
 * month and had run for tens of thousands of CI hours without showing.
 *
 * A service: a client sends requests over a queue to a pool of handlers;
 * a handler serves one (that takes the request's latency), counts it and
 * records its latency with the metrics library (metrics.c), then answers.
 * An exporter scrapes the metrics every scrape interval and once more, the
 * final scrape, when the service shuts down.
 *
 * Invariant (always): the exported totals equal the number of updates — in
 * the final scrape the request counter, the buckets added up and the
 * histogram count each equal the requests served, and the histogram sum
 * equals their latencies added up.
 *
 * The bug (buggy variant): the histogram's count and sum are updated with a
 * plain read-modify-write.  On the undisturbed schedule the client, like
 * the CI tests, waits for each answer before it sends the next request, so
 * no two handlers ever record at once.  It takes the client sending ahead
 * (one decision), so that two handlers finish at the same instant, and the
 * first of them preempted between its load and its store (a second): the
 * bug's depth is 2.  The fix: both updates are indivisible (metrics.c).
 */
#include "metrics.h"

#include <assert.h>

typedef struct service_options {
    int handlers;                   /* request handler tasks */
    int requests;                   /* requests the client sends in all */
    uint64_t latency_default_us;    /* time to serve a request, undisturbed */
    uint64_t latency_min_us;        /* the fastest a request may be, when disturbed */
    uint64_t latency_max_us;        /* the slowest */
    uint64_t scrape_interval_ns;    /* between two scrapes of the exporter */
} service_options;

typedef struct request {
    int id;
    uint64_t latency_us;
} request;

typedef struct service {
    service_options options;
    metrics_registry metrics;
    hf_chan *queue;                 /* client -> handlers */
    hf_sem answers;                 /* handlers -> client, one post per request */
    uint64_t served_expected;       /* ground truth, kept by the client alone */
    uint64_t latency_sum_expected_us;
    bool shutting_down;             /* set by main once every answer is in */
    hf_mutex lock;                  /* guards shutting_down */
    hf_cond shutdown;
    metrics_snapshot final_scrape;
} service;

static void client(void *arg) {
    service *s = arg;
    int outstanding = 0;
    for (int id = 1; id <= s->options.requests; id++) {
        request r = {.id = id};
        r.latency_us = hf_pick("request latency (us)", s->options.latency_min_us, s->options.latency_max_us,
                               s->options.latency_default_us);
        s->served_expected++;
        s->latency_sum_expected_us += r.latency_us;
        hf_note("send request %d", id);
        bool sent = hf_chan_send(s->queue, &r);
        assert(sent);
        outstanding++;
        /* A load test with more than one request in flight; the CI tests
         * never had one. */
        if (id < s->options.requests && hf_chance("client sends the next request before the answer", false))
            continue;
        for (; outstanding > 0; outstanding--) hf_sem_wait(&s->answers);
    }
    for (; outstanding > 0; outstanding--) hf_sem_wait(&s->answers);
    hf_chan_close(s->queue);
}

static void handler(void *arg) {
    service *s = arg;
    request r;
    while (hf_chan_recv(s->queue, &r)) {
        hf_note("serve request %d (%llu us)", r.id, (unsigned long long)r.latency_us);
        hf_sleep(r.latency_us * HF_US);
        metrics_request_served(&s->metrics, r.latency_us);
        hf_sem_post(&s->answers);
    }
}

static void note_scrape(const char *what, const metrics_snapshot *snap) {
    hf_note("%s: requests_total=%llu buckets=%llu count=%llu sum=%llu us", what,
            (unsigned long long)snap->requests_total, (unsigned long long)snap->bucket_total,
            (unsigned long long)snap->latency_count, (unsigned long long)snap->latency_sum_us);
}

static void exporter(void *arg) {
    service *s = arg;
    hf_mutex_lock(&s->lock);
    while (!s->shutting_down) {
        if (hf_cond_wait_for(&s->shutdown, &s->lock, s->options.scrape_interval_ns)) continue;
        metrics_snapshot snap;
        metrics_scrape(&s->metrics, &snap);
        note_scrape("scrape", &snap);
    }
    hf_mutex_unlock(&s->lock);
    metrics_scrape(&s->metrics, &s->final_scrape);
    note_scrape("final scrape", &s->final_scrape);
}

static void run_service(bool indivisible_updates, bool hinted) {
    service *s = hf_alloc(sizeof *s);
    s->options = (service_options){
        .handlers = (int)hf_pick("handlers", 2, 4, 3),
        .requests = (int)hf_pick("requests", 2, 24, 12),
        .latency_default_us = 4000,
        .latency_min_us = 100,
        .latency_max_us = 150000,
        .scrape_interval_ns = 10 * HF_MS,
    };
    metrics_init(&s->metrics, indivisible_updates);
    s->metrics.unhinted = !hinted;
    s->queue = hf_chan_new("requests", sizeof(request), (size_t)s->options.requests);
    hf_sem_init(&s->answers, "answers", 0);
    hf_mutex_init(&s->lock, "exporter");
    hf_cond_init(&s->shutdown, "shutdown");

    int exporter_id = hf_spawn("exporter", exporter, s);
    int handler_ids[4];
    assert(s->options.handlers <= 4);
    for (int h = 0; h < s->options.handlers; h++)
        handler_ids[h] = hf_spawn(hf_printf("handler%d", h + 1), handler, s);
    hf_join(hf_spawn("client", client, s));
    for (int h = 0; h < s->options.handlers; h++) hf_join(handler_ids[h]);

    hf_mutex_lock(&s->lock);
    s->shutting_down = true;
    hf_cond_signal(&s->shutdown);
    hf_mutex_unlock(&s->lock);
    hf_join(exporter_id);

    const metrics_snapshot *f = &s->final_scrape;
    hf_note("expected: %llu requests, sum=%llu us", (unsigned long long)s->served_expected,
            (unsigned long long)s->latency_sum_expected_us);
    hf_always(f->requests_total == s->served_expected && f->bucket_total == s->served_expected &&
              f->latency_count == s->served_expected && f->latency_sum_us == s->latency_sum_expected_us,
              "the exported totals equal the number of updates");
}

static void metrics_race_buggy_main(void *arg) { (void)arg; run_service(false, true); }
static void metrics_race_fixed_main(void *arg) { (void)arg; run_service(true, true); }
static void metrics_race_nohint_buggy_main(void *arg) { (void)arg; run_service(false, false); }

HF_DEFINE_TARGET_PAIR(metrics_race,
    "metrics library: histogram count and sum by plain read-modify-write (WarpStream's race)", metrics_race_buggy_main,
    "metrics library with indivisible updates: atomic add and a compare-and-swap loop", metrics_race_fixed_main);

HF_DEFINE_TARGET(metrics_race_nohint_buggy_target) = {
    .name = "metrics_race_nohint_buggy",
    .summary = "metrics_race_buggy with no hf_switch_point(): the runtime preempts at shared accesses",
    .main = metrics_race_nohint_buggy_main,
    .preempt_at_accesses = true,
};
