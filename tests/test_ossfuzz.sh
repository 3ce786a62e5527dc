#!/bin/bash
# test_ossfuzz.sh — build.sh under OSS-Fuzz's contract, with its variables
# reproduced (`bash -eux build.sh`), for the libFuzzer engine under ASan,
# UBSan and MSan and the AFL++ engine under ASan; then OSS-Fuzz's build
# check: every fuzzer in $OUT runs `-seed=1337 -runs=4`.
set -uo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

base_cflags="-O1 -fno-omit-frame-pointer -gline-tables-only"
# OSS-Fuzz's runtime options: unsigned wrap-around (our hashes rely on it,
# and it is defined C) is reported only when asked for.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1
check() {   # ENGINE SANITIZER
    local engine=$1 sanitizer=$2 out="$tmp/out-$1-$2" work="$tmp/work-$1-$2"
    mkdir -p "$out" "$work"
    local san
    case $sanitizer in
        address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
        undefined) san="-fsanitize=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr -fno-sanitize-recover=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr" ;;
        memory) san="-fsanitize=memory -fsanitize-memory-track-origins" ;;
    esac
    local cc=clang cxx=clang++ engine_flags="-fsanitize=fuzzer-no-link" lib=-fsanitize=fuzzer
    if [ "$engine" = afl ]; then
        cc=afl-clang-fast cxx=afl-clang-fast++ engine_flags="" lib=/usr/lib/afl/libAFLDriver.a
    fi
    if ! env CC=$cc CXX=$cxx CFLAGS="$base_cflags $san $engine_flags" CXXFLAGS="$base_cflags $san $engine_flags" \
        LIB_FUZZING_ENGINE="$lib" OUT="$out" SRC="$PWD/.." WORK="$work" SANITIZER=$sanitizer \
        FUZZING_ENGINE=$engine ARCHITECTURE=x86_64 AFL_QUIET=1 bash -eux build.sh >"$tmp/log" 2>&1; then
        echo "not ok - OSS-Fuzz build ($engine, $sanitizer) failed: $(grep -m1 -E 'error|rror:' "$tmp/log")"
        return
    fi
    local fuzzers=("$out"/*_fuzzer) failed=""
    for f in "${fuzzers[@]}"; do
        if [ "$engine" = afl ]; then
            printf '\x00' >"$tmp/one"
            AFL_DEBUG=0 "$f" "$tmp/one" >/dev/null 2>&1 || failed+=" $(basename "$f")"
        else
            (cd "$work" && "$f" -seed=1337 -runs=4 >/dev/null 2>&1) || failed+=" $(basename "$f")"
        fi
    done
    [ ${#fuzzers[@]} -gt 1 ] && [ -z "$failed" ] \
        && echo "ok - OSS-Fuzz build ($engine, $sanitizer): ${#fuzzers[@]} fuzzers build and pass the -seed=1337 -runs=4 check" \
        || echo "not ok - OSS-Fuzz build ($engine, $sanitizer): failing fuzzers:$failed"
    if [ "$engine" = libfuzzer ] && [ "$sanitizer" = address ]; then
        local files=$(ls "$out" | grep -c -E '_fuzzer\.(dict|options)$|_seed_corpus\.zip$')
        [ "$files" -gt 0 ] && echo "ok - OSS-Fuzz build puts dictionaries, options and seed corpora beside the fuzzers ($files files)" \
            || echo "not ok - no dictionaries, options or seed corpora in \$OUT"
        nm "$out/counter_fuzzer" >"$tmp/symbols" 2>/dev/null
        grep -q "__asan_report_load" "$tmp/symbols" && echo "ok - the OSS-Fuzz ASan build is instrumented" \
            || echo "not ok - the OSS-Fuzz ASan build has no ASan calls"
    fi
}
check libfuzzer address
check libfuzzer undefined
check libfuzzer memory
command -v afl-clang-fast >/dev/null && check afl address
