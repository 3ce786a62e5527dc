#!/bin/bash
# bench_pthread.sh — figures for pthread programs under build-pthread (a
# benchmark, not a test: it prints numbers and asserts nothing).
#
#   1. ns per uncontended pthread_mutex_lock+unlock pair, as
#      tests/pthread/bench_mutex.c times it within one process (the loop
#      with the pair against the same loop without it, in turn), median of
#      11 runs: the interposed layer (built by build-pthread, at -O0 with its
#      access hooks and coverage) against glibc's natively at -O2, and the
#      whole loop natively at -O0 as build-pthread compiles a program
#   2. libFuzzer executions per second on each correct twin of targets/pthread
#      (20,000 executions from an empty corpus, wall clock)
#   3. schedules (and wall seconds) to the first failure, median of SEEDS
#      seeds, for the default fuzzer (libFuzzer), uniform random decisions,
#      PCT with d=3, POS and SURW (the fuzzer's own --explore), each capped at MAX runs
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
                                       double_checked three_preemptions hundred_threads straddle)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: >"$work/empty"

seconds() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc; }

# ---- 1. the mutex ----------------------------------------------------------
# bench_mutex times itself (its header says how): the pair and the whole
# loop, in ns.  Each of the three builds runs 11 times, in turn, and the
# median of each figure is printed, with the range of the ratio of the layer
# to glibc over the 11 turns.
for kind in native native_O0; do
    opt=-O2
    [ $kind = native_O0 ] && opt=-O0   # build-pthread compiles a program at -O0
    clang $opt -pthread tests/pthread/bench_mutex.c -o "$work/$kind"
done
"$hf" build-pthread tests/pthread/bench_mutex.c -o "$work/layer" >/dev/null
timed() {   # timed KIND: "PAIR LOOP" in ns, from one run of that build
    local line
    if [ "$1" = layer ]; then
        line=$(HEISENFUZZ_PROGRAM_OUTPUT=1 "$work/layer" --replay "$work/empty")
        # A run cut short by the step budget would have timed less work.
        grep -qx 'verdict: ok' <<<"$line" || { echo "bench_mutex under the layer did not end ok" >&2; exit 1; }
    else
        line=$("$work/$1")
    fi
    sed -n 's/^bench_mutex: pair \([0-9.-]*\) ns, loop \([0-9.]*\) ns$/\1 \2/p' <<<"$line"
}
for turn in $(seq 11); do
    for kind in native native_O0 layer; do
        timed $kind >"$work/turn_${kind}_$turn" || exit 1
    done
    read -r native_pair _ <"$work/turn_native_$turn"
    read -r layer_pair _ <"$work/turn_layer_$turn"
    echo "$layer_pair / $native_pair" | bc -l >>"$work/ratios"
done
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
for kind in native native_O0 layer; do
    declare "pair_$kind=$(cat "$work"/turn_${kind}_* | awk '{print $1}' | median)" \
            "loop_$kind=$(cat "$work"/turn_${kind}_* | awk '{print $2}' | median)"
done
ratio() { echo "$1 / $2" | bc -l; }
printf 'uncontended lock+unlock pair: glibc %.1f ns, pthread layer %.1f ns (%.2fx; goal 2x), medians of 11 runs;\n' \
    "$pair_native" "$pair_layer" "$(ratio "$pair_layer" "$pair_native")"
printf '  the ratio run by run %.2f-%.2fx\n' "$(sort -g "$work/ratios" | head -1)" "$(sort -g "$work/ratios" | tail -1)"
printf 'the whole loop (the pair, the counter, its instrumentation): glibc at -O2 %.1f ns, at -O0 %.1f ns;\n' \
    "$loop_native" "$loop_native_O0"
printf '  built by build-pthread %.1f ns (%.1fx -O2, %.1fx -O0)\n' "$loop_layer" \
    "$(ratio "$loop_layer" "$loop_native")" "$(ratio "$loop_layer" "$loop_native_O0")"
[ $mutex_only -eq 1 ] && exit 0

# ---- 2 and 3: the suite ------------------------------------------------------

strategies=(libfuzzer random pct pos surw)
printf '\n%-22s %9s' program "exec/s"
printf ' | %-22s' "libFuzzer: runs (s)" "random: runs (s)" "PCT d=3: runs (s)" "POS: runs (s)" "SURW: runs (s)"
printf '\n'
goals_met=0 goals_rows=0
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
    for strategy in "${strategies[@]}"; do
        : >"$dir/$strategy.runs"; : >"$dir/$strategy.secs"
        for seed in $(seq 1 "$seeds"); do
            s=$(seconds)
            if [ $strategy = libfuzzer ]; then
                rm -rf "$dir/corpus" "$dir"/crash-*; mkdir -p "$dir/corpus"
                # Executions: libFuzzer's, plus the runs the decision mutator
                # makes itself (fuzz/engine/harness.c prints them).
                n=$(cd "$dir" && ./buggy -seed="$seed" -runs="$cap" -artifact_prefix="$dir/" -print_final_stats=1 \
                    corpus 2>&1 | awk '/^stat::number_of_executed_units:/ {n = $2}
                                       /^stat::heisenfuzz_mutator_runs:/ {m = $2} END {if (n) print n + m}')
                ls "$dir"/crash-* >/dev/null 2>&1 || n=""
            else
                # The calm profile's runs (profile runs: N) are executions too.
                n=$("$dir/buggy" --explore --strategy $strategy --depth 3 --seed "$seed" --runs "$cap" \
                    --until-fail 2>/dev/null | awk '/^first failure: run / {k = $4} /^profile runs: / {p = $3}
                                                   END {if (k != "") print k + p}')
            fi
            e=$(seconds)
            if [ -n "$n" ]; then echo "$n" >>"$dir/$strategy.runs"; elapsed "$s" "$e" >>"$dir/$strategy.secs"; fi
        done
    done
    cell() {
        local found; found=$(wc -l <"$dir/$1.runs")
        printf '%s (%.2f s) %d/%d' "$(median <"$dir/$1.runs")" "$(median <"$dir/$1.secs" | sed 's/-/0/')" "$found" "$seeds"
    }
    printf '%-22s %9s' "${name}_buggy" "${rate:-?}"
    for strategy in "${strategies[@]}"; do printf ' | %-22s' "$(cell $strategy)"; done
    printf '\n'
    # The goal: the default fuzzer within 1.5x the best blind median + 5,
    # a seed that did not find the bug counting as the cap.
    capped() { local n; n=$(wc -l <"$dir/$1.runs"); { cat "$dir/$1.runs"; for _ in $(seq $((seeds - n))); do echo $((cap + 1)); done; } | median; }
    best=$( (for strategy in random pct pos surw; do capped $strategy; done) | sort -n | head -1)
    default=$(capped libfuzzer)
    goals_rows=$((goals_rows + 1))
    if [ "$(echo "$default <= 1.5 * $best + 5" | bc -l)" = 1 ]; then goals_met=$((goals_met + 1)); verdict=meets
    else verdict=MISSED; fi
    echo "    goal: libFuzzer $default <= 1.5 x best blind $best + 5: $verdict"
done
echo "(runs: median over the seeds that found the bug within $max_runs runs, hundred_threads $((max_runs / 10)); n/$seeds: how many did)"
echo "goal (counting a seed that missed as the cap): met on $goals_met of $goals_rows programs"
