/*
 * kafka_idempotent_buggy_3f6e7354.c — regression test for kafka_idempotent_buggy.
 *
 * The schedule below makes kafka_idempotent_buggy fail
 *
 *     property: for each producer, the records in the log appear in send order, without duplicates
 *
 * while its fixed variant, kafka_idempotent, passes it.  `heisenfuzz minimize
 * --emit-test` wrote it from the crash
 *
 *     crash-kafka_idempotent_buggy-1
 *
 * (6 bytes, 2 non-default decisions), minimized to those below:
 * undoing any one loses the failure.  Every decision not listed takes
 * its default.  It replays through the runtime, no fuzzer needed.
 *
 * As an input file (for `heisenfuzz replay kafka_idempotent_buggy FILE`), in hex:
 *     00 0d b0 3c 34 0c
 */
#include "check.h"
#include "run.h"
#include "targets.h"

#include <string.h>

/* The decisions that leave the undisturbed schedule, in the order the run
 * takes them: {decision index, raw value, value bytes}. */
static const hf_deviation schedule[] = {
    {0, 0, 0},               /* world decision at 0.000000000 s: main faults this run allows: delay */
    {14, 204750000, 4},      /* world decision at 0.000000000 s: controller.to-broker1 delay msg#2 n1->n2 LeaderAndIsr by 5.000 ms */
};

static const char expected_failure[] = "for each producer, the records in the log appear in send order, without duplicates";

int main(void) {
    uint8_t input[6];
    size_t size = hf_encode_deviations(schedule, sizeof schedule / sizeof *schedule,
                                       input, sizeof input);
    CHECK(size == sizeof input, "the schedule encodes into %zu bytes", size);

    const hf_target *buggy = hf_target_find("kafka_idempotent_buggy"), *fixed = hf_target_find("kafka_idempotent");
    CHECK(buggy && fixed, "kafka_idempotent_buggy and kafka_idempotent are linked in");
    if (!buggy || !fixed) return check_exit();

    hf_result r;
    hf_run(buggy, input, size, &r);
    CHECK(r.outcome == HF_FAIL_PROPERTY && strcmp(r.message, expected_failure) == 0,
          "kafka_idempotent_buggy fails: %s (got %s: %s)", expected_failure,
          hf_outcome_name(r.outcome), r.message);
    CHECK(r.deviations == 2, "kafka_idempotent_buggy takes exactly the scheduled deviations (took %u)",
          r.deviations);

    hf_run(fixed, input, size, &r);
    CHECK(r.outcome == HF_OK, "kafka_idempotent, the fixed variant, passes the same schedule (got %s%s%s)",
          hf_outcome_name(r.outcome), r.message[0] ? ": " : "", r.message);

    hf_runtime_free();
    return check_exit();
}
