#!/bin/bash
# tests/test_minimize_cli.sh — `heisenfuzz minimize` from the outside: what
# it writes and prints, that the same crash gives the same file, its exit
# statuses and one-line errors, that no existing file is half-written or
# lost on an error, the goal kept beside the output, and that the C test
# --emit-test writes compiles, links and passes.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${HF_OUT:-out}   # a plain build: the emitted test is linked against its objects
HF=$OUT/heisenfuzz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # DESCRIPTION COMMAND...: ok when the command succeeds
    local what=$1; shift
    if "$@"; then echo "ok - $what"; else echo "not ok - $what"; fi
}
# status_of COMMAND...: runs it, stdout to $tmp/out, stderr to $tmp/err; prints its status.
status_of() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }
one_error_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$1" "$tmp/err"; }
property="the final count equals the number of increments"

# libFuzzer's first crash of counter_buggy (-seed=1): skip 3, value 16.
printf '\003\020' >"$tmp/crash"
# A noisy crash: every decision deviates.
for i in $(seq 1 60); do printf "\\000\\$(printf %03o $(( (i * 37 + 11) % 256 )))"; done >"$tmp/noisy"

s=$(status_of "$HF" minimize --help)
check "minimize --help exits 0 and shows the usage" \
    bash -c "[ $s -eq 0 ] && grep -q 'usage: heisenfuzz minimize' '$tmp/out'"

s=$(status_of "$HF" minimize counter_buggy "$tmp/crash" -o "$tmp/min")
check "a crash minimizes with exit status 0" [ "$s" -eq 0 ]
check "the minimized input is the single deviation {3, 0}: the byte 03 (the value's 00 reads as missing)" \
    bash -c "[ \"\$(od -An -tx1 '$tmp/min' | tr -d ' ')\" = 03 ]"
check "the goal is written beside it" \
    grep -qx "message $property" "$tmp/min.goal"
check "the summary gives bytes and deviations before and after, and 1-minimality" \
    bash -c "grep -q 'bytes:       2 -> 1' '$tmp/out' && grep -q 'deviations:  1 -> 1' '$tmp/out' &&
             grep -q '1-minimal:   yes' '$tmp/out'"
check "the kept decision is explained as a scheduling pick" \
    grep -q "3: 0 .*scheduling pick at .*worker2 runs (after worker1: read 0)" "$tmp/out"
check "the timeline marks the deviated pick with * and ends in the verdict" \
    bash -c "grep -q '^\*.*worker2 *run\$' '$tmp/out' && grep -qx 'verdict: fail $property' '$tmp/out'"
check "a progress line goes to stderr" grep -q "^minimize: #[0-9]* runs  deviations" "$tmp/err"

s=$(status_of "$HF" minimize -q counter_buggy "$tmp/noisy" -o "$tmp/noisy.a")
s2=$(status_of "$HF" minimize -q counter_buggy "$tmp/noisy" -o "$tmp/noisy.b")
check "a noisy crash shrinks to one deviation" grep -q "deviations:  [0-9]* -> 1\$" "$tmp/out"
check "minimizing the same crash twice writes the same bytes" \
    bash -c "[ $s -eq 0 ] && [ $s2 -eq 0 ] && cmp -s '$tmp/noisy.a' '$tmp/noisy.b'"
check "-q leaves out the timeline" bash -c "! grep -q ' main  *spawn worker1' '$tmp/out'"
s=$(status_of "$HF" replay counter_buggy "$tmp/noisy.a")
check "the minimized file replays to the same failure" \
    bash -c "[ $s -eq 1 ] && grep -qx 'verdict: fail $property' '$tmp/out'"

s=$(status_of "$HF" minimize --max-runs 3 counter_buggy "$tmp/noisy" -o "$tmp/noisy.c")
check "with --max-runs 3 it stops, says 1-minimality is not proven, and still writes a failing input" \
    bash -c "[ $s -eq 0 ] && grep -q '1-minimal:   not proven' '$tmp/out' && [ -s '$tmp/noisy.c' ]"

# Refusals: exit 2, one line naming the problem, nothing overwritten.
: >"$tmp/empty"
echo "keep me" >"$tmp/precious"
s=$(status_of "$HF" minimize counter_buggy "$tmp/empty" -o "$tmp/precious")
check "an input that does not fail: exit 2 and a one-line reason" \
    bash -c "[ $s -eq 2 ] && $(declare -f one_error_line); tmp='$tmp'; one_error_line 'does not fail under counter_buggy'"
check "and the existing -o file is untouched" grep -qx "keep me" "$tmp/precious"
s=$(status_of "$HF" minimize counter "$tmp/crash" -o "$tmp/precious")
check "the fixed counter does not fail the crash: exit 2" \
    bash -c "[ $s -eq 2 ] && grep -q 'does not fail under counter ' '$tmp/err' && grep -qx 'keep me' '$tmp/precious'"
s=$(status_of "$HF" minimize counter_buggy "$tmp/no-such-file")
check "a missing crash file: exit 2, named" \
    bash -c "[ $s -eq 2 ] && grep -q 'cannot open $tmp/no-such-file' '$tmp/err'"
s=$(status_of "$HF" minimize no_such_target "$tmp/crash")
check "an unknown target: exit 2" bash -c "[ $s -eq 2 ] && grep -q \"unknown target 'no_such_target'\" '$tmp/err'"
s=$(status_of "$HF" minimize --max-runs 0 counter_buggy "$tmp/crash")
check "--max-runs 0: exit 2, the option named" bash -c "[ $s -eq 2 ] && grep -q -- '--max-runs needs' '$tmp/err'"
s=$(status_of "$HF" minimize --max-time soon counter_buggy "$tmp/crash")
check "--max-time soon: exit 2, the option named" bash -c "[ $s -eq 2 ] && grep -q -- \"--max-time needs .*'soon'\" '$tmp/err'"
s=$(status_of "$HF" minimize --frobnicate counter_buggy "$tmp/crash")
check "an unknown option: exit 2" bash -c "[ $s -eq 2 ] && grep -q \"unknown option '--frobnicate'\" '$tmp/err'"
s=$(status_of "$HF" minimize counter_buggy "$tmp/crash" -o "$tmp/no-dir/min")
check "an unwritable -o: exit 2, the path named, nothing left behind" \
    bash -c "[ $s -eq 2 ] && grep -q '$tmp/no-dir/min' '$tmp/err' && [ ! -e '$tmp/no-dir' ]"

# The goal: asked for, or recorded beside the crash.
s=$(status_of "$HF" minimize counter_buggy "$tmp/crash" -o "$tmp/m2" --expect "$property")
check "--expect with the crash's own failure minimizes as usual" \
    bash -c "[ $s -eq 0 ] && grep -qx 'outcome any' '$tmp/m2.goal'"
s=$(status_of "$HF" minimize counter_buggy "$tmp/crash" -o "$tmp/m3" --expect "offsets only grow")
check "a crash that fails another way than --expect says so, then exits 2 when the goal cannot be reached" \
    bash -c "[ $s -eq 2 ] && grep -q 'now fails with property \"$property\", not the goal failure \"offsets only grow\"' '$tmp/err' &&
             grep -q 'cannot reproduce the goal' '$tmp/err' && [ ! -e '$tmp/m3' ]"
cp "$tmp/crash" "$tmp/later"
printf 'target counter_buggy\noutcome property\nmessage offsets only grow\n' >"$tmp/later.goal"
s=$(status_of "$HF" minimize counter_buggy "$tmp/later")
check "a goal recorded in CRASH.goal is kept as the goal" \
    bash -c "[ $s -eq 2 ] && grep -q 'not the goal property \"offsets only grow\" (recorded in the crash.s .goal file)' '$tmp/err'"
printf 'message x\ncolour blue\n' >"$tmp/later.goal"
s=$(status_of "$HF" minimize counter_buggy "$tmp/later")
check "a malformed goal file: exit 2, file and line named" \
    bash -c "[ $s -eq 2 ] && grep -q \"later.goal:2: unknown key 'colour'\" '$tmp/err'"

# The article's crash: `heisenfuzz fuzz --seed 6 kafka_idempotent_buggy` of an earlier build
# found this schedule (allow delays; delay the LeaderAndIsr to broker1 by
# 5.05 ms).  Minimized, it must still read like KAFKA-19880's table.
printf '\000\015\054\377\064\014' >"$tmp/kafka"
s=$(status_of "$HF" minimize kafka_idempotent_buggy "$tmp/kafka" -o "$tmp/kafka.min")
grep ' producer .*Produce corrId=.* -> ' "$tmp/out" | head -4 | sed 's/.*Produce //' >"$tmp/kafka.table"
printf '%s\n' 'corrId=21 baseSeq=0 -> NotLeaderOrFollower' 'corrId=22 baseSeq=1458 -> NotLeaderOrFollower' \
    'corrId=23 baseSeq=2823 -> NotEnoughReplicas' 'corrId=24 baseSeq=4188 -> success' >"$tmp/kafka.article"
check "the kafka crash stays two deviations, 1-minimal" \
    bash -c "[ $s -eq 0 ] && grep -q 'deviations:  2 -> 2' '$tmp/out' && grep -q '1-minimal:   yes' '$tmp/out'"
check "its minimized timeline reads like the article: NotLeaderOrFollower twice, NotEnoughReplicas, success at 4188" \
    cmp -s "$tmp/kafka.table" "$tmp/kafka.article"

# libFuzzer -seed=1's kafka crash: allow delays, a scheduling pick that lets
# the controller's sender to broker1 run first, and a delay of its
# LeaderAndIsr.  Undone, the pick moves the delay two decisions later, so
# it needs re-aiming to go.
printf '\000\000\010\000\001\020\000\050' >"$tmp/kafka-pick"
s=$(status_of "$HF" minimize -q kafka_idempotent_buggy "$tmp/kafka-pick" -o "$tmp/kafka-pick.min")
check "a pick that only shifted a later deviation goes: 3 deviations become 2, allow delays and the delay" \
    bash -c "[ $s -eq 0 ] && grep -q 'deviations:  [0-9]* -> 2' '$tmp/out' &&
             grep -q 'allows: delay' '$tmp/out' && grep -q 'delay msg#2 n1->n2 LeaderAndIsr' '$tmp/out'"

# The regression test.
s=$(status_of "$HF" minimize counter "$tmp/crash" --emit-test)
check "--emit-test on a target without _buggy: exit 2" \
    bash -c "[ $s -eq 2 ] && grep -q 'needs a target named \*_buggy' '$tmp/err'"
s=$(status_of "$HF" minimize counter_buggy "$tmp/crash" --emit-test --test-name '../evil')
check "--test-name with a slash: exit 2" bash -c "[ $s -eq 2 ] && grep -q 'must be letters, digits' '$tmp/err'"
s=$(status_of "$HF" minimize -q counter_buggy "$tmp/noisy" -o "$tmp/m4" --emit-test --test-dir "$tmp/regress" \
    --test-name noisy_counter)
check "--emit-test writes DIR/NAME.c" bash -c "[ $s -eq 0 ] && [ -s '$tmp/regress/noisy_counter.c' ]"
check "its table holds the one deviation, commented" \
    grep -q "^    {3, 0, 1}, .*/\* scheduling pick at .*worker2 runs" "$tmp/regress/noisy_counter.c"
s=$(status_of "$HF" minimize -q counter_buggy "$tmp/noisy" -o "$tmp/m4" --emit-test --test-dir "$tmp/regress" \
    --test-name noisy_counter)
check "writing the same test again is fine" [ "$s" -eq 0 ]
cp "$tmp/regress/noisy_counter.c" "$tmp/noisy_counter.c.orig"
echo "/* edited by hand */" >>"$tmp/regress/noisy_counter.c"
cp "$tmp/regress/noisy_counter.c" "$tmp/edited"
s=$(status_of "$HF" minimize -q counter_buggy "$tmp/noisy" -o "$tmp/m4" --emit-test --test-dir "$tmp/regress" \
    --test-name noisy_counter)
check "a test file of that name with other contents is not replaced: exit 2" \
    bash -c "[ $s -eq 2 ] && grep -q 'exists with other contents' '$tmp/err' && cmp -s '$tmp/edited' '$tmp/regress/noisy_counter.c'"
cp "$tmp/noisy_counter.c.orig" "$tmp/regress/noisy_counter.c"
s=$(status_of "$HF" minimize counter_buggy "$tmp/crash" -o "$tmp/m5" --emit-test --test-dir "$tmp/no/such/dir")
check "--test-dir whose parent is missing: exit 2 before any work" \
    bash -c "[ $s -eq 2 ] && grep -q 'cannot create $tmp/no/such/dir' '$tmp/err' && [ ! -e '$tmp/m5' ]"
objects=$(ls "$OUT"/obj/plain/*.o | grep -v 'fuzz_tool_tool_main\.c\.o$')
# shellcheck disable=SC2086
check "the emitted test compiles warning-free under -Wall -Wextra -Werror and links" \
    clang -std=c11 -Wall -Wextra -Werror -Ischedule -Ifuzz/common -Itests -o "$tmp/regress_test" \
        "$tmp/regress/noisy_counter.c" $objects -lm
"$tmp/regress_test" >"$tmp/test-out" 2>&1
s=$?
check "and passes: the failure in counter_buggy, none in counter" \
    bash -c "[ $s -eq 0 ] && [ \$(grep -c '^ok - ' '$tmp/test-out') -eq 5 ] && ! grep -q '^not ok' '$tmp/test-out' &&
             grep -q '^ok - counter, the fixed variant, passes' '$tmp/test-out'"
