#!/bin/bash
# test_dfs.sh — `explore --strategy dfs` as a user meets it: the same flags
# give the same output; it says when the bounded space is exhausted, and
# that a cap left it unfinished; it finds counter_buggy's lost update and
# saves a file that replays it; a pthread program's fuzzer enumerates its
# own schedules; bad flags are one-line usage errors.
set -uo pipefail
cd "$(dirname "$0")/.."
hf="$HF_OUT/heisenfuzz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # STATUS DESCRIPTION
    if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

# Everything but the wall-clock line.
"$hf" explore --strategy dfs --bound 3 counter 2>/dev/null | grep -v '^wall time' >"$tmp/a"
"$hf" explore --strategy dfs --bound 3 counter 2>/dev/null | grep -v '^wall time' >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && grep -q '^runs: 4827$' "$tmp/a"
check $? "counter at bound 3: the same output twice, $(grep '^runs:' "$tmp/a")"
grep -q '^exhausted: yes' "$tmp/a" && grep -q '^features: 26 distinct$' "$tmp/a"
check $? "it says the bounded space is exhausted, with 26 distinct features ($(grep '^features' "$tmp/a"))"
"$hf" explore --strategy dfs --bound 3 --runs 100 counter 2>/dev/null | grep -q '^exhausted: no$'
check $? "capped by --runs, it says exhausted: no"

mkdir "$tmp/found"
"$hf" explore --strategy dfs --bound 1 --until-fail -o "$tmp/found" counter_buggy >"$tmp/out" 2>&1
status=$?
[ $status -eq 1 ] && grep -q '^first failure: run 6$' "$tmp/out" && [ -f "$tmp/found/counter_buggy-dfs-bound1-first-failure" ]
check $? "bound 1 finds counter_buggy's lost update at run 6 and saves it"
"$hf" replay -q counter_buggy "$tmp/found/counter_buggy-dfs-bound1-first-failure" >"$tmp/replay"
[ $? -eq 1 ] && grep -q '^verdict: fail the final count' "$tmp/replay"
check $? "the saved file replays the failure (exit 1)"

if "$hf" build-pthread targets/pthread/order.c -o "$tmp/order_fuzzer" >/dev/null 2>&1; then
    "$tmp/order_fuzzer" --explore --strategy dfs --bound 4 2>/dev/null | grep -q '^exhausted: yes (the whole tree'
    check $? "a pthread program's fuzzer enumerates its whole tree (order.c, bound 4)"
else
    check 1 "build-pthread builds order.c"
fi

"$hf" explore --strategy dfs --bound x counter >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "--bound needs a whole number" "$tmp/err"
check $? "a bad --bound: exit 2, one line naming it"
"$hf" explore --strategy dfs --values 1 counter >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--values needs a whole number in 2..64" "$tmp/err"
check $? "--values below 2: exit 2 naming the range"
"$hf" bench --plateau --campaigns 0 counter >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--campaigns needs a whole number in 1..100" "$tmp/err"
check $? "bench --plateau --campaigns 0: exit 2 naming the range"
