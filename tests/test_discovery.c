/*
 * test_discovery.c — the discovery log end to end: the estimators against
 * hand-computed values, the species table against a plain count, the
 * plateau rule on a WarpStream-shaped campaign, the log written and read
 * back, two processes merged (in two files and in one), an AFL++ fork
 * server's children counted as its one instance, parse errors that
 * name file and line, whole lines after a kill, and what recording an
 * execution costs.
 */
#define _DEFAULT_SOURCE   /* mkdtemp, usleep */
#include "behaviour.h"
#include "check.h"
#include "discovery.h"
#include "files.h"
#include "hf.h"
#include "logread.h"
#include "sha1.h"
#include "species.h"
#include "status.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static const char *temp_path(const char *name) {
    static char paths[8][128];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static void write_text(const char *path, const char *text) {
    char error[256];
    if (hf_write_file(path, text, strlen(text), error, sizeof error)) {
        printf("# %s\n", error);
        exit(1);
    }
}

static int read_logs(hf_campaign *c, const char *a, const char *b, bool skip_bad, char *error) {
    const char *paths[] = {a, b};
    return hf_campaign_read(c, paths, b ? 2 : 1, skip_bad, error, 512);
}

static bool near(double a, double b) { return fabs(a - b) < 1e-9 * (1 + fabs(b)); }

/* ---- Estimators ---------------------------------------------------------- */

static void test_estimators(void) {
    CHECK(near(hf_good_turing(3, 12), 0.25), "Good-Turing: 3 singletons in 12 executions is 0.25");
    CHECK(hf_good_turing(0, 0) == 1.0, "Good-Turing before the first execution is 1");
    CHECK(near(hf_chao1(10, 4, 2), 14.0), "Chao1: S=10, f1=4, f2=2 gives 10 + 16/4 = 14");
    CHECK(near(hf_chao1(10, 4, 0), 16.0), "Chao1 with f2=0: 10 + 4*3/2 = 16");
    CHECK(near(hf_chao1(7, 0, 3), 7.0), "Chao1 with no singletons is S");
}

/* ---- Species table --------------------------------------------------------- */

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_species(void) {
    hf_species s;
    hf_species_init(&s);
    uint64_t seq[] = {10, 20, 10, 30, 10, 20, 0};   /* 0 is a signature like any other */
    uint64_t counts[7];
    for (int i = 0; i < 7; i++) counts[i] = hf_species_add(&s, seq[i]);
    CHECK(counts[0] == 1 && counts[2] == 2 && counts[4] == 3 && counts[5] == 2 && counts[6] == 1,
          "hf_species_add returns each signature's running count");
    CHECK(s.distinct == 4 && s.f1 == 2 && s.f2 == 1,
          "10,20,10,30,10,20,0: 4 distinct, f1=2 (30, 0), f2=1 (20) (got %llu, %llu, %llu)",
          (unsigned long long)s.distinct, (unsigned long long)s.f1, (unsigned long long)s.f2);
    hf_species_free(&s);

    /* 200,000 sightings of patterned signatures (multiples of 4096, which a
     * table indexed by low bits would pile up) against sorting and counting. */
    enum { N = 200000 };
    uint64_t *sig = malloc(N * sizeof *sig), *sorted = malloc(N * sizeof *sig);
    uint64_t x = 12345;
    hf_species_init(&s);
    for (int i = 0; i < N; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        sig[i] = (x % (i < N / 2 ? 50000 : 90000)) << 12;
        hf_species_add(&s, sig[i]);
    }
    memcpy(sorted, sig, N * sizeof *sig);
    qsort(sorted, N, sizeof *sorted, compare_u64);
    uint64_t distinct = 0, f1 = 0, f2 = 0;
    int counts_agree = 1;
    for (int i = 0; i < N;) {
        int j = i;
        while (j < N && sorted[j] == sorted[i]) j++;
        distinct++;
        f1 += j - i == 1;
        f2 += j - i == 2;
        counts_agree &= hf_species_count(&s, sorted[i]) == (uint64_t)(j - i);
        i = j;
    }
    CHECK(s.distinct == distinct && s.f1 == f1 && s.f2 == f2 && counts_agree,
          "200,000 sightings: S, f1, f2 and every count agree with sorting (S=%llu f1=%llu f2=%llu)",
          (unsigned long long)distinct, (unsigned long long)f1, (unsigned long long)f2);
    CHECK(hf_species_count(&s, 1) == 0, "a signature never seen has count 0");
    hf_species_free(&s);
    free(sig);
    free(sorted);
}

/* ---- The plateau rule ------------------------------------------------------ */

#define HOUR (3600ull * 1000000000ull)

/* WarpStream's shape: 1,000 executions per logical hour, a new behaviour
 * every hour up to hour 160, then none; singletons are seen again by
 * hour 170 but for `singletons_left`. */
static hf_progress warpstream_at(uint64_t hour, uint64_t singletons_left) {
    hf_progress p = {.wall_s = (double)hour * 60, .executions = hour * 1000, .logical_ns = hour * HOUR};
    uint64_t h = hour < 160 ? hour : 160;
    p.behaviours = 1 + h;
    p.f1 = hour < 170 ? (p.behaviours < 5 ? p.behaviours : 5) : singletons_left;
    p.f2 = p.behaviours > 20 ? 8 : 0;
    return p;
}

static void test_plateau(void) {
    hf_plateau pl = {0};
    uint64_t first_hold = 0;
    bool broke = false;
    for (uint64_t hour = 1; hour <= 1700; hour++) {
        hf_progress p = warpstream_at(hour, 1);
        hf_plateau_update(&pl, &p);
        if (pl.holds && !first_hold) first_hold = hour;
        if (first_hold && !pl.holds) broke = true;
    }
    CHECK(first_hold == 1600, "stalled at 160 logical h: the rule first holds at 1,600 h, ten times the effort (got %llu)",
          (unsigned long long)first_hold);
    CHECK(pl.quiet_since.logical_ns == 160 * HOUR && pl.quiet_since.executions == 160000,
          "it names 160 logical h and execution 160,000 as the plateau");
    CHECK(!broke, "once holding, it keeps holding while nothing new turns up");

    hf_plateau two = {0};
    for (uint64_t hour = 1; hour <= 1700; hour++) {
        hf_progress p = warpstream_at(hour, 2);
        hf_plateau_update(&two, &p);
    }
    CHECK(!two.holds, "with two singletons left, Good-Turing expects a new behaviour: no plateau");

    hf_progress again = warpstream_at(1701, 1);
    again.behaviours++;
    again.f1++;
    hf_plateau_update(&pl, &again);
    CHECK(!pl.holds && pl.quiet_since.logical_ns == 1701 * HOUR, "a new behaviour ends the plateau");

    /* A target that never sleeps: no logical time; executions judge alone. */
    hf_plateau flat = {0};
    hf_progress p = {.executions = 3000, .behaviours = 40, .f1 = 0, .f2 = 3};
    hf_plateau_update(&flat, &p);
    p.executions = 29999;
    hf_plateau_update(&flat, &p);
    bool before = flat.holds;
    p.executions = 30000;
    hf_plateau_update(&flat, &p);
    CHECK(!before && flat.holds, "without logical time, quiet from execution 3,000 holds at 30,000, not 29,999");

    hf_plateau small = {0};
    hf_progress q = {.executions = 10, .behaviours = 1};
    hf_plateau_update(&small, &q);
    q.executions = 29999;
    hf_plateau_update(&small, &q);
    CHECK(!small.holds, "29,999 executions are too few to call a plateau");

    char line[512];
    hf_status_line(line, sizeof line, &p, &flat);
    CHECK(strstr(line, "#30000\t") && strstr(line, "bhv: 40 ") && strstr(line, "PLATEAU since"),
          "the status line counts executions and behaviours and says PLATEAU (%s)", line);
    hf_status_line(line, sizeof line, &q, &small);
    CHECK(!strstr(line, "PLATEAU"), "and says nothing of it while the rule does not hold");
}

/* ---- Writing and reading back ---------------------------------------------- */

static hf_discovery *open_log(const char *path) {
    char error[512];
    hf_discovery *d = hf_discovery_open(path, "counter", "libFuzzer", NULL, error, sizeof error);
    if (!d) printf("# %s\n", error);
    return d;
}

static void test_round_trip(void) {
    const char *path = temp_path("one.log");
    hf_discovery *d = open_log(path);
    uint64_t x = 99;
    for (int i = 0; i < 30000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        uint64_t sig = (x % 1000) * (x % 7 ? 1 : 977);   /* a long tail */
        hf_discovery_record(d, &sig, 1, 1000 + x % 5000, false);
    }
    hf_progress own = *hf_discovery_progress(d);
    hf_discovery_close(d);

    hf_campaign c;
    char error[512];
    int rc = read_logs(&c, path, NULL, false, error);
    CHECK(rc == 0, "a log read back without error (%s)", rc ? error : "");
    if (rc) return;
    const hf_progress *last = &c.points[c.count - 1];
    CHECK(c.count > 100, "30,000 executions make a curve of more than 100 points (%zu)", c.count);
    CHECK(last->executions == 30000 && last->logical_ns == own.logical_ns && last->behaviours == own.behaviours &&
              last->f1 == own.f1 && last->f2 == own.f2,
          "one process merged is itself: executions, logical time, S, f1, f2 as it counted them");
    CHECK(!strcmp(c.target, "counter") && !strcmp(c.engines, "libFuzzer") && c.processes == 1,
          "the start line gives target, engine and one process");
    bool ordered = true;
    for (size_t i = 1; i < c.count; i++)
        ordered &= c.points[i].executions > c.points[i - 1].executions && c.points[i].wall_s >= c.points[i - 1].wall_s;
    CHECK(ordered, "points come in order of executions and wall time");
    hf_campaign_free(&c);
}

/* Two processes with overlapping behaviours: A sees 1,2,2,3, B sees
 * 3,4,4,4,4,5.  Together: 1 once, 2 twice, 3 twice, 4 four times, 5 once. */
static void record_all(hf_discovery *d, const uint64_t *sig, int n, bool crash_last) {
    for (int i = 0; i < n; i++) hf_discovery_record(d, &sig[i], 1, HF_SEC, crash_last && i == n - 1);
}

static void check_merged(const char *what, const char *a, const char *b) {
    hf_campaign c;
    char error[512];
    int rc = read_logs(&c, a, b, false, error);
    if (rc) {
        CHECK(0, "%s: merge read (%s)", what, error);
        return;
    }
    const hf_progress *m = &c.points[c.count - 1];
    CHECK(c.processes == 2 && m->executions == 10 && m->logical_ns == 10 * HF_SEC && m->crashes == 1,
          "%s: executions, logical time and crashes add up (10, 10 s, 1)", what);
    CHECK(m->behaviours == 5 && m->f1 == 2 && m->f2 == 2,
          "%s: S=5, f1=2, f2=2 from the union, not the sum (got %llu, %llu, %llu)", what,
          (unsigned long long)m->behaviours, (unsigned long long)m->f1, (unsigned long long)m->f2);
    hf_campaign_free(&c);
}

/* A run shows a set of behaviours, and each counts once per run that shows
 * it (incidence): runs {1,2}, {2,3}, {} in one process, {3,4} in another. */
static void test_incidence(void) {
    static const uint64_t r1[] = {1, 2}, r2[] = {2, 3}, r3[] = {3, 4};
    const char *path = temp_path("sets.log");
    hf_discovery *d = open_log(path), *e = open_log(path);
    hf_discovery_record(d, r1, 2, HF_SEC, false);
    hf_discovery_record(d, r2, 2, HF_SEC, false);
    hf_discovery_record(d, NULL, 0, HF_SEC, false);
    const hf_progress *own = hf_discovery_progress(d);
    CHECK(own->executions == 3 && own->behaviours == 3 && own->f1 == 2 && own->f2 == 1,
          "runs {1,2} {2,3} {}: 3 executions, S=3, f1=2, f2=1 (got %llu, %llu, %llu, %llu)",
          (unsigned long long)own->executions, (unsigned long long)own->behaviours,
          (unsigned long long)own->f1, (unsigned long long)own->f2);
    hf_discovery_record(e, r3, 2, HF_SEC, false);
    hf_discovery_close(d);
    hf_discovery_close(e);
    hf_campaign c;
    char error[512];
    int rc = read_logs(&c, path, NULL, false, error);
    CHECK(rc == 0, "the two processes' log reads back (%s)", rc ? error : "");
    if (rc) return;
    const hf_progress *m = &c.points[c.count - 1];
    CHECK(m->executions == 4 && m->behaviours == 4 && m->f1 == 2 && m->f2 == 2,
          "merged with a run {3,4}: 4 executions, S=4, f1=2 (1, 4), f2=2 (2, 3) (got %llu, %llu, %llu, %llu)",
          (unsigned long long)m->executions, (unsigned long long)m->behaviours, (unsigned long long)m->f1,
          (unsigned long long)m->f2);
    hf_campaign_free(&c);
}

static void test_merge(void) {
    static const uint64_t a[] = {1, 2, 2, 3}, b[] = {3, 4, 4, 4, 4, 5};
    hf_discovery *da = open_log(temp_path("a.log")), *db = open_log(temp_path("b.log"));
    record_all(da, a, 4, false);
    record_all(db, b, 6, true);
    hf_discovery_close(da);
    hf_discovery_close(db);
    check_merged("two files", temp_path("a.log"), temp_path("b.log"));

    const char *shared = temp_path("shared.log");
    da = open_log(shared);
    db = open_log(shared);
    hf_discovery_record(da, a, 1, HF_SEC, false);   /* interleaved appends */
    record_all(db, b, 6, true);
    record_all(da, a + 1, 3, false);
    hf_discovery_close(da);
    hf_discovery_close(db);
    check_merged("one shared file", shared, NULL);
}

/* ---- Facts: properties, faults, crashes, categories ------------------------- */

static void test_sha1(void) {
    static const struct { const char *text, *hex; } vectors[] = {
        {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
        {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        char hex[41];
        hf_sha1_hex((const uint8_t *)vectors[i].text, strlen(vectors[i].text), hex);
        CHECK(!strcmp(hex, vectors[i].hex), "SHA-1 of a %zu-byte text is FIPS 180's (%s)", strlen(vectors[i].text),
              hex);
    }
}

/* Two processes on one file declare the same two properties; the merged
 * counts are their sums, first held and the crash placed in the
 * campaign's executions, an escaped message read back as written. */
static void test_facts(void) {
    static const hf_log_property props[] = {
        {"always", "targets/t/t.c", 10, "the total is right"},
        {"sometimes", "targets/t/t.c", 20, "50% of runs: a retry"},
    };
    static const uint64_t b1[] = {7, 8}, b2[] = {9};
    static const uint8_t k1[] = {HF_FEAT_INTERLEAVING, HF_FEAT_FAULT}, k2[] = {HF_FEAT_STATE};
    const char *path = temp_path("facts.log");
    hf_discovery *d = open_log(path), *e = open_log(path);
    if (!d || !e) return;
    hf_discovery_declare(d, props, 2);
    hf_discovery_declare(e, props, 2);
    uint64_t injected[HF_FAULT_KIND_COUNT] = {0};
    injected[HF_FAULT_MSG_DROP] = 3;
    uint8_t run1[] = {HF_LOG_EVALUATED | HF_LOG_HELD, HF_LOG_EVALUATED | HF_LOG_FAILED};
    hf_discovery_record_run(d, &(hf_run_facts){
        .behaviours = b1, .categories = k1, .count = 2, .logical_ns = HF_SEC, .properties = run1,
        .faults_allowed = HF_FAULT_BIT(HF_FAULT_MSG_DROP) | HF_FAULT_BIT(HF_FAULT_CRASH),
        .faults_enabled = HF_FAULT_BIT(HF_FAULT_MSG_DROP), .faults_injected = injected});
    uint8_t run2[] = {HF_LOG_EVALUATED | HF_LOG_HELD, HF_LOG_EVALUATED | HF_LOG_HELD};
    hf_discovery_record_run(d, &(hf_run_facts){.behaviours = b2, .categories = k2, .count = 1,
                                               .logical_ns = HF_SEC, .properties = run2});
    hf_discovery_close(d);
    /* The reader merges processes' lines by their times, which the log
     * keeps to the millisecond: lines less than that apart can come in
     * either order.  The second process's run comes well after. */
    nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    char sha1[41];
    hf_sha1_hex((const uint8_t *)"xyz", 3, sha1);
    uint8_t run3[] = {HF_LOG_EVALUATED | HF_LOG_FAILED, 0};
    hf_discovery_record_run(e, &(hf_run_facts){
        .behaviours = b1, .categories = k1, .count = 1, .logical_ns = HF_SEC, .properties = run3,
        .failed = true, .outcome = "property", .message = "the total is right", .property = 0,
        .input_sha1 = sha1, .replay_file = "out dir/crash-x"});
    hf_discovery_close(e);

    hf_campaign c;
    char error[512];
    int rc = read_logs(&c, path, NULL, false, error);
    CHECK(rc == 0, "a log with facts lines of two processes reads back (%s)", rc ? error : "");
    if (rc) return;
    const hf_campaign_facts *f = &c.facts;
    CHECK(f->processes == 2 && f->prop_count == 2, "two processes with facts, two properties merged (%zu, %zu)",
          f->processes, f->prop_count);
    if (f->prop_count == 2) {
        const hf_log_prop *a = &f->props[0], *s = &f->props[1];
        CHECK(a->evaluated == 3 && a->held == 2 && a->failed == 1 && a->first_held == 1,
              "the always: 3 runs evaluated, 2 held, 1 failed, first held at 1 (%llu, %llu, %llu, %llu)",
              (unsigned long long)a->evaluated, (unsigned long long)a->held, (unsigned long long)a->failed,
              (unsigned long long)a->first_held);
        CHECK(s->evaluated == 2 && s->held == 1 && s->failed == 1 && s->first_held == 2 &&
                  !strcmp(s->message, props[1].message) && !strcmp(s->kind, "sometimes") && s->line == 20,
              "the sometimes: 2, 1, 1, first held at execution 2, its message read back as written ('%s')",
              s->message);
    }
    const hf_log_fault *drop = &f->faults[HF_FAULT_MSG_DROP], *crash = &f->faults[HF_FAULT_CRASH];
    CHECK(drop->allowed == 1 && drop->enabled == 1 && drop->injected == 3 && crash->allowed == 1 &&
              crash->enabled == 0 && crash->injected == 0 && f->faults[HF_FAULT_CLOG].allowed == 0,
          "faults: drop allowed 1, enabled 1, injected 3; crash allowed 1, never enabled");
    CHECK(f->crash_count == 1 && f->crashes[0].execution == 3 && f->crashes[0].property == 0 &&
              !strcmp(f->crashes[0].sha1, sha1) && !strcmp(f->crashes[0].file, "out dir/crash-x") &&
              !strcmp(f->crashes[0].outcome, "property"),
          "the crash: the campaign's execution 3, the always, the input's SHA-1, the file with its space");
    const uint64_t *last = f->categories[c.count - 1];
    CHECK(last[HF_FEAT_INTERLEAVING] == 1 && last[HF_FEAT_FAULT] == 1 && last[HF_FEAT_STATE] == 1 && last[0] == 0,
          "categories: behaviours 7 (interleaving), 8 (fault), 9 (state), none unknown");
    hf_campaign_free(&c);

    /* An older log has no facts: nothing is known, not zero. */
    rc = read_logs(&c, temp_path("one.log"), NULL, false, error);
    CHECK(rc == 0 && c.facts.processes == 0 && c.facts.prop_count == 0 &&
              c.facts.categories[c.count - 1][0] == c.points[c.count - 1].behaviours,
          "a log without facts lines: no process with facts, every behaviour's category unknown");
    if (rc == 0) hf_campaign_free(&c);
}

/* ---- Instances ------------------------------------------------------------- */

/* An AFL++ instance's fork server forks child after child, each logging as
 * a process of its own: the campaign counts them as the instance they run
 * in (ENGINE_PID), and a log without that field counts each process. */
static void test_instances(void) {
    const char *path = temp_path("instances.log");
    write_text(path,
               "start 00000000000a 1700000000.000 101 counter AFL++ 100\n"
               "stats 00000000000a 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n"
               "start 00000000000b 1700000000.100 201 counter AFL++ 200\n"
               "stats 00000000000b 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n"
               "start 00000000000c 1700000000.200 102 counter AFL++ 100\n"
               "stats 00000000000c 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n"
               "start 00000000000d 1700000000.300 103 counter AFL++ 100\n"
               "stats 00000000000d 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n");
    hf_campaign c;
    char error[512], size[64] = "";
    int rc = read_logs(&c, path, NULL, false, error);
    CHECK(rc == 0, "a log with ENGINE_PID fields reads (%s)", rc ? error : "");
    if (rc) return;
    hf_campaign_size(&c, size, sizeof size);
    CHECK(c.processes == 4 && c.instances == 2 && !strcmp(size, "2 instances"),
          "four fork-server children of two AFL++ instances: 4 processes, \"2 instances\" (%zu, %zu, %s)",
          c.processes, c.instances, size);
    hf_campaign_free(&c);

    path = temp_path("old-start.log");
    write_text(path,
               "start 00000000000a 1700000000.000 101 counter libFuzzer\n"
               "stats 00000000000a 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n"
               "start 00000000000b 1700000000.100 102 counter libFuzzer 102\n"
               "stats 00000000000b 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n");
    rc = read_logs(&c, path, NULL, false, error);
    CHECK(rc == 0, "start lines with and without ENGINE_PID read together (%s)", rc ? error : "");
    if (rc) return;
    hf_campaign_size(&c, size, sizeof size);
    CHECK(c.processes == 2 && c.instances == 2 && !strcmp(size, "2 processes"),
          "libFuzzer processes, and those of a log without ENGINE_PID, are each their own (%s)", size);
    hf_campaign_free(&c);

    /* The writer: a fork server (a process with afl-fuzz's __AFL_SHM_ID)
     * forks three children one after another, each logging; then a process
     * outside afl-fuzz logs.  Two instances, four processes. */
    path = temp_path("forkserver.log");
    pid_t server = fork();
    if (server == 0) {
        setenv("__AFL_SHM_ID", "1", 1);
        for (int k = 0; k < 3; k++) {
            pid_t child = fork();
            if (child == 0) {
                hf_discovery *d = hf_discovery_open(path, "counter", "AFL++", NULL, error, sizeof error);
                if (!d) _exit(1);
                uint64_t sig = (uint64_t)k;
                hf_discovery_record(d, &sig, 1, HF_SEC, false);
                hf_discovery_close(d);
                _exit(0);
            }
            int st;
            if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) _exit(1);
        }
        _exit(0);
    }
    int st = -1;
    bool served = server > 0 && waitpid(server, &st, 0) == server && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    hf_discovery *d = hf_discovery_open(path, "counter", "AFL++", NULL, error, sizeof error);
    if (d) {
        uint64_t sig = 9;
        hf_discovery_record(d, &sig, 1, HF_SEC, false);
        hf_discovery_close(d);
    }
    rc = served && d ? read_logs(&c, path, NULL, false, error) : -1;
    CHECK(rc == 0, "three children of a fork server and one other process log, and the log reads (%s)",
          rc ? error : "");
    if (rc) return;
    hf_campaign_size(&c, size, sizeof size);
    CHECK(c.processes == 4 && c.instances == 2 && !strcmp(size, "2 instances"),
          "the fork server's children write its pid as ENGINE_PID: 4 processes, \"2 instances\" (%zu, %zu, %s)",
          c.processes, c.instances, size);
    hf_campaign_free(&c);
}

/* ---- Bad lines ------------------------------------------------------------- */

static const char good_log[] =
    "start 0123456789ab 1700000000.000 42 counter libFuzzer\n"
    "seen 0123456789ab 00000000000000aa 1\n"
    "stats 0123456789ab 0.001 1 0.000000000 1 1 0 1.000000e+00 1.000 0\n"
    "seen 0123456789ab 00000000000000aa 2\n"
    "stats 0123456789ab 0.002 2 0.000000000 1 0 1 0.000000e+00 1.000 0\n";

static void expect_error(const char *name, const char *text, const char *want_where, const char *want_what) {
    const char *path = temp_path(name);
    write_text(path, text);
    hf_campaign c;
    char error[512], where[160];
    snprintf(where, sizeof where, "%s:%s", path, want_where);
    int rc = read_logs(&c, path, NULL, false, error);
    CHECK(rc == -1 && strstr(error, where) && strstr(error, want_what), "%s: error names %s and says '%s' (%s)",
          name, want_where, want_what, rc ? error : "no error");
    if (!rc) hf_campaign_free(&c);
}

static void test_bad_lines(void) {
    char text[1024];
    expect_error("cut.log", "start 0123456789ab 1700000000.000 42 counter libFuzzer\nstats 0123456789ab 0.0",
                 "2 (byte 55)", "cut short");
    snprintf(text, sizeof text, "%sstats 0123456789ab 0.003 3 0.000000000 1 0 1 0.000000e+00 1.000 x\n", good_log);
    expect_error("letter.log", text, "6 (byte", "crashes 'x' is not a count");
    snprintf(text, sizeof text, "%sstats 0123456789ab 0.003 1 0.000000000 1 0 1 0.000000e+00 1.000 0\n", good_log);
    expect_error("backwards.log", text, "6 (byte", "went backwards");
    expect_error("orphan.log", "seen 0123456789ab 00000000000000aa 1\n", "1 (byte 0)", "no start line");
    expect_error("kind.log", "begin 0123456789ab\n", "1 (byte 0)", "unknown kind");
    snprintf(text, sizeof text, "%sstats 0123456789ab 0.003 3 0.000000000 1 0 1 5.000000e-01 1.000 0\n", good_log);
    expect_error("gt.log", text, "6 (byte", "good-turing");
    expect_error("empty.log", "", "", "no stats lines");

    /* --skip-bad: the good lines still make a chart. */
    snprintf(text, sizeof text, "%sstats 0123456789ab 0.0\x01\n"
             "stats 0123456789ab 0.004 4 0.000000000 1 0 0 0.000000e+00 1.000 0\nstats 0123456789ab 0.0",
             good_log);
    const char *path = temp_path("skip.log");
    write_text(path, text);
    hf_campaign c;
    char error[512];
    int rc = read_logs(&c, path, NULL, true, error);
    CHECK(rc == 0 && c.count == 3 && c.skipped == 2 && strstr(c.first_skipped, ":6 (byte"),
          "skip_bad: 2 bad lines skipped, the first named, 3 good points kept");
    if (rc == 0) hf_campaign_free(&c);

    const char *other = temp_path("other.log");
    write_text(other, "start 0123456789ac 1700000000.000 43 counter_buggy AFL++\n");
    rc = read_logs(&c, temp_path("skip.log"), other, true, error);
    CHECK(rc == -1 && strstr(error, "counter_buggy") && strstr(error, "skip.log:1"),
          "logs of two targets do not merge, skip_bad or not (%s)", rc ? error : "merged");
}

/* ---- A killed process leaves whole lines ----------------------------------- */

/* A child appending to the log at `path` for ever; returns once it has
 * opened the log and recorded a first run, so that a loaded machine cannot
 * kill it before it has written a line. */
static pid_t start_writer(const char *path, uint64_t seed) {
    int ready[2];
    if (pipe(ready) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        hf_discovery *d = open_log(path);
        uint64_t x = seed;
        for (uint64_t i = 0;; i++) {
            if (i == 1 && (write(ready[1], "", 1) != 1 || close(ready[1]) != 0)) _exit(1);
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            /* Mostly known behaviours, now and then a burst of new ones. */
            uint64_t sig = i % 50000 < 1000 ? x : x % 3000;
            hf_discovery_record(d, &sig, 1, 1000, false);
        }
    }
    close(ready[1]);
    char byte;
    if (pid > 0 && read(ready[0], &byte, 1) != 1) pid = -1;
    close(ready[0]);
    return pid;
}

enum { ROUNDS = 6 };

static void test_kill(void) {
    bool whole = true, readable = true;
    size_t processes = 0;
    const char *path = temp_path("killed.log");
    for (int round = 0; round < ROUNDS; round++) {
        pid_t a = start_writer(path, 7 + (uint64_t)round), b = start_writer(path, 1234567 + (uint64_t)round);
        usleep(20000 + 3000 * (useconds_t)round);
        kill(a, SIGKILL);
        kill(b, SIGKILL);
        waitpid(a, NULL, 0);
        waitpid(b, NULL, 0);
    }
    size_t size;
    char error[512];
    uint8_t *data = hf_read_file(path, &size, error, sizeof error);
    whole = data && size > 0 && data[size - 1] == '\n';
    /* What makes it so: no line crosses a 4 KiB boundary, where Linux may
     * cut a write short when it kills the writer. */
    bool within_pages = data != NULL;
    for (size_t start = 0, i = 0; data && i < size; i++) {
        if (data[i] != '\n') continue;
        within_pages &= start / HF_LOG_PAGE == i / HF_LOG_PAGE;
        start = i + 1;
    }
    free(data);
    hf_campaign c;
    readable = read_logs(&c, path, NULL, false, error) == 0;
    if (readable) {
        processes = c.processes;
        hf_campaign_free(&c);
    }
    CHECK(within_pages, "%zu bytes from %d processes: no line crosses a 4 KiB boundary of the file", size, 2 * ROUNDS);
    CHECK(whole, "%d processes killed while appending to one log: it ends with a whole line", 2 * ROUNDS);
    CHECK(readable && processes == 2 * ROUNDS, "and every line in it parses: %d processes merge (%s)", 2 * ROUNDS,
          readable ? "ok" : error);
}

/* ---- What recording costs -------------------------------------------------- */

static double seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { BENCH_N = 1000000 };
static volatile uint64_t sink;

/* A stream of signatures: 20,000 behaviours, most seen often. */
static inline uint64_t next_signature(uint64_t *x) {
    *x ^= *x << 13; *x ^= *x >> 7; *x ^= *x << 17;
    return (*x % 20000) * 0x9e3779b97f4a7c15u;
}

static double bench_generate(void) {
    uint64_t x = 5, acc = 0;
    double t0 = seconds();
    for (int i = 0; i < BENCH_N; i++) acc += next_signature(&x);
    sink = acc;
    return (seconds() - t0) / BENCH_N;
}

static double bench_species(void) {
    hf_species s;
    hf_species_init(&s);
    uint64_t x = 5, acc = 0;
    double t0 = seconds();
    for (int i = 0; i < BENCH_N; i++) acc += hf_species_add(&s, next_signature(&x));
    double t = seconds() - t0;
    sink = acc;
    hf_species_free(&s);
    return t / BENCH_N;
}

static double bench_record(void) {
    hf_discovery *d = open_log(temp_path("bench.log"));
    uint64_t x = 5;
    double t0 = seconds();
    for (int i = 0; i < BENCH_N; i++) {
        uint64_t sig = next_signature(&x);
        hf_discovery_record(d, &sig, 1, 1000, false);
    }
    double t = seconds() - t0;
    hf_discovery_close(d);
    unlink(temp_path("bench.log"));
    return t / BENCH_N;
}

static double best_of_3(double (*f)(void)) {
    double b = f();
    for (int i = 0; i < 2; i++) {
        double v = f();
        if (v < b) b = v;
    }
    return b;
}

static void test_cost(void) {
    double gen = best_of_3(bench_generate), add = best_of_3(bench_species), rec = best_of_3(bench_record);
    CHECK(rec < 1e-6, "recording an execution: %.1f ns (a bare hash-table count %.1f ns, the loop alone %.1f ns)",
          rec * 1e9, add * 1e9, gen * 1e9);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/hf-discovery-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_estimators();
    test_species();
    test_plateau();
    test_round_trip();
    test_merge();
    test_incidence();
    test_sha1();
    test_facts();
    test_instances();
    test_bad_lines();
    test_kill();
    test_cost();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    return check_exit();
}
