#!/bin/bash
# test_self_fuzzers.sh — the runtime's own fuzzers (fuzz/self/) replay every
# input kept under fuzz/self/seeds/NAME/ without a failure, in the plain
# build and under ASan and UBSan.  The inputs there are the seeds OSS-Fuzz
# gets and the crashes sanitizer campaigns found (tests/campaign_self.sh),
# each fixed since: this keeps them fixed.
set -uo pipefail
cd "$(dirname "$0")/.."

for dir in fuzz/self/seeds/*/; do
    name=$(basename "$dir")
    inputs=("$dir"*)
    for out in "${HF_OUT:-out}" "${HF_OUT_ASAN:-out/asan}" "${HF_OUT_UBSAN:-out/ubsan}"; do
        fuzzer=$out/self/$name
        if [ ! -x "$fuzzer" ]; then echo "not ok - $fuzzer is missing"; continue; fi
        if output=$("$fuzzer" "${inputs[@]}" 2>&1); then
            echo "ok - $fuzzer replays the ${#inputs[@]} inputs of $dir"
        else
            echo "not ok - $fuzzer fails on an input of $dir:"
            grep -m3 -E "invariant broken|ERROR|runtime error" <<<"$output" | sed 's/^/#   /'
        fi
    done
done
