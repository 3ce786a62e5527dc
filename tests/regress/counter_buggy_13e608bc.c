/*
 * counter_buggy_13e608bc.c — regression test for counter_buggy.
 *
 * The schedule below makes counter_buggy fail
 *
 *     property: the final count equals the number of increments
 *
 * while its fixed variant, counter, passes it.  `heisenfuzz minimize
 * --emit-test` wrote it from the crash
 *
 *     crash-a447baa003b88e3106611913c49e48261544f684
 *
 * (2 bytes, 1 non-default decision), minimized to the one below:
 * undoing any one loses the failure.  Every decision not listed takes
 * its default.  It replays through the runtime, no fuzzer needed.
 *
 * As an input file (for `heisenfuzz replay counter_buggy FILE`), in hex:
 *     03 00
 */
#include "check.h"
#include "run.h"
#include "targets.h"

#include <string.h>

/* The decisions that leave the undisturbed schedule, in the order the run
 * takes them: {decision index, raw value, value bytes}. */
static const hf_deviation schedule[] = {
    {3, 0, 1},               /* scheduling pick at 0.000000000 s: worker2 runs (after worker1: read 0) */
};

static const char expected_failure[] = "the final count equals the number of increments";

int main(void) {
    uint8_t input[2];
    size_t size = hf_encode_deviations(schedule, sizeof schedule / sizeof *schedule,
                                       input, sizeof input);
    CHECK(size == sizeof input, "the schedule encodes into %zu bytes", size);

    const hf_target *buggy = hf_target_find("counter_buggy"), *fixed = hf_target_find("counter");
    CHECK(buggy && fixed, "counter_buggy and counter are linked in");
    if (!buggy || !fixed) return check_exit();

    hf_result r;
    hf_run(buggy, input, size, &r);
    CHECK(r.outcome == HF_FAIL_PROPERTY && strcmp(r.message, expected_failure) == 0,
          "counter_buggy fails: %s (got %s: %s)", expected_failure,
          hf_outcome_name(r.outcome), r.message);
    CHECK(r.deviations == 1, "counter_buggy takes exactly the scheduled deviations (took %u)",
          r.deviations);

    hf_run(fixed, input, size, &r);
    CHECK(r.outcome == HF_OK, "counter, the fixed variant, passes the same schedule (got %s%s%s)",
          hf_outcome_name(r.outcome), r.message[0] ? ": " : "", r.message);

    hf_runtime_free();
    return check_exit();
}
