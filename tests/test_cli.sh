#!/bin/bash
# test_cli.sh — the tool as a user meets it: help, exit codes, one-line
# errors that name the problem, the fuzz-then-replay main job, and explore's
# saved failures replaying (its -o directory made when missing).
set -uo pipefail
cd "$(dirname "$0")/.."
hf="$HF_OUT/heisenfuzz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect() {   # DESCRIPTION WANTED-STATUS PATTERN COMMAND...
    local what=$1 want=$2 pattern=$3; shift 3
    local out status
    out=$("$@" 2>&1); status=$?
    if [ "$status" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
        echo "ok - $what"
    else
        echo "not ok - $what (status $status, wanted $want; output: $(head -c 200 <<<"$out" | tr '\n' ' '))"
    fi
}

printf '\x03\x00' >"$tmp/lost-update"
: >"$tmp/empty"
expect "--help lists the commands" 0 "replay" "$hf" --help
expect "every command has --help" 0 "usage: heisenfuzz replay" "$hf" replay --help
expect "list names the targets" 0 "^counter_buggy " "$hf" list
expect "no command: usage error" 2 "no command" "$hf"
expect "unknown command: usage error, pointing at the list of commands" 2 \
    "unknown command 'frobnicate' \\(see 'heisenfuzz --help'\\)$" "$hf" frobnicate
expect "unknown target: one line naming it" 2 "unknown target 'nope'" "$hf" replay nope "$tmp/empty"
expect "unreadable file: one line naming it" 2 "cannot open $tmp/missing" "$hf" replay counter "$tmp/missing"
expect "a directory is not an input" 2 "cannot read $tmp" "$hf" replay counter "$tmp"
expect "replay of the empty input: verdict ok, exit 0" 0 "^verdict: ok" "$hf" replay counter_buggy "$tmp/empty"
expect "replay of a failing schedule: verdict fail, exit 1" 1 \
    "^verdict: fail the final count equals the number of increments" "$hf" replay counter_buggy "$tmp/lost-update"
expect "replay prints a 16-hex-digit trace hash" 1 "^trace-hash: [0-9a-f]{16}$" "$hf" replay counter_buggy "$tmp/lost-update"
expect "the timeline marks the non-default decision" 1 "^\* +0\.000000000s  worker2 +run" \
    "$hf" replay counter_buggy "$tmp/lost-update"
expect "explore: a bad number is refused" 2 "--runs needs a whole number" "$hf" explore counter --runs 12x
expect "explore: an unknown strategy is refused" 2 "--strategy is random, .* not 'bfs'" "$hf" explore counter --strategy bfs
# A usage error about a command's options or operands points at that
# command's own help, and the help it points at is there.
expect "a bad option points at the command's help" 2 "not '12x' \\(see 'heisenfuzz explore --help'\\)$" \
    "$hf" explore counter --runs 12x
expect "a missing operand points at the command's help" 2 "\\(see 'heisenfuzz minimize --help'\\)$" \
    "$hf" minimize counter_buggy
pointer=$("$hf" bench --plateau --campaigns 0 2>&1 | sed -n "s/.*(see 'heisenfuzz \\(.*\\)')$/\\1/p")
# shellcheck disable=SC2086
expect "bench --plateau's error points at help that exists ($pointer)" 0 "^usage: heisenfuzz bench --plateau" \
    "$hf" $pointer

# explore saves its first failure as an input file that replays it.
mkdir -p "$tmp/saved"
"$hf" explore counter_buggy --strategy pct --runs 200 --seed 3 --until-fail -o "$tmp/saved" >/dev/null 2>&1
saved=$(ls "$tmp"/saved/* 2>/dev/null | head -1)
[ -n "$saved" ] && grep -q "^verdict: fail" <<<"$("$hf" replay counter_buggy "$saved")" \
    && echo "ok - a failure found by PCT is saved as bytes that replay it" \
    || echo "not ok - PCT's saved failure does not replay"
# -o makes its directory, parents too (as fuzz --dir does); a file
# in the way is one line and exit 2.
"$hf" explore counter_buggy --strategy pct --runs 200 --seed 3 --until-fail -o "$tmp/new/saved" >/dev/null 2>&1
[ -f "$tmp/new/saved/counter_buggy-pct-seed3-first-failure" ] \
    && echo "ok - explore -o makes a missing directory and its parents" \
    || echo "not ok - explore -o did not make $tmp/new/saved"
expect "explore -o under a file: one line, exit 2" 2 "^heisenfuzz: cannot create $tmp/empty/saved: Not a directory$" \
    "$hf" explore counter_buggy --runs 1 -o "$tmp/empty/saved"

# The generators baseline draws its runs as the fuzzer's mutator draws a
# fresh generator record; its failure, re-encoded, replays as bytes.
mkdir -p "$tmp/saved-gen"
"$hf" explore kafka_hw_truncation_buggy --strategy generators --runs 5000 --seed 2 --until-fail -o "$tmp/saved-gen" >/dev/null 2>&1
saved=$(ls "$tmp"/saved-gen/* 2>/dev/null | head -1)
[ -n "$saved" ] && grep -q "^verdict: fail every record acknowledged" <<<"$("$hf" replay kafka_hw_truncation_buggy "$saved")" \
    && echo "ok - a failure found by the generators baseline is saved as bytes that replay it" \
    || echo "not ok - the generators baseline's saved failure does not replay (or none was found in 5,000 runs)"

# bench --search pairs the two libFuzzer searches seed by seed: the counts
# of seeds where behaviour features were faster, slower and the same add
# up to the seeds run, and the interval of the ratio is in order.
out=$("$hf" bench --search --only lf-cov,lf-search --seeds 4 --max-runs 500 counter_buggy metrics_race_buggy 2>/dev/null)
pairs=$(awk '/seed by seed/ { n++; gsub(/[;,x]/, " "); words = split($0, w, " ")
                              for (i = 1; i <= words; i++) {
                                  if (w[i] == "on" && w[i + 1] ~ /^[0-9]+$/) sum += w[i + 1]
                                  if (w[i] == "of" && w[i + 1] ~ /^[0-9]+$/) total = w[i + 1]
                                  if (w[i] == "ratio") { split(w[i + 1], r, "-"); ordered = r[1] <= r[2] }
                              }
                              ok += sum == total && total == 4 && ordered; sum = 0 }
            END { print n + 0, ok + 0 }' <<<"$out")
[ "$pairs" = "2 2" ] && grep -qE "features vs coverage [0-9.]+x \((meets|MISSED) 1\.0x\)" <<<"$out" \
    && echo "ok - bench --search compares features with coverage seed by seed, with a bootstrap interval" \
    || echo "not ok - bench --search's seed-by-seed comparison ($pairs): $(tr '\n' ' ' <<<"$out" | head -c 300)"
expect "bench --search refuses more seeds than it keeps" 2 "--seeds" "$hf" bench --search --seeds 1001 counter_buggy

# The main job: fuzz until the bug, then the replayed timeline.
out=$(cd "$tmp" && "$OLDPWD/$hf" fuzz --seed 1 --max-time 120 counter_buggy 2>/dev/null); status=$?
if [ $status -eq 1 ] && grep -q "^verdict: fail the final count" <<<"$out" && ls "$tmp"/hf-work/crash-counter_buggy-1 >/dev/null 2>&1; then
    echo "ok - fuzz finds the bug, keeps the crash in hf-work/, and replays its timeline"
else
    echo "not ok - fuzz counter_buggy (status $status)"
fi
# A second campaign keeps the first crash and writes a new one.
(cd "$tmp" && "$OLDPWD/$hf" fuzz --seed 2 --max-time 120 counter_buggy >/dev/null 2>&1)
[ -f "$tmp/hf-work/crash-counter_buggy-1" ] && [ -f "$tmp/hf-work/crash-counter_buggy-2" ] \
    && echo "ok - a second campaign does not overwrite the first crash" \
    || echo "not ok - the first crash was not kept beside the second"

# Seeds and dictionaries: every seed is a calm schedule for the buggy
# variant too (a seed that already fails would plant the bug instead of
# letting the search find it), and every target family has a dictionary.
for dir in targets/*/; do
    base=$(basename "$dir")
    # Programs for build-pthread, not targets: tests/test_pthread.sh.
    [ "$base" = pthread ] && continue
    [ -d "$dir/seeds" ] || { echo "not ok - $base has no seeds/"; continue; }
    [ -f "dict/$base.dict" ] && echo "ok - $base has a dictionary" || echo "not ok - dict/$base.dict is missing"
    for variant in "$base" "${base}_buggy"; do
        "$hf" list | grep -q "^$variant " || continue
        if "$hf" replay -q "$variant" "$dir"/seeds/* >/dev/null 2>&1; then
            echo "ok - no seed of $base fails $variant"
        else
            echo "not ok - a seed of $base fails $variant: seeds must leave the bug to the search"
        fi
    done
done
