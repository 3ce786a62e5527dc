/*
 * logread.c — parsing discovery logs and merging their processes.
 *
 * Reading is two passes: every line is checked and kept (start lines name
 * processes, seen lines go to their process's list, stats lines become
 * records), then the records are put in wall-clock order and swept once,
 * adding each process's new seen lines to one table of behaviours.
 */
#include "logread.h"
#include "behaviour.h"
#include "files.h"
#include "discovery.h"
#include "species.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line is split into at most MAX_FIELDS fields, one more than a stats
 * line has, so that a line with one too many is told so. */
enum { STATS_FIELDS = 11, MAX_FIELDS = STATS_FIELDS + 1, MAX_LINE = 512 };

typedef struct process {
    uint64_t id;
    double start_unix;
    uint64_t *seen;          /* behaviours, in log order, one per seen line */
    size_t seen_count, seen_cap;
    size_t seen_merged;      /* how many the merge has added so far */
    bool has_stats;
    hf_progress last;        /* its latest stats line, as written */
    /* Its facts lines (discovery.h), when it has a facts line. */
    bool facts;
    uint8_t *seen_category;  /* per seen line: 0 unknown, else hf_feature_kind */
    size_t *prop_map;        /* its property index -> the campaign's */
    uint64_t (*prop_last)[4];    /* evaluated, held, failed, first held, as its held lines said */
    uint64_t (*prop_merged)[4];  /* the same, as far as the merge has added them */
    size_t prop_count, prop_cap;
    hf_log_fault fault_last[HF_FAULT_KIND_COUNT], fault_merged[HF_FAULT_KIND_COUNT];
    size_t *fact_list;       /* indexes into reader.facts, in log order */
    size_t fact_count, fact_cap;
    size_t facts_merged;
} process;

#define NO_PROPERTY SIZE_MAX   /* in prop_map: a property line that was skipped */

typedef enum fact_kind { FACT_HELD, FACT_FAULT, FACT_CRASH } fact_kind;

typedef struct fact {        /* a held, fault or crash line, waiting for the merge */
    fact_kind kind;
    size_t index;            /* the process's property index, fault kind, or crash in campaign.facts */
    uint64_t counts[4];
} fact;

typedef struct record {      /* one stats line */
    double when;             /* unix seconds */
    size_t order;            /* among all lines read, to break ties */
    size_t process;
    size_t seen_mark;        /* the process's seen lines written before it */
    size_t fact_mark;        /* and its facts lines */
    hf_progress p;           /* as written: wall_s is the process's own */
} record;

typedef struct reader {
    hf_campaign *c;
    process *procs;
    size_t nprocs, procs_cap;
    uint64_t *engine_pids;   /* the instances whose processes name another as ENGINE_PID: few */
    size_t nengine_pids, engine_pids_cap;
    uint64_t *map_ids;       /* open addressing: process id -> index + 1 */
    size_t *map_index;
    size_t map_mask;
    record *recs;
    size_t nrecs, recs_cap;
    fact *facts;
    size_t nfacts, facts_cap;
    size_t props_cap, crashes_cap;   /* of campaign.facts */
    size_t lines_read;
    char target_where[300];  /* where the target was first named */
    /* The line being read, for errors. */
    const char *path;
    size_t line, offset;
    char error[512];
    bool fatal;              /* the logs cannot be merged, skip_bad or not */
} reader;

static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...) {
    int n = snprintf(r->error, sizeof r->error, "%s:%zu (byte %zu): ", r->path, r->line, r->offset);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof r->error) vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Grows *items (of `size` bytes each) to hold at least `need`. */
static bool reserve(void **items, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return true;
    size_t grown = *cap ? *cap * 2 : 64;
    while (grown < need) grown *= 2;
    void *p = realloc(*items, grown * size);
    if (!p) return false;
    *items = p;
    *cap = grown;
    return true;
}

/* ---- Fields ------------------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t *out) {
    if (!*s) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* Digits, a point, digits: what "%.Nf" prints for a non-negative value. */
static bool parse_decimal(const char *s, double *out) {
    const char *point = strchr(s, '.');
    size_t len = strlen(s);
    if (!point || point == s || point == s + len - 1) return false;
    for (const char *p = s; *p; p++)
        if (p != point && (*p < '0' || *p > '9')) return false;
    *out = strtod(s, NULL);
    return true;
}

/* Logical seconds: "S.NNNNNNNNN", exactly, into nanoseconds. */
static bool parse_logical(const char *s, uint64_t *ns) {
    const char *point = strchr(s, '.');
    if (!point || strlen(point + 1) != 9) return false;
    char whole[32];
    size_t wlen = (size_t)(point - s);
    if (wlen == 0 || wlen >= sizeof whole) return false;
    memcpy(whole, s, wlen);
    whole[wlen] = '\0';
    uint64_t sec, frac;
    if (!parse_u64(whole, &sec) || !parse_u64(point + 1, &frac)) return false;
    if (sec > (UINT64_MAX - frac) / 1000000000u) return false;
    *ns = sec * 1000000000u + frac;
    return true;
}

static bool parse_hex(const char *s, size_t digits, uint64_t *out) {
    if (strlen(s) != digits) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
        if (d < 0) return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return true;
}

/* ---- Processes by id ---------------------------------------------------- */

static size_t find_process(const reader *r, uint64_t id) {
    if (!r->map_ids) return 0;
    for (size_t i = (size_t)hf_mix64(id) & r->map_mask; r->map_index[i];
         i = (i + 1) & r->map_mask)
        if (r->map_ids[i] == id) return r->map_index[i];
    return 0;
}

static void map_insert(reader *r, uint64_t id, size_t index_plus_one) {
    size_t i = (size_t)hf_mix64(id) & r->map_mask;
    while (r->map_index[i]) i = (i + 1) & r->map_mask;
    r->map_ids[i] = id;
    r->map_index[i] = index_plus_one;
}

/* Room for one more process in the map, kept at most half full. */
static bool map_reserve(reader *r) {
    size_t cap = r->map_ids ? r->map_mask + 1 : 0;
    if (2 * (r->nprocs + 1) <= cap) return true;
    size_t grown = cap ? cap * 2 : 64;
    uint64_t *ids = calloc(grown, sizeof *ids);
    size_t *index = calloc(grown, sizeof *index);
    if (!ids || !index) { free(ids); free(index); return false; }
    uint64_t *old_ids = r->map_ids;
    size_t *old_index = r->map_index;
    r->map_ids = ids;
    r->map_index = index;
    r->map_mask = grown - 1;
    for (size_t i = 0; i < cap; i++)
        if (old_index[i]) map_insert(r, old_ids[i], old_index[i]);
    free(old_ids);
    free(old_index);
    return true;
}

static int lookup_process(reader *r, const char *field, size_t *index) {
    uint64_t id;
    if (!parse_hex(field, 12, &id)) return fail(r, "process id '%s' is not 12 hex digits", field);
    size_t found = find_process(r, id);
    if (!found) return fail(r, "process %s has no start line before this one", field);
    *index = found - 1;
    return 0;
}

/* ---- Lines -------------------------------------------------------------- */

static int read_start(reader *r, char **f, int n) {
    if (n != 6 && n != 7) return fail(r, "a start line has 6 or 7 fields, this one %d", n);
    uint64_t id, pid, engine_pid = 0;
    double unix_s;
    if (!parse_hex(f[1], 12, &id)) return fail(r, "process id '%s' is not 12 hex digits", f[1]);
    if (find_process(r, id)) return fail(r, "process %s starts a second time", f[1]);
    if (!parse_decimal(f[2], &unix_s)) return fail(r, "start time '%s' is not a decimal number", f[2]);
    if (!parse_u64(f[3], &pid)) return fail(r, "process number '%s' is not a number", f[3]);
    if (n == 7 && !parse_u64(f[6], &engine_pid)) return fail(r, "engine process '%s' is not a number", f[6]);
    if (strlen(f[4]) >= sizeof r->c->target) return fail(r, "target name too long");
    if (strlen(f[5]) >= 32) return fail(r, "engine name too long");
    hf_campaign *c = r->c;
    if (c->target[0] && strcmp(c->target, f[4])) {
        r->fatal = true;
        return fail(r, "this log is of target %s, %s is of %s: a chart shows one target", f[4],
                    r->target_where, c->target);
    }
    if (!reserve((void **)&r->procs, &r->procs_cap, r->nprocs + 1, sizeof *r->procs) || !map_reserve(r)) {
        r->fatal = true;
        return fail(r, "out of memory");
    }
    if (!c->target[0]) {
        snprintf(c->target, sizeof c->target, "%s", f[4]);
        snprintf(r->target_where, sizeof r->target_where, "%s:%zu", r->path, r->line);
    }
    /* Engines in order of appearance, each once: "libFuzzer+AFL++". */
    char list[sizeof c->engines + 2], word[40];
    snprintf(list, sizeof list, "+%s+", c->engines);
    snprintf(word, sizeof word, "+%s+", f[5]);
    size_t used = strlen(c->engines);
    if (!strstr(list, word) && used + strlen(f[5]) + 2 <= sizeof c->engines)
        snprintf(c->engines + used, sizeof c->engines - used, "%s%s", used ? "+" : "", f[5]);
    process *p = &r->procs[r->nprocs++];
    *p = (process){.id = id, .start_unix = unix_s};
    map_insert(r, id, r->nprocs);
    c->processes++;
    /* A process run by another (an AFL++ fork server's child) is of that
     * one's instance, which an earlier child may have counted. */
    bool counted = false;
    if (n == 7 && engine_pid != pid) {
        for (size_t k = 0; k < r->nengine_pids && !counted; k++) counted = r->engine_pids[k] == engine_pid;
        if (!counted) {
            if (!reserve((void **)&r->engine_pids, &r->engine_pids_cap, r->nengine_pids + 1, sizeof *r->engine_pids)) {
                r->fatal = true;
                return fail(r, "out of memory");
            }
            r->engine_pids[r->nengine_pids++] = engine_pid;
        }
    }
    if (!counted) c->instances++;
    return 0;
}

static int category_of(const char *name) {
    for (int k = 1; k < HF_CATEGORIES; k++)
        if (!strcmp(name, hf_feature_kind_name(k))) return k;
    return 0;
}

static int read_seen(reader *r, char **f, int n) {
    if (n != 4 && n != 5) return fail(r, "a seen line has 4 or 5 fields, this one %d", n);
    size_t pi;
    uint64_t behaviour, count;
    if (lookup_process(r, f[1], &pi)) return -1;
    if (!parse_hex(f[2], 16, &behaviour)) return fail(r, "behaviour '%s' is not 16 hex digits", f[2]);
    if (!parse_u64(f[3], &count) || count < 1 || count > 3)
        return fail(r, "sighting count '%s' is not 1, 2 or 3", f[3]);
    int category = 0;
    if (n == 5 && !(category = category_of(f[4])))
        return fail(r, "behaviour category '%s' is not interleaving, state, property, message or fault", f[4]);
    process *p = &r->procs[pi];
    size_t cap = p->seen_cap;
    if (!reserve((void **)&p->seen, &p->seen_cap, p->seen_count + 1, sizeof *p->seen) ||
        (p->seen_cap != cap && !(p->seen_category = realloc(p->seen_category, p->seen_cap)))) {
        r->fatal = true;
        return fail(r, "out of memory");
    }
    p->seen_category[p->seen_count] = (uint8_t)category;
    p->seen[p->seen_count++] = behaviour;
    return 0;
}

/* ---- Facts lines ------------------------------------------------------------ */

/* Decodes escaped text (discovery.h) into out[0..size); false when it is
 * not well formed or does not fit. */
static bool unescape(const char *s, char *out, size_t size) {
    if (!strcmp(s, "-")) { out[0] = '\0'; return true; }
    size_t o = 0;
    for (; *s; s++) {
        if (o + 1 >= size) return false;
        if (*s != '%') { out[o++] = *s; continue; }
        uint64_t byte;
        char hex[3] = {s[1], s[1] ? s[2] : '\0', '\0'};
        if (hex[0] >= 'A' && hex[0] <= 'F') hex[0] = (char)(hex[0] - 'A' + 'a');
        if (hex[1] >= 'A' && hex[1] <= 'F') hex[1] = (char)(hex[1] - 'A' + 'a');
        if (!parse_hex(hex, 2, &byte) || byte == 0) return false;
        out[o++] = (char)byte;
        s += 2;
    }
    out[o] = '\0';
    return true;
}

static int fact_process(reader *r, char **f, const char *what, size_t *pi) {
    if (lookup_process(r, f[1], pi)) return -1;
    if (!r->procs[*pi].facts) return fail(r, "a %s line of process %s, which has no facts line", what, f[1]);
    return 0;
}

static int add_fact(reader *r, process *p, fact x) {
    if (!reserve((void **)&r->facts, &r->facts_cap, r->nfacts + 1, sizeof *r->facts) ||
        !reserve((void **)&p->fact_list, &p->fact_cap, p->fact_count + 1, sizeof *p->fact_list)) {
        r->fatal = true;
        return fail(r, "out of memory");
    }
    p->fact_list[p->fact_count++] = r->nfacts;
    r->facts[r->nfacts++] = x;
    return 0;
}

static int read_facts(reader *r, char **f, int n) {
    if (n != 3) return fail(r, "a facts line has 3 fields, this one %d", n);
    size_t pi;
    if (lookup_process(r, f[1], &pi)) return -1;
    process *p = &r->procs[pi];
    if (strcmp(f[2], "1")) return fail(r, "facts version '%s' is not 1", f[2]);
    if (p->facts || p->has_stats || p->seen_count)
        return fail(r, "a facts line comes right after its process's start line, once");
    p->facts = true;
    r->c->facts.processes++;
    return 0;
}

static const char *const prop_kinds[] = {"always", "always_or_unreachable", "sometimes", "reachable",
                                         "unreachable", "eventually"};

static int read_property(reader *r, char **f, int n) {
    if (n != 6) return fail(r, "a property line has 6 fields, this one %d", n);
    size_t pi;
    if (fact_process(r, f, "property", &pi)) return -1;
    process *p = &r->procs[pi];
    uint64_t index, line;
    /* Indexes grow one by one; a gap is a property line skipped as bad
     * (--skip-bad), whose held lines are then bad too. */
    if (!parse_u64(f[2], &index) || index < p->prop_count || index >= HF_LOG_PROPERTIES_MAX)
        return fail(r, "property index '%s' is not a new one below %d (the next is %zu)", f[2],
                    HF_LOG_PROPERTIES_MAX, p->prop_count);
    if (p->has_stats) return fail(r, "a property line after its process's first stats line");
    bool known = false;
    for (size_t k = 0; k < sizeof prop_kinds / sizeof *prop_kinds; k++) known |= !strcmp(f[3], prop_kinds[k]);
    if (!known) return fail(r, "property kind '%.30s' is not one of always, sometimes, reachable, ...", f[3]);
    hf_log_prop x = {0};
    snprintf(x.kind, sizeof x.kind, "%s", f[3]);
    char *colon = strrchr(f[4], ':');
    if (!colon || !parse_u64(colon + 1, &line) || line == 0 || line > 100000000)
        return fail(r, "'%.60s' is not FILE:LINE", f[4]);
    *colon = '\0';
    x.line = (int)line;
    if (!unescape(f[4], x.file, sizeof x.file) || !unescape(f[5], x.message, sizeof x.message))
        return fail(r, "a property's file or message is not escaped text (%%XX, or - for none)");
    hf_campaign_facts *cf = &r->c->facts;
    size_t m = 0;
    while (m < cf->prop_count && (strcmp(cf->props[m].kind, x.kind) || strcmp(cf->props[m].file, x.file) ||
                                  cf->props[m].line != x.line || strcmp(cf->props[m].message, x.message)))
        m++;
    size_t cap = p->prop_cap;
    if ((m == cf->prop_count &&
         !reserve((void **)&cf->props, &r->props_cap, cf->prop_count + 1, sizeof *cf->props)) ||
        !reserve((void **)&p->prop_map, &p->prop_cap, index + 1, sizeof *p->prop_map) ||
        (cap != p->prop_cap && (!(p->prop_last = realloc(p->prop_last, p->prop_cap * sizeof *p->prop_last)) ||
                                !(p->prop_merged = realloc(p->prop_merged, p->prop_cap * sizeof *p->prop_merged))))) {
        r->fatal = true;
        return fail(r, "out of memory");
    }
    if (m == cf->prop_count) cf->props[cf->prop_count++] = x;
    for (; p->prop_count <= index; p->prop_count++) {
        p->prop_map[p->prop_count] = p->prop_count == index ? m : NO_PROPERTY;
        memset(p->prop_last[p->prop_count], 0, sizeof p->prop_last[0]);
        memset(p->prop_merged[p->prop_count], 0, sizeof p->prop_merged[0]);
    }
    return 0;
}

static int read_held(reader *r, char **f, int n) {
    if (n != 7) return fail(r, "a held line has 7 fields, this one %d", n);
    size_t pi;
    if (fact_process(r, f, "held", &pi)) return -1;
    process *p = &r->procs[pi];
    uint64_t index, c[4] = {0};
    if (!parse_u64(f[2], &index) || index >= p->prop_count || p->prop_map[index] == NO_PROPERTY)
        return fail(r, "property index '%s' names no property line of this process", f[2]);
    static const char *const names[] = {"evaluated", "held", "failed"};
    for (int i = 0; i < 3; i++)
        if (!parse_u64(f[3 + i], &c[i])) return fail(r, "%s '%s' is not a count", names[i], f[3 + i]);
    if (strcmp(f[6], "-") && (!parse_u64(f[6], &c[3]) || c[3] == 0))
        return fail(r, "first held '%s' is not an execution (1, 2, ...) or -", f[6]);
    if (c[1] > c[0] || c[2] > c[0] || (c[1] > 0) != (c[3] > 0))
        return fail(r, "counts contradict each other (held, failed <= evaluated; a first execution iff held)");
    uint64_t *last = p->prop_last[index];
    if (c[0] < last[0] || c[1] < last[1] || c[2] < last[2] || (last[3] && c[3] != last[3]))
        return fail(r, "a property's counts went backwards since this process's previous held line");
    memcpy(last, c, sizeof c);
    fact x = {.kind = FACT_HELD, .index = index};
    memcpy(x.counts, c, sizeof c);
    return add_fact(r, p, x);
}

static int fault_kind_of(const char *word) {
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        const char *name = hf_fault_name((hf_fault_kind)k);
        size_t i = 0;
        while (name[i] && word[i] && (name[i] == word[i] || (name[i] == ' ' && word[i] == '_'))) i++;
        if (!name[i] && !word[i]) return k;
    }
    return -1;
}

static int read_fault(reader *r, char **f, int n) {
    if (n != 6) return fail(r, "a fault line has 6 fields, this one %d", n);
    size_t pi;
    if (fact_process(r, f, "fault", &pi)) return -1;
    process *p = &r->procs[pi];
    int kind = fault_kind_of(f[2]);
    if (kind < 0) return fail(r, "fault kind '%.30s' is not one of drop, duplicate, ..., clock_jump", f[2]);
    uint64_t c[3];
    static const char *const names[] = {"allowed", "enabled", "injected"};
    for (int i = 0; i < 3; i++)
        if (!parse_u64(f[3 + i], &c[i])) return fail(r, "%s '%s' is not a count", names[i], f[3 + i]);
    if (c[1] > c[0]) return fail(r, "counts contradict each other (enabled <= allowed)");
    hf_log_fault *last = &p->fault_last[kind];
    if (c[0] < last->allowed || c[1] < last->enabled || c[2] < last->injected)
        return fail(r, "a fault kind's counts went backwards since this process's previous fault line");
    *last = (hf_log_fault){c[0], c[1], c[2]};
    return add_fact(r, p, (fact){.kind = FACT_FAULT, .index = (size_t)kind, .counts = {c[0], c[1], c[2], 0}});
}

static int read_crash(reader *r, char **f, int n) {
    if (n != 8) return fail(r, "a crash line has 8 fields, this one %d", n);
    size_t pi;
    if (fact_process(r, f, "crash", &pi)) return -1;
    process *p = &r->procs[pi];
    hf_log_crash x = {.property = -1};
    uint64_t execution, property;
    if (!parse_u64(f[2], &execution) || execution == 0)
        return fail(r, "execution '%s' is not an execution (1, 2, ...)", f[2]);
    if (strlen(f[3]) >= sizeof x.outcome) return fail(r, "outcome too long");
    snprintf(x.outcome, sizeof x.outcome, "%s", f[3]);
    if (strcmp(f[4], "-")) {
        if (!parse_u64(f[4], &property) || property >= p->prop_count || p->prop_map[property] == NO_PROPERTY)
            return fail(r, "property index '%s' names no property line of this process", f[4]);
        x.property = (long)p->prop_map[property];
    }
    bool hex = strlen(f[5]) == 40;
    for (const char *c = f[5]; hex && *c; c++) hex = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f');
    if (!hex) return fail(r, "input hash '%.50s' is not 40 hex digits", f[5]);
    snprintf(x.sha1, sizeof x.sha1, "%s", f[5]);
    if (!unescape(f[6], x.file, sizeof x.file) || !unescape(f[7], x.message, sizeof x.message))
        return fail(r, "a crash's file or message is not escaped text (%%XX, or - for none)");
    x.execution = execution;
    hf_campaign_facts *cf = &r->c->facts;
    if (!reserve((void **)&cf->crashes, &r->crashes_cap, cf->crash_count + 1, sizeof *cf->crashes)) {
        r->fatal = true;
        return fail(r, "out of memory");
    }
    cf->crashes[cf->crash_count++] = x;
    return add_fact(r, p, (fact){.kind = FACT_CRASH, .index = cf->crash_count - 1});
}

static const char *const stats_fields[STATS_FIELDS] = {
    "stats", "process", "wall seconds", "executions", "logical seconds", "behaviours",
    "f1", "f2", "good-turing", "chao1", "crashes",
};

static int read_stats(reader *r, char **f, int n) {
    if (n != STATS_FIELDS) return fail(r, "a stats line has %d fields, this one %d", STATS_FIELDS, n);
    size_t pi;
    if (lookup_process(r, f[1], &pi)) return -1;
    hf_progress s = {0};
    if (!parse_decimal(f[2], &s.wall_s)) return fail(r, "wall seconds '%s' is not a decimal number", f[2]);
    if (!parse_logical(f[4], &s.logical_ns))
        return fail(r, "logical seconds '%s' is not seconds with 9 decimals", f[4]);
    /* Fields 3 to 10 that are plain counts. */
    uint64_t *counts[] = {&s.executions, NULL, &s.behaviours, &s.f1, &s.f2, NULL, NULL, &s.crashes};
    for (int i = 3; i < STATS_FIELDS; i++) {
        if (!counts[i - 3]) continue;
        if (!parse_u64(f[i], counts[i - 3]))
            return fail(r, "%s '%s' is not a count", stats_fields[i], f[i]);
    }
    if (s.f1 + s.f2 > s.behaviours || s.crashes > s.executions)
        return fail(r, "counts contradict each other (f1 + f2 <= behaviours, crashes <= executions)");
    char expect[64];
    snprintf(expect, sizeof expect, "%.6e", hf_good_turing(s.f1, s.executions));
    if (strcmp(expect, f[8])) return fail(r, "good-turing '%s' is not f1/executions (%s)", f[8], expect);
    snprintf(expect, sizeof expect, "%.3f", hf_chao1(s.behaviours, s.f1, s.f2));
    if (strcmp(expect, f[9])) return fail(r, "chao1 '%s' does not follow from the counts (%s)", f[9], expect);
    process *p = &r->procs[pi];
    if (p->has_stats && (s.wall_s < p->last.wall_s || s.executions < p->last.executions ||
                         s.logical_ns < p->last.logical_ns || s.behaviours < p->last.behaviours ||
                         s.crashes < p->last.crashes))
        return fail(r, "a count went backwards since this process's previous stats line");
    if (!reserve((void **)&r->recs, &r->recs_cap, r->nrecs + 1, sizeof *r->recs)) {
        r->fatal = true;
        return fail(r, "out of memory");
    }
    r->recs[r->nrecs++] = (record){.when = p->start_unix + s.wall_s, .order = r->lines_read,
                                   .process = pi, .seen_mark = p->seen_count, .fact_mark = p->fact_count,
                                   .p = s};
    p->has_stats = true;
    p->last = s;
    return 0;
}

/* Checks one line (without its newline) and keeps what it says. */
static int read_line(reader *r, const char *text, size_t len) {
    if (len == 0 || text[0] == '#') return 0;   /* writers pad pages with these */
    if (len >= MAX_LINE) return fail(r, "line longer than %d bytes", MAX_LINE - 1);
    char buf[MAX_LINE];
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (memchr(text, '\0', len)) return fail(r, "a NUL byte inside the line");
    char *f[MAX_FIELDS];
    int n = 0;
    for (char *p = buf;;) {
        if (n == MAX_FIELDS) return fail(r, "more than %d fields", MAX_FIELDS);
        char *space = strchr(p, ' ');
        if (space) *space = '\0';
        if (!*p) return fail(r, "field %d is empty", n + 1);
        f[n++] = p;
        if (!space) break;
        p = space + 1;
    }
    if (!strcmp(f[0], "start")) return read_start(r, f, n);
    if (!strcmp(f[0], "seen")) return read_seen(r, f, n);
    if (!strcmp(f[0], "stats")) return read_stats(r, f, n);
    if (!strcmp(f[0], "facts")) return read_facts(r, f, n);
    if (!strcmp(f[0], "property")) return read_property(r, f, n);
    if (!strcmp(f[0], "held")) return read_held(r, f, n);
    if (!strcmp(f[0], "fault")) return read_fault(r, f, n);
    if (!strcmp(f[0], "crash")) return read_crash(r, f, n);
    return fail(r, "unknown kind of line '%.20s' (start, seen, stats, facts, property, held, fault, crash)", f[0]);
}

static int read_log(reader *r, const char *path, bool skip_bad) {
    size_t size;
    uint8_t *data = hf_read_file(path, &size, r->error, sizeof r->error);
    if (!data) {
        r->fatal = true;
        return -1;
    }
    r->path = path;
    r->line = 0;
    int status = 0;
    for (size_t at = 0; at < size && status == 0;) {
        const char *text = (const char *)data + at;
        const char *newline = memchr(text, '\n', size - at);
        size_t len = newline ? (size_t)(newline - text) : size - at;
        r->line++;
        r->offset = at;
        r->lines_read++;
        if (!newline) status = fail(r, "line cut short: no newline at the end of the file");
        else status = read_line(r, text, len);
        at += len + 1;
        if (status && skip_bad && !r->fatal) {
            if (!r->c->skipped++) snprintf(r->c->first_skipped, sizeof r->c->first_skipped, "%s", r->error);
            status = 0;
        }
    }
    free(data);
    return status;
}

/* ---- Merging ------------------------------------------------------------ */

static int by_time(const void *a, const void *b) {
    const record *x = a, *y = b;
    if (x->when != y->when) return x->when < y->when ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* A process's facts lines up to record `rec`, added to the campaign's:
 * counts by their growth since the process's previous line, executions
 * placed after the campaign's `before` (exact for one process; for
 * several, within the stretch between two stats lines). */
static void merge_facts(reader *r, process *p, const record *rec, uint64_t before) {
    hf_campaign_facts *cf = &r->c->facts;
    for (; p->facts_merged < rec->fact_mark; p->facts_merged++) {
        const fact *x = &r->facts[p->fact_list[p->facts_merged]];
        if (x->kind == FACT_HELD) {
            hf_log_prop *m = &cf->props[p->prop_map[x->index]];
            uint64_t *done = p->prop_merged[x->index];
            m->evaluated += x->counts[0] - done[0];
            m->held += x->counts[1] - done[1];
            m->failed += x->counts[2] - done[2];
            if (x->counts[3] && !done[3]) {
                uint64_t at = before + (x->counts[3] > p->last.executions ? x->counts[3] - p->last.executions : 1);
                if (!m->first_held || at < m->first_held) m->first_held = at;
            }
            memcpy(done, x->counts, sizeof x->counts);
        } else if (x->kind == FACT_FAULT) {
            hf_log_fault *m = &cf->faults[x->index], *done = &p->fault_merged[x->index];
            m->allowed += x->counts[0] - done->allowed;
            m->enabled += x->counts[1] - done->enabled;
            m->injected += x->counts[2] - done->injected;
            *done = (hf_log_fault){x->counts[0], x->counts[1], x->counts[2]};
        } else {
            hf_log_crash *k = &cf->crashes[x->index];
            k->execution = before + (k->execution > p->last.executions ? k->execution - p->last.executions : 1);
            k->wall_s = rec->when;   /* made relative to the earliest start after the sweep */
        }
    }
}

static int merge(reader *r) {
    hf_campaign *c = r->c;
    c->points = calloc(r->nrecs, sizeof *c->points);
    c->facts.categories = calloc(r->nrecs ? r->nrecs : 1, sizeof *c->facts.categories);
    size_t seen_lines = 0;
    for (size_t i = 0; i < r->nprocs; i++) seen_lines += r->procs[i].seen_count;
    c->behaviour_ids = malloc((seen_lines ? seen_lines : 1) * sizeof *c->behaviour_ids);
    hf_species merged;
    if (!c->points || !c->facts.categories || !c->behaviour_ids || !hf_species_init(&merged)) {
        free(c->points);
        free(c->behaviour_ids);
        c->points = NULL;
        c->behaviour_ids = NULL;
        snprintf(r->error, sizeof r->error, "out of memory merging the logs");
        return -1;
    }
    qsort(r->recs, r->nrecs, sizeof *r->recs, by_time);
    double earliest = r->procs[0].start_unix;
    for (size_t i = 1; i < r->nprocs; i++)
        if (r->procs[i].start_unix < earliest) earliest = r->procs[i].start_unix;
    for (size_t i = 0; i < r->nprocs; i++) r->procs[i].last = (hf_progress){0};

    hf_progress total = {0};
    uint64_t categories[HF_CATEGORIES] = {0};
    /* Crash lines count only once a stats line follows them (as seen lines
     * do): the rest are left out below. */
    for (size_t i = 0; i < c->facts.crash_count; i++) c->facts.crashes[i].wall_s = -1;
    for (size_t i = 0; i < r->nrecs; i++) {
        const record *rec = &r->recs[i];
        process *p = &r->procs[rec->process];
        for (; p->seen_merged < rec->seen_mark; p->seen_merged++) {
            uint64_t before = merged.distinct;
            uint64_t sightings = hf_species_add(&merged, p->seen[p->seen_merged]);
            if (!sightings) {
                hf_species_free(&merged);
                snprintf(r->error, sizeof r->error, "out of memory merging the logs");
                return -1;
            }
            /* A behaviour counts in the category its first sighting names. */
            if (sightings == 1) categories[p->seen_category[p->seen_merged]]++;
            if (merged.distinct > before) c->behaviour_ids[before] = p->seen[p->seen_merged];
        }
        merge_facts(r, p, rec, total.executions);
        memcpy(c->facts.categories[i], categories, sizeof categories);
        total.executions += rec->p.executions - p->last.executions;
        total.logical_ns += rec->p.logical_ns - p->last.logical_ns;
        total.crashes += rec->p.crashes - p->last.crashes;
        p->last = rec->p;
        total.wall_s = rec->when - earliest;
        total.behaviours = merged.distinct;
        total.f1 = merged.f1;
        total.f2 = merged.f2;
        c->points[c->count++] = total;
    }
    hf_species_free(&merged);
    size_t kept = 0;
    for (size_t i = 0; i < c->facts.crash_count; i++) {
        hf_log_crash *k = &c->facts.crashes[i];
        if (k->wall_s < 0) continue;
        k->wall_s -= earliest;
        c->facts.crashes[kept++] = *k;
    }
    c->facts.crash_count = kept;
    return 0;
}

int hf_campaign_read(hf_campaign *c, const char *const *paths, size_t npaths, bool skip_bad,
                     char *error, size_t error_size) {
    assert(c && paths && npaths > 0);
    *c = (hf_campaign){0};
    reader r = {.c = c};
    int status = 0;
    for (size_t i = 0; i < npaths && status == 0; i++) status = read_log(&r, paths[i], skip_bad);
    if (status == 0 && r.nrecs == 0) {
        snprintf(r.error, sizeof r.error, "%s%s: no stats lines%s", paths[0], npaths > 1 ? " and the rest" : "",
                 c->skipped ? " that are not bad" : "");
        status = -1;
    }
    if (status == 0) status = merge(&r);
    for (size_t i = 0; i < r.nprocs; i++) {
        process *p = &r.procs[i];
        free(p->seen);
        free(p->seen_category);
        free(p->prop_map);
        free(p->prop_last);
        free(p->prop_merged);
        free(p->fact_list);
    }
    free(r.facts);
    free(r.procs);
    free(r.engine_pids);
    free(r.map_ids);
    free(r.map_index);
    free(r.recs);
    if (status) {
        snprintf(error, error_size, "%s", r.error);
        hf_campaign_free(c);
    }
    return status;
}

void hf_campaign_free(hf_campaign *c) {
    free(c->points);
    c->points = NULL;
    free(c->behaviour_ids);
    c->behaviour_ids = NULL;
    c->count = 0;
    free(c->facts.props);
    free(c->facts.crashes);
    free(c->facts.categories);
    c->facts = (hf_campaign_facts){0};
}

void hf_campaign_size(const hf_campaign *c, char *out, size_t size) {
    if (!strcmp(c->engines, "AFL++")) snprintf(out, size, "%zu instance%s", c->instances, c->instances == 1 ? "" : "s");
    else snprintf(out, size, "%zu process%s", c->instances, c->instances == 1 ? "" : "es");
}
