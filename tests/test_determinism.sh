#!/bin/bash
# test_determinism.sh — the same input gives the same trace hash in a fresh
# process, at -O0 and -O2, under ASan, UBSan and MSan, and under the
# libFuzzer and AFL++ binaries as in the standalone replayer.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Targets preempted at shared accesses (NAME_nohint_buggy) switch where the
# compiled code loads and stores; build.sh compiles their files at -O0 in
# every build, so they are held to the same hashes across builds as the rest.
for target in $("$HF_OUT/heisenfuzz" list | cut -d' ' -f1); do
    "$HF_OUT/heisenfuzz" explore "$target" --strategy bytes --runs 3000 --seed 9 --hashes >"$tmp/plain" 2>/dev/null
    for build in O0:"$HF_OUT_O0" asan:"$HF_OUT_ASAN" ubsan:"$HF_OUT_UBSAN" msan:"$HF_OUT_MSAN"; do
        name=${build%%:*} dir=${build#*:}
        # 3,000 inputs a target and build (the sanitizers, slower, a prefix):
        # eighteen targets in five builds must stay within the suite's minutes.
        runs=3000
        [ "$name" = asan ] && runs=2000
        [ "$name" = msan ] && runs=1000
        "$dir/heisenfuzz" explore "$target" --strategy bytes --runs $runs --seed 9 --hashes 2>/dev/null \
            | grep -E '^[0-9]+ ' >"$tmp/$name"
        if [ "$(wc -l <"$tmp/$name")" -eq $runs ] && cmp -s "$tmp/$name" <(grep -E '^[0-9]+ ' "$tmp/plain" | head -n $runs); then
            echo "ok - $target: $runs random inputs give the same trace hashes at -O2 and in the $name build"
        else
            echo "not ok - $target: trace hashes differ between the -O2 and $name builds"
        fi
    done
done

# Engines: the replayer, the libFuzzer binary and the AFL++ binary, on the
# same files (inputs from a fixed seed; counter never fails, so every run
# prints its hash; counter_buggy's failing inputs abort, one per process).
# Inputs are 1..40 bytes: AFL++'s driver skips an empty file.
RANDOM=4242
mkdir -p "$tmp/inputs"
for i in $(seq 1 40); do
    len=$((1 + RANDOM % 40)) bytes=""
    for _ in $(seq 1 $len); do bytes+=$(printf '\\x%02x' $((RANDOM % 256))); done
    printf "$bytes" >"$tmp/inputs/in$(printf %02d "$i")"
done
files=("$tmp"/inputs/*)

# engines_agree TARGET WHAT FILE...: the replayer, the libFuzzer binary and
# the AFL++ binary give the same trace hashes on the files (TARGET never
# fails, so every run prints its hash); leaves the replayer's in $tmp/replayer.
engines_agree() {
    local target=$1 what=$2
    shift 2
    "$HF_OUT/heisenfuzz" replay -q "$target" "$@" | grep '^trace-hash' >"$tmp/replayer"
    HEISENFUZZ_TRACE_HASH=1 "$HF_OUT/${target}_fuzzer" "$@" 2>&1 | grep '^trace-hash' >"$tmp/libfuzzer"
    cmp -s "$tmp/replayer" "$tmp/libfuzzer" && [ -s "$tmp/replayer" ] \
        && echo "ok - $target: the libFuzzer binary and the replayer give the same trace hashes on $what" \
        || echo "not ok - $target: libFuzzer and replayer trace hashes differ on $what"
    [ -x "$HF_OUT/${target}_afl" ] || return 0
    : >"$tmp/afl"
    # The AFL++ driver silences stderr around each run unless AFL_DEBUG is set.
    for f in "$@"; do AFL_DEBUG=1 HEISENFUZZ_TRACE_HASH=1 "$HF_OUT/${target}_afl" "$f" 2>&1 | grep '^trace-hash' >>"$tmp/afl"; done
    cmp -s "$tmp/replayer" "$tmp/afl" \
        && echo "ok - $target: the AFL++ binary and the replayer give the same trace hashes on $what" \
        || echo "not ok - $target: AFL++ and replayer trace hashes differ on $what"
}
engines_agree counter "40 inputs" "${files[@]}"

# Generator records: files that start with one (a generated run, some
# with explicit records after it) give the same hashes in both engines and
# in the replayer of every build, on a world target with every fault and on
# an interleaving target.
mkdir -p "$tmp/generated"
for i in $(seq 1 30); do
    bytes=$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' 254 $((RANDOM % 256)) $((RANDOM % 256)) $((RANDOM % 256)))
    for _ in $(seq 1 $((RANDOM % 6))); do bytes+=$(printf '\\x%02x' $((RANDOM % 256))); done
    printf "$bytes" >"$tmp/generated/gen$(printf %02d "$i")"
done
generated=("$tmp"/generated/*)
for target in diskless_topic metrics_race; do
    engines_agree $target "30 generated runs" "${generated[@]}"
    for build in O0:"$HF_OUT_O0" asan:"$HF_OUT_ASAN" ubsan:"$HF_OUT_UBSAN" msan:"$HF_OUT_MSAN"; do
        name=${build%%:*} dir=${build#*:}
        "$dir/heisenfuzz" replay -q $target "${generated[@]}" | grep '^trace-hash' >"$tmp/gen-$name"
        cmp -s "$tmp/replayer" "$tmp/gen-$name" && [ -s "$tmp/replayer" ] \
            && echo "ok - $target: 30 generated runs give the same trace hashes at -O2 and in the $name build" \
            || echo "not ok - $target: generated runs differ between the -O2 and $name builds"
    done
done

# A failing schedule: the crash report's hash equals the replayer's.
printf '\x03\x00' >"$tmp/crash"
want=$("$HF_OUT/heisenfuzz" replay counter_buggy "$tmp/crash" | grep '^trace-hash')
for bin in "$HF_OUT/counter_buggy_fuzzer" "$HF_OUT_ASAN/counter_buggy_fuzzer" "$HF_OUT/counter_buggy_afl"; do
    [ -x "$bin" ] || continue
    got=$(AFL_DEBUG=1 "$bin" "$tmp/crash" </dev/null 2>&1 | grep '^trace-hash' | head -1)
    [ -n "$want" ] && [ "$got" = "$want" ] \
        && echo "ok - counter_buggy: $(basename "$(dirname "$bin")")/$(basename "$bin") reports the replayer's trace hash for a crash" \
        || echo "not ok - counter_buggy: $bin reports '$got', the replayer '$want'"
done

# Every target's AFL++ binary agrees with the replayer on the verdict of
# short inputs (AFL++ 4.04c's default instrumentation once crashed on some).
for target in $("$HF_OUT/heisenfuzz" list | cut -d' ' -f1); do
    [ -x "$HF_OUT/${target}_afl" ] || continue
    [[ "$target" == *_nohint_* ]] && continue   # not built for AFL++ (build.sh)
    agree=1
    for f in "${files[@]:0:12}"; do
        "$HF_OUT/${target}_afl" "$f" >/dev/null 2>&1; afl=$?
        "$HF_OUT/heisenfuzz" replay -q "$target" "$f" >/dev/null 2>&1; replay=$?
        # ok is 0 for both; a failed run is abort() (134) for the binary, 1 for replay.
        { [ $afl -eq 0 ] && [ $replay -eq 0 ]; } || { [ $afl -eq 134 ] && [ $replay -eq 1 ]; } || agree=0
    done
    [ $agree -eq 1 ] && echo "ok - $target: the AFL++ binary and the replayer agree on 12 inputs" \
        || echo "not ok - $target: the AFL++ binary and the replayer disagree on a verdict"
done
