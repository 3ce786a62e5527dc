#!/bin/bash
# build.sh — the one build entry.
#
# Locally (no OSS-Fuzz variables set) it builds with clang into out/:
#   out/heisenfuzz             the command-line tool (all targets linked in)
#   out/<target>_fuzzer        one libFuzzer binary per target: the full search
#                              (generator records, the decision mutator, behaviour features)
#   out/<target>_bytes_fuzzer  the same with libFuzzer's byte mutator alone (the control)
#   out/<target>_afl           one AFL++ binary per target (when afl++ is installed), and
#   out/<target>_afl_mutator.so  its decision mutator (AFL_CUSTOM_MUTATOR_LIBRARY)
#   out/lib/                   what `heisenfuzz build-pthread` links a program with
#   out/tests/*                the test programs (run by tests/run.sh), among them
#                              test_regress_NAME for each tests/regress/NAME.c
#
#   ./build.sh [--deps] [--sanitizer address|undefined|memory] [--opt LEVEL] [--out DIR]
#
#   --deps        first install what is missing (Debian packages; needs root)
#   --sanitizer   build everything under a sanitizer
#   --opt         optimisation level, e.g. -O0 (default -O2)
#   --out         output directory (default out)
#
# Under OSS-Fuzz ($OUT and $LIB_FUZZING_ENGINE set) it builds the fuzzers
# with the given $CC, $CFLAGS and $LIB_FUZZING_ENGINE into $OUT.
set -euo pipefail
shopt -s inherit_errexit   # a failed compile inside $(...) stops the build
cd "$(dirname "$0")"

# chromium renders charts in the tests; python3 decodes the screenshots.
DEBIAN_PACKAGES="clang libclang-rt-14-dev llvm libxxhash-dev afl++ zip chromium python3"

die() { echo "build.sh: $*" >&2; exit 2; }

install_deps() {
    local missing=()
    for p in $DEBIAN_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})"
    echo "build.sh: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The targets' symbols, from the one list in fuzz/targets.h.
target_symbols() { grep -o 'X([a-z0-9_]*_target)' fuzz/targets.h | sed 's/X(\(.*\))/\1/'; }

regress_sources() { ls tests/regress/*.c 2>/dev/null || true; }

RUNTIME_SOURCES="$(ls schedule/*.c) schedule/fiber_switch.S"
# targets/pthread/ holds programs with a main, built by `heisenfuzz build-pthread`.
TARGET_SOURCES="$(ls targets/*/*.c | grep -v '^targets/pthread/')"
# Everything in fuzz/ but what only a fuzzer binary has (the harness and its
# engine feedback); tests link it all but main().
TOOL_SOURCES="$(ls fuzz/*.c | grep -v -e '^fuzz/harness\.c$' -e '^fuzz/feedback\.c$' -e '^fuzz/mutator_afl\.c$' \
    -e '^fuzz/pthread_driver\.c$')"
# What a fuzzer binary links beside the runtime, its target and harness.c:
# the engine feedback (one build per engine), the discovery log and the
# decision mutator.  Built without coverage, so the engines see only the
# target and the runtime.
DISCOVERY_SOURCES="fuzz/discovery.c fuzz/species.c fuzz/estimate.c fuzz/status.c fuzz/mutate.c fuzz/strategy.c"
# The AFL++ mutator library: the mutator, and what it runs a target with.
AFL_MUTATOR_SOURCES="fuzz/mutate.c fuzz/strategy.c fuzz/files.c fuzz/standalone.c"
INCLUDES="-Ischedule -Ifuzz"
# Spin detection counts target memory accesses (schedule/spin.c); clang takes
# load/store tracing only beside a coverage kind.
TRACE_ACCESSES="-fsanitize-coverage=trace-loads,trace-stores"

# pthread_lib OUT OBJDIR CFLAGS ENGINE_CC RUNTIME_OBJS FEEDBACK_OBJ DISCOVERY_OBJS NAME:
# writes OUT/lib/libhf_pthread_NAME.a, the runtime and harness a pthread
# program is linked with by `heisenfuzz build-pthread`, and beside it the
# symbol list, linker script, header and compiler flags that command uses.
# Only what is built from the runtime and fuzz/ goes in; nothing of targets/.
# strategy.c comes with the discovery objects.
PTHREAD_DRIVER_SOURCES="fuzz/pthread_driver.c fuzz/tool.c fuzz/files.c fuzz/minimize.c fuzz/explore.c"
pthread_lib() {
    local out=$1 objdir=$2 cflags=$3 engine_cc=$4 rt=$5 feedback=$6 discovery=$7 name=$8
    local lib="$out/lib"
    mkdir -p "$lib/include/std" "$objdir/pthread-$name"
    local harness="$objdir/pthread-$name/harness.o" driver engine=-DHF_ENGINE_LIBFUZZER
    [ "$name" = afl ] && engine=-DHF_ENGINE_AFL
    # shellcheck disable=SC2086
    $engine_cc $cflags $INCLUDES $engine -DHF_TARGET=hf_pthread_program_target -c fuzz/harness.c -o "$harness"
    driver=$(compile "$objdir/pthread-$name" "$cflags" $PTHREAD_DRIVER_SOURCES)
    rm -f "$lib/libhf_pthread_$name.a"
    # shellcheck disable=SC2086
    ar rcs "$lib/libhf_pthread_$name.a" $rt $feedback $discovery $harness $driver
    cp schedule/pthread.syms schedule/pthread.ld "$lib/"
    cp schedule/pthread_atomics.h "$lib/include/"
    cp schedule/pthread_stdatomic.h "$lib/include/std/stdatomic.h"
    # How the program is compiled: as the runtime was (optimisation,
    # sanitizer), with access tracing and emulated thread-locals.
    echo "$cflags" | sed 's/-std=c11 -Wall -Wextra -Werror //' >"$lib/pthread.cflags"
}

# compile OBJDIR FLAGS -- SOURCES...: prints the object files.
compile() {
    local objdir=$1 flags=$2; shift 2
    mkdir -p "$objdir"
    local objs=()
    for src in "$@"; do
        local obj="$objdir/$(echo "$src" | tr '/' '_').o"
        # shellcheck disable=SC2086
        $CC $flags $INCLUDES -c "$src" -o "$obj"
        objs+=("$obj")
    done
    echo "${objs[@]}"
}

local_build() {
    local out=out opt=-O2 sanitizer="" deps=0
    while [ $# -gt 0 ]; do
        case "$1" in
            --deps) deps=1 ;;
            --sanitizer) [ $# -ge 2 ] || die "--sanitizer needs a value"; sanitizer=$2; shift ;;
            --opt) [ $# -ge 2 ] || die "--opt needs a value"; opt=$2; shift ;;
            --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift ;;
            -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) die "unknown option '$1' (see ./build.sh --help)" ;;
        esac
        shift
    done
    [ $deps -eq 1 ] && install_deps
    command -v clang >/dev/null || die "clang not found (run ./build.sh --deps as root)"
    [ -f /usr/include/xxhash.h ] || die "xxhash.h not found (run ./build.sh --deps as root)"

    local san=""
    case "$sanitizer" in
        "") ;;
        address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
        undefined) san="-fsanitize=undefined -fno-sanitize-recover=all" ;;
        memory) san="-fsanitize=memory -fsanitize-memory-track-origins" ;;
        *) die "unknown sanitizer '$sanitizer' (address, undefined or memory)" ;;
    esac
    CC=clang
    local cflags="-std=c11 -Wall -Wextra -Werror -g $opt -fno-omit-frame-pointer $san"
    local obj="$out/obj"
    rm -rf "$obj"
    mkdir -p "$out/tests"

    # The tool and the tests: no engine; coverage collected by nobody.
    local rt_plain tg_plain tool_objs
    rt_plain=$(compile "$obj/plain" "$cflags" $RUNTIME_SOURCES)
    tg_plain=$(compile "$obj/plain" "$cflags -fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES" $TARGET_SOURCES)
    tool_objs=$(compile "$obj/plain" "$cflags" $TOOL_SOURCES)
    # shellcheck disable=SC2086
    $CC $cflags -o "$out/heisenfuzz" $rt_plain $tg_plain $tool_objs -lm
    local tool_lib=${tool_objs//$obj\/plain\/fuzz_heisenfuzz.c.o/}
    # Test programs are built like targets, so that tasks they define are
    # watched for spinning too.
    for t in tests/test_*.c; do
        # shellcheck disable=SC2086
        $CC $cflags -fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES $INCLUDES -o "$out/tests/$(basename "$t" .c)" "$t" $rt_plain $tg_plain $tool_lib -lm
    done
    # Regression tests written by `heisenfuzz minimize --emit-test`; none
    # left over from a test since removed.
    rm -f "$out"/tests/test_regress_*
    for t in $(regress_sources); do
        # shellcheck disable=SC2086
        $CC $cflags $INCLUDES -Itests -o "$out/tests/test_regress_$(basename "$t" .c)" "$t" \
            $rt_plain $tg_plain $tool_lib -lm
    done

    # One libFuzzer binary per target.
    local rt_fuzz tg_fuzz discovery_objs feedback_lf
    discovery_objs=$(compile "$obj/harness" "$cflags" $DISCOVERY_SOURCES)
    feedback_lf=$(compile "$obj/harness-libfuzzer" "$cflags -DHF_ENGINE_LIBFUZZER" fuzz/feedback.c)
    rt_fuzz=$(compile "$obj/fuzz" "$cflags -fsanitize=fuzzer-no-link" $RUNTIME_SOURCES)
    tg_fuzz=$(compile "$obj/fuzz" "$cflags -fsanitize=fuzzer-no-link $TRACE_ACCESSES" $TARGET_SOURCES)
    for sym in $(target_symbols); do
        local name=${sym%_target}
        # shellcheck disable=SC2086
        $CC $cflags -fsanitize=fuzzer $INCLUDES -DHF_ENGINE_LIBFUZZER -DHF_TARGET="$sym" -o "$out/${name}_fuzzer" \
            fuzz/harness.c $feedback_lf $discovery_objs $rt_fuzz $tg_fuzz -lm
        # shellcheck disable=SC2086
        $CC $cflags -fsanitize=fuzzer $INCLUDES -DHF_ENGINE_LIBFUZZER -DHF_BYTE_MUTATOR_ONLY -DHF_TARGET="$sym" \
            -o "$out/${name}_bytes_fuzzer" fuzz/harness.c $feedback_lf $discovery_objs $rt_fuzz $tg_fuzz -lm
    done

    # The pthread runtime goes in without coverage: the engine is steered by
    # the program's code and the behaviour features, and a pthread call (a
    # hot path) does not pay for comparison callbacks in the scheduler.
    pthread_lib "$out" "$obj" "$cflags" "$CC" "$rt_plain" "$feedback_lf" "$discovery_objs" libfuzzer

    # One AFL++ binary per target (its libFuzzer driver calls the same
    # harness).  afl-cc drops the load/store tracing: AFL++'s own timeout
    # guards against spinning tasks there.
    if [ -z "$sanitizer" ] && command -v afl-clang-fast >/dev/null; then
        local rt_afl tg_afl feedback_afl
        feedback_afl=$(compile "$obj/harness-afl" "$cflags -DHF_ENGINE_AFL" fuzz/feedback.c)
        # Debian's AFL++ 4.04c miscompiles some selects in its default
        # PCGUARD mode (a boolean picks a guard from a table that has only
        # one: metrics_race_buggy_afl crashed on the input 0b); its CLASSIC
        # edge instrumentation does not.
        CC="env AFL_QUIET=1 AFL_LLVM_INSTRUMENT=CLASSIC afl-clang-fast"
        rt_afl=$(compile "$obj/afl" "$cflags" $RUNTIME_SOURCES)
        tg_afl=$(compile "$obj/afl" "$cflags" $TARGET_SOURCES)
        for sym in $(target_symbols); do
            # Preempted at shared accesses: nothing to preempt without the tracing.
            case $sym in *_nohint_*) continue ;; esac
            # shellcheck disable=SC2086
            $CC $cflags -fsanitize=fuzzer $INCLUDES -DHF_ENGINE_AFL -DHF_TARGET="$sym" -o "$out/${sym%_target}_afl" \
                fuzz/harness.c $feedback_afl $discovery_objs $rt_afl $tg_afl -lm
        done
        # build-pthread --afl compiles the program in AFL++'s LLVM-NATIVE
        # mode, which keeps the tracing, against this runtime.
        pthread_lib "$out" "$obj" "$cflags" "$CC" "$rt_plain" "$feedback_afl" "$discovery_objs" afl
        CC=clang
        # The mutator runs inside afl-fuzz: position-independent, and built
        # like the tool (no engine; load/store tracing catches spinning tasks).
        local rt_pic tg_pic mutator_pic
        rt_pic=$(compile "$obj/pic" "$cflags -fPIC" $RUNTIME_SOURCES)
        tg_pic=$(compile "$obj/pic" "$cflags -fPIC -fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES" $TARGET_SOURCES)
        mutator_pic=$(compile "$obj/pic" "$cflags -fPIC" $AFL_MUTATOR_SOURCES)
        for sym in $(target_symbols); do
            # shellcheck disable=SC2086
            $CC $cflags -fPIC -shared $INCLUDES -DHF_TARGET="$sym" -o "$out/${sym%_target}_afl_mutator.so" \
                fuzz/mutator_afl.c $mutator_pic $rt_pic $tg_pic -lm
        done
    fi
    echo "build.sh: built $out/heisenfuzz, $(target_symbols | wc -l) fuzzers and $(( $(ls tests/test_*.c | wc -l) + $(regress_sources | wc -l) )) test programs${sanitizer:+ (sanitizer: $sanitizer)}" >&2
}

# OSS-Fuzz's contract: $CC/$CFLAGS compile, $CXX/$CXXFLAGS/$LIB_FUZZING_ENGINE
# link, and $OUT receives extension-less fuzzers with their seed corpus,
# dictionary and options.
oss_fuzz_build() {
    : "${CC:?}" "${CXX:?}" "${CFLAGS:=}" "${CXXFLAGS:=}" "${OUT:?}" "${FUZZING_ENGINE:=libfuzzer}"
    local engine=-DHF_ENGINE_LIBFUZZER cflags="-std=c11 $CFLAGS"
    [ "$FUZZING_ENGINE" = afl ] && engine=-DHF_ENGINE_AFL
    # libFuzzer builds get the load/store tracing that catches spinning
    # tasks; AFL++'s compiler drops it anyway.
    [ "$FUZZING_ENGINE" = libfuzzer ] && cflags="$cflags $TRACE_ACCESSES"
    local obj="${WORK:-/tmp}/heisenfuzz-obj"
    rm -rf "$obj"
    local rt tg
    rt=$(compile "$obj" "-std=c11 $CFLAGS" $RUNTIME_SOURCES)
    tg=$(compile "$obj" "$cflags" $TARGET_SOURCES)
    local harness
    harness=$(compile "$obj/harness" "-std=c11 $CFLAGS $engine" fuzz/feedback.c $DISCOVERY_SOURCES)
    for sym in $(target_symbols); do
        local name=${sym%_target}
        local h="$obj/harness/$name.o"
        # shellcheck disable=SC2086
        $CC -std=c11 $CFLAGS $INCLUDES $engine -DHF_TARGET="$sym" -c fuzz/harness.c -o "$h"
        # shellcheck disable=SC2086
        $CXX $CXXFLAGS -o "$OUT/${name}_fuzzer" "$h" $harness $rt $tg $LIB_FUZZING_ENGINE -lm
        local dir; dir=$(target_dir "$name")
        if [ -n "$dir" ] && [ -d "$dir/seeds" ] && command -v zip >/dev/null; then
            rm -f "$OUT/${name}_fuzzer_seed_corpus.zip"
            zip -q -j "$OUT/${name}_fuzzer_seed_corpus.zip" "$dir"/seeds/*
        fi
        local dict="dict/${name%_buggy}.dict"
        if [ -f "$dict" ]; then
            cp "$dict" "$OUT/${name}_fuzzer.dict"
            printf '[libfuzzer]\ndict = %s_fuzzer.dict\n' "$name" >"$OUT/${name}_fuzzer.options"
        fi
    done
}

# The targets/ folder of a target name: the one whose source defines it.
target_dir() {
    local file
    file=$(grep -l "\.name = \"$1\"" targets/*/*.c 2>/dev/null | head -1)
    [ -n "$file" ] && dirname "$file"
}

if [ -n "${OUT:-}" ] && [ -n "${LIB_FUZZING_ENGINE:-}" ]; then
    oss_fuzz_build
else
    local_build "$@"
fi
