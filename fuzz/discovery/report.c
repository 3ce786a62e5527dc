/*
 * report.c — `heisenfuzz report`: what a campaign never exercised, as one
 * self-contained HTML page (inline CSS and SVG, no script, nothing fetched):
 * the discovery chart and the plateau verdict, then the properties of the
 * target (the sometimes/reachable that never held and the assertions never
 * evaluated first), the fault kinds (those never injected marked; one line
 * instead when no run allowed any, as for a pthread program), the
 * behaviours found by category over time, and the crashes with the file
 * that replays them.  Everything comes from the discovery logs (discovery.h);
 * what an older log does not say is shown as unknown, never as zero.
 */
#define _GNU_SOURCE   /* open_memstream */
#include "behaviour.h"
#include "chart.h"
#include "commands.h"
#include "estimate.h"
#include "files.h"
#include "logread.h"
#include "options.h"
#include "prop.h"
#include "sha1.h"
#include "sim.h"
#include "status.h"
#include "tool.h"

#include <assert.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- HTML text ------------------------------------------------------------ */

/* Text from a log may hold any byte but NUL. */
static void html(FILE *out, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc((unsigned char)*s >= 32 || *s == '\t' ? *s : '?', out);
        }
    }
}

static void count_cell(FILE *out, uint64_t v, bool known) {
    char text[32];
    if (!known) { fputs("<td class=\"unknown\">unknown</td>", out); return; }
    hf_grouped(text, sizeof text, v);
    fprintf(out, "<td class=\"n\">%s</td>", text);
}

/* ---- Which properties are the target's ------------------------------------ */

/*
 * A fuzzer may hold many targets (this project's fuzzers hold them all), and
 * its catalogue every property of each.  A property is taken as the
 * target's when its source directory is the target's: one holding a
 * property this campaign evaluated, or one named as the target is
 * ("targets/counter/" for counter_buggy).  A property of the target that
 * sits alone in a directory no run reached and with another name is missed.
 */
static size_t directory_length(const char *file) {
    const char *slash = strrchr(file, '/');
    return slash ? (size_t)(slash - file) : 0;
}

static bool directory_named_like(const char *file, const char *target) {
    size_t len = directory_length(file);
    const char *base = file;
    for (size_t i = 0; i < len; i++)
        if (file[i] == '/') base = file + i + 1;
    size_t base_len = (size_t)(file + len - base);
    return base_len > 0 && !strncmp(base, target, base_len) &&
           (target[base_len] == '\0' || target[base_len] == '_');
}

static bool same_directory(const char *a, const char *b) {
    size_t la = directory_length(a);
    return la == directory_length(b) && !strncmp(a, b, la);
}

static bool of_target(const hf_log_prop *p, const hf_log_prop *all, size_t n, const char *target) {
    if (directory_named_like(p->file, target)) return true;
    for (size_t i = 0; i < n; i++)
        if (all[i].evaluated && same_directory(all[i].file, p->file)) return true;
    return false;
}

/* ---- Properties --------------------------------------------------------------- */

typedef enum verdict {
    NEVER_HELD,          /* a sometimes or reachable that never held */
    NEVER_EVALUATED,     /* an assertion no run reached */
    VIOLATED,            /* an assertion that failed (the crashes) */
    MET,                 /* held as asked */
    UNKNOWN,             /* an older log: no counts */
} verdict;

static const char *const verdict_names[] = {"never held", "never evaluated", "failed", "ok", "unknown"};
static const char *const verdict_classes[] = {"never-held", "never-evaluated", "failed", "met", "unknown"};

static bool expectation(const char *kind) { return !strcmp(kind, "sometimes") || !strcmp(kind, "reachable"); }

static verdict verdict_of(const hf_log_prop *p, bool known) {
    if (!known) return UNKNOWN;
    if (expectation(p->kind)) return p->held ? MET : NEVER_HELD;
    if (!strcmp(p->kind, "unreachable")) return p->evaluated ? VIOLATED : MET;   /* never reached is its goal */
    if (!p->evaluated) return NEVER_EVALUATED;
    return p->failed ? VIOLATED : MET;
}

typedef struct prop_row {
    const hf_log_prop *p;
    verdict v;
    size_t order;
} prop_row;

static int by_verdict(const void *a, const void *b) {
    const prop_row *x = a, *y = b;
    if (x->v != y->v) return x->v < y->v ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The properties to show: the log's, or, for a log without facts lines, the
 * target's from this program's own catalogue with every count unknown. */
typedef struct prop_set {
    hf_log_prop *all;
    size_t count;
    bool known;              /* counts from the log */
    bool from_catalogue;
} prop_set;

static bool props_of_campaign(const hf_campaign *c, prop_set *s) {
    *s = (prop_set){0};
    if (c->facts.processes > 0) {
        s->all = c->facts.props;
        s->count = c->facts.prop_count;
        s->known = true;
        return true;
    }
    size_t n = hf_prop_count();
    s->all = calloc(n ? n : 1, sizeof *s->all);
    if (!s->all) return false;
    s->from_catalogue = true;
    for (size_t i = 0; i < n; i++) {
        const hf_prop *p = hf_prop_at(i);
        hf_log_prop *x = &s->all[s->count++];
        snprintf(x->kind, sizeof x->kind, "%s", hf_prop_kind_name(p->kind));
        snprintf(x->file, sizeof x->file, "%s", p->file);
        snprintf(x->message, sizeof x->message, "%s", p->message);
        x->line = p->line;
    }
    return true;
}

static size_t put_properties(FILE *out, const hf_campaign *c, const prop_set *s, size_t counts[5]) {
    prop_row *rows = calloc(s->count ? s->count : 1, sizeof *rows);
    size_t n = 0, others = 0;
    for (size_t i = 0; rows && i < s->count; i++) {
        if (!of_target(&s->all[i], s->all, s->count, c->target)) { others++; continue; }
        rows[n] = (prop_row){&s->all[i], verdict_of(&s->all[i], s->known), i};
        counts[rows[n].v]++;
        n++;
    }
    if (rows) qsort(rows, n, sizeof *rows, by_verdict);
    fputs("<h2 id=\"properties\">Properties</h2>\n", out);
    if (!s->known)
        fputs("<p class=\"warn\">These logs were written before the discovery log recorded properties "
              "(they have no <code>facts</code> lines): every count is unknown.  The list is the target's "
              "properties as this program knows them.</p>\n", out);
    if (n == 0) fputs("<p class=\"warn\">No property of this target is known.</p>\n", out);
    fputs("<table class=\"props\">\n<tr><th>verdict</th><th>kind</th><th>property</th><th>where</th>"
          "<th>runs evaluated</th><th>runs held</th><th>runs failed (false at least once)</th>"
          "<th>first held (execution)</th></tr>\n",
          out);
    for (size_t i = 0; i < n; i++) {
        const hf_log_prop *p = rows[i].p;
        verdict v = rows[i].v;
        fprintf(out, "<tr class=\"prop %s\"><td class=\"verdict\">%s%s</td><td>%s</td><td>", verdict_classes[v],
                v == NEVER_HELD || v == NEVER_EVALUATED || v == VIOLATED ? "&#9888; " : "", verdict_names[v],
                p->kind);
        html(out, p->message);
        fputs("</td><td class=\"where\">", out);
        html(out, p->file);
        fprintf(out, ":%d</td>", p->line);
        count_cell(out, p->evaluated, s->known);
        count_cell(out, p->held, s->known);
        count_cell(out, p->failed, s->known);
        if (!s->known) fputs("<td class=\"unknown\">unknown</td>", out);
        else if (!p->first_held) fputs("<td class=\"none\">never</td>", out);
        else count_cell(out, p->first_held, true);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
    if (others)
        fprintf(out, "<p class=\"note\">%zu propert%s of other targets compiled into the same fuzzer %s left "
                "out (a property is this target's when it sits in a directory named like the target or "
                "beside one this campaign evaluated).</p>\n", others, others == 1 ? "y" : "ies",
                others == 1 ? "is" : "are");
    free(rows);
    return n;
}

/* ---- Faults ------------------------------------------------------------------- */

/* No run of a log with facts allowed any fault kind: a pthread program, or
 * another target without a simulated world (or one whose options allow
 * none).  A table of kinds that could not happen would be noise. */
static bool no_fault_kind_allowed(const hf_campaign_facts *f) {
    if (f->processes == 0) return false;   /* unknown, not none */
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++)
        if (f->faults[k].allowed > 0) return false;
    return true;
}

static void put_faults(FILE *out, const hf_campaign *c, size_t *never_injected) {
    const hf_campaign_facts *f = &c->facts;
    bool known = f->processes > 0;
    fputs("<h2 id=\"faults\">Fault kinds</h2>\n", out);
    if (no_fault_kind_allowed(f)) {
        fputs("<p class=\"no-faults\">No simulated world: the target allows no fault kind.  No run of these logs "
              "allowed one (the target starts no world with <code>hf_sim_start</code>, as a pthread program does "
              "not, or its options allow none), so no fault kind is listed.</p>\n", out);
        return;
    }
    if (!known)
        fputs("<p class=\"warn\">These logs do not record faults: every count is unknown.</p>\n", out);
    fputs("<table class=\"faults\">\n<tr><th>verdict</th><th>fault kind</th><th>runs that allowed it</th>"
          "<th>runs that enabled it</th><th>faults injected</th></tr>\n", out);
    for (int k = 0; k < HF_FAULT_KIND_COUNT; k++) {
        const hf_log_fault *x = &f->faults[k];
        const char *cls = "unknown", *what = "unknown";
        if (known) {
            if (x->injected) cls = "met", what = "injected";
            else if (!x->allowed) cls = "not-allowed", what = "&#9888; never injected: the workload does not allow it";
            else if (!x->enabled) cls = "never-injected", what = "&#9888; never injected: no run's profile enabled it";
            else cls = "never-injected", what = "&#9888; never injected";
            if (!x->injected) (*never_injected)++;
        }
        fprintf(out, "<tr class=\"fault %s\"><td class=\"verdict\">%s</td><td>%s</td>", cls, what,
                hf_fault_name((hf_fault_kind)k));
        count_cell(out, x->allowed, known);
        count_cell(out, x->enabled, known);
        count_cell(out, x->injected, known);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* ---- Behaviours by category over time ----------------------------------------- */

enum { CATEGORY_ROWS = 10 };

static void put_categories(FILE *out, const hf_campaign *c) {
    fputs("<h2 id=\"categories\">Behaviours by category over time</h2>\n", out);
    const uint64_t (*cat)[HF_CATEGORIES] = (const uint64_t (*)[HF_CATEGORIES])c->facts.categories;
    bool any_unknown = false;
    for (size_t i = 0; i < c->count; i++) any_unknown |= cat[i][0] > 0;
    if (c->facts.processes == 0)
        fputs("<p class=\"warn\">These logs do not record the behaviours' categories: they are counted as "
              "unknown.</p>\n", out);
    fputs("<p class=\"note\">Distinct behaviours found by then, by what they are (behaviour.h): the order "
          "of two tasks' actions at a switch, a state transition, a property that held, a message order, a "
          "fault that hit something.  A column that stops growing early is a part of the system the "
          "workload stopped exploring.</p>\n", out);
    fputs("<table class=\"categories\">\n<tr><th>executions</th><th>wall</th><th>logical</th>", out);
    for (int k = 1; k < HF_CATEGORIES; k++) fprintf(out, "<th>%s</th>", hf_feature_kind_name(k));
    if (any_unknown) fputs("<th>unknown</th>", out);
    fputs("<th>all</th></tr>\n", out);
    /* Rows at executions spaced evenly on a log scale, and the last point. */
    const hf_progress *last = &c->points[c->count - 1];
    size_t shown[CATEGORY_ROWS + 1], nshown = 0;
    double top = (double)(last->executions ? last->executions : 1);
    for (int r = 1; r <= CATEGORY_ROWS; r++) {
        double goal = pow(top, (double)r / CATEGORY_ROWS);
        size_t i = 0;
        while (i + 1 < c->count && (double)c->points[i].executions < goal) i++;
        if (nshown == 0 || shown[nshown - 1] != i) shown[nshown++] = i;
    }
    if (shown[nshown - 1] != c->count - 1) shown[nshown++] = c->count - 1;
    for (size_t r = 0; r < nshown; r++) {
        size_t i = shown[r];
        const hf_progress *p = &c->points[i];
        char execs[32], wall[32], logical[32];
        hf_grouped(execs, sizeof execs, p->executions);
        hf_format_duration(wall, sizeof wall, p->wall_s);
        hf_format_duration(logical, sizeof logical, (double)p->logical_ns / 1e9);
        fprintf(out, "<tr><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>", execs, wall,
                logical);
        for (int k = 1; k < HF_CATEGORIES; k++) {
            bool grew = r > 0 && cat[i][k] > cat[shown[r - 1]][k];
            char n[32];
            hf_grouped(n, sizeof n, cat[i][k]);
            fprintf(out, "<td class=\"n%s\">%s</td>", grew ? " grew" : "", n);
        }
        if (any_unknown) count_cell(out, cat[i][0], true);
        count_cell(out, p->behaviours, true);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* ---- Crashes ------------------------------------------------------------------ */

/* The file that replays a crash: the one the engine named, while it is
 * there; else a crash-* file beside one of the logs with the input's
 * SHA-1 (`heisenfuzz fuzz` moves libFuzzer's artifacts to DIR/crash-NAME-K,
 * next to its log).  False when neither is found. */
static bool find_replay(const hf_log_crash *k, const char *const *logs, size_t nlogs, char *out, size_t size) {
    if (k->file[0] && access(k->file, R_OK) == 0) {
        snprintf(out, size, "%s", k->file);
        return true;
    }
    for (size_t i = 0; i < nlogs; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", logs[i]);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = '\0';
        else snprintf(dir, sizeof dir, ".");
        DIR *d = opendir(dir);
        if (!d) continue;
        for (struct dirent *e; (e = readdir(d));) {
            if (strncmp(e->d_name, "crash-", 6)) continue;
            char path[8192], error[512];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) continue;
            size_t len;
            uint8_t *data = hf_read_file(path, &len, error, sizeof error);
            if (!data) continue;
            char sha1[41];
            hf_sha1_hex(data, len, sha1);
            free(data);
            if (strcmp(sha1, k->sha1)) continue;
            snprintf(out, size, "%s", path);
            closedir(d);
            return true;
        }
        closedir(d);
    }
    return false;
}

static void put_crashes(FILE *out, const hf_campaign *c, const char *const *logs, size_t nlogs) {
    const hf_campaign_facts *f = &c->facts;
    uint64_t crashes = c->points[c->count - 1].crashes;
    fprintf(out, "<h2 id=\"crashes\">Crashes</h2>\n");
    if (f->processes == 0) {
        fprintf(out, "<p class=\"warn\">%llu failed run%s; these logs do not say which property failed nor "
                "where the input is (unknown).</p>\n", (unsigned long long)crashes, crashes == 1 ? "" : "s");
        return;
    }
    if (f->crash_count == 0) {
        fprintf(out, "<p>No run failed.</p>\n");
        return;
    }
    if (f->processes < c->processes)
        fprintf(out, "<p class=\"warn\">%zu of %zu processes did not record their crashes.</p>\n",
                c->processes - f->processes, c->processes);
    fputs("<table class=\"crashes\">\n<tr><th>execution</th><th>wall</th><th>outcome</th>"
          "<th>failing property</th><th>message</th><th>replay with</th></tr>\n", out);
    for (size_t i = 0; i < f->crash_count; i++) {
        const hf_log_crash *k = &f->crashes[i];
        char execs[32], wall[32];
        hf_grouped(execs, sizeof execs, k->execution);
        hf_format_duration(wall, sizeof wall, k->wall_s);
        fprintf(out, "<tr class=\"crash\"><td class=\"n\">%s</td><td class=\"n\">%s</td><td>", execs, wall);
        html(out, k->outcome);
        fputs("</td><td>", out);
        if (k->property >= 0 && (size_t)k->property < f->prop_count) {
            const hf_log_prop *p = &f->props[k->property];
            fprintf(out, "%s \"", p->kind);
            html(out, p->message);
            fputs("\" (", out);
            html(out, p->file);
            fprintf(out, ":%d)", p->line);
        } else {
            fputs("&mdash;", out);
        }
        fputs("</td><td>", out);
        html(out, k->message);
        fputs("</td><td class=\"where\">", out);
        char replay[8192];
        if (find_replay(k, logs, nlogs, replay, sizeof replay)) {
            fputs("<code>", out);
            html(out, replay);
            fputs("</code>", out);
        } else if (k->file[0]) {
            fputs("<code>", out);
            html(out, k->file);
            fprintf(out, "</code> as the engine named it (not there now: relative to the fuzzer's working "
                    "directory, or moved), the input whose SHA-1 is <code>%s</code>", k->sha1);
        } else {
            fprintf(out, "the input whose SHA-1 is <code>%s</code> (the engine did not say where it wrote it)",
                    k->sha1);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* ---- The page ----------------------------------------------------------------- */

static const char style[] =
    "body{font-family:DejaVu Sans,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1100px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
    "th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}"
    "th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "td.where{font-family:monospace;font-size:12px}"
    "tr.never-held td,tr.never-evaluated td,tr.never-injected td{background:#fff1c2}"
    "tr.never-held td.verdict,tr.never-evaluated td.verdict,tr.never-injected td.verdict{color:#9a5b00;font-weight:bold}"
    "tr.failed td{background:#ffd9d9}tr.failed td.verdict{color:#b00018;font-weight:bold}"
    "tr.not-allowed td{color:#777}td.unknown{color:#888;font-style:italic}td.none{color:#9a5b00}"
    "td.grew{color:#0b7a75;font-weight:bold}"
    ".warn{background:#fff1c2;padding:6px 10px}.note{color:#555;font-size:13px}"
    ".verdict-box{font-size:15px;padding:8px 12px;border-left:5px solid #2e8b3e;background:#eef7ef}"
    ".verdict-box.open{border-left-color:#e07b00;background:#fdf3e6}"
    "ul.summary li{margin:3px 0}";

static size_t put_page(FILE *out, const hf_campaign *c, const prop_set *props, const char *const *logs,
                       size_t nlogs) {
    const hf_progress *last = &c->points[c->count - 1];
    hf_plateau rule = {0};
    for (size_t i = 0; i < c->count; i++) hf_plateau_update(&rule, &c->points[i]);
    char execs[32], wall[32], logical[32], status[512];
    hf_grouped(execs, sizeof execs, last->executions);
    hf_format_duration(wall, sizeof wall, last->wall_s);
    hf_format_duration(logical, sizeof logical, (double)last->logical_ns / 1e9);
    hf_status_line(status, sizeof status, last, &rule);

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>heisenfuzz report: ", out);
    html(out, c->target);
    fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>What the campaign exercised: ", style);
    html(out, c->target);
    fputs("</h1>\n<p>", out);
    html(out, c->engines);
    char size[64];
    hf_campaign_size(c, size, sizeof size);
    fprintf(out, ", %s: %s executions, %s wall, %s logical time simulated.", size, execs, wall, logical);
    if (c->skipped)
        fprintf(out, " %zu bad log line%s skipped (the first: ", c->skipped, c->skipped == 1 ? "" : "s");
    if (c->skipped) { html(out, c->first_skipped); fputs(").", out); }
    if (c->facts.processes && c->facts.processes < c->processes)
        fprintf(out, " Only %zu of the %zu processes recorded properties, faults and crashes: their counts "
                "are lower bounds.", c->facts.processes, c->processes);
    fputs("</p>\n", out);

    if (rule.holds) {
        char since_logical[32], since_wall[32], at[32];
        hf_format_duration(since_logical, sizeof since_logical, (double)rule.quiet_since.logical_ns / 1e9);
        hf_format_duration(since_wall, sizeof since_wall, rule.quiet_since.wall_s);
        hf_grouped(at, sizeof at, rule.quiet_since.executions);
        fprintf(out, "<p class=\"verdict-box plateau\"><b>Plateau.</b> No new behaviour since %s logical, %s wall "
                "(execution %s).  Running longer pays little; what the tables below say was never exercised is "
                "where a better workload or a sharper property pays.</p>\n", since_logical, since_wall, at);
    } else {
        fputs("<p class=\"verdict-box open\"><b>No plateau yet.</b> The search is still finding new behaviours "
              "(estimate.h's rule has not fired): running longer still pays.</p>\n", out);
    }
    fputs("<pre class=\"status\">", out);
    html(out, status);
    fputs("</pre>\n<div class=\"chart\">\n", out);
    hf_chart_write_svg(out, c, HF_CHART_LOGICAL, true);
    fputs("</div>\n", out);

    /* The sections write their tables into memory first, so that the
     * summary of what never happened can stand above them. */
    char *body = NULL;
    size_t body_len = 0;
    FILE *mem = open_memstream(&body, &body_len);
    size_t verdicts[5] = {0}, never_injected = 0, shown = 0;
    if (mem) {
        shown = put_properties(mem, c, props, verdicts);
        put_faults(mem, c, &never_injected);
        put_categories(mem, c);
        put_crashes(mem, c, logs, nlogs);
        fclose(mem);
    }
    fputs("<h2>Never exercised</h2>\n<ul class=\"summary\">\n", out);
    if (props->known) {
        fprintf(out, "<li><a href=\"#properties\">%zu sometimes/reachable propert%s never held</a></li>\n",
                verdicts[NEVER_HELD], verdicts[NEVER_HELD] == 1 ? "y" : "ies");
        fprintf(out, "<li><a href=\"#properties\">%zu assertion%s never evaluated</a></li>\n",
                verdicts[NEVER_EVALUATED], verdicts[NEVER_EVALUATED] == 1 ? "" : "s");
        if (no_fault_kind_allowed(&c->facts))
            fputs("<li><a href=\"#faults\">no simulated world: the target allows no fault kind</a></li>\n", out);
        else
            fprintf(out, "<li><a href=\"#faults\">%zu of %d fault kinds never injected</a></li>\n", never_injected,
                    HF_FAULT_KIND_COUNT);
        fprintf(out, "<li><a href=\"#crashes\">%zu propert%s failed</a></li>\n", verdicts[VIOLATED],
                verdicts[VIOLATED] == 1 ? "y" : "ies");
    } else {
        fputs("<li>unknown: these logs do not record properties and faults</li>\n", out);
    }
    fputs("</ul>\n", out);
    if (body) fwrite(body, 1, body_len, out);
    free(body);
    fputs("<p class=\"note\">Written by <code>heisenfuzz report</code> from the discovery log (format: "
          "fuzz/discovery/discovery.h).  Runs are counted per process and added up; an execution number in a campaign "
          "of several processes is placed within the stretch between two of its log lines.</p>\n"
          "</body>\n</html>\n", out);
    return shown;
}

/* ---- The command -------------------------------------------------------------- */

typedef struct report_options {
    const char *output;
    bool skip_bad;
} report_options;

static const report_options report_defaults = {.output = "report.html"};

static const hf_option report_option_table[] = {
    {.short_name = 'o', HF_STRING(report_options, output), .value_name = "FILE.html", .help = "the page's file"},
    {.name = "skip-bad", HF_FLAG(report_options, skip_bad), .help = "report the good lines of a damaged log"},
};

const hf_command_spec hf_report_spec = {
    .name = "report",
    .operands = "LOG...",
    .summary = "what a campaign never exercised, as one self-contained HTML page: the discovery chart and "
               "plateau, the target's properties (sometimes/reachable never held and assertions never evaluated "
               "first), fault kinds never injected, behaviours by category over time, the crashes and the files "
               "that replay them",
    HF_OPTION_TABLE(report_option_table),
    .defaults = &report_defaults,
    .size = sizeof(report_options),
};

int hf_cmd_report(int argc, char **argv) {
    report_options o;
    char **operands;
    int count;
    int parsed = hf_options_parse(&hf_report_spec, argc, argv, &o, &operands, &count);
    if (parsed != HF_PARSED) return parsed;
    if (count < 1) return hf_command_usage_error(hf_report_spec.name, "report needs at least one discovery log");
    const char *output = o.output;
    const char **logs = (const char **)operands;
    size_t nlogs = (size_t)count;

    hf_campaign c;
    char error[512];
    int rc = hf_campaign_read_for_command(&c, logs, nlogs, o.skip_bad, "reports the good lines");
    if (rc) return rc;
    prop_set props;
    char *page = NULL;
    size_t page_len = 0;
    FILE *mem = NULL;
    if (!props_of_campaign(&c, &props) || !(mem = open_memstream(&page, &page_len))) {
        fprintf(stderr, "heisenfuzz: out of memory writing %s\n", output);
        if (props.from_catalogue) free(props.all);
        hf_campaign_free(&c);
        return 2;
    }
    size_t shown = put_page(mem, &c, &props, logs, nlogs);
    bool written = !ferror(mem);
    if (fclose(mem) != 0) written = false;
    rc = written ? hf_write_file(output, page, page_len, error, sizeof error) : -1;
    if (!written) snprintf(error, sizeof error, "out of memory writing %s", output);
    free(page);
    if (rc) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        if (props.from_catalogue) free(props.all);
        hf_campaign_free(&c);
        return 2;
    }
    char size[64];
    hf_campaign_size(&c, size, sizeof size);
    printf("%s: %s (%s, %s), %zu properties of the target%s, %zu crash%s listed\n", output, c.target, c.engines,
           size, shown, props.known ? "" : " (counts unknown)",
           c.facts.crash_count, c.facts.crash_count == 1 ? "" : "es");
    if (props.from_catalogue) free(props.all);
    hf_campaign_free(&c);
    return 0;
}
