#!/bin/bash
# bench_sctbench.sh — schedules to the first failure on the SCTBench "CS"
# programs, against the medians the RFF and SURW papers publish (a
# benchmark, not a test: it prints numbers and asserts nothing).
#
#   tests/bench_sctbench.sh [--seeds N] [--max-runs N] [--ok-runs N]
#                           [--only PROG,PROG] [--columns default,random,pct,pos,surw] DIR
#
#   DIR          the data, e.g. /work/shared/bench/sctbench-cs: NAME/NAME_bad.c
#                (and sometimes NAME/NAME_ok.c) per program, and a README.md
#                whose markdown table (| program | RFF | SURW | ... |) gives
#                the published medians
#   --seeds N    seeds 1..N per program and column (default 10)
#   --max-runs N executions allowed to find a bug (default 10000)
#   --ok-runs N  executions of the default fuzzer on each _ok twin (default 50000)
#   --only L     only these programs (comma-separated names of DIR's folders)
#   --columns L  what to run (default default,random,pct,pos,surw): "default" is
#                the libFuzzer fuzzer build-pthread writes (with the decision
#                mutator), any other word a strategy of its --explore (pct runs
#                with --depth 3); a strategy this build lacks shows "–"
#
# Reading the table (stdout, markdown; one row per NAME_bad.c):
#   RFF, SURW      the published medians, as DIR/README.md has them
#   default ...    our median executions to the first failure over the seeds;
#                  a seed that did not find the bug within --max-runs counts
#                  as infinitely many (so "4.5" is the mean of the middle two,
#                  ">10000 (3/10)" says the median seed did not find it), and
#                  "(k/N)" follows when only k of the N seeds found it
#   default found  the seeds of the default fuzzer that found it
#   default wall s median wall seconds of a default fuzzer's run (found or not)
# Executions are all of them: libFuzzer's (stat::number_of_executed_units,
# the failing one included) plus the runs the decision mutator makes itself
# and any calm run made to learn the program's profile
# (stat::heisenfuzz_mutator_runs); a total above --max-runs is not found.
# The blind columns count that calm run too ("profile runs:").
# Below the table: how many rows meet the goal (default median <= the better
# of RFF and SURW, at least 2, and every seed found it), the rows that miss,
# and each _ok twin fuzzed by the default fuzzer (-seed=1), which must stay clean.
# Progress goes to stderr, one line per program.
#
# Reads HF_OUT (default out) for the heisenfuzz build, HF_TIMEOUT (default
# 600) for the seconds one run may take.  All runs happen in a temporary
# directory, removed at exit; a crash file of an _ok twin is kept under /tmp.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
me=bench_sctbench.sh

usage() { awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; }
die() { echo "$me: $*" >&2; exit 2; }

# ---- options ----------------------------------------------------------------

seeds=10 max_runs=10000 ok_runs=50000 only="" columns="default,random,pct,pos,surw" data=""
need_count() {   # need_count FLAG VALUE: VALUE must be a positive integer
    [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer, not '$2'"
}
while [ $# -gt 0 ]; do
    flag=$1
    case "$flag" in
        -h|--help) usage; exit 0 ;;
        --seeds|--max-runs|--ok-runs|--only|--columns)
            [ $# -ge 2 ] || die "$flag needs a value"
            value=$2; shift ;;
        --*=*) die "write '${flag%%=*} VALUE', not '$flag'" ;;
        -*) die "unknown option '$flag' (see --help)" ;;
        *)  [ -z "$data" ] || die "one DIR only ('$data' and '$flag' given)"
            data=$flag ;;
    esac
    case "$flag" in
        --seeds) need_count "$flag" "$value"; seeds=$value ;;
        --max-runs) need_count "$flag" "$value"; max_runs=$value ;;
        --ok-runs) need_count "$flag" "$value"; ok_runs=$value ;;
        --only) only=$value ;;
        --columns) columns=$value ;;
    esac
    shift
done
[ -n "$data" ] || die "no DIR given (usage: $me [OPTIONS] DIR; see --help)"
[ -d "$data" ] || die "$data is not a directory"
data=$(cd "$data" && pwd)
[ -f "$data/README.md" ] || die "$data has no README.md (the published medians)"
IFS=, read -r -a cols <<<"$columns"
[ ${#cols[@]} -gt 0 ] || die "--columns is empty"
for c in "${cols[@]}"; do
    [[ $c =~ ^[a-z0-9_-]+$ ]] || die "--columns: '$c' is not a column name"
done
OUT=$(cd "${HF_OUT:-$root/out}" 2>/dev/null && pwd) || die "no build at ${HF_OUT:-$root/out} (HF_OUT)"
hf="$OUT/heisenfuzz"
[ -x "$hf" ] || die "$hf is missing: build first"
run_timeout=${HF_TIMEOUT:-600}
[[ $run_timeout =~ ^[1-9][0-9]*$ ]] || die "HF_TIMEOUT must be a positive number of seconds"

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_sctbench.XXXXXX") || die "cannot make a work directory"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM   # so that the EXIT trap cleans up on ^C too
kept=""                    # made when an _ok twin leaves a crash file

# ---- the published medians -------------------------------------------------

# DIR/README.md's table, from its header row (first cell "program", with RFF
# and SURW among the others) to the first line that is not a row, as
# "NAME<TAB>RFF<TAB>SURW" lines, the cells as written ("4.5", "–", "not found").
# Columns are found by their header, so reordering the table does not matter.
read_published() {
    awk -F'|' '
        function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
        !inside && /^\|/ && tolower(trim($2)) == "program" {
            rff = surw = 0
            for (i = 2; i < NF; i++) { h = trim($i); if (h == "RFF") rff = i; if (h == "SURW") surw = i }
            if (rff && surw) inside = 1
            next
        }
        inside && /^\|[ \t:|-]*$/ { next }   # the |---| line
        inside && /^\|/ { print trim($2) "\t" trim($rff) "\t" trim($surw); next }
        inside { exit }
    ' "$data/README.md"
}
read_published >"$work/published.tsv"
[ -s "$work/published.tsv" ] || die "$data/README.md has no table with program, RFF and SURW columns"
published() {   # published NAME COLUMN(2 RFF, 3 SURW): the cell, or "–" when the row is missing
    awk -F'\t' -v n="$1" -v c="$2" '$1 == n {print $c; found = 1; exit} END {if (!found) print "–"}' \
        "$work/published.tsv"
}
is_number() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }

# ---- the programs ----------------------------------------------------------

# The table's order first (as the papers list them), then any other folder
# holding NAME_bad.c.
programs=()
while IFS=$'\t' read -r name _; do
    [ -f "$data/$name/${name}_bad.c" ] && programs+=("$name")
done <"$work/published.tsv"
for path in "$data"/*/; do
    name=$(basename "$path")
    [ -f "$data/$name/${name}_bad.c" ] || continue
    grep -q "^$name"$'\t' "$work/published.tsv" || programs+=("$name")
done
if [ -n "$only" ]; then
    IFS=, read -r -a wanted <<<"$only"
    for name in "${wanted[@]}"; do
        [ -f "$data/$name/${name}_bad.c" ] || die "--only: no $data/$name/${name}_bad.c"
    done
    programs=("${wanted[@]}")
fi
[ ${#programs[@]} -gt 0 ] || die "no NAME/NAME_bad.c in $data"

# ---- measuring ---------------------------------------------------------------

now() { echo "$EPOCHREALTIME"; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.3f\n", b - a}'; }

build() {   # build SOURCE FUZZER: build-pthread, its output shown only if it fails
    if ! (cd "$work" && "$hf" build-pthread "$1" -o "$2") >"$2.buildlog" 2>&1; then
        echo "$me: could not build $1:" >&2
        tail -5 "$2.buildlog" >&2
        return 1
    fi
}

artifacts() {   # artifacts DIR KIND...: the files libFuzzer wrote there as KIND-*
    local kind
    for kind in "${@:2}"; do compgen -G "$1/$kind-*"; done
}

# run_fuzzer FUZZER SEED RUNS RUNDIR: one libFuzzer campaign from an empty
# corpus, in RUNDIR (its crash file lands there; the corpus stays in memory).
# Prints the executions (libFuzzer's plus the mutator's, "?" when no
# statistics came out) and how it ended, "EXECS HOW": "crashed" (a crash-*
# file: the program failed), "artifact" (libFuzzer's oom-*, timeout-* or
# leak-*: not the program's bug, but no clean run either), "timeout" (our
# guard), "exit-N" (non-zero without a file) or "finished".
run_fuzzer() {
    local fuzzer=$1 seed=$2 runs=$3 dir=$4 ended=finished n rc
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && timeout -k 10 "$run_timeout" "$fuzzer" -seed="$seed" -runs="$runs" \
        -print_final_stats=1 -artifact_prefix="$dir/") >"$dir/log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || ended=exit-$rc
    if [ $rc -eq 124 ]; then
        ended=timeout
        echo "$me: $(basename "$fuzzer") -seed=$seed timed out after $run_timeout s" >&2
    fi
    # The mutator prints its count at the failure and at exit: the last one holds.
    n=$(awk '/^stat::number_of_executed_units:/ {n = $2}
             /^stat::heisenfuzz_mutator_runs:/ {m = $2}
             END {if (n != "") print n + m; else print "?"}' "$dir/log")
    if [ -n "$(artifacts "$dir" crash)" ]; then ended=crashed
    elif [ -n "$(artifacts "$dir" oom timeout leak)" ]; then
        ended=artifact
        echo "$me: $(basename "$fuzzer") -seed=$seed: libFuzzer wrote $(artifacts "$dir" oom timeout leak)" >&2
    fi
    echo "$n $ended"
}

# measure_default FUZZER SEED: executions to the first failure, "x" when not
# found within max_runs; the wall seconds go to $secs_file.
measure_default() {
    local start n ended
    start=$(now)
    read -r n ended < <(run_fuzzer "$1" "$2" "$max_runs" "$work/run")
    since "$start" >>"$secs_file"
    if [ "$ended" = crashed ] && [ "$n" != "?" ] && [ "$n" -le "$max_runs" ]; then echo "$n"; else echo x; fi
}

# measure_explore FUZZER STRATEGY SEED: the blind baseline's first failing
# run, "x" when none failed within max_runs, "na" when this build has no such
# strategy (explore then exits 2 and names it).
measure_explore() {
    local depth=() rc k p
    [ "$2" = pct ] && depth=(--depth 3)
    (cd "$work" && timeout -k 10 "$run_timeout" "$1" --explore --strategy "$2" "${depth[@]}" \
        --until-fail --seed "$3" --runs "$max_runs") >"$work/explore.out" 2>"$work/explore.err"
    rc=$?
    if [ $rc -eq 2 ]; then
        grep -q -- "strategy.*'$2'" "$work/explore.err" ||
            echo "$me: --explore --strategy $2: $(head -1 "$work/explore.err")" >&2
        echo na; return
    fi
    k=$(sed -n 's/^first failure: run \([0-9]*\)$/\1/p' "$work/explore.out")
    # The calm profile's runs are executions too.
    p=$(sed -n 's/^profile runs: \([0-9]*\).*/\1/p' "$work/explore.out")
    if [ -n "$k" ]; then echo $((k + ${p:-0})); return; fi
    if [ $rc -eq 124 ]; then echo "$me: --explore --strategy $2 --seed $3 timed out after $run_timeout s" >&2
    elif [ $rc -ne 0 ]; then echo "$me: --explore --strategy $2 --seed $3 exited $rc without a failure" >&2; fi
    echo x
}

# ---- summarising -------------------------------------------------------------

# median <FILE: lines of numbers, "x" for a seed that did not find it
# (counted as +infinity); prints the median ("inf" when it falls on an unfound
# seed), halves kept as ".5"; "median seconds" prints it to two decimals.
median() {
    awk -v seconds="${1:-}" '$1 == "x" {unfound++; next}
         {v[++n] = $1 + 0}
         END {
             for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
             total = n + unfound
             if (total == 0) { print "-"; exit }
             lo = int((total + 1) / 2); hi = int(total / 2) + 1
             if (hi > n) { print "inf"; exit }
             m = (v[lo] + v[hi]) / 2
             if (seconds) printf "%.2f\n", m; else if (m == int(m)) printf "%d\n", m; else printf "%.1f\n", m
         }'
}

# cell FILE: a column's figure for the table.
cell() {
    local found total m
    if grep -qx na "$1"; then echo "–"; return; fi
    total=$(grep -c . "$1")
    found=$(grep -cvx x "$1")
    m=$(median <"$1")
    if [ "$m" = inf ]; then echo ">$max_runs ($found/$total)"
    elif [ "$found" -lt "$total" ]; then echo "$m ($found/$total)"
    else echo "$m"; fi
}

# goal NAME DIR: "meets" or why the row misses, from the default column.
goal() {
    local rff surw best m found
    rff=$(published "$1" 2); surw=$(published "$1" 3)
    if is_number "$rff" && is_number "$surw"; then
        best=$(awk -v a="$rff" -v b="$surw" 'BEGIN {print (a < b ? a : b)}')
    elif is_number "$rff"; then best=$rff
    elif is_number "$surw"; then best=$surw
    else echo "no published RFF or SURW figure"; return; fi
    best=$(awk -v b="$best" 'BEGIN {print (b < 2 ? 2 : b)}')
    [ -s "$2/default.runs" ] || { echo "not measured (build failed)"; return; }
    m=$(median <"$2/default.runs")
    found=$(grep -cvx x "$2/default.runs")
    if [ "$m" != inf ] && awk -v m="$m" -v b="$best" 'BEGIN {exit !(m <= b)}' && [ "$found" -eq "$seeds" ]; then
        echo meets
    else
        echo "default $(cell "$2/default.runs"), goal <= $best with every seed"
    fi
}

# ---- 1. the _bad programs ----------------------------------------------------

has_default=0
for c in "${cols[@]}"; do [ "$c" = default ] && has_default=1; done
header="| program | RFF | SURW |" rule="|---|---|---|"
for c in "${cols[@]}"; do header+=" $c |"; rule+="---|"; done
[ $has_default -eq 1 ] && { header+=" default found | default wall s |"; rule+="---|---|"; }

: >"$work/rows"
index=0
for name in "${programs[@]}"; do
    index=$((index + 1))
    started=$(now)
    pdir="$work/$name"; mkdir -p "$pdir"
    fuzzer="$pdir/bad"
    row="| $name | $(published "$name" 2) | $(published "$name" 3) |"
    if ! build "$data/$name/${name}_bad.c" "$fuzzer"; then
        for _ in "${cols[@]}"; do row+=" build failed |"; done
        [ $has_default -eq 1 ] && row+=" – | – |"
        echo "$row" >>"$work/rows"
        echo "[$index/${#programs[@]}] $name: build failed" >&2
        continue
    fi
    progress="[$index/${#programs[@]}] $name:"
    for c in "${cols[@]}"; do
        runs_file="$pdir/$c.runs" secs_file="$pdir/$c.secs"
        : >"$runs_file"; : >"$secs_file"
        for seed in $(seq 1 "$seeds"); do
            if [ "$c" = default ]; then
                n=$(measure_default "$fuzzer" "$seed")
            else
                n=$(measure_explore "$fuzzer" "$c" "$seed")
            fi
            echo "$n" >>"$runs_file"
            [ "$n" = na ] && break   # the strategy is not in this build
        done
        row+=" $(cell "$runs_file") |"
        progress+=" $c $(cell "$runs_file");"
    done
    if [ $has_default -eq 1 ]; then
        found=$(grep -cvx x "$pdir/default.runs")
        row+=" $found/$seeds | $(median seconds <"$pdir/default.secs") |"
    fi
    echo "$row" >>"$work/rows"
    echo "$progress ($(printf '%.0f' "$(since "$started")") s)" >&2
done

echo "$header"
echo "$rule"
cat "$work/rows"
echo
echo "(executions to the first failure, median of seeds 1..$seeds, each capped at $max_runs; RFF and SURW as published)"

# ---- 2. the goal ---------------------------------------------------------------

echo
if [ $has_default -eq 1 ]; then
    met=0
    : >"$work/misses"
    for name in "${programs[@]}"; do
        verdict=$(goal "$name" "$work/$name")
        if [ "$verdict" = meets ]; then met=$((met + 1)); else echo "  miss: $name — $verdict" >>"$work/misses"; fi
    done
    echo "goal: $met of ${#programs[@]} rows (default median <= best of RFF/SURW, min 2; every seed found)"
    cat "$work/misses"
else
    echo "goal: not measured (the default column was not run)"
fi

# ---- 3. the _ok twins ------------------------------------------------------------

# A correct twin must survive the default fuzzer: any crash is a false alarm
# (or a bug in the twin).  Its crash file is kept, since the work dir goes.
echo
twins=0 clean=0
for name in "${programs[@]}"; do
    source="$data/$name/${name}_ok.c"
    [ -f "$source" ] || continue
    twins=$((twins + 1))
    started=$(now)
    fuzzer="$work/$name/ok"
    if ! build "$source" "$fuzzer"; then
        verdict="FAILED (does not build)"
    else
        read -r n ended < <(run_fuzzer "$fuzzer" 1 "$ok_runs" "$work/okrun")
        if [ "$ended" = crashed ] || [ "$ended" = artifact ]; then
            [ -n "$kept" ] || kept=$(mktemp -d "${TMPDIR:-/tmp}/bench_sctbench-crashes.XXXXXX")
            crash=$(artifacts "$work/okrun" crash oom timeout leak | head -1)
            cp "$crash" "$kept/${name}_ok-$(basename "$crash")"
            verdict="FAILED (crash file $kept/${name}_ok-$(basename "$crash"), after $n executions)"
        elif [ "$ended" = timeout ]; then
            verdict="not clean: timed out after $run_timeout s ($n executions, none failed)"
        elif [ "$ended" != finished ]; then
            verdict="FAILED (no crash file, but $ended after $n executions: see $me's stderr)"
        else
            verdict="clean ($n executions, $(printf '%.1f' "$(since "$started")") s)"
            clean=$((clean + 1))
        fi
    fi
    echo "${name}_ok: $verdict"
    echo "[ok] ${name}_ok: $verdict" >&2
done
echo "ok twins: $clean of $twins clean (default fuzzer, -seed=1, -runs=$ok_runs)"
