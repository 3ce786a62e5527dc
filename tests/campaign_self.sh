#!/bin/bash
# tests/campaign_self.sh — a sanitizer campaign over the runtime's own fuzzers
# (out/self/*_fuzzer: the decoder, the encoder round trip, the log reader,
# the chart, the world), as OSS-Fuzz would run them.  Not part of the suite:
# it takes as long as it is told to.
#
#   tests/campaign_self.sh [--minutes M] [--seed N]
#
# Builds the ASan and the UBSan variants (out/asan, out/ubsan) afresh,
# then gives each fuzzer of each variant an equal share of M minutes (default
# 60), one fuzzer at a time, each with its own corpus under
# hf-work/campaign-self/.  Prints one line per run (executions, crashes) and
# a total; exits 1 when any run crashed, leaving the crash file beside its
# corpus.
set -uo pipefail
cd "$(dirname "$0")/.."

minutes=60 seed=7
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) minutes="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "campaign_self.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$minutes" =~ ^[0-9]+$ ]] && [ "$minutes" -gt 0 ] ||
    { echo "campaign_self.sh: --minutes wants a positive whole number, not '$minutes'" >&2; exit 2; }

variants="asan:address ubsan:undefined"
for v in $variants; do
    dir=out/${v%%:*}
    ./build.sh --sanitizer "${v##*:}" --out "$dir" >/dev/null || exit 2
done

fuzzers=$(ls fuzz/self/*_fuzzer.c | xargs -n1 basename | sed 's/\.c$//')
runs=$(( $(echo $fuzzers | wc -w) * 2 ))
share=$(( minutes * 60 / runs ))
work=hf-work/campaign-self
mkdir -p "$work"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
total_execs=0 crashed=0
for v in $variants; do
    name=${v%%:*}
    for f in $fuzzers; do
        corpus="$work/$name-$f" && mkdir -p "$corpus"
        log="$work/$name-$f.log"
        "out/$name/self/$f" -seed="$seed" -max_total_time="$share" -print_final_stats=1 \
            -artifact_prefix="$work/$name-$f-" "$corpus" >"$log" 2>&1
        rc=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        total_execs=$(( total_execs + ${execs:-0} ))
        verdict="no crash"
        [ $rc -ne 0 ] && { verdict="CRASH (exit $rc, see $log)"; crashed=$((crashed + 1)); }
        printf '%-6s %-16s %4d s %10s executions  %s\n' "$name" "$f" "$share" "${execs:-?}" "$verdict"
    done
done
echo "total: $runs runs, $((share * runs)) s, $total_execs executions, $crashed crashed"
[ $crashed -eq 0 ]
