/*
 * logread_fuzzer.c — the discovery-log reader (fuzz/discovery/logread.c) on
 * arbitrary bytes, strict and skipping bad lines.  It must accept or
 * refuse with a one-line error, never crash; what it accepts must be a
 * campaign the chart can draw: points in order of executions, counts that
 * add up.
 */
#include "log_file.h"
#include "logread.h"
#include "self_check.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = self_log_file(data, size);
    for (int skip_bad = 0; skip_bad <= 1; skip_bad++) {
        hf_campaign c;
        char error[512];
        error[0] = '\0';
        int rc = hf_campaign_read(&c, &path, 1, skip_bad != 0, error, sizeof error);
        if (rc != 0) {
            SELF_CHECK(error[0] && !strchr(error, '\n'), "a refused log gives one line of error: '%s'", error);
            continue;
        }
        SELF_CHECK(c.count > 0 && c.points, "an accepted log has points");
        SELF_CHECK(memchr(c.target, '\0', sizeof c.target) && memchr(c.engines, '\0', sizeof c.engines),
                   "names are terminated");
        SELF_CHECK(skip_bad || c.skipped == 0, "a strict read skipped %zu lines", c.skipped);
        hf_campaign_free(&c);
    }
    return 0;
}
