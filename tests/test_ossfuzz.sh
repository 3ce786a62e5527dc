#!/bin/bash
# test_ossfuzz.sh — build.sh under OSS-Fuzz's contract, with its variables
# reproduced (`bash -eux build.sh`), for the libFuzzer engine under ASan,
# UBSan, MSan and the coverage build, and the AFL++ engine under ASan; then
# OSS-Fuzz's build check: every fuzzer in $OUT runs `-seed=1337 -runs=4`.
# $OUT must hold the fixed targets and the runtime's own fuzzers
# (fuzz/self/), and no *_buggy demo.  Last, the worked example of a user's
# project (fuzz/oss-fuzz-user/) is built the same way, from its own $SRC.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

base_cflags="-O1 -fno-omit-frame-pointer -gline-tables-only"
# OSS-Fuzz's runtime options: unsigned wrap-around (our hashes rely on it,
# and it is defined C) is reported only when asked for.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1
self_fuzzers=$(ls fuzz/self/*_fuzzer.c | xargs -n1 basename | sed 's/\.c$//')

# oss_run ENGINE SANITIZER OUT WORK SRC COMMAND...: COMMAND under OSS-Fuzz's variables.
oss_run() {
    local engine=$1 sanitizer=$2 out=$3 work=$4 src=$5 san; shift 5
    case $sanitizer in
        address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
        undefined) san="-fsanitize=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr -fno-sanitize-recover=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr" ;;
        memory) san="-fsanitize=memory -fsanitize-memory-track-origins" ;;
        coverage) san="-fprofile-instr-generate -fcoverage-mapping" ;;
    esac
    local cc=clang cxx=clang++ engine_flags="-fsanitize=fuzzer-no-link" lib=-fsanitize=fuzzer
    # The coverage build has the profile's instrumentation, not libFuzzer's.
    [ "$sanitizer" = coverage ] && engine_flags=""
    if [ "$engine" = afl ]; then
        cc=afl-clang-fast cxx=afl-clang-fast++ engine_flags="" lib=/usr/lib/afl/libAFLDriver.a
    fi
    env CC=$cc CXX=$cxx CFLAGS="$base_cflags $san $engine_flags" CXXFLAGS="$base_cflags $san $engine_flags" \
        LIB_FUZZING_ENGINE="$lib" OUT="$out" SRC="$src" WORK="$work" SANITIZER="$sanitizer" \
        FUZZING_ENGINE="$engine" ARCHITECTURE=x86_64 AFL_QUIET=1 LLVM_PROFILE_FILE=/dev/null "$@"
}

# run_check ENGINE OUT WORK FUZZERS...: OSS-Fuzz's check; prints the failing ones.
# The coverage build is not fuzzed (it has no libFuzzer coverage): OSS-Fuzz
# runs it over a corpus, as here over one input (-runs=0).
run_check() {
    local engine=$1 out=$2 work=$3; shift 3
    local failed=""
    mkdir -p "$tmp/corpus" && printf '\x01\x02' >"$tmp/corpus/one"
    for f in "$@"; do
        if [[ "$out" == *coverage* ]]; then
            (cd "$work" && LLVM_PROFILE_FILE="$work/%p.profraw" "$f" -runs=0 "$tmp/corpus" >/dev/null 2>&1) \
                || failed+=" $(basename "$f")"
        elif [ "$engine" = afl ]; then
            printf '\x00' >"$tmp/one"
            AFL_DEBUG=0 "$f" "$tmp/one" >/dev/null 2>&1 || failed+=" $(basename "$f")"
        else
            (cd "$work" && LLVM_PROFILE_FILE="$work/%p.profraw" "$f" -seed=1337 -runs=4 >/dev/null 2>&1) \
                || failed+=" $(basename "$f")"
        fi
    done
    echo "$failed"
}

# first_error LOG: the compiler's first error, else the last command the
# build ran (bash -x traces it; under -e it is the one that failed).
first_error() {
    grep -m1 -E 'error:' "$1" || grep -E '^\++ ' "$1" | tail -1
}

check() {   # ENGINE SANITIZER
    local engine=$1 sanitizer=$2 out="$tmp/out-$1-$2" work="$tmp/work-$1-$2"
    mkdir -p "$out" "$work"
    if ! oss_run "$engine" "$sanitizer" "$out" "$work" "$PWD/.." bash -eux build.sh >"$tmp/log" 2>&1; then
        echo "not ok - OSS-Fuzz build ($engine, $sanitizer) failed: $(first_error "$tmp/log")"
        return
    fi
    local fuzzers=("$out"/*_fuzzer) failed
    failed=$(run_check "$engine" "$out" "$work" "${fuzzers[@]}")
    [ ${#fuzzers[@]} -gt 1 ] && [ -z "$failed" ] \
        && echo "ok - OSS-Fuzz build ($engine, $sanitizer): ${#fuzzers[@]} fuzzers build and pass the check ($([ "$sanitizer" = coverage ] && echo "a corpus, -runs=0" || echo "-seed=1337 -runs=4"))" \
        || echo "not ok - OSS-Fuzz build ($engine, $sanitizer): failing fuzzers:$failed"
    local buggy missing=""
    buggy=$(ls "$out" | grep _buggy | tr '\n' ' ')
    for f in $self_fuzzers; do [ -x "$out/$f" ] || missing+=" $f"; done
    [ -z "$buggy" ] && [ -z "$missing" ] && [ -x "$out/kafka_idempotent_fuzzer" ] \
        && echo "ok - OSS-Fuzz build ($engine, $sanitizer) ships the fixed targets and the runtime's fuzzers, no buggy demo" \
        || echo "not ok - OSS-Fuzz build ($engine, $sanitizer): buggy: ${buggy:-none}; missing:${missing:- none}"
    if [ "$engine" = libfuzzer ] && [ "$sanitizer" = address ]; then
        local files
        files=$(ls "$out" | grep -c -E '_fuzzer\.(dict|options)$|_seed_corpus\.zip$')
        [ "$files" -gt 0 ] && echo "ok - OSS-Fuzz build puts dictionaries, options and seed corpora beside the fuzzers ($files files)" \
            || echo "not ok - no dictionaries, options or seed corpora in \$OUT"
        nm "$out/counter_fuzzer" >"$tmp/symbols" 2>/dev/null
        grep -q "__asan_report_load" "$tmp/symbols" && echo "ok - the OSS-Fuzz ASan build is instrumented" \
            || echo "not ok - the OSS-Fuzz ASan build has no ASan calls"
    fi
    if [ "$sanitizer" = coverage ]; then
        ls "$work"/*.profraw >/dev/null 2>&1 && echo "ok - the coverage build's fuzzers write coverage profiles" \
            || echo "not ok - the coverage build wrote no profile"
    fi
}

# The worked example of a user's project: their repository and heisenfuzz's
# side by side in $SRC, their build.sh run as OSS-Fuzz runs it.
user_check() {   # ENGINE SANITIZER
    local engine=$1 sanitizer=$2 src="$tmp/src-$1-$2" out="$tmp/user-out-$1-$2" work="$tmp/user-work-$1-$2"
    mkdir -p "$src" "$out" "$work"
    cp -r fuzz/oss-fuzz-user "$src/wallet"
    ln -s "$PWD" "$src/heisenfuzz"
    if ! (cd "$src/wallet" && oss_run "$engine" "$sanitizer" "$out" "$work" "$src" bash -eux "$src/wallet/build.sh") \
        >"$tmp/user-log" 2>&1; then
        echo "not ok - the user example's OSS-Fuzz build ($engine, $sanitizer) failed: $(first_error "$tmp/user-log")"
        return
    fi
    local failed
    failed=$(run_check "$engine" "$out" "$work" "$out/wallet_fuzzer")
    [ -x "$out/wallet_fuzzer" ] && [ -z "$failed" ] \
        && echo "ok - the user example builds under OSS-Fuzz's variables ($engine, $sanitizer) and passes the check" \
        || echo "not ok - the user example's fuzzer ($engine, $sanitizer) fails OSS-Fuzz's check"
    HEISENFUZZ_TOOL=1 "$out/wallet_fuzzer" list >"$tmp/user-list" 2>/dev/null
    grep -q '^wallet ' "$tmp/user-list" && [ "$(ls "$out")" = wallet_fuzzer ] \
        && echo "ok - the user's fuzzer holds their targets and answers the tool ($engine, $sanitizer)" \
        || echo "not ok - the user's fuzzer does not list its targets ($engine, $sanitizer): $(head -c 200 "$tmp/user-list")"
}

check libfuzzer address
check libfuzzer undefined
check libfuzzer memory
check libfuzzer coverage
command -v afl-clang-fast >/dev/null && check afl address
user_check libfuzzer address
command -v afl-clang-fast >/dev/null && user_check afl address
