#!/bin/bash
# test_fuzz_campaign.sh — `heisenfuzz fuzz` as a campaign: AFL++ with a main
# and a secondary finds kafka_idempotent_buggy's bug and its crash replays
# with the AFL++ binary's trace hash; libFuzzer's fork mode with
# --keep-going keeps one crash per distinct failure; ^C leaves the
# discovery log complete (its last line counts every execution libFuzzer
# reports); the command prints its own status and result while the
# engine's output goes to DIR/TARGET.engine.out (--verbose: live); bad
# options get one line and exit 2.  Seeded and bounded.
set -uo pipefail
cd "$(dirname "$0")/.."
hf="$PWD/$HF_OUT/heisenfuzz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; fi
}

status_of() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }
s=$(status_of "$hf" fuzz --engine honggfuzz counter_buggy)
check "--engine takes libfuzzer or afl: exit 2, one line" \
    bash -c "[ $s -eq 2 ] && grep -q \"engine is libfuzzer or afl, not 'honggfuzz'\" '$tmp/err'"
s=$(status_of "$hf" fuzz --jobs 0 counter_buggy)
check "--jobs 0 is refused: exit 2" bash -c "[ $s -eq 2 ] && grep -q 'jobs needs a whole number' '$tmp/err'"

# A build one level deeper than out/ (out/O0, out/asan) still finds the
# target's dictionary in the tree, and a campaign without one says so.
if [ -n "${HF_OUT_O0:-}" ] && [ -x "$HF_OUT_O0/heisenfuzz" ]; then
    mkdir -p "$tmp/deeper" && (cd "$tmp/deeper" && "$OLDPWD/$HF_OUT_O0/heisenfuzz" fuzz --seed 1 --time 60 counter_buggy \
        >"$tmp/deeper.out" 2>&1)
    check "a build in $HF_OUT_O0 fuzzes with the tree's dictionary (libFuzzer loads dict/counter.dict)" \
        bash -c "grep -q 'Dictionary: [1-9][0-9]* entries' '$tmp/deeper/hf-work/counter_buggy.engine.out' && ! grep -q 'no dictionary' '$tmp/deeper.out'"
fi

# The main command reads as a result: libFuzzer's start-up, its "deadly
# signal" stack trace (the harness aborts on a failing run) and its stats go
# to the engine log the output names; the output is the tool's own lines,
# the timeline and the files.  --verbose shows libFuzzer's output live.
mkdir -p "$tmp/plain" && cd "$tmp/plain" || exit 1
"$hf" fuzz --seed 1 --time 60 counter_buggy >"$tmp/plain.out" 2>&1
s=$?
engine_log=hf-work/counter_buggy.engine.out
check "fuzz counter_buggy: exit 1, and the output names the engine log, which holds libFuzzer's output" \
    bash -c "[ $s -eq 1 ] && grep -q '^heisenfuzz: engine output: $engine_log ' '$tmp/plain.out' && grep -q 'INFO: Seed: 1\$' $engine_log && grep -q 'deadly signal' $engine_log && grep -q '^stat::number_of_executed_units: [1-9]' $engine_log"
strays=$(grep -Evc '^(heisenfuzz: |  |\*| +[0-9]+\.[0-9]+s |counter_buggy: [0-9]+ bytes|verdict: |trace-hash: |$)' "$tmp/plain.out")
check "none of libFuzzer's lines in the output, which is the status, the failure, its timeline and the files ($strays other lines)" \
    bash -c "[ $strays -eq 0 ] && ! grep -qE 'INFO:|deadly signal|stat::|#[0-9]+\s+(INITED|NEW|pulse)|==[0-9]+==' '$tmp/plain.out' && grep -q '^heisenfuzz: \[[0-9]* s, 1 process\] #[0-9]* bhv: [0-9]* .* crashes: 1 ' '$tmp/plain.out' && grep -q '^verdict: fail the final count' '$tmp/plain.out' && grep -q '^  hf-work/crash-counter_buggy-1  *the failing schedule; again: heisenfuzz replay counter_buggy hf-work/crash-counter_buggy-1\$' '$tmp/plain.out' && grep -q '^  $engine_log  *libFuzzer.s own output\$' '$tmp/plain.out'"
rm -rf hf-work
"$hf" fuzz --verbose --seed 1 --time 60 counter_buggy >"$tmp/verbose.out" 2>&1
s=$?
check "fuzz --verbose shows libFuzzer's output live and writes no engine log" \
    bash -c "[ $s -eq 1 ] && grep -q 'INFO: Seed: 1\$' '$tmp/verbose.out' && grep -q 'deadly signal' '$tmp/verbose.out' && [ ! -e $engine_log ] && grep -q '^verdict: fail the final count' '$tmp/verbose.out'"
cd "$OLDPWD" || exit 1

if command -v afl-fuzz >/dev/null && [ -x "$HF_OUT/kafka_idempotent_buggy_afl" ]; then
    mkdir -p "$tmp/afl" && cd "$tmp/afl" || exit 1
    "$hf" fuzz --engine afl --jobs 2 --seed 1 --time 240 kafka_idempotent_buggy >"$tmp/afl.out" 2>&1
    s=$?
    crash=hf-work/crash-kafka_idempotent_buggy-1
    check "fuzz --engine afl --jobs 2 finds kafka_idempotent_buggy's bug (exit 1, one crash kept)" \
        bash -c "[ $s -eq 1 ] && [ -s $crash ] && grep -q '^heisenfuzz: fuzzing kafka_idempotent_buggy with AFL++ (2 instances' '$tmp/afl.out'"
    engine_hash=$(AFL_QUIET=1 "$OLDPWD/$HF_OUT/kafka_idempotent_buggy_afl" "$crash" 2>&1 | grep -m1 -o 'trace-hash: [0-9a-f]*')
    replay_hash=$("$hf" replay -q kafka_idempotent_buggy "$crash" | grep -o 'trace-hash: [0-9a-f]*')
    check "its crash replays in heisenfuzz replay with the AFL++ binary's trace hash ($replay_hash)" \
        bash -c "[ -n '$engine_hash' ] && [ '$engine_hash' = '$replay_hash' ]"
    check "the folder holds AFL++'s queues, the discovery log and its chart" \
        bash -c "ls -d hf-work/afl-kafka_idempotent_buggy/main/queue && [ -s hf-work/kafka_idempotent_buggy.log ] && grep -q '<svg' hf-work/kafka_idempotent_buggy.svg"
    # AFL++'s queues stay empty under the mutator library; each instance's
    # library puts its new inputs where the others take them (the fixed
    # variant, so that neither instance stops the campaign early).
    "$hf" fuzz --engine afl --jobs 2 --seed 1 --time 4 kafka_idempotent >"$tmp/afl-shared.out" 2>&1
    writers=$(ls hf-work/afl-shared-kafka_idempotent 2>/dev/null | grep -E '^[0-9]+-[0-9]+$' | cut -d- -f1 | sort -u | wc -l)
    check "both instances of a 4 s campaign put their new inputs in hf-work/afl-shared-kafka_idempotent ($writers writers)" \
        test "$writers" -eq 2
    # Two instances, though each instance's fork server hands inputs to a
    # child after another and every child logs as a process: the status
    # line and the chart count instances.  Checked here, where both
    # instances surely ran: the buggy target's campaign can end on the
    # main instance's crash before the secondary has logged a run.
    check "the status line and the chart of that campaign say 2 instances" \
        bash -c "grep -q '(AFL++, 2 instances)' hf-work/kafka_idempotent.svg && grep -Eq '^heisenfuzz: \[[0-9]+ s, 2 instances\] #[0-9]+ bhv' '$tmp/afl-shared.out'"
    cd "$OLDPWD" || exit 1
else
    echo "not ok - afl-fuzz or the AFL++ build is missing (./build.sh --deps installs afl++)"
fi

mkdir -p "$tmp/keep" && cd "$tmp/keep" || exit 1
"$hf" fuzz --jobs 2 --keep-going --seed 1 --time 10 metrics_race_buggy >"$tmp/keep.out" 2>&1
s=$?
failures=$(grep -o 'crashes: [0-9]*' "$tmp/keep.out" | tail -1 | grep -o '[0-9]*$')
check "--jobs 2 --keep-going runs on past crashes ($failures failed runs) and keeps one per distinct failure" \
    bash -c "[ $s -eq 1 ] && [ '${failures:-0}' -gt 1 ] && [ \$(ls hf-work/crash-metrics_race_buggy-* | grep -vc '\.min\$') -eq 1 ] && grep -q '^heisenfuzz: 1 distinct failure' '$tmp/keep.out'"
check "the first crash is minimized beside it, and the minimized schedule still fails" \
    bash -c "\"$hf\" replay -q metrics_race_buggy hf-work/crash-metrics_race_buggy-1.min >/dev/null; [ \$? -eq 1 ]"
cd "$OLDPWD" || exit 1

mkdir -p "$tmp/int" && cd "$tmp/int" || exit 1
"$hf" fuzz --seed 3 --time 100 kafka_idempotent >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
sleep 5
kill -INT "$pid"
wait "$pid"
s=$?
units=$(grep -o 'stat::number_of_executed_units: [0-9]*' hf-work/kafka_idempotent.engine.out | grep -o '[0-9]*$')
logged=$(grep '^stats' hf-work/kafka_idempotent.log | tail -1 | cut -d' ' -f4)
check "^C stops the campaign (exit $s) and the discovery log's last line counts all $units executions" \
    bash -c "[ $s -eq 0 ] && [ -n '$units' ] && [ '$units' = '$logged' ] && grep -q 'interrupted' '$tmp/int.out'"
cd "$OLDPWD" || exit 1
