#!/bin/bash
# test_relink.sh — tests/relink_target.sh links a fuzzer from the last
# build's objects with build.sh's own source lists (build.sh
# --print-sources), so that a file added to or left out of a list in
# build.sh cannot be missed there; and the fuzzer it links runs.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # STATUS DESCRIPTION
    if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

./build.sh --print-sources >"$tmp/sources" 2>&1
status=$?
missing=""
for list in RUNTIME TARGET TOOL HARNESS ACCESS_POINT; do grep -q "^$list=." "$tmp/sources" || missing="$missing $list"; done
[ $status -eq 0 ] && [ -z "$missing" ] &&
    grep '^TOOL=' "$tmp/sources" | grep -q ' fuzz/tool/cmd_fuzz.c ' && ! grep '^TOOL=' "$tmp/sources" | grep -q 'fuzz/engine/harness.c' &&
    grep '^ACCESS_POINT=' "$tmp/sources" | grep -q 'targets/counter/counter.c'
check $? "build.sh --print-sources prints its source lists (the tool's without the harness; counter.c among the -O0 ones)"

# A copy of a list would name the files build.sh leaves out of TOOL_SOURCES.
! grep -qE 'fuzz/(standalone|tool_main|replayer|mutator_afl|pthread_driver)\.c|preempt_at_accesses' tests/relink_target.sh &&
    grep -q 'build.sh" --print-sources' tests/relink_target.sh
check $? "relink_target.sh keeps no source list of its own: it asks build.sh"

tests/relink_target.sh "$PWD" targets/counter/counter.c "$tmp/counter_buggy_fuzzer" >"$tmp/relink.out" 2>&1
status=$?
mkdir -p "$tmp/corpus"
"$tmp/counter_buggy_fuzzer" -seed=1 -runs=20000 "$tmp/corpus" >"$tmp/fuzz.out" 2>&1
fuzz_status=$?
[ $status -eq 0 ] && [ $fuzz_status -ne 0 ] && grep -q "deadly signal" "$tmp/fuzz.out"
check $? "relink_target.sh links counter_buggy_fuzzer from the build's objects (status $status), and it finds the lost update"
