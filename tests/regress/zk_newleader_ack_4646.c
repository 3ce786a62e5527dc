/*
 * zk_newleader_ack_4646.c — regression test for zk_newleader_ack_buggy.
 *
 * The schedule below makes zk_newleader_ack_buggy fail
 *
 *     property: after a restart, the follower's log holds every transaction it acknowledged
 *
 * while its fixed variant, zk_newleader_ack, passes it.  `heisenfuzz minimize
 * --emit-test` wrote it from the crash
 *
 *     zkcrash
 *
 * (8 bytes, 5 non-default decisions), minimized to those below:
 * undoing any one loses the failure.  Every decision not listed takes
 * its default.  It replays through the runtime, no fuzzer needed.
 *
 * As an input file (for `heisenfuzz replay zk_newleader_ack_buggy FILE`), in hex:
 *     01 00 00 05 00 0a 00
 */
#include "check.h"
#include "run.h"
#include "targets.h"

#include <string.h>

/* The decisions that leave the undisturbed schedule, in the order the run
 * takes them: {decision index, raw value, value bytes}. */
static const hf_deviation schedule[] = {
    {1, 0, 0},               /* world decision at 0.000000000 s: main faults this run allows: crash */
    {2, 0, 0},               /* world decision at 0.000000000 s: main faults this run allows: crash, lost writes */
    {3, 5, 2},               /* decision, first seen at 0.005000000 s: chaos timeout the world's next event */
    {14, 0, 1},              /* scheduling pick at 0.002400000 s: follower.sync runs */
};

static const char expected_failure[] = "after a restart, the follower's log holds every transaction it acknowledged";

int main(void) {
    uint8_t input[7];
    size_t size = hf_encode_deviations(schedule, sizeof schedule / sizeof *schedule,
                                       input, sizeof input);
    CHECK(size == sizeof input, "the schedule encodes into %zu bytes", size);

    hf_result r;
    hf_run(&zk_newleader_ack_buggy_target, input, size, &r);
    CHECK(r.outcome == HF_FAIL_PROPERTY && strcmp(r.message, expected_failure) == 0,
          "zk_newleader_ack_buggy fails: %s (got %s: %s)", expected_failure,
          hf_outcome_name(r.outcome), r.message);
    CHECK(r.deviations == 4, "zk_newleader_ack_buggy takes exactly the scheduled deviations (took %u)",
          r.deviations);

    hf_run(&zk_newleader_ack_target, input, size, &r);
    CHECK(r.outcome == HF_OK, "zk_newleader_ack, the fixed variant, passes the same schedule (got %s%s%s)",
          hf_outcome_name(r.outcome), r.message[0] ? ": " : "", r.message);

    hf_runtime_free();
    return check_exit();
}
