/*
 * chart_fuzzer.c — `heisenfuzz chart` (fuzz/discovery/chart.c) on arbitrary bytes as
 * a discovery log, along each x axis, strict and skipping bad lines: it
 * draws an SVG (exit 0) or refuses with one line (exit 2), never crashes.
 */
#include "commands.h"
#include "log_file.h"
#include "self_check.h"
#include "tool.h"

#include <stdio.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* The chart's summary lines would swamp the engine's own. */
    if (!freopen("/dev/null", "w", stdout)) return 0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const axes[] = {"logical", "executions", "wall"};
    const char *log = self_log_file(data, size);
    /* The last byte picks the axis and strictness, so each input is one
     * drawing of its own. */
    unsigned pick = size ? data[size - 1] : 0;
    char *argv[] = {"chart", "-o", (char *)self_out_file(), "--x", (char *)axes[pick % 3],
                    (pick & 4) ? "--skip-bad" : (char *)log, (char *)log, NULL};
    int argc = (pick & 4) ? 7 : 6;
    int rc = hf_cmd_chart(argc, argv);
    SELF_CHECK(rc == 0 || rc == 2, "chart exited %d", rc);
    return 0;
}
