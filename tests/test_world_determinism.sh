#!/bin/bash
# test_world_determinism.sh — the five-node cluster under every fault kind
# replays to the same trace hash in every build (-O2, -O0, ASan, UBSan,
# MSan).  The inputs are the ones test_world finds for each fault kind,
# plus a few storms with every kind allowed.
set -uo pipefail
cd "$(dirname "$0")/.."

inputs=$(mktemp -d)
trap 'rm -rf "$inputs"' EXIT
HF_WORLD_INPUTS=$inputs "$HF_OUT/tests/test_world" >/dev/null
found=$(ls "$inputs" | wc -l)
if [ "$found" -ge 23 ]; then
    echo "ok - test_world wrote $found inputs (one per fault kind, and storms)"
else
    echo "not ok - test_world wrote only $found inputs (want 19 fault kinds and 4 storms)"
fi

declare -A hashes
for build in HF_OUT HF_OUT_O0 HF_OUT_ASAN HF_OUT_UBSAN HF_OUT_MSAN; do
    for f in "$inputs"/*; do
        line=$("${!build}/heisenfuzz" replay -q cluster "$f" 2>&1 | tr '\n' ' ')
        hashes[$build,$(basename "$f")]=$line
    done
done

for f in "$inputs"/*; do
    name=$(basename "$f")
    reference=${hashes[HF_OUT,$name]}
    same=1
    for build in HF_OUT_O0 HF_OUT_ASAN HF_OUT_UBSAN HF_OUT_MSAN; do
        [ "${hashes[$build,$name]}" == "$reference" ] || { same=0; echo "#   $build: ${hashes[$build,$name]}"; }
    done
    if [ $same -eq 1 ] && [[ "$reference" == "verdict: ok trace-hash: "* ]]; then
        echo "ok - cluster under '$name': verdict ok, same trace hash at -O2, -O0, ASan, UBSan, MSan"
    else
        echo "not ok - cluster under '$name': $reference"
    fi
done
