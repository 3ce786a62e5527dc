#!/bin/bash
# bench_pthread.sh — figures for pthread programs under build-pthread (a
# benchmark, not a test: it prints numbers and asserts nothing).
#
#   1. ns per uncontended pthread_mutex_lock+unlock pair, from
#      tests/pthread/bench_mutex.c timed (CPU time, the least of 25 rounds): the pair is
#      the difference between the loop with it and the same loop without it
#      (-DLOCKS=0), over N; the loop as a whole is the difference from
#      LOOPS=0.  The interposed layer (built by build-pthread, at -O0 with
#      its access hooks and coverage) against glibc's natively at -O2, and
#      natively at -O0 as build-pthread compiles a program
#   2. libFuzzer executions per second on each correct twin of targets/pthread
#      (20,000 executions from an empty corpus, wall clock)
#   3. schedules (and wall seconds) to the first failure, median of SEEDS
#      seeds, for the default fuzzer (libFuzzer), uniform random decisions and
#      PCT with d=3 (the fuzzer's own --explore), each capped at MAX runs
#      (hundred_threads, whose runs are ~60x slower, at MAX/10)
#
#   tests/bench_pthread.sh [--seeds N] [--max-runs N] [--mutex-only] [PROGRAM...]
#
# Reads HF_OUT (default out).  Takes a few minutes on two cores.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=$(cd "${HF_OUT:-out}" && pwd)
hf="$OUT/heisenfuzz"
seeds=10 max_runs=200000 mutex_only=0
programs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) seeds=$2; shift ;;
        --max-runs) max_runs=$2; shift ;;
        --mutex-only) mutex_only=1 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# system) of the process, the least of 25: on a shared machine the wall clock
# counts other people's work too.
loops=4000000
# Three builds of each kind, NAME:LOOPS:LOCKS: _n the loop with the pair,
# _e the loop without it, _0 no loop.
for v in n:$loops:1 e:$loops:0 0:0:1; do
    IFS=: read -r name n locks <<<"$v"
    flags="-DLOOPS=$n -DLOCKS=$locks"
    clang -O2 -pthread $flags tests/pthread/bench_mutex.c -o "$work/native_$name"
    # build-pthread compiles a program at -O0 (its accesses are its
    # preemption points): the same loop natively at -O0 separates that from
    # the layer.
    clang -O0 -pthread $flags tests/pthread/bench_mutex.c -o "$work/native_O0_$name"
    "$hf" build-pthread tests/pthread/bench_mutex.c -o "$work/layer_$name" -- $flags >/dev/null
done
verdict=$("$work/layer_n" --replay "$work/empty" | grep '^verdict:')
[ "$verdict" = "verdict: ok" ] || { echo "bench_mutex under the layer: $verdict (the timing would be of a cut-short run)"; exit 1; }
cpu_time() {   # cpu_time CMD...: the CPU seconds (user + system) of one run
    { TIMEFORMAT='%U + %S'; time "$@" >/dev/null 2>&1; } 2>&1 | bc
}
per_loop() {   # per_loop A B: ns per iteration between the best times A and B
    echo "($1 - $2) * 1000000000 / $loops" | bc -l
}
# The least time of each binary over 25 rounds, the nine binaries taken in
# turn within a round: a pair's cost is the difference of two times, so a
# change of load between them would count as the pair's.
declare -A least
for _ in $(seq 25); do
    for kind in native native_O0 layer; do
        args=()
        [ $kind = layer ] && args=(--replay "$work/empty")
        for v in n e 0; do
            t=$(cpu_time "$work/${kind}_$v" "${args[@]}")
            if [ -z "${least[${kind}_$v]:-}" ] || [ "$(echo "$t < ${least[${kind}_$v]}" | bc)" -eq 1 ]; then
                least[${kind}_$v]=$t
            fi
        done
    done
done
for kind in native native_O0 layer; do
    declare "pair_$kind=$(per_loop "${least[${kind}_n]}" "${least[${kind}_e]}")" \
            "loop_$kind=$(per_loop "${least[${kind}_n]}" "${least[${kind}_0]}")"
done
ratio() { echo "$1 / $2" | bc -l; }
printf 'uncontended lock+unlock pair: glibc %.1f ns, pthread layer %.1f ns (%.1fx; goal 2x)\n' \
    "$pair_native" "$pair_layer" "$(ratio "$pair_layer" "$pair_native")"
printf 'the whole loop (the pair, the counter, its instrumentation): glibc at -O2 %.1f ns, at -O0 %.1f ns;\n' \
    "$loop_native" "$loop_native_O0"
printf '  built by build-pthread %.1f ns (%.1fx -O2, %.1fx -O0)\n' "$loop_layer" \
    "$(ratio "$loop_layer" "$loop_native")" "$(ratio "$loop_layer" "$loop_native_O0")"
[ $mutex_only -eq 1 ] && exit 0

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
