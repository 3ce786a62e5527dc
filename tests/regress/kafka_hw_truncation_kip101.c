/*
 * kafka_hw_truncation_kip101.c — regression test for kafka_hw_truncation_buggy.
 *
 * The schedule below makes kafka_hw_truncation_buggy fail
 *
 *     property: every record acknowledged to the producer is in the log of a broker that becomes leader
 *
 * while its fixed variant, kafka_hw_truncation, passes it.  `heisenfuzz minimize
 * --emit-test` wrote it from the crash
 *
 *     hwcrash
 *
 * (20 bytes, 7 non-default decisions), minimized to those below:
 * undoing any one loses the failure.  Every decision not listed takes
 * its default.  It replays through the runtime, no fuzzer needed.
 *
 * As an input file (for `heisenfuzz replay kafka_hw_truncation_buggy FILE`), in hex:
 *     02 00 20 2f 20 00 00 00 80 6b 2b 02
 */
#include "check.h"
#include "run.h"
#include "targets.h"

#include <string.h>

/* The decisions that leave the undisturbed schedule, in the order the run
 * takes them: {decision index, raw value, value bytes}. */
static const hf_deviation schedule[] = {
    {2, 0, 0},               /* world decision at 0.000000000 s: main faults this run allows: crash */
    {3, 12064, 2},           /* decision, first seen at 0.064000000 s: chaos timeout the world's next event */
    {36, 0, 2},              /* world decision at 0.064000000 s: chaos crash n2 (back in 20.000 ms) */
    {37, 36400000, 4},       /* world decision at 0.064000000 s: chaos crash n2 (back in 56.400 ms) */
};

static const char expected_failure[] = "every record acknowledged to the producer is in the log of a broker that becomes leader";

int main(void) {
    uint8_t input[12];
    size_t size = hf_encode_deviations(schedule, sizeof schedule / sizeof *schedule,
                                       input, sizeof input);
    CHECK(size == sizeof input, "the schedule encodes into %zu bytes", size);

    hf_result r;
    hf_run(&kafka_hw_truncation_buggy_target, input, size, &r);
    CHECK(r.outcome == HF_FAIL_PROPERTY && strcmp(r.message, expected_failure) == 0,
          "kafka_hw_truncation_buggy fails: %s (got %s: %s)", expected_failure,
          hf_outcome_name(r.outcome), r.message);
    CHECK(r.deviations == 4, "kafka_hw_truncation_buggy takes exactly the scheduled deviations (took %u)",
          r.deviations);

    hf_run(&kafka_hw_truncation_target, input, size, &r);
    CHECK(r.outcome == HF_OK, "kafka_hw_truncation, the fixed variant, passes the same schedule (got %s%s%s)",
          hf_outcome_name(r.outcome), r.message[0] ? ": " : "", r.message);

    hf_runtime_free();
    return check_exit();
}
