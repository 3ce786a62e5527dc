#!/bin/bash
# plateau_sharpen.sh — the experiments behind "A plateau the rule declared,
# then a sharper workload" in tests/README.md: a plateau declared by the
# rule, then the workload sharpened, then discovery resuming (experiments,
# not tests: they print figures and assert nothing about them).
#
#   1. the target fuzzed by libFuzzer with a discovery log (-seed=BASE_SEED,
#      -runs=BASE) until past the rule's firing;
#   2. `heisenfuzz chart` and `heisenfuzz report` on that log;
#   3. the corpus and a copy of the log continued twice, the same executions
#      each (-seed=SEED, -runs=MORE): (a) the unchanged target (control),
#      (b) the target sharpened (a copy made here; the tree is not changed);
#   4. both logs charted, and the rule replayed along each merged log: where
#      it first held, where it lifted, where it held again.
#
# The stories (--story):
#   lost_update  targets/pthread/lost_update.c (two threads, three locked
#                increments each) built with build-pthread; sharpened: a
#                third thread (THREADS = 3).  Under a minute on one core.
#   ping         the world target targets/ping/ (two calls over a network
#                that drops, duplicates and reorders; dict/ping.dict);
#                sharpened: messages may be delayed too, the fault kind the
#                report lists as never allowed that a client with timeouts
#                meets first (the copy relinked by tests/relink_target.sh).
#                About three minutes on one core.
#
#   tests/plateau_sharpen.sh [--story S] [--work DIR] [--base N] [--base-seed S] [--more N] [--seed S] [--charts DIR]
#
# --work   where the fuzzers, corpora, logs and charts go (default
#          hf-work/plateau_sharpen_STORY; emptied first)
# defaults: --story lost_update --base-seed 1 --seed 2; --base 40000 --more
#          400000 for lost_update, --base 1600000 --more 600000 for ping
# --charts also copy the two charts there, as discovery_STORY_unchanged.svg
#          and discovery_STORY_SHARPENED.svg (the README's are in
#          targets/pthread/ and targets/ping/)
# Reads HF_OUT (default out; a plain build).
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(pwd)
OUT=$(cd "${HF_OUT:-out}" && pwd)
hf="$OUT/heisenfuzz"
story=lost_update work= base= more= seed=2 base_seed=1 charts=
while [ $# -gt 0 ]; do
    case "$1" in
        --story) story=$2; shift ;;
        --work) work=$2; shift ;;
        --base) base=$2; shift ;;
        --more) more=$2; shift ;;
        --seed) seed=$2; shift ;;
        --base-seed) base_seed=$2; shift ;;
        --charts) charts=$(cd "$2" && pwd); shift ;;
        -h|--help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "plateau_sharpen.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$hf" ] || { echo "plateau_sharpen.sh: no $hf (run ./build.sh first)" >&2; exit 2; }
case $story in
    lost_update) sharpened=three_threads; : "${base:=40000}" "${more:=400000}" ;;
    ping) sharpened=with_delay; : "${base:=1600000}" "${more:=600000}" ;;
    *) echo "plateau_sharpen.sh: unknown story '$story' (lost_update or ping)" >&2; exit 2 ;;
esac
: "${work:=hf-work/plateau_sharpen_$story}"
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# base_fuzzer, sharpened_fuzzer: the two fuzzers; fuzz_flags: the engine's
# flags each run takes.  The substitution must have happened, or (b) would
# be the control again.
substitute() {   # substitute FROM TO SOURCE OUTPUT
    sed -e "s/$1/$2/" "$3" >"$4"
    grep -q "$2" "$4" || { echo "plateau_sharpen.sh: '$1' not found in $3" >&2; exit 2; }
}
fuzz_flags=()
if [ "$story" = lost_update ]; then
    src=$tree/targets/pthread/lost_update.c
    substitute 'THREADS = 2,' 'THREADS = 3,' "$src" lost_update_three.c
    # A program's log is named after its fuzzer: two folders, one name.
    mkdir sharpened
    base_fuzzer=./lost_update_fuzzer sharpened_fuzzer=./sharpened/lost_update_fuzzer
    "$hf" build-pthread "$src" -o $base_fuzzer
    "$hf" build-pthread lost_update_three.c -o $sharpened_fuzzer
else
    mkdir -p sharpened/targets/ping
    substitute 'HF_FAULT_BIT(HF_FAULT_MSG_DUPLICATE) |' 'HF_FAULT_BIT(HF_FAULT_MSG_DUPLICATE) | HF_FAULT_BIT(HF_FAULT_MSG_DELAY) |' \
        "$tree/targets/ping/ping.c" sharpened/targets/ping/ping.c
    # A fuzzer runs the target it is named after: two folders, one name.
    base_fuzzer=$OUT/ping_fuzzer sharpened_fuzzer=./sharpened/ping_fuzzer
    "$tree/tests/relink_target.sh" sharpened targets/ping/ping.c $sharpened_fuzzer
    fuzz_flags=(-dict="$tree/dict/ping.dict")
fi

# The merged log replayed under the rule of fuzz/discovery/estimate.c (the chart
# applies it the same way): processes here run one after another, so the
# merged executions are the earlier processes' totals plus the current one's,
# and a behaviour's count is the sum of each process's (exact below three).
rule_along() {
    python3 - "$1" <<'EOF'
import sys
GROWTH, MIN_EXECUTIONS = 10, 30000
done_execs, done_ns, last = 0, 0, {}
seen = {}            # feature -> {instance: count (1..3)}
category = {}        # feature -> its category (interleaving, state, ...)
state = None         # "holds" / "open"
since = None         # (executions, ns, behaviours) where the present count was first logged
for line in open(sys.argv[1]):
    f = line.split()
    if not f:
        continue
    if f[0] == "start":
        if last:
            done_execs += last[0]; done_ns += last[1]
        last = (0, 0)
    elif f[0] == "seen":
        seen.setdefault(f[2], {})[f[1]] = int(f[3])
        category[f[2]] = f[4] if len(f) > 4 else "unknown"
    elif f[0] == "stats":
        sec, frac = f[4].split(".")
        last = (int(f[3]), int(sec) * 10**9 + int(frac))
        n, ns = done_execs + last[0], done_ns + last[1]
        totals = [sum(c.values()) for c in seen.values()]
        s, f1 = len(totals), sum(t == 1 for t in totals)
        if since is None or s != since[2]:
            since = (n, ns, s)
        quiet = since[0] <= n // GROWTH and since[1] <= ns // GROWTH
        holds = n >= MIN_EXECUTIONS and s > 0 and quiet and f1 * (GROWTH - 1) / GROWTH < 1.0
        now = "holds" if holds else "open"
        if now != state and not (state is None and now == "open"):
            print("  at execution %d (%d behaviours): %s" % (
                n, s, "plateau (since execution %d)" % since[0] if holds else "lifted"))
        state = now
by_kind = {}
for c in category.values():
    by_kind[c] = by_kind.get(c, 0) + 1
print("  end: %d executions, %d behaviours (%s), plateau %s" % (
    done_execs + last[0], len(seen), ", ".join("%s %d" % kv for kv in sorted(by_kind.items())) or "none",
    "holds" if state == "holds" else "does not hold"))
EOF
}

mkdir corpus
echo "== 1. the unchanged target, -seed=$base_seed -runs=$base"
HEISENFUZZ_LOG=base.log "$base_fuzzer" -seed="$base_seed" -runs="$base" "${fuzz_flags[@]}" corpus >base.out 2>&1
grep -E '^#[0-9]+[[:space:]]+bhv' base.out | tail -1
"$hf" chart base.log -o base.svg
rule_along base.log

echo "== 2. the report"
"$hf" report base.log -o base.html

for variant in unchanged "$sharpened"; do
    rm -rf "corpus_$variant"
    cp -r corpus "corpus_$variant"
    cp base.log "$variant.log"
done
# (b) runs first: a chart's wall clock is the log's, pauses between processes
# included, so the sharpened curve would otherwise carry the control's run time.
echo "== 3b. continued, sharpened ($sharpened), -seed=$seed -runs=$more"
HEISENFUZZ_LOG=$sharpened.log "$sharpened_fuzzer" -seed="$seed" -runs="$more" "${fuzz_flags[@]}" \
    "corpus_$sharpened" >"$sharpened.out" 2>&1
"$hf" chart "$sharpened.log" -o "discovery_${story}_$sharpened.svg"
rule_along "$sharpened.log"
"$hf" report "$sharpened.log" -o "$sharpened.html"

echo "== 3a. continued unchanged (control), -seed=$seed -runs=$more"
HEISENFUZZ_LOG=unchanged.log "$base_fuzzer" -seed="$seed" -runs="$more" "${fuzz_flags[@]}" corpus_unchanged \
    >unchanged.out 2>&1
"$hf" chart unchanged.log -o "discovery_${story}_unchanged.svg"
rule_along unchanged.log

if [ -n "$charts" ]; then
    cp "discovery_${story}_unchanged.svg" "discovery_${story}_$sharpened.svg" "$charts/"
    echo "charts copied to $charts/"
fi
