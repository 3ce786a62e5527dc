#!/bin/bash
# plateau_sharpen.sh — the experiment behind README's "Sharpening a pthread
# program's workload": a plateau declared by the rule, then the workload
# sharpened, then discovery resuming (an experiment, not a test: it prints
# figures and asserts nothing about them).
#
#   1. targets/pthread/lost_update.c (two threads, three locked increments
#      each) built with build-pthread and fuzzed by libFuzzer with a
#      discovery log (-seed=BASE_SEED, -runs=BASE) until past the rule's firing;
#   2. `heisenfuzz chart` and `heisenfuzz report` on that log;
#   3. the corpus and a copy of the log continued twice, the same executions
#      each (-seed=SEED, -runs=MORE): (a) the unchanged program (control),
#      (b) the same program with a third thread (a copy made here with
#      THREADS = 3; targets/pthread/ is not changed);
#   4. both logs charted, and the rule replayed along each merged log: where
#      it first held, where it lifted, where it held again.
#
#   tests/plateau_sharpen.sh [--work DIR] [--base N] [--base-seed S] [--more N] [--seed S] [--charts DIR]
#
# --work   where the fuzzers, corpora, logs and charts go (default hf-work/plateau_sharpen;
#          emptied first)
# defaults: --base 40000 --base-seed 1 --more 400000 --seed 2
# --charts also copy the two charts there, as discovery_lost_update_unchanged.svg and
#          discovery_lost_update_three_threads.svg (the README's are in targets/pthread/)
# Reads HF_OUT (default out).  Under a minute on one core.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(cd "${HF_OUT:-out}" && pwd)
hf="$OUT/heisenfuzz"
work=hf-work/plateau_sharpen base=40000 more=400000 seed=2 base_seed=1 charts=
while [ $# -gt 0 ]; do
    case "$1" in
        --work) work=$2; shift ;;
        --base) base=$2; shift ;;
        --more) more=$2; shift ;;
        --seed) seed=$2; shift ;;
        --base-seed) base_seed=$2; shift ;;
        --charts) charts=$2; shift ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "plateau_sharpen.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$hf" ] || { echo "plateau_sharpen.sh: no $hf (run ./build.sh first)" >&2; exit 2; }
src=$(pwd)/targets/pthread/lost_update.c
rm -rf "$work"
mkdir -p "$work"
cd "$work"

# The sharpened workload: one more thread doing the same increments.  The
# substitution must have happened, or (b) would be the control again.
sed -e 's/THREADS = 2,/THREADS = 3,/' "$src" >lost_update_three.c
grep -q 'THREADS = 3,' lost_update_three.c || { echo "plateau_sharpen.sh: THREADS = 2 not found in $src" >&2; exit 2; }
"$hf" build-pthread "$src" -o lost_update_fuzzer
"$hf" build-pthread lost_update_three.c -o lost_update_three_fuzzer

# The merged log replayed under the rule of fuzz/estimate.c (the chart
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
echo "== 1. the unchanged program, -seed=$base_seed -runs=$base"
HEISENFUZZ_LOG=base.log ./lost_update_fuzzer -seed="$base_seed" -runs="$base" corpus >base.out 2>&1
grep -E '^#[0-9]+[[:space:]]+bhv' base.out | tail -1
"$hf" chart base.log -o base.svg
rule_along base.log

echo "== 2. the report"
"$hf" report base.log -o base.html

for variant in unchanged three_threads; do
    rm -rf "corpus_$variant"
    cp -r corpus "corpus_$variant"
    cp base.log "$variant.log"
done
# (b) runs first: a chart's wall clock is the log's, pauses between processes
# included, so the sharpened curve would otherwise carry the control's run time.
echo "== 3b. continued with a third thread, -seed=$seed -runs=$more"
HEISENFUZZ_LOG=three_threads.log ./lost_update_three_fuzzer -seed="$seed" -runs="$more" corpus_three_threads \
    >three_threads.out 2>&1
"$hf" chart three_threads.log -o discovery_lost_update_three_threads.svg
rule_along three_threads.log
"$hf" report three_threads.log -o three_threads.html

echo "== 3a. continued with the unchanged program (control), -seed=$seed -runs=$more"
HEISENFUZZ_LOG=unchanged.log ./lost_update_fuzzer -seed="$seed" -runs="$more" corpus_unchanged >unchanged.out 2>&1
"$hf" chart unchanged.log -o discovery_lost_update_unchanged.svg
rule_along unchanged.log

if [ -n "$charts" ]; then
    cd - >/dev/null
    cp "$work/discovery_lost_update_unchanged.svg" "$work/discovery_lost_update_three_threads.svg" "$charts/"
    echo "charts copied to $charts/"
fi
