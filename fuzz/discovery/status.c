/*
 * status.c — the one-line status of a campaign.
 */
#include "status.h"

#include <assert.h>
#include <stdio.h>

void hf_format_duration(char *text, size_t size, double seconds) {
    assert(seconds >= 0);
    if (seconds < 1) snprintf(text, size, "%.0f ms", seconds * 1e3);
    else if (seconds < 120) snprintf(text, size, "%.1f s", seconds);
    else if (seconds < 7200) snprintf(text, size, "%.1f min", seconds / 60);
    else snprintf(text, size, "%.2f h", seconds / 3600);
}

void hf_status_line(char *line, size_t size, const hf_progress *now, const hf_plateau *plateau) {
    char logical[32];
    hf_format_duration(logical, sizeof logical, (double)now->logical_ns / 1e9);
    double rate = now->wall_s > 0 ? (double)now->executions / now->wall_s : 0;
    int n = snprintf(line, size,
                     "#%llu\tbhv: %llu chao1: %.0f f1: %llu f2: %llu gt: %.2e "
                     "logical: %s crashes: %llu exec/s: %.0f",
                     (unsigned long long)now->executions, (unsigned long long)now->behaviours,
                     hf_chao1(now->behaviours, now->f1, now->f2), (unsigned long long)now->f1,
                     (unsigned long long)now->f2, hf_good_turing(now->f1, now->executions),
                     logical, (unsigned long long)now->crashes, rate);
    if (!plateau || !plateau->holds || n < 0 || (size_t)n >= size) return;
    char since[32], wall[32];
    hf_format_duration(since, sizeof since, (double)plateau->quiet_since.logical_ns / 1e9);
    hf_format_duration(wall, sizeof wall, plateau->quiet_since.wall_s);
    snprintf(line + n, size - (size_t)n, " PLATEAU since %s logical, %s wall (#%llu)", since, wall,
             (unsigned long long)plateau->quiet_since.executions);
}
