#!/bin/bash
# plateau_lease_lock_old.sh — does the plateau rule fire on lease_lock's
# workload as it was before its links could clog (commit 9d11a2f)?  The
# measurement behind README's "A plateau the rule declared, then a sharper
# workload" (an experiment, not a test: it prints figures and asserts
# nothing about them).
#
# The old targets/lease_lock/lease_lock.c is taken from git and linked in
# place of today's with the objects of the last local build
# (tests/relink_target.sh), so nothing in the tree changes.  Then one
# libFuzzer process with the target's dictionary and a discovery log, from
# an empty corpus, and every point where the count of behaviours grew, the
# chart's verdict and the report.
#
#   tests/plateau_lease_lock_old.sh [--work DIR] [--runs N] [--seed S]
#
# defaults: --work hf-work/lease_lock_old (emptied first) --runs 600000 --seed 1
# Reads HF_OUT (default out; a plain build, not a sanitizer's).  600,000
# runs took 12.6 minutes of one core here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
OUT=$(cd "${HF_OUT:-out}" && pwd)
hf="$OUT/heisenfuzz"
work=hf-work/lease_lock_old runs=600000 seed=1
while [ $# -gt 0 ]; do
    case "$1" in
        --work) work=$2; shift ;;
        --runs) runs=$2; shift ;;
        --seed) seed=$2; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "plateau_lease_lock_old.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$hf" ] || { echo "plateau_lease_lock_old.sh: no $hf (run ./build.sh first)" >&2; exit 2; }
rm -rf "$work"
mkdir -p "$work/targets/lease_lock" "$work/corpus"
work=$(cd "$work" && pwd)

# The source as it was, at its own path, so its properties' files read as
# today's (the report matches them with the tool's catalogue by file).
git show 9d11a2f^:targets/lease_lock/lease_lock.c >"$work/targets/lease_lock/lease_lock.c"
cp targets/lease_lock/lease.h "$work/targets/lease_lock/"
grep -q 'HF_FAULT_CLOG' "$work/targets/lease_lock/lease_lock.c" &&
    { echo "plateau_lease_lock_old.sh: the old source allows clogging already" >&2; exit 2; }
tests/relink_target.sh "$work" targets/lease_lock/lease_lock.c "$work/lease_lock_fuzzer"

cd "$work"
echo "== the old lease_lock, -seed=$seed -runs=$runs, dict/lease_lock.dict"
HEISENFUZZ_LOG=old.log ./lease_lock_fuzzer -seed="$seed" -dict="$root/dict/lease_lock.dict" -runs="$runs" corpus \
    >old.out 2>&1
python3 - old.log <<'EOF'
import sys
last = None
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "stats" and (last is None or int(f[5]) != last):
        last = int(f[5])
        print("  execution %s: %s behaviours, %.2f h logical" % (f[3], f[5], float(f[4]) / 3600))
EOF
"$hf" chart old.log -o old.svg
"$hf" report old.log -o old.html
