#!/bin/bash
# tests/bench.sh — the benchmarks, in one run (not part of the test suite):
#   1. `heisenfuzz bench`: context switch and scheduling decision against a
#      bare register switch and glibc swapcontext, runs/s of every target
#      and the simulated world's throughput;
#   2. libFuzzer executions per second of every fixed target, without
#      sanitizers, with the discovery log (HEISENFUZZ_LOG) and under ASan,
#      with the log/plain and ASan/plain ratios.
# Builds out/ and out/asan first if they are missing.  Figures are ratios
# against baselines measured in the same run: absolute times vary with the
# machine's load.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x out/heisenfuzz ] || ./build.sh >/dev/null
[ -x out/asan/heisenfuzz ] || ./build.sh --sanitizer address --out out/asan >/dev/null
runs=${HF_BENCH_RUNS:-200000}

echo "== runtime (heisenfuzz bench)"
out/heisenfuzz bench

echo
echo "== libFuzzer executions per second ($runs runs, -seed=1)"
printf '%-26s %12s %12s %10s %12s %10s\n' target plain logged log/plain asan asan/plain
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec_rate() {   # FUZZER [NAME=VALUE...]: prints its executions per wall second
    local start end
    start=$(date +%s.%N)
    (cd "$tmp" && env ASAN_OPTIONS=detect_leaks=0 "${@:2}" "$1" -seed=1 -runs="$runs" >/dev/null 2>&1)
    end=$(date +%s.%N)
    awk -v n="$runs" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }'
}
for t in $(out/heisenfuzz list | cut -d' ' -f1 | grep -v '_buggy$'); do
    plain=$(exec_rate "$PWD/out/${t}_fuzzer")
    logged=$(exec_rate "$PWD/out/${t}_fuzzer" HEISENFUZZ_LOG="$tmp/$t.log")
    asan=$(exec_rate "$PWD/out/asan/${t}_fuzzer")
    awk -v t="$t" -v p="$plain" -v l="$logged" -v a="$asan" \
        'BEGIN { printf "%-26s %12d %12d %9.2fx %12d %9.2fx\n", t, p, l, l / p, a, a / p }'
done
