#!/bin/bash
# tests/run.sh — the whole test suite: builds every variant it needs, runs
# each test program and script, and ends with the line "N passed, N failed".
#
#   tests/run.sh            everything (needs clang, afl++, chromium: ./build.sh --deps)
#   tests/run.sh NAME...    only the tests whose name contains NAME
#
# A test program (tests/test_*.c, built by build.sh into out/tests/) and a
# test script (tests/test_*.sh) print one line per check, "ok - ..." or
# "not ok - ...".  Scripts get the build directories in the environment:
#   HF_OUT (plain -O2), HF_OUT_O0 (-O0), HF_OUT_ASAN, HF_OUT_UBSAN, HF_OUT_MSAN.
set -uo pipefail
cd "$(dirname "$0")/.."

export HF_OUT=out HF_OUT_O0=out/O0 HF_OUT_ASAN=out/asan HF_OUT_UBSAN=out/ubsan HF_OUT_MSAN=out/msan
# Sanitizer settings OSS-Fuzz runs with, plus leak checking.
export ASAN_OPTIONS=detect_stack_use_after_return=1:detect_leaks=1:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export MSAN_OPTIONS=poison_in_dtor=1

# build ARGS...: one variant; its errors are shown, and "not ok" said, if it fails.
build() {
    echo "# building $*" >&2
    local log
    log=$(mktemp)
    ./build.sh "$@" >/dev/null 2>"$log" || { cat "$log" >&2; rm -f "$log"; echo "not ok - build $*"; return 1; }
    rm -f "$log"
}
# The plain build first, then the others two at a time: each build.sh
# compiles a file per core, but links and lists one step after another.
build --out "$HF_OUT" || exit 1
pids=()
build --opt -O0 --out "$HF_OUT_O0" & pids+=($!)
build --sanitizer address --out "$HF_OUT_ASAN" & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid" || exit 1; done
pids=()
build --sanitizer undefined --out "$HF_OUT_UBSAN" & pids+=($!)
build --sanitizer memory --out "$HF_OUT_MSAN" & pids+=($!)
for pid in "${pids[@]}"; do wait "$pid" || exit 1; done

FILTER=("$@")
selected() {   # NAME: is it asked for?
    [ ${#FILTER[@]} -eq 0 ] && return 0
    for want in "${FILTER[@]}"; do [[ "$1" == *"$want"* ]] && return 0; done
    return 1
}

# The tests run two at a time (the machines have two cores), each into its
# own log; a test's lines are shown when it ends, and the counts come from
# all the logs in the order the tests were listed.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
jobs_listed=0
lanes=()
run_one() {   # NAME COMMAND...: a test in the background, in a free lane
    local name=$1; shift
    while [ ${#lanes[@]} -ge 2 ]; do
        wait -n 2>/dev/null || true
        local still=()
        for pid in "${lanes[@]}"; do kill -0 "$pid" 2>/dev/null && still+=("$pid"); done
        lanes=("${still[@]}")
    done
    local file
    file=$(printf '%s/%03d' "$logs" "$jobs_listed")
    jobs_listed=$((jobs_listed + 1))
    (
        start=$(date +%s)   # $SECONDS does not count on in a subshell
        "$@" >"$file.out" 2>&1
        status=$?
        {
            echo "# $name"
            grep -E '^(not ok|ok) ' "$file.out"
            if [ "$status" -ne 0 ] && ! grep -q "^not ok" "$file.out"; then
                echo "not ok - $name exited with status $status"
            fi
            echo "#   ($(($(date +%s) - start)) s)"
        } >"$file"
        cat "$file"
    ) &
    lanes+=($!)
}

# Longest first, so that two lanes end together rather than one waiting on a
# long test started last: the four scripts that take minutes (measured on
# CI, slowest first), then the other scripts, then the programs.
longest=(test_pthread test_ossfuzz test_install test_determinism)
for name in "${longest[@]}"; do
    selected "$name" && run_one "$name" bash "tests/$name.sh"
done
for script in tests/test_*.sh; do
    name=$(basename "$script" .sh)
    [[ " ${longest[*]} " == *" $name "* ]] && continue
    selected "$name" || continue
    run_one "$name" bash "$script"
done
for prog in "$HF_OUT"/tests/test_*; do
    name=$(basename "$prog")
    selected "$name" || continue
    run_one "$name" "$prog"
    run_one "$name (asan)" "$HF_OUT_ASAN/tests/$name"
    # The runtime's own tests run under every sanitizer OSS-Fuzz uses.
    case $name in test_decide|test_sched|test_mutate)
        run_one "$name (ubsan)" "$HF_OUT_UBSAN/tests/$name"
        run_one "$name (msan)" "$HF_OUT_MSAN/tests/$name" ;;
    esac
done
wait
log="$logs/all"
cat "$logs"/[0-9][0-9][0-9] >"$log" 2>/dev/null
passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
if [ "$failed" -gt 0 ]; then
    echo "# failures:"
    grep '^not ok ' "$log"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
