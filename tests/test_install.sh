#!/bin/bash
# test_install.sh — heisenfuzz as a library, the way a user meets it:
# `./build.sh --install PREFIX` into a temporary prefix, then a target of
# their own (fuzz/oss-fuzz-user/wallet.c, copied to a directory outside the
# tree) built with pkg-config into a libFuzzer fuzzer, a replayer and an
# AFL++ fuzzer; the installed tool fuzzes it to its bug (seeded, bounded),
# replays the crash with the fuzzer's trace hash, minimizes it into a
# regression test that builds against the prefix and passes, and charts the
# discovery log.  Then the tutorial of targets/README.md, extracted from the
# page (its code and its commands) and run the same way, from a directory of
# its own, checking the lines the page shows.
set -uo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
user="$tmp/user-project"   # outside the tree: nothing but the prefix is seen

check() {   # DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then echo "ok - $what"; else echo "not ok - $what"; fi
}

if ! ./build.sh --out "$tmp/build" --install "$prefix" >"$tmp/build.log" 2>&1; then
    echo "not ok - ./build.sh --install failed: $(grep -m1 -E 'rror' "$tmp/build.log")"
    exit 1
fi
check "--install puts the tool, the libraries, the headers and the pkg-config files in PREFIX" \
    test -x "$prefix/bin/heisenfuzz" -a -f "$prefix/lib/libheisenfuzz.a" -a -f "$prefix/lib/libheisenfuzz-libfuzzer.a" \
    -a -f "$prefix/lib/libheisenfuzz-replay.a" -a -f "$prefix/include/heisenfuzz/hf.h" \
    -a -f "$prefix/lib/pkgconfig/heisenfuzz-libfuzzer.pc" -a -f "$prefix/lib/pkgconfig/heisenfuzz-replay.pc"
check "--install puts heisenfuzz-cc and heisenfuzz-c++ beside it, running heisenfuzz cc and c++" \
    bash -c "'$prefix/bin/heisenfuzz-cc' --help | grep -q '^usage: heisenfuzz cc' && '$prefix/bin/heisenfuzz-c++' --version | grep -q 'clang version'"

mkdir -p "$user"
cp fuzz/oss-fuzz-user/wallet.c "$user/"
cd "$user" || exit 1
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
hf="$prefix/bin/heisenfuzz"
# shellcheck disable=SC2046
check "the user's target builds into a libFuzzer fuzzer with pkg-config, warning-free" \
    clang -std=c11 -Wall -Wextra -Werror -O1 wallet.c $(pkg-config --cflags --libs heisenfuzz-libfuzzer) -o wallet_buggy_fuzzer
# shellcheck disable=SC2046
check "and into a replayer (no engine)" \
    clang -std=c11 -Wall -Wextra -Werror -O1 wallet.c $(pkg-config --cflags --libs heisenfuzz-replay) -o wallet_buggy_replay
"$hf" list ./wallet_buggy_fuzzer >"$tmp/list" 2>&1
check "the installed tool lists the fuzzer's targets" \
    bash -c "grep -q '^wallet_buggy ' '$tmp/list' && grep -q '^wallet ' '$tmp/list' && [ \$(wc -l <'$tmp/list') -eq 2 ]"

"$hf" fuzz --seed 1 --max-time 120 --dir work --log work/discovery.log ./wallet_buggy_fuzzer >"$tmp/fuzz" 2>&1
status=$?
crash=$(ls work/crash-wallet_buggy-* 2>/dev/null | head -1)
check "heisenfuzz fuzz ./wallet_buggy_fuzzer finds the lost update (exit 1, a crash file)" \
    bash -c "[ $status -eq 1 ] && [ -s '$crash' ] && grep -q '^verdict: fail every deposit shows in the balance' '$tmp/fuzz'"
hash=$(grep -m1 -o 'trace-hash: [0-9a-f]*' "$tmp/fuzz" | tail -1)

"$hf" replay ./wallet_buggy_fuzzer "$crash" >"$tmp/replay" 2>&1
status=$?
check "the installed tool replays the crash: the timeline, verdict fail, exit 1" \
    bash -c "[ $status -eq 1 ] && grep -q '^\* .*client2 *run' '$tmp/replay' && grep -q '^verdict: fail every deposit' '$tmp/replay'"
check "with the trace hash the fuzz printed ($hash)" grep -q "^$hash$" "$tmp/replay"
./wallet_buggy_replay "$crash" >"$tmp/replayer" 2>&1
status=$?
check "the replayer flavour aborts on the crash with the same trace hash" \
    bash -c "[ $status -ne 0 ] && grep -q '^$hash$' '$tmp/replayer'"
"$hf" replay -q ./wallet_buggy_fuzzer:wallet "$crash" >"$tmp/fixed" 2>&1
check "FUZZER:NAME picks the fixed variant, which passes the crash" grep -q '^verdict: ok' "$tmp/fixed"
cp wallet_buggy_fuzzer unnamed
./unnamed -runs=1 >"$tmp/unnamed" 2>&1
status=$?
check "a fuzzer with two targets and a name that picks none stops with one line saying how to pick" \
    bash -c "[ $status -eq 2 ] && grep -q 'holds 2 targets.*HEISENFUZZ_TARGET' '$tmp/unnamed'"

if command -v afl-clang-fast >/dev/null; then
    # shellcheck disable=SC2046
    AFL_QUIET=1 afl-clang-fast -std=c11 -O1 wallet.c $(pkg-config --cflags --libs heisenfuzz-afl) -o wallet_buggy_afl >/dev/null 2>&1
    AFL_QUIET=1 ./wallet_buggy_afl "$crash" >"$tmp/afl" 2>&1
    status=$?
    check "the AFL++ flavour builds and fails the crash with the same trace hash" \
        bash -c "[ $status -ne 0 ] && grep -q '^$hash$' '$tmp/afl'"
    "$hf" fuzz --engine afl --jobs 2 --seed 1 --time 120 --dir afl-work ./wallet_buggy_afl >"$tmp/afl-fuzz" 2>&1
    status=$?
    check "the installed tool runs an AFL++ campaign (a main and a secondary) on the user's AFL++ binary to the bug" \
        bash -c "[ $status -eq 1 ] && [ -s afl-work/crash-wallet_buggy-1 ] && grep -q '^verdict: fail every deposit' '$tmp/afl-fuzz'"
    "$hf" fuzz --engine afl ./wallet_buggy_fuzzer >"$tmp/mismatch" 2>&1
    status=$?
    check "an AFL++ campaign on a libFuzzer binary is refused with one line" \
        bash -c "[ $status -eq 2 ] && grep -q 'is a libFuzzer binary, not one for AFL++' '$tmp/mismatch'"
else
    echo "not ok - afl-clang-fast is missing (./build.sh --deps installs afl++)"
fi

"$hf" minimize -q ./wallet_buggy_fuzzer "$crash" -o min --emit-test --test-dir regress --test-name wallet_lost_update \
    >"$tmp/min" 2>&1
status=$?
check "the installed tool minimizes the crash to one decision and emits a regression test" \
    bash -c "[ $status -eq 0 ] && [ -s min ] && grep -q 'deviations: *[0-9]* -> 1$' '$tmp/min' && [ -s regress/wallet_lost_update.c ]"
# shellcheck disable=SC2046
check "the regression test builds against the prefix with the user's target" \
    clang -std=c11 -Wall -Wextra -Werror regress/wallet_lost_update.c wallet.c $(pkg-config --cflags --libs heisenfuzz) \
        -o wallet_regress
./wallet_regress >"$tmp/regress" 2>&1
status=$?
check "and passes: the failure in wallet_buggy, none in wallet" \
    bash -c "[ $status -eq 0 ] && [ \$(grep -c '^ok - ' '$tmp/regress') -eq 5 ] && ! grep -q '^not ok' '$tmp/regress'"

"$hf" chart -o chart.svg work/discovery.log >"$tmp/chart" 2>&1
check "the installed tool charts the campaign's discovery log" bash -c "[ -s chart.svg ] && grep -q '<svg' chart.svg"

# The tutorial: the page's ledger.c and commands, as a reader copies them.
# shellcheck source=tests/doc_blocks.sh
. "$tree/tests/doc_blocks.sh"
mkdir -p "$tmp/tutorial"
cd "$tmp/tutorial" || exit 1
doc_block "$tree/targets/README.md" "c tutorial:ledger.c" >ledger.c
check "the tutorial's code is on the page (ledger.c, a buggy/fixed pair)" grep -q "^HF_DEFINE_TARGET_PAIR(ledger," ledger.c
export PATH="$prefix/bin:$PATH"
doc_run "$tree/targets/README.md" tutorial "$tmp/tutorial.log"
doc_expect "$tree/targets/README.md" tutorial-output "$tmp/tutorial.log"
cd "$tree" || exit 1
