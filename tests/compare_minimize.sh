#!/bin/bash
# tests/compare_minimize.sh — a benchmark, not part of the suite: for every
# buggy target, fuzz with libFuzzer (seeded, bounded) until a crash, then
# minimize that one crash three ways and print a table:
#
#   heisenfuzz minimize          delta debugging over the decoded deviations
#   libFuzzer -minimize_crash=1  byte-level, any crash counts
#   afl-tmin                     byte-level, any crash counts (out/<t>_afl)
#
# For each: bytes and deviations before and after, whether the result still
# fails the crash's way (the same verdict line), executions where the tool
# reports them, and wall time.
#
#   tests/compare_minimize.sh [options] [TARGET...]    (default: every *_buggy target)
#
#   --seed N        libFuzzer seed for the search and the minimization (default 1)
#   --fuzz-runs N   at most this many fuzzing runs per target (default 1000000)
#   --fuzz-time S   at most this many seconds of fuzzing per target (default 120)
#   --min-runs N    libFuzzer -runs per minimization step (default 10000)
#   --min-time S    time limit for each minimizer (default 120)
#   --crash FILE    minimize FILE instead of fuzzing (one TARGET only)
#   --keep DIR      keep the crashes and minimized files in DIR
#
# Needs a local ./build.sh first (out/heisenfuzz, out/<t>_fuzzer, out/<t>_afl;
# HF_OUT names another plain build directory).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${HF_OUT:-out}
HF=$OUT/heisenfuzz

seed=1 fuzz_runs=1000000 fuzz_time=120 min_runs=10000 min_time=120 crash_file="" keep=""
targets=()
die() { echo "compare_minimize.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --seed|--fuzz-runs|--fuzz-time|--min-runs|--min-time|--crash|--keep)
            [ $# -ge 2 ] || die "$1 needs a value" ;;&
        --seed) seed=$2; shift ;;
        --fuzz-runs) fuzz_runs=$2; shift ;;
        --fuzz-time) fuzz_time=$2; shift ;;
        --min-runs) min_runs=$2; shift ;;
        --min-time) min_time=$2; shift ;;
        --crash) crash_file=$2; shift ;;
        --keep) keep=$2; shift ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) targets+=("$1") ;;
    esac
    shift
done
[ -x "$HF" ] || die "no $HF: run ./build.sh first"
OUT=$(cd "$OUT" && pwd) HF=$(cd "$OUT" && pwd)/heisenfuzz   # the fuzzer runs in its own directory
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <("$HF" list | awk '$1 ~ /_buggy$/ {print $1}')
fi
[ ${#targets[@]} -gt 0 ] || die "no *_buggy target"
[ -z "$crash_file" ] || [ ${#targets[@]} -eq 1 ] || die "--crash goes with exactly one TARGET"
[ -z "$crash_file" ] || [ -r "$crash_file" ] || die "cannot read $crash_file"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
size_of() { stat -c %s "$1"; }
# deviations FILE: the non-default decisions its run takes.
deviations() { "$HF" replay "$target" "$1" | head -1 | sed -n 's/.*(\([0-9]*\) non-default.*/\1/p'; }
verdict() { "$HF" replay "$target" "$1" | grep '^verdict: '; }

row() {   # NAME RESULT SECONDS EXECS
    local name=$1 result=$2 seconds=$3 execs=$4
    if [ ! -e "$result" ]; then
        printf '| %-28s | %-10s | %-10s | %-12s | %-8s | %-8s |\n' "$name" "failed" "-" "-" "$execs" "$seconds"
        return
    fi
    local same=no
    [ "$(verdict "$result")" = "$original_verdict" ] && same=yes
    printf '| %-28s | %-10s | %-10s | %-12s | %-8s | %-8s |\n' "$name" \
        "$original_bytes -> $(size_of "$result")" "$original_devs -> $(deviations "$result")" \
        "$same" "$execs" "$seconds"
}

for target in "${targets[@]}"; do
    dir=$work/$target
    mkdir -p "$dir"
    fuzzer=$OUT/${target}_fuzzer
    [ -x "$fuzzer" ] || die "no $fuzzer: run ./build.sh first"
    echo "## $target"
    if [ -n "$crash_file" ]; then
        cp "$crash_file" "$dir/crash"
        echo "crash: $crash_file (given)"
    else
        t0=$(now)
        (cd "$dir" && "$fuzzer" -seed="$seed" -runs="$fuzz_runs" -max_total_time="$fuzz_time" \
            -exact_artifact_path="$dir/crash" >"$dir/fuzz.log" 2>&1)
        t1=$(now)
        if [ ! -e "$dir/crash" ]; then
            echo "no crash in $fuzz_runs runs / $fuzz_time s of libFuzzer (-seed=$seed): nothing to compare"
            echo
            continue
        fi
        echo "crash: found by libFuzzer -seed=$seed in $(elapsed "$t0" "$t1") s"
    fi
    original_bytes=$(size_of "$dir/crash")
    original_devs=$(deviations "$dir/crash")
    original_verdict=$(verdict "$dir/crash")
    echo "${original_verdict}"
    echo
    echo "| minimizer                    | bytes      | deviations | same failure | execs    | time (s) |"
    echo "|------------------------------|------------|------------|--------------|----------|----------|"

    t0=$(now)
    "$HF" minimize -q --max-time "$min_time" "$target" "$dir/crash" -o "$dir/heisenfuzz.min" \
        >"$dir/heisenfuzz.log" 2>&1
    t1=$(now)
    runs=$(sed -n 's/^  runs: *\([0-9]*\) in.*/\1/p' "$dir/heisenfuzz.log")
    row "heisenfuzz minimize" "$dir/heisenfuzz.min" "$(elapsed "$t0" "$t1")" "${runs:--}"

    t0=$(now)
    timeout "$min_time" "$fuzzer" -minimize_crash=1 -seed="$seed" -runs="$min_runs" \
        -max_total_time="$min_time" -exact_artifact_path="$dir/libfuzzer.min" "$dir/crash" \
        >"$dir/libfuzzer.log" 2>&1
    t1=$(now)
    row "libFuzzer -minimize_crash=1" "$dir/libfuzzer.min" "$(elapsed "$t0" "$t1")" "-"

    if command -v afl-tmin >/dev/null && [ -x "$OUT/${target}_afl" ]; then
        t0=$(now)
        timeout "$min_time" afl-tmin -i "$dir/crash" -o "$dir/afl-tmin.min" -- "$OUT/${target}_afl" \
            >"$dir/afl-tmin.log" 2>&1
        t1=$(now)
        execs=$(sed 's/\x1b\[[0-9;]*m//g' "$dir/afl-tmin.log" | sed -n 's/.*Number of execs done : *\([0-9]*\).*/\1/p')
        row "afl-tmin" "$dir/afl-tmin.min" "$(elapsed "$t0" "$t1")" "${execs:--}"
    else
        echo "| afl-tmin                     | (no afl-tmin or $OUT/${target}_afl) |"
    fi
    echo
    [ -n "$keep" ] && mkdir -p "$keep" && cp -r "$dir" "$keep/"
done
