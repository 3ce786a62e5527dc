#!/bin/bash
# bench_targets.sh — the figures of the article's incidents (not part of the
# suite: it runs for many minutes).
#
#   tests/bench_targets.sh [--no-search] [RUNS]     (default 1,000,000)
#
# 1. Each fixed variant soaked over RUNS schedules whose every decision is
#    uniformly random (explore --strategy random: faults everywhere, as a
#    random fault injector would), then RUNS/10 uniform random byte strings:
#    failures (must be 0), runs per second, logical hours covered.
# 2. Each buggy variant: the share of 10,000 uniform random inputs that hit
#    its bug — byte strings (the fuzzer's own input space), and uniformly
#    random decisions.
# 3. Executions libFuzzer needs to find each bug, median over 10 seeds
#    (bench --search), beside uniform random decisions and PCT.
# Build first: ./build.sh
set -uo pipefail
cd "$(dirname "$0")/.."
SEARCH=1
if [ "${1:-}" = "--no-search" ]; then SEARCH=0; shift; fi
RUNS=${1:-1000000}
HF=out/heisenfuzz
FIXED="metrics_race kafka_idempotent lease_lock diskless_agent diskless_topic"
BUGGY="metrics_race_buggy kafka_idempotent_buggy lease_lock_buggy diskless_agent_buggy"

summary() {   # explore's output -> one line
    awk '/^failures:/ {f=$2} /^logical time:/ {h=$3} /^wall time:/ {w=$3; r=$5 " " $6}
         END {printf "failures %s, %s logical hours, %s s wall %s\n", f, h, w, r}'
}

echo "== fixed variants: $RUNS schedules of uniformly random decisions, then $((RUNS / 10)) random byte strings"
for t in $FIXED; do
    printf '%-22s random decisions: %s\n' "$t" "$($HF explore "$t" --strategy random --runs "$RUNS" --seed 1 2>/dev/null | summary)"
    printf '%-22s random bytes:     %s\n' "$t" "$($HF explore "$t" --strategy bytes --max-len 256 --runs $((RUNS / 10)) --seed 1 2>/dev/null | summary)"
done

echo "== buggy variants: share of 10,000 uniform random inputs that hit the bug"
for t in $BUGGY; do
    for s in bytes random; do
        printf '%-24s %-7s %s\n' "$t" "$s" "$($HF explore "$t" --strategy $s --runs 10000 --seed 1 2>/dev/null | grep '^failures:')"
    done
done

[ $SEARCH -eq 1 ] || exit 0
echo "== executions to the bug, median over 10 seeds"
$HF bench --search --seeds 10 --max-runs 300000 $BUGGY
