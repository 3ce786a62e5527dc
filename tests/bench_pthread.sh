#!/bin/bash
# bench_pthread.sh — figures for pthread programs under build-pthread (a
# benchmark, not a test: it prints numbers and asserts nothing).
#
#   1. ns per uncontended pthread_mutex_lock+unlock pair: the interposed
#      layer against glibc's, from tests/pthread/bench_mutex.c timed (CPU
#      time, best of 5) with LOOPS=N and LOOPS=0 (the difference over N);
#      glibc's natively at -O2, and at -O0 as build-pthread compiles a program
#   2. libFuzzer executions per second on each correct twin of targets/pthread
#      (20,000 executions from an empty corpus, wall clock)
#   3. schedules (and wall seconds) to the first failure, median of SEEDS
#      seeds, for the default fuzzer (libFuzzer), uniform random decisions and
#      PCT with d=3 (the fuzzer's own --explore), each capped at MAX runs
#      (hundred_threads, whose runs are ~60x slower, at MAX/10)
#
#   tests/bench_pthread.sh [--seeds N] [--max-runs N] [PROGRAM...]
#
# Reads HF_OUT (default out).  Takes a few minutes on two cores.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=$(cd "${HF_OUT:-out}" && pwd)
hf="$OUT/heisenfuzz"
seeds=10 max_runs=200000
programs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) seeds=$2; shift ;;
        --max-runs) max_runs=$2; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) programs+=("$1") ;;
    esac
    shift
done
[ ${#programs[@]} -gt 0 ] || programs=(lost_update atomicity order deadlock missed_signal use_after_free aba
                                       double_checked three_preemptions hundred_threads)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/empty"

seconds() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }

# ---- 1. the mutex ----------------------------------------------------------
# 4,000,000 pairs: 8,000,000 preemption points, within the program target's
# step budget of 10,000,000 (a run cut short by it would time less work, so
# the layer's run must end "verdict: ok").  Timed in CPU seconds (user +
# system) of the process, the best of 5: on a shared machine the wall clock
# counts other people's work too.
loops=4000000
clang -O2 -pthread -DLOOPS=$loops tests/pthread/bench_mutex.c -o "$work/native_n"
clang -O2 -pthread -DLOOPS=0 tests/pthread/bench_mutex.c -o "$work/native_0"
# build-pthread compiles a program at -O0 (its accesses are its preemption
# points): the same loop natively at -O0 separates that from the layer.
clang -O0 -pthread -DLOOPS=$loops tests/pthread/bench_mutex.c -o "$work/native_n_O0"
clang -O0 -pthread -DLOOPS=0 tests/pthread/bench_mutex.c -o "$work/native_0_O0"
"$hf" build-pthread tests/pthread/bench_mutex.c -o "$work/layer_n" -- -DLOOPS=$loops >/dev/null
"$hf" build-pthread tests/pthread/bench_mutex.c -o "$work/layer_0" -- -DLOOPS=0 >/dev/null
verdict=$("$work/layer_n" --replay "$work/empty" | grep '^verdict:')
[ "$verdict" = "verdict: ok" ] || { echo "bench_mutex under the layer: $verdict (the timing would be of a cut-short run)"; exit 1; }
best() {   # best CMD...: the least CPU time of 5 runs, in seconds
    local b="" t
    for _ in 1 2 3 4 5; do
        t=$( { TIMEFORMAT='%U + %S'; time "$@" >/dev/null 2>&1; } 2>&1 | bc)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" -eq 1 ]; then b=$t; fi
    done
    echo "$b"
}
native=$(echo "($(best "$work/native_n") - $(best "$work/native_0")) * 1000000000 / $loops" | bc -l)
layer=$(echo "($(best "$work/layer_n" --replay "$work/empty") - $(best "$work/layer_0" --replay "$work/empty")) * 1000000000 / $loops" | bc -l)
native_O0=$(echo "($(best "$work/native_n_O0") - $(best "$work/native_0_O0")) * 1000000000 / $loops" | bc -l)
printf 'uncontended lock+unlock: glibc %.1f ns, pthread layer %.1f ns (%.1fx)\n' "$native" "$layer" \
    "$(echo "$layer / $native" | bc -l)"
printf 'the same loop natively at -O0 (as build-pthread compiles it): %.1f ns (layer %.1fx)\n' "$native_O0" \
    "$(echo "$layer / $native_O0" | bc -l)"

# ---- 2 and 3: the suite ------------------------------------------------------
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

printf '\n%-22s %9s | %-22s | %-22s | %-22s\n' program "exec/s" "libFuzzer: runs (s)" "random: runs (s)" "PCT d=3: runs (s)"
for name in "${programs[@]}"; do
    dir="$work/$name"
    mkdir -p "$dir"
    "$hf" build-pthread "targets/pthread/$name.c" -o "$dir/twin" >/dev/null || continue
    "$hf" build-pthread "targets/pthread/${name}_buggy.c" -o "$dir/buggy" >/dev/null || continue
    mkdir -p "$dir/twin_corpus"
    s=$(seconds)
    (cd "$dir" && ./twin -seed=1 -runs=20000 twin_corpus >/dev/null 2>&1)
    rate=$(printf '%.0f' "$(echo "20000 / $(elapsed "$s" "$(seconds)")" | bc -l)")
    cap=$max_runs
    [ "$name" = hundred_threads ] && cap=$((max_runs / 10))
    for strategy in libfuzzer random pct; do
        : >"$dir/$strategy.runs"; : >"$dir/$strategy.secs"
        for seed in $(seq 1 "$seeds"); do
            s=$(seconds)
            if [ $strategy = libfuzzer ]; then
                rm -rf "$dir/corpus" "$dir"/crash-*; mkdir -p "$dir/corpus"
                # Executions: libFuzzer's, plus the runs the decision mutator
                # makes itself (fuzz/harness.c prints them).
                n=$(cd "$dir" && ./buggy -seed="$seed" -runs="$cap" -artifact_prefix="$dir/" -print_final_stats=1 \
                    corpus 2>&1 | awk '/^stat::number_of_executed_units:/ {n = $2}
                                       /^stat::heisenfuzz_mutator_runs:/ {m = $2} END {if (n) print n + m}')
                ls "$dir"/crash-* >/dev/null 2>&1 || n=""
            else
                n=$("$dir/buggy" --explore --strategy $strategy --depth 3 --seed "$seed" --runs "$cap" \
                    --until-fail 2>/dev/null | sed -n 's/^first failure: run //p')
            fi
            e=$(seconds)
            if [ -n "$n" ]; then echo "$n" >>"$dir/$strategy.runs"; elapsed "$s" "$e" >>"$dir/$strategy.secs"; fi
        done
    done
    cell() {
        local found; found=$(wc -l <"$dir/$1.runs")
        printf '%s (%.2f s) %d/%d' "$(median <"$dir/$1.runs")" "$(median <"$dir/$1.secs" | sed 's/-/0/')" "$found" "$seeds"
    }
    printf '%-22s %9s | %-22s | %-22s | %-22s\n' "${name}_buggy" "${rate:-?}" "$(cell libfuzzer)" "$(cell random)" "$(cell pct)"
done
echo "(runs: median over the seeds that found the bug within $max_runs runs, hundred_threads $((max_runs / 10)); n/$seeds: how many did)"
