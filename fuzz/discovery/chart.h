/*
 * chart.h — the discovery chart (`heisenfuzz chart`) as a function, so
 * that other pages (`heisenfuzz report`) draw the same picture.
 */
#ifndef HF_CHART_H
#define HF_CHART_H

#include "logread.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum hf_chart_axis { HF_CHART_LOGICAL, HF_CHART_EXECUTIONS, HF_CHART_WALL } hf_chart_axis;

/* Writes the chart of `c` (at least one point) as one SVG to `out`: with
 * `in_html`, the <svg> element alone, to go inside an HTML page.  A
 * campaign that simulated no logical time is drawn against executions.
 * Returns 0, or -1 when memory or the write failed. */
int hf_chart_write_svg(FILE *out, const hf_campaign *c, hf_chart_axis axis, bool in_html);

/* Writes the chart of `c` into the file `path` (temporary file, then
 * rename), for `chart` and for `fuzz`'s chart at the end of a campaign.
 * Returns 0, or -1 with a one-line reason naming the file in `error`. */
int hf_chart_write_file(const char *path, const hf_campaign *c, hf_chart_axis axis, char *error,
                        size_t error_size);

/* Reads the logs for a command: on failure prints the one-line error, with
 * a hint that --skip-bad `skip_bad_does` (e.g. "charts the good lines") when
 * a line was bad, and returns 2; else prints how many bad lines were
 * skipped, if any, and returns 0. */
int hf_campaign_read_for_command(hf_campaign *c, const char *const *logs, size_t nlogs, bool skip_bad,
                                 const char *skip_bad_does);

/* A count with its thousands separated, "12,345", into out[0..size). */
void hf_grouped(char *out, size_t size, uint64_t v);

#endif
