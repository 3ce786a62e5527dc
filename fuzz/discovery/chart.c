/*
 * chart.c — `heisenfuzz chart`: discovery logs drawn as one self-contained
 * SVG.  Distinct behaviours (the raw discovery curve) and Chao1 on the left
 * axis, Good-Turing (new behaviours expected per run) on a logarithmic right axis,
 * against logical time, executions or wall time; under the x axis the other
 * two clocks read at the same ticks; the plateau and the crashes marked.
 */
#define _GNU_SOURCE   /* open_memstream */
#include "chart.h"
#include "commands.h"
#include "estimate.h"
#include "files.h"
#include "logread.h"
#include "options.h"
#include "status.h"
#include "tool.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A growing text buffer ------------------------------------------------ */

typedef struct text {
    char *data;
    size_t len, cap;
    bool out_of_memory;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->len;
        int n = t->data ? vsnprintf(t->data + t->len, room, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < room) { t->len += (size_t)n; return; }
        size_t cap = t->cap ? t->cap * 2 : 1 << 16;
        while (n >= 0 && cap - t->len <= (size_t)n) cap *= 2;
        char *grown = t->out_of_memory ? NULL : realloc(t->data, cap);
        if (!grown) { t->out_of_memory = true; return; }
        t->data = grown;
        t->cap = cap;
    }
}

/* Text for an SVG element: the log's names may hold any byte but space. */
static void put_escaped(text *t, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': put(t, "&lt;"); break;
        case '>': put(t, "&gt;"); break;
        case '&': put(t, "&amp;"); break;
        case '"': put(t, "&quot;"); break;
        default: put(t, "%c", (unsigned char)*s >= 32 ? *s : '?');
        }
    }
}

/* ---- Axes ---------------------------------------------------------------- */

typedef enum axis_kind { AXIS_LOGICAL, AXIS_EXECUTIONS, AXIS_WALL } axis_kind;

static const char *const axis_names[] = {"logical", "executions", "wall"};

static double x_of(const hf_progress *p, axis_kind axis) {
    switch (axis) {
    case AXIS_LOGICAL: return (double)p->logical_ns / 1e9;
    case AXIS_EXECUTIONS: return (double)p->executions;
    case AXIS_WALL: return p->wall_s;
    }
    return 0;
}

/* A time axis in the unit that suits its span. */
typedef struct unit {
    const char *name;
    double seconds;
} unit;

static unit time_unit(double max_seconds) {
    if (max_seconds < 2) return (unit){"ms", 1e-3};
    if (max_seconds < 120) return (unit){"s", 1};
    if (max_seconds < 7200) return (unit){"min", 60};
    return (unit){"h", 3600};
}

/* A round step (1, 2 or 5 times a power of ten) giving about `ticks` ticks. */
static double nice_step(double span, int ticks) {
    double raw = span / ticks;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

void hf_grouped(char *out, size_t size, uint64_t v) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

/* A count as a tick label: 0, 500, 1.5k, 20M. */
static void count_label(char *out, size_t size, double v) {
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    int s = 0;
    while (fabs(v) >= 1000 && s < 4) { v /= 1000; s++; }
    snprintf(out, size, "%.*f%s", v == floor(v) ? 0 : 1, v, suffix[s]);
}

/* The value on `axis` of the point whose x on `along` is `x`, by linear
 * interpolation: all three clocks only grow along a campaign. */
static double read_across(const hf_campaign *c, axis_kind along, double x, axis_kind axis) {
    const hf_progress *pts = c->points;
    if (x <= x_of(&pts[0], along)) return x_of(&pts[0], axis) * (x > 0 ? x / x_of(&pts[0], along) : 0);
    for (size_t i = 1; i < c->count; i++) {
        double x1 = x_of(&pts[i], along);
        if (x1 < x) continue;
        double x0 = x_of(&pts[i - 1], along), y0 = x_of(&pts[i - 1], axis), y1 = x_of(&pts[i], axis);
        return x1 > x0 ? y0 + (y1 - y0) * (x - x0) / (x1 - x0) : y1;
    }
    return x_of(&pts[c->count - 1], axis);
}

static void axis_value_label(char *out, size_t size, axis_kind axis, double v, unit u) {
    if (axis == AXIS_EXECUTIONS) count_label(out, size, v);
    else if (v == 0) snprintf(out, size, "0");
    else if (v / u.seconds < 1000) snprintf(out, size, "%.3g %s", v / u.seconds, u.name);
    else {   /* "12,000 h", not "1.2e+04 h" */
        char digits[32];
        hf_grouped(digits, sizeof digits, (uint64_t)llround(v / u.seconds));
        snprintf(out, size, "%s %s", digits, u.name);
    }
}

/* ---- The drawing ---------------------------------------------------------- */

enum { WIDTH = 1000, HEIGHT = 640, LEFT = 90, RIGHT = WIDTH - 90, TOP = 86, BOTTOM = HEIGHT - 150, GT_INSET = 4 };

#define BEHAVIOUR_COLOUR "#1f5fbf"
#define CHAO1_COLOUR "#7fa7e0"
#define GOOD_TURING_COLOUR "#e07b00"
#define PLATEAU_COLOUR "#2e8b3e"
#define CRASH_COLOUR "#d0021b"

typedef struct frame {
    axis_kind axis;
    double x_max, y_max;
    /* log10 of the right axis's bottom and top: decades around the
     * campaign's Good-Turing values, on their own axis, so that the line
     * stays inside the plot.  A short campaign expects more than one new
     * behaviour a run (f1/n up to 30 on its first lines): with the top
     * fixed at 1, those values ran along the top edge. */
    double gt_low, gt_high;
} frame;

static double px(const frame *f, double x) { return LEFT + (RIGHT - LEFT) * x / f->x_max; }
static double py(const frame *f, double y) { return BOTTOM - (BOTTOM - TOP) * y / f->y_max; }
static double py_gt(const frame *f, double gt) {
    /* A log axis has no 0: f1 = 0 (nothing seen once) sits on the bottom. */
    double l = gt > 0 ? log10(gt) : f->gt_low;
    if (l < f->gt_low) l = f->gt_low;
    if (l > f->gt_high) l = f->gt_high;
    /* A few pixels inside the frame, so that the line at either end of
     * its axis is not drawn over the frame's edge, half clipped. */
    return BOTTOM - GT_INSET - (BOTTOM - TOP - 2 * GT_INSET) * (l - f->gt_low) / (f->gt_high - f->gt_low);
}

typedef double series_fn(const hf_progress *p);
static double behaviours_of(const hf_progress *p) { return (double)p->behaviours; }
static double chao1_of(const hf_progress *p) { return hf_chao1(p->behaviours, p->f1, p->f2); }

/* A polyline, leaving out points that land on the previous pixel. */
static void put_series(text *t, const hf_campaign *c, const frame *f, series_fn *y_of, bool good_turing,
                       const char *style) {
    put(t, "<path %s d=\"", style);
    double last_x = -1, last_y = -1;
    for (size_t i = 0; i < c->count; i++) {
        const hf_progress *p = &c->points[i];
        double x = round(px(f, x_of(p, f->axis)) * 2) / 2;
        double y = good_turing ? py_gt(f, hf_good_turing(p->f1, p->executions)) : py(f, y_of(p));
        y = round(y * 2) / 2;
        if (x == last_x && y == last_y && i + 1 < c->count) continue;
        put(t, "%s%.1f %.1f", i ? " L" : "M", x, y);
        last_x = x;
        last_y = y;
    }
    put(t, "\"/>\n");
}

typedef struct episode {     /* a stretch where the plateau rule held */
    hf_progress since;       /* the last discovery before it */
    hf_progress held_from;   /* the point where the rule first held */
    hf_progress until;       /* where it stopped holding, or the last point */
} episode;

/* The plateau rule along the merged series. */
static size_t find_episodes(const hf_campaign *c, episode *out, size_t max) {
    hf_plateau rule = {0};
    size_t n = 0;
    bool open = false;
    for (size_t i = 0; i < c->count; i++) {
        hf_plateau_update(&rule, &c->points[i]);
        if (rule.holds && !open && n < max) {
            out[n++] = (episode){rule.quiet_since, c->points[i], c->points[i]};
            open = true;
        } else if (open) {
            out[n - 1].until = c->points[i];
            open = rule.holds;
        }
    }
    return n;
}

static void put_x_axis(text *t, const hf_campaign *c, const frame *f, unit units[3]) {
    double step = nice_step(f->x_max / (f->axis == AXIS_EXECUTIONS ? 1 : units[f->axis].seconds), 8) *
                  (f->axis == AXIS_EXECUTIONS ? 1 : units[f->axis].seconds);
    axis_kind others[2];
    int n = 0;
    for (int a = 0; a < 3; a++)
        if (a != (int)f->axis) others[n++] = (axis_kind)a;
    for (int row = 0; row < 2; row++)
        put(t, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"alt\">%s</text>\n", LEFT - 8,
            BOTTOM + 38 + 16 * row, axis_names[others[row]]);
    for (double x = 0; x <= f->x_max * (1 + 1e-9); x += step) {
        double at = px(f, x);
        char label[48];
        put(t, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" class=\"grid\"/>\n", at, TOP, at, BOTTOM);
        axis_value_label(label, sizeof label, f->axis, x, units[f->axis]);
        put(t, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", at, BOTTOM + 18, label);
        for (int row = 0; row < 2; row++) {
            double v = read_across(c, f->axis, x, others[row]);
            axis_value_label(label, sizeof label, others[row], v, units[others[row]]);
            put(t, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"alt\">%s</text>\n", at,
                BOTTOM + 38 + 16 * row, label);
        }
    }
    const char *title = f->axis == AXIS_LOGICAL ? "logical time simulated (all processes)"
                        : f->axis == AXIS_EXECUTIONS ? "executions (all processes)"
                                                     : "wall-clock time since the first process began";
    put(t, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis\">%s", (LEFT + RIGHT) / 2,
        BOTTOM + 88, title);
    if (f->axis != AXIS_EXECUTIONS) put(t, " (%s)", units[f->axis].name);
    put(t, "</text>\n");
}

static void put_y_axes(text *t, const frame *f) {
    double step = nice_step(f->y_max, 6);
    for (double y = 0; y <= f->y_max * (1 + 1e-9); y += step) {
        char label[32];
        count_label(label, sizeof label, y);
        put(t, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>\n", LEFT, py(f, y), RIGHT,
            py(f, y));
        put(t, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT - 8, py(f, y) + 4, label);
    }
    /* At most about ten labels, however many decades the values span. */
    double every = ceil((f->gt_high - f->gt_low) / 10);
    for (double l = f->gt_low; l <= f->gt_high; l += every)
        put(t, "<text x=\"%d\" y=\"%.1f\" fill=\"" GOOD_TURING_COLOUR "\">1e%d</text>\n", RIGHT + 8,
            py_gt(f, pow(10, l)) + 4, (int)l);
    put(t, "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" class=\"axis\" "
           "fill=\"" BEHAVIOUR_COLOUR "\">distinct behaviours</text>\n", LEFT - 58, (TOP + BOTTOM) / 2);
    put(t, "<text transform=\"translate(%d %d) rotate(90)\" text-anchor=\"middle\" class=\"axis\" "
           "fill=\"" GOOD_TURING_COLOUR "\">Good-Turing f1/n: new behaviours expected in the next run</text>\n",
        RIGHT + 58, (TOP + BOTTOM) / 2);
}

static void put_plateaus(text *t, const frame *f, const episode *e, size_t n, const hf_progress *last) {
    for (size_t i = 0; i < n; i++) {
        double x0 = px(f, x_of(&e[i].since, f->axis)), x1 = px(f, x_of(&e[i].until, f->axis));
        double held = px(f, x_of(&e[i].held_from, f->axis));
        put(t, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"" PLATEAU_COLOUR
               "\" fill-opacity=\"0.12\" class=\"plateau\"/>\n", x0, TOP, x1 - x0, BOTTOM - TOP);
        put(t, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" PLATEAU_COLOUR
               "\" stroke-width=\"2\"/>\n", x0, TOP, x0, BOTTOM);
        put(t, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" PLATEAU_COLOUR
               "\" stroke-dasharray=\"3 3\"/>\n", held, TOP, held, BOTTOM);
        bool current = i == n - 1 && e[i].until.executions == last->executions;
        if (!current) continue;
        char logical[32], wall[32];
        hf_format_duration(logical, sizeof logical, (double)e[i].since.logical_ns / 1e9);
        hf_format_duration(wall, sizeof wall, e[i].since.wall_s);
        put(t, "<text x=\"%.1f\" y=\"%d\" fill=\"" PLATEAU_COLOUR "\" text-anchor=\"%s\" class=\"mark\">"
               "plateau since %s logical, %s wall</text>\n",
            x0 + (x0 > (LEFT + RIGHT) / 2 ? -6 : 6), TOP + 16, x0 > (LEFT + RIGHT) / 2 ? "end" : "start",
            logical, wall);
    }
}

static void put_crashes(text *t, const hf_campaign *c, const frame *f) {
    uint64_t before = 0;
    for (size_t i = 0; i < c->count; i++) {
        const hf_progress *p = &c->points[i];
        if (p->crashes == before) continue;
        double x = px(f, x_of(p, f->axis)), y = py(f, (double)p->behaviours);
        put(t, "<path class=\"crash\" d=\"M%.1f %.1f l10 10 m0 -10 l-10 10\" stroke=\"" CRASH_COLOUR
               "\" stroke-width=\"2.5\"/>\n", x - 5, y - 5);
        if (p->crashes - before > 1)
            put(t, "<text x=\"%.1f\" y=\"%.1f\" fill=\"" CRASH_COLOUR "\">%llu</text>\n", x + 7, y - 7,
                (unsigned long long)(p->crashes - before));
        before = p->crashes;
    }
}

static void put_legend(text *t) {
    int y = HEIGHT - 22;
    put(t, "<g class=\"legend\">\n"
           "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" BEHAVIOUR_COLOUR "\" stroke-width=\"2.5\"/>"
           "<text x=\"%d\" y=\"%d\">distinct behaviours (raw curve)</text>\n",
        LEFT, y, LEFT + 24, y, LEFT + 30, y + 4);
    put(t, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" CHAO1_COLOUR "\" stroke-width=\"2\" "
           "stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%d\">Chao1 estimate</text>\n",
        LEFT + 250, y, LEFT + 274, y, LEFT + 280, y + 4);
    put(t, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" GOOD_TURING_COLOUR "\" stroke-width=\"2\"/>"
           "<text x=\"%d\" y=\"%d\">Good-Turing (right axis)</text>\n",
        LEFT + 400, y, LEFT + 424, y, LEFT + 430, y + 4);
    put(t, "<rect x=\"%d\" y=\"%d\" width=\"24\" height=\"12\" fill=\"" PLATEAU_COLOUR "\" fill-opacity=\"0.25\"/>"
           "<text x=\"%d\" y=\"%d\">plateau</text>\n",
        LEFT + 600, y - 6, LEFT + 630, y + 4);
    put(t, "<path d=\"M%d %d l8 8 m0 -8 l-8 8\" stroke=\"" CRASH_COLOUR "\" stroke-width=\"2.5\"/>"
           "<text x=\"%d\" y=\"%d\">crash</text>\n</g>\n",
        LEFT + 710, y - 4, LEFT + 724, y + 4);
}

static void put_titles(text *t, const hf_campaign *c, bool no_logical_time, const episode *plateau) {
    const hf_progress *last = &c->points[c->count - 1];
    char execs[32], behaviours[32], logical[32], wall[32];
    hf_grouped(execs, sizeof execs, last->executions);
    hf_grouped(behaviours, sizeof behaviours, last->behaviours);
    hf_format_duration(logical, sizeof logical, (double)last->logical_ns / 1e9);
    hf_format_duration(wall, sizeof wall, last->wall_s);
    put(t, "<text x=\"%d\" y=\"30\" class=\"title\">Behaviour discovery: ", LEFT);
    put_escaped(t, c->target);
    put(t, " (");
    put_escaped(t, c->engines);
    char size[64];
    hf_campaign_size(c, size, sizeof size);
    put(t, ", %s)</text>\n", size);
    put(t, "<text x=\"%d\" y=\"52\" class=\"sub\">%s executions · %s logical · %s wall · %s behaviours, "
           "Chao1 %.0f · Good-Turing %.1e · %llu crash%s</text>\n",
        LEFT, execs, logical, wall, behaviours, hf_chao1(last->behaviours, last->f1, last->f2),
        hf_good_turing(last->f1, last->executions), (unsigned long long)last->crashes,
        last->crashes == 1 ? "" : "es");
    put(t, "<text x=\"%d\" y=\"72\" class=\"sub\">", LEFT);
    if (plateau) {
        char since_logical[32], since_wall[32], at[32];
        hf_format_duration(since_logical, sizeof since_logical, (double)plateau->since.logical_ns / 1e9);
        hf_format_duration(since_wall, sizeof since_wall, plateau->since.wall_s);
        hf_grouped(at, sizeof at, plateau->since.executions);
        put(t, "Plateau: nothing new since %s logical, %s wall (execution %s)", since_logical, since_wall, at);
    } else {
        put(t, "No plateau yet");
    }
    if (no_logical_time) put(t, " · no logical time was simulated, so x is executions");
    if (c->skipped) put(t, " · %zu bad log line%s skipped", c->skipped, c->skipped == 1 ? "" : "s");
    put(t, "</text>\n");
}

static void render(text *t, const hf_campaign *c, axis_kind axis, bool no_logical_time, const episode *e,
                   size_t episodes) {
    const hf_progress *last = &c->points[c->count - 1];
    frame f = {.axis = axis, .x_max = x_of(last, axis), .gt_low = -1, .gt_high = 0};
    if (f.x_max <= 0) f.x_max = 1;
    double s_max = 0, chao_max = 0;
    for (size_t i = 0; i < c->count; i++) {
        const hf_progress *p = &c->points[i];
        if ((double)p->behaviours > s_max) s_max = (double)p->behaviours;
        double ch = chao1_of(p);
        if (ch > chao_max) chao_max = ch;
        double gt = hf_good_turing(p->f1, p->executions);
        if (gt > 0 && floor(log10(gt)) < f.gt_low) f.gt_low = floor(log10(gt));
        if (gt > 0 && ceil(log10(gt)) > f.gt_high) f.gt_high = ceil(log10(gt));
    }
    /* Chao1 may dwarf the raw curve early on; the curve is what matters. */
    double top = chao_max < 2 * s_max ? chao_max : 2 * s_max;
    if (top < s_max) top = s_max;
    if (top < 1) top = 1;
    double step = nice_step(top, 6);
    f.y_max = ceil(top * 1.02 / step) * step;

    unit units[3] = {time_unit((double)last->logical_ns / 1e9), {"", 1}, time_unit(last->wall_s)};
    const episode *current = episodes && e[episodes - 1].until.executions == last->executions ? &e[episodes - 1]
                                                                                             : NULL;
    put(t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
           "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
        WIDTH, HEIGHT, WIDTH, HEIGHT);
    put(t, "<style>.grid{stroke:#e4e4e4}.title{font-size:18px;font-weight:bold}.sub{font-size:12.5px;fill:#444}"
           ".alt{fill:#888;font-size:11px}.axis{font-size:13px}.mark{font-size:12px;font-weight:bold}</style>\n");
    put(t, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, HEIGHT);
    put(t, "<clipPath id=\"plot\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></clipPath>\n", LEFT, TOP,
        RIGHT - LEFT, BOTTOM - TOP);
    put_titles(t, c, no_logical_time, current);
    put_y_axes(t, &f);
    put_x_axis(t, c, &f, units);
    put(t, "<g clip-path=\"url(#plot)\">\n");
    put_plateaus(t, &f, e, episodes, last);
    put_series(t, c, &f, chao1_of, false,
               "class=\"chao1\" fill=\"none\" stroke=\"" CHAO1_COLOUR "\" stroke-width=\"2\" stroke-dasharray=\"6 4\"");
    put_series(t, c, &f, NULL, true,
               "class=\"good-turing\" fill=\"none\" stroke=\"" GOOD_TURING_COLOUR "\" stroke-width=\"2\"");
    put_series(t, c, &f, behaviours_of, false,
               "class=\"behaviours\" fill=\"none\" stroke=\"" BEHAVIOUR_COLOUR "\" stroke-width=\"2.5\"");
    put_crashes(t, c, &f);
    put(t, "</g>\n<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", LEFT, TOP,
        RIGHT - LEFT, BOTTOM - TOP);
    put_legend(t);
    put(t, "</svg>\n");
}

/* ---- The drawing as a function (chart.h) ----------------------------------- */

enum { MAX_EPISODES = 64 };

int hf_chart_write_svg(FILE *out, const hf_campaign *c, hf_chart_axis chart_axis, bool in_html) {
    assert(out && c && c->count > 0);
    axis_kind axis = chart_axis == HF_CHART_WALL ? AXIS_WALL
                     : chart_axis == HF_CHART_EXECUTIONS ? AXIS_EXECUTIONS : AXIS_LOGICAL;
    bool no_logical_time = axis == AXIS_LOGICAL && c->points[c->count - 1].logical_ns == 0;
    if (no_logical_time) axis = AXIS_EXECUTIONS;
    episode e[MAX_EPISODES];
    size_t episodes = find_episodes(c, e, MAX_EPISODES);
    text svg = {0};
    render(&svg, c, axis, no_logical_time, e, episodes);
    if (svg.out_of_memory) {
        free(svg.data);
        return -1;
    }
    /* Inside HTML the XML declaration is out of place: the <svg> element
     * alone is the drawing. */
    const char *from = svg.data;
    if (in_html && !strncmp(from, "<?xml", 5)) from = strchr(from, '\n') + 1;
    size_t len = svg.len - (size_t)(from - svg.data);
    int rc = fwrite(from, 1, len, out) == len ? 0 : -1;
    free(svg.data);
    return rc;
}

int hf_chart_write_file(const char *path, const hf_campaign *c, hf_chart_axis axis, char *error,
                        size_t error_size) {
    char *svg = NULL;
    size_t svg_len = 0;
    FILE *memory = open_memstream(&svg, &svg_len);
    bool drawn = memory && hf_chart_write_svg(memory, c, axis, false) == 0;
    if (memory && fclose(memory) != 0) drawn = false;
    if (!drawn) {
        snprintf(error, error_size, "out of memory drawing %s", path);
        free(svg);
        return -1;
    }
    int rc = hf_write_file(path, svg, svg_len, error, error_size);
    free(svg);
    return rc;
}

/* ---- The command ---------------------------------------------------------- */

int hf_campaign_read_for_command(hf_campaign *c, const char *const *logs, size_t nlogs, bool skip_bad,
                                 const char *skip_bad_does) {
    char error[512];
    if (hf_campaign_read(c, logs, nlogs, skip_bad, error, sizeof error)) {
        fprintf(stderr, "heisenfuzz: %s", error);
        if (strstr(error, "(byte")) fprintf(stderr, " (--skip-bad %s)", skip_bad_does);
        fputc('\n', stderr);
        return 2;
    }
    if (c->skipped)
        fprintf(stderr, "heisenfuzz: skipped %zu bad line%s; the first: %s\n", c->skipped,
                c->skipped == 1 ? "" : "s", c->first_skipped);
    return 0;
}

/* ---- The command ----------------------------------------------------------- */

/* The x axes in axis_kind's order; "hours" is the logical axis's old name. */
static const char *const axis_words[] = {"logical", "executions", "wall", "hours", NULL};

typedef struct chart_options {
    const char *output;
    int axis;                /* an axis_kind, or 3: hours */
    bool skip_bad;
} chart_options;

static const chart_options chart_defaults = {.output = "chart.svg", .axis = AXIS_LOGICAL};

static const hf_option chart_option_table[] = {
    {.short_name = 'o', HF_STRING(chart_options, output), .value_name = "FILE.svg", .help = "the chart's file"},
    {.name = "x", HF_WORD(chart_options, axis, axis_words),
     .help = "the x axis: logical time (hours the same), executions or wall-clock time"},
    {.name = "skip-bad", HF_FLAG(chart_options, skip_bad), .help = "chart the good lines of a damaged log"},
};

const hf_command_spec hf_chart_spec = {
    .name = "chart",
    .operands = "LOG...",
    .summary = "draw discovery logs (HEISENFUZZ_LOG, fuzz --log) as an SVG: behaviours, Good-Turing, the "
               "plateau, crashes",
    HF_OPTION_TABLE(chart_option_table),
    .defaults = &chart_defaults,
    .size = sizeof(chart_options),
};

int hf_cmd_chart(int argc, char **argv) {
    chart_options o;
    char **operands;
    int count;
    int parsed = hf_options_parse(&hf_chart_spec, argc, argv, &o, &operands, &count);
    if (parsed != HF_PARSED) return parsed;
    if (count < 1) return hf_command_usage_error(hf_chart_spec.name, "chart needs at least one discovery log");
    const char *output = o.output;
    axis_kind axis = o.axis == 3 ? AXIS_LOGICAL : (axis_kind)o.axis;
    const char **logs = (const char **)operands;
    size_t nlogs = (size_t)count;

    hf_campaign c;
    char error[512];
    int rc = hf_campaign_read_for_command(&c, logs, nlogs, o.skip_bad, "charts the good lines");
    if (rc) return rc;
    const hf_progress *last = &c.points[c.count - 1];
    hf_chart_axis chart_axis = axis == AXIS_WALL ? HF_CHART_WALL
                               : axis == AXIS_EXECUTIONS ? HF_CHART_EXECUTIONS : HF_CHART_LOGICAL;
    if (hf_chart_write_file(output, &c, chart_axis, error, sizeof error) != 0) {
        fprintf(stderr, "heisenfuzz: %s\n", error);
        hf_campaign_free(&c);
        return 2;
    }

    /* The same figures in words, and the plateau if the rule holds now. */
    hf_plateau rule = {0};
    for (size_t i = 0; i < c.count; i++) hf_plateau_update(&rule, &c.points[i]);
    char status[512];
    hf_status_line(status, sizeof status, last, &rule);
    char size[64];
    hf_campaign_size(&c, size, sizeof size);
    printf("%s: %s (%s, %s), %zu points\n%s\n", output, c.target, c.engines, size, c.count, status);
    if (rule.holds) {
        char logical[32], wall[32];
        hf_format_duration(logical, sizeof logical, (double)rule.quiet_since.logical_ns / 1e9);
        hf_format_duration(wall, sizeof wall, rule.quiet_since.wall_s);
        printf("plateau: no new behaviour since %s logical, %s wall, execution %llu\n", logical, wall,
               (unsigned long long)rule.quiet_since.executions);
    } else {
        printf("plateau: not reached\n");
    }
    hf_campaign_free(&c);
    return 0;
}
