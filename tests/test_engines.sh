#!/bin/bash
# test_engines.sh — real, short, seeded fuzzing runs: libFuzzer and AFL++
# find the lost update in counter_buggy, the fixed counter survives, and
# LeakSanitizer stays quiet over 100,000 executions in one libFuzzer process.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expected="verdict: fail the final count equals the number of increments"
# Replay exits 1 for a failing schedule, so its output is read, not piped.
replays_lost_update() { grep -qx "$expected" <<<"$("$HF_OUT/heisenfuzz" replay counter_buggy "$1")"; }

# libFuzzer, plain and under ASan.
for dir in "$HF_OUT" "$HF_OUT_ASAN"; do
    work="$tmp/lf-$(basename "$dir")"
    mkdir -p "$work"
    (cd "$work" && "$OLDPWD/$dir/counter_buggy_fuzzer" -seed=1 -runs=200000 >log 2>&1)
    crash=$(ls "$work"/crash-* 2>/dev/null | head -1)
    if [ -n "$crash" ] && replays_lost_update "$crash"; then
        echo "ok - libFuzzer ($(basename "$dir")) finds the lost update in counter_buggy; the replayer confirms it"
    else
        echo "not ok - libFuzzer ($(basename "$dir")) did not find a replayable lost update in counter_buggy"
    fi
done

# The control: no failure, and no leak, over 100,000 executions under ASan.
(cd "$tmp" && ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
    "$OLDPWD/$HF_OUT_ASAN/counter_fuzzer" -seed=1 -runs=100000 >"$tmp/control.log" 2>&1)
status=$?
if [ $status -eq 0 ] && grep -q "Done 100000 runs" "$tmp/control.log" && ! grep -q "LeakSanitizer" "$tmp/control.log"; then
    echo "ok - counter under ASan: 100,000 libFuzzer executions, no failure, LeakSanitizer quiet"
else
    echo "not ok - counter under ASan: status $status; $(grep -m1 -E 'ERROR|Leak' "$tmp/control.log")"
fi

# MSan and UBSan builds of the fuzzer run clean too.
for dir in "$HF_OUT_MSAN" "$HF_OUT_UBSAN"; do
    if (cd "$tmp" && "$OLDPWD/$dir/counter_fuzzer" -seed=1 -runs=20000 >"$tmp/san.log" 2>&1); then
        echo "ok - counter under $(basename "$dir"): 20,000 libFuzzer executions run clean"
    else
        echo "not ok - counter under $(basename "$dir"): $(grep -m1 -E 'ERROR|runtime error' "$tmp/san.log")"
    fi
done

# The AFL_* settings live in the tool alone (fuzz --afl-env); this file,
# bench --search and fuzz --engine afl all take them from there.
env_out=$("$HF_OUT/heisenfuzz" fuzz --afl-env kafka_idempotent_buggy); status=$?
names='NO_UI|SKIP_CPUFREQ|NO_AFFINITY|I_DONT_CARE_ABOUT_MISSING_CRASHES|FAST_CAL|CUSTOM_MUTATOR_ONLY|CUSTOM_MUTATOR_LIBRARY'
if [ $status -eq 0 ] && grep -qx 'AFL_FAST_CAL=1' <<<"$env_out" && grep -qx 'AFL_CUSTOM_MUTATOR_ONLY=1' <<<"$env_out" &&
    grep -qx "AFL_CUSTOM_MUTATOR_LIBRARY=.*/kafka_idempotent_buggy_afl_mutator.so" <<<"$env_out" &&
    [ "$(grep -vc '^AFL_[A-Z_]*=.' <<<"$env_out")" -eq 0 ] &&
    ! grep -qE "\"AFL_($names)|AFL_($names)=" fuzz/tool/cmd_fuzz.c fuzz/bench/bench_search.c &&
    ! grep -qE "^ *(env|export) .*AFL_($names)=" tests/test_engines.sh; then
    echo "ok - fuzz --afl-env prints the campaign's AFL_* settings, which no other file spells out"
else
    echo "not ok - fuzz --afl-env (status $status): $(tr '\n' ' ' <<<"$env_out")"
fi

# AFL++, bounded by an execution count.
if command -v afl-fuzz >/dev/null && [ -x "$HF_OUT/counter_buggy_afl" ]; then
    mkdir -p "$tmp/afl-in"
    printf '\x00' >"$tmp/afl-in/seed"
    # The campaign's AFL_* settings, from the tool (fuzz --afl-env), less
    # the mutator library: this is AFL++'s own search on the harness.
    mapfile -t afl_env < <("$HF_OUT/heisenfuzz" fuzz --afl-env counter_buggy | grep -v '^AFL_CUSTOM_MUTATOR')
    env -u ASAN_OPTIONS -u MSAN_OPTIONS -u UBSAN_OPTIONS "${afl_env[@]}" \
        AFL_SHUFFLE_QUEUE=0 timeout 300 afl-fuzz -i "$tmp/afl-in" -o "$tmp/afl-out" -s 1 -E 20000 \
        -- "$HF_OUT/counter_buggy_afl" >"$tmp/afl.log" 2>&1
    crash=$(ls "$tmp"/afl-out/default/crashes/id:* 2>/dev/null | head -1)
    if [ -n "$crash" ] && replays_lost_update "$crash"; then
        echo "ok - AFL++ finds the lost update in counter_buggy within 20,000 executions; the replayer confirms it"
    else
        echo "not ok - AFL++ found no replayable lost update in counter_buggy ($(tail -c 300 "$tmp/afl.log" | tr '\n' ' '))"
    fi
else
    echo "not ok - afl-fuzz or the AFL++ build is missing (./build.sh --deps installs afl++)"
fi

# The full search on a fault bug: libFuzzer's binary (generator records, the
# decision mutator, behaviour features) and AFL++ with the decision mutator
# library find kafka_idempotent_buggy's bug in bounded, seeded campaigns, and
# the mutator's own runs are reported.
kafka_fails() { "$HF_OUT/heisenfuzz" replay -q kafka_idempotent_buggy "$1" >/dev/null 2>&1; [ $? -eq 1 ]; }
work="$tmp/lf-kafka"
mkdir -p "$work"
(cd "$work" && "$OLDPWD/$HF_OUT/kafka_idempotent_buggy_fuzzer" -seed=3 -runs=5000 -print_final_stats=1 \
    -exact_artifact_path="$work/crash" >log 2>&1)
runs=$(grep -m1 '^stat::heisenfuzz_mutator_runs:' "$work/log" | awk '{print $2}')
if [ -f "$work/crash" ] && kafka_fails "$work/crash" && [ -n "$runs" ]; then
    echo "ok - libFuzzer with the decision mutator finds kafka_idempotent_buggy's bug within 5,000 executions ($runs mutator runs); it replays"
else
    echo "not ok - libFuzzer with the decision mutator found no replayable kafka_idempotent_buggy crash in 5,000 executions"
fi
if command -v afl-fuzz >/dev/null && [ -f "$HF_OUT/kafka_idempotent_buggy_afl_mutator.so" ]; then
    mkdir -p "$tmp/afl-kafka-in"
    printf '\xff' >"$tmp/afl-kafka-in/calm"
    # The settings of `heisenfuzz fuzz --engine afl`, the library among them.
    mapfile -t afl_env < <("$HF_OUT/heisenfuzz" fuzz --afl-env kafka_idempotent_buggy)
    env -u ASAN_OPTIONS -u MSAN_OPTIONS -u UBSAN_OPTIONS "${afl_env[@]}" \
        AFL_BENCH_UNTIL_CRASH=1 HEISENFUZZ_MUTATOR_RUNS="$tmp/afl-kafka-runs" timeout 300 afl-fuzz -t 1000 -i "$tmp/afl-kafka-in" -o "$tmp/afl-kafka-out" -s 1 -E 20000 \
        -- "$HF_OUT/kafka_idempotent_buggy_afl" >"$tmp/afl-kafka.log" 2>&1
    crash=$(ls "$tmp"/afl-kafka-out/default/crashes/id:* 2>/dev/null | head -1)
    if [ -n "$crash" ] && kafka_fails "$crash" && [ -s "$tmp/afl-kafka-runs" ]; then
        echo "ok - AFL++ with the decision mutator library finds kafka_idempotent_buggy's bug within 20,000 executions ($(cat "$tmp/afl-kafka-runs") mutator runs); it replays"
    else
        echo "not ok - AFL++ with the decision mutator found no replayable kafka_idempotent_buggy crash ($(tail -c 300 "$tmp/afl-kafka.log" | tr '\n' ' '))"
    fi
    # Through the run channel the library judges every run, and AFL++'s map
    # stays quiet: no queue entry beyond the seed, so nothing to calibrate.
    queued=$(awk '$1 == "corpus_found" {print $3}' "$tmp/afl-kafka-out/default/fuzzer_stats" 2>/dev/null)
    if [ "$queued" = 0 ]; then
        echo "ok - under the mutator library AFL++ queued no entry beyond its seed (the run channel carried every run)"
    else
        echo "not ok - under the mutator library AFL++ queued ${queued:-an unknown number of} entries: the run channel did not carry the runs"
    fi
fi
