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
#   out/self/*_fuzzer          libFuzzer binaries of the runtime's own surfaces
#                              (fuzz/self/: decoder, log reader, chart, ...)
#   out/lib/                   what `heisenfuzz build-pthread` links a program with
#   out/tests/*                the test programs (run by tests/run.sh), among them
#                              test_regress_NAME for each tests/regress/NAME.c
#
#   ./build.sh [--deps] [--sanitizer address|undefined|memory] [--opt LEVEL] [--out DIR]
#              [--install PREFIX]
#
#   --deps        first install what is missing (Debian packages; needs root)
#   --sanitizer   build everything under a sanitizer
#   --opt         optimisation level, e.g. -O0 (default -O2)
#   --out         output directory (default out)
#   --install     also install into PREFIX: bin/heisenfuzz (and
#                 heisenfuzz-cc, heisenfuzz-c++: `heisenfuzz cc`), the static
#                 libraries, include/heisenfuzz/ and a pkg-config file per
#                 flavour (heisenfuzz, -replay, -libfuzzer, -afl)
#   --print-sources  print the source lists, NAME=files one a line (RUNTIME,
#                 TARGET, TOOL, HARNESS, ACCESS_POINT: the sources compiled
#                 at -O0, and INCLUDE: the header folders), and build nothing: for scripts
#                 that link a build's objects (tests/relink_target.sh)
#
# Under OSS-Fuzz ($OUT and $LIB_FUZZING_ENGINE set) it builds the fuzzers
# with the given $CC, $CFLAGS and $LIB_FUZZING_ENGINE into $OUT (the fixed
# targets and fuzz/self/); `./build.sh --install PREFIX` there installs
# the library a user's project builds its targets with (heisenfuzz-oss-fuzz).
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

regress_sources() { ls tests/regress/*.c 2>/dev/null || true; }

RUNTIME_SOURCES="$(ls schedule/*.c) schedule/fiber_switch.S"
# targets/pthread/ holds programs with a main, built by `heisenfuzz build-pthread`.
TARGET_SOURCES="$(ls targets/*/*.c | grep -v '^targets/pthread/')"
# fuzz/ by what links where, in layer order: a file includes headers of its
# own folder and of those before it, never after (fuzz/README.md, "Layout";
# tests/test_layout.sh checks it against this list).
FUZZ_FOLDERS="common discovery search minimize bench tool engine"
# The command code, shared by the heisenfuzz program, the tests and every
# fuzzer binary (which runs it when handed HEISENFUZZ_TOOL): every folder's
# sources but the mains and the engine glue (the harness, the per-engine
# feedback, the replayer, the AFL++ mutator library and the pthread driver).
# Built without coverage, so the engines see only the target and the runtime.
TOOL_SOURCES="$(for d in $FUZZ_FOLDERS; do ls fuzz/$d/*.c; done | grep -v -x -e fuzz/engine/harness.c \
    -e fuzz/engine/feedback.c -e fuzz/engine/standalone.c -e fuzz/tool/tool_main.c -e fuzz/engine/replayer.c \
    -e fuzz/engine/mutator_afl.c -e fuzz/engine/pthread_driver.c -e fuzz/engine/invocation.c)"
# What the program, the tests and the replayer link in place of an engine.
NO_ENGINE_SOURCES="fuzz/engine/standalone.c"
TOOL_MAIN_SOURCES="fuzz/tool/tool_main.c"
# A fuzzer is a target linked with the harness, one engine's feedback
# (fuzz/engine/feedback.c, built per engine), the command code and the runtime.
HARNESS_SOURCES="fuzz/engine/harness.c"
REPLAYER_SOURCES="fuzz/engine/replayer.c"
# The decision mutator as an AFL++ custom mutator library: it runs inside
# afl-fuzz, so it holds the runtime and the targets too.
AFL_MUTATOR_SOURCES="fuzz/engine/mutator_afl.c"
# Fuzzers of the runtime's own surfaces (OSS-Fuzz ships them): each is its
# own LLVMFuzzerTestOneInput, linked with the runtime and the command code.
SELF_FUZZER_SOURCES="$(ls fuzz/self/*_fuzzer.c 2>/dev/null || true)"
SELF_SUPPORT_SOURCES="fuzz/self/log_file.c"
# What `--install` puts in PREFIX/include/heisenfuzz: the target API, the
# run API its tests use, and the tests' CHECK (emitted regression tests).
PUBLIC_HEADERS="schedule/hf.h schedule/sim.h schedule/run.h schedule/decide.h schedule/trace.h fuzz/common/targets.h tests/check.h"
INCLUDES="-Ischedule $(for d in $FUZZ_FOLDERS; do printf -- " -Ifuzz/%s" "$d"; done)"
# Spin detection counts target memory accesses (schedule/spin.c); clang takes
# load/store tracing only beside a coverage kind.
TRACE_ACCESSES="-fsanitize-coverage=trace-loads,trace-stores"
# Debian's AFL++ 4.04c miscompiles some selects in its default PCGUARD mode
# (a boolean picks a guard from a table that has only one:
# metrics_race_buggy_afl crashed on the input 0b); its CLASSIC edge
# instrumentation does not.
AFL_CC="env AFL_QUIET=1 AFL_LLVM_INSTRUMENT=CLASSIC afl-clang-fast"

# pthread_lib OUT OBJDIR CFLAGS ENGINE_CC RUNTIME_OBJS FEEDBACK_OBJ TOOL_OBJS NAME:
# writes OUT/lib/libhf_pthread_NAME.a, the runtime and harness a pthread
# program is linked with by `heisenfuzz build-pthread`, and beside it the
# symbol list, linker script, header and compiler flags that command uses.
# Only what is built from the runtime and fuzz/ goes in (the command code
# too: a program's fuzzer runs --explore, --minimize and the tool); nothing
# of targets/.
PTHREAD_DRIVER_SOURCES="fuzz/engine/pthread_driver.c fuzz/engine/invocation.c"
pthread_lib() {
    local out=$1 objdir=$2 cflags=$3 engine_cc=$4 rt=$5 feedback=$6 tool=$7 name=$8
    local lib="$out/lib"
    mkdir -p "$lib/include/std" "$objdir/pthread-$name"
    local harness="$objdir/pthread-$name/harness.o" driver engine=-DHF_ENGINE_LIBFUZZER
    [ "$name" = afl ] && engine=-DHF_ENGINE_AFL
    # shellcheck disable=SC2086
    $engine_cc $cflags $INCLUDES $engine -c fuzz/engine/harness.c -o "$harness"
    driver=$(compile "$objdir/pthread-$name" "$cflags" $PTHREAD_DRIVER_SOURCES)
    rm -f "$lib/libhf_pthread_$name.a"
    # shellcheck disable=SC2086
    ar rcs "$lib/libhf_pthread_$name.a" $rt $feedback $tool $harness $driver
    cp schedule/pthread.syms schedule/pthread.ld "$lib/"
    cp schedule/pthread_atomics.h "$lib/include/"
    # What a program's regression test includes (build-pthread --test).
    mkdir -p "$lib/include/heisenfuzz"
    cp $PUBLIC_HEADERS "$lib/include/heisenfuzz/"
    cp schedule/pthread_stdatomic.h "$lib/include/std/stdatomic.h"
    # How the program is compiled: with the runtime's sanitizer, at -O0
    # (its accesses are its preemption points: see ACCESS_POINT_SOURCES),
    # with access tracing and emulated thread-locals.
    echo "$cflags -O0" | sed 's/-std=c11 -Wall -Wextra -Werror //' >"$lib/pthread.cflags"
}

# Code whose loads and stores are its preemption points (a target folder
# with a target declared .preempt_at_accesses, and pthread programs) is
# compiled at -O0 in every build: optimisation merges, hoists and drops
# accesses, and sanitizers change what the optimiser may do, so at the
# build's own level the same bytes would switch at other points in the -O0,
# -O2 and sanitizer builds.  At -O0 every access of the source is one.
ACCESS_POINT_SOURCES=" $(for d in $(grep -l 'preempt_at_accesses = true' targets/*/*.c | xargs -r -n1 dirname | sort -u); do
    ls "$d"/*.c; done | tr '\n' ' ') "

# Compiles run this many at a time (the machine's cores).
COMPILE_JOBS=$(nproc 2>/dev/null || echo 2)

# compile OBJDIR FLAGS -- SOURCES...: prints the object files, in the order
# of the sources; stops the build at the first file that does not compile.
compile() {
    local objdir=$1 flags=$2; shift 2
    mkdir -p "$objdir"
    local objs=() running=()
    for src in "$@"; do
        local obj="$objdir/$(echo "$src" | tr '/' '_').o"
        local level=""
        case $ACCESS_POINT_SOURCES in *" $src "*) level=-O0 ;; esac
        # shellcheck disable=SC2086
        $CC $flags $level $INCLUDES -c "$src" -o "$obj" &
        running+=($!)
        objs+=("$obj")
        if [ ${#running[@]} -ge "$COMPILE_JOBS" ]; then
            wait "${running[0]}" || exit 1
            running=("${running[@]:1}")
        fi
    done
    for pid in "${running[@]}"; do wait "$pid" || exit 1; done
    echo "${objs[@]}"
}

# The targets a built binary holds, one name a line: asked of the binary
# itself (`list`), since a target enters the registry by itself
# (HF_DEFINE_TARGET) and no file lists them.  Under HEISENFUZZ_TOOL when
# the binary is a fuzzer.
target_names() { HEISENFUZZ_TOOL=1 "$1" list | awk '{print $1}'; }

# archive LIB OBJECTS...: a static library, rebuilt from scratch.
archive() {
    local lib=$1; shift
    rm -f "$lib"
    # shellcheck disable=SC2068
    llvm-ar rcs "$lib" $@ 2>/dev/null || ar rcs "$lib" $@
}

# write_pc FILE NAME DESCRIPTION CFLAGS LIBS: a pkg-config file of PREFIX.
write_pc() {
    local file=$1 name=$2 description=$3 cflags=$4 libs=$5
    cat >"$file" <<PC
prefix=$INSTALL_PREFIX
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: $name
Description: $description
Version: 0.1
Cflags: -I\${includedir}/heisenfuzz $cflags
Libs: -L\${libdir} $libs
PC
}

# The local build's parts; each reads cflags, obj and out of local_build.
build_tool() {   # out/heisenfuzz: the program, with every in-tree target
    rt_plain=$(compile "$obj/plain" "$cflags" $RUNTIME_SOURCES)
    tg_plain=$(compile "$obj/plain" "$cflags -fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES" $TARGET_SOURCES)
    tool_objs=$(compile "$obj/plain" "$cflags" $TOOL_SOURCES)
    no_engine_objs=$(compile "$obj/plain" "$cflags" $NO_ENGINE_SOURCES)
    local main_objs
    main_objs=$(compile "$obj/plain" "$cflags" $TOOL_MAIN_SOURCES)
    # shellcheck disable=SC2086
    $CC $cflags -o "$out/heisenfuzz" $main_objs $rt_plain $tg_plain $tool_objs $no_engine_objs -lm
}

build_tests() {   # out/tests/*: the test programs and the kept regression tests
    # Test programs are built like targets, so that tasks they define are
    # watched for spinning too.
    for t in tests/test_*.c; do
        # shellcheck disable=SC2086
        $CC $cflags -fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES $INCLUDES -o "$out/tests/$(basename "$t" .c)" "$t" \
            $rt_plain $tg_plain $tool_objs $no_engine_objs -lm
    done
    # Regression tests written by `heisenfuzz minimize --emit-test`; none
    # left over from a test since removed.
    rm -f "$out"/tests/test_regress_*
    for t in $(regress_sources); do
        # shellcheck disable=SC2086
        $CC $cflags $INCLUDES -Itests -o "$out/tests/test_regress_$(basename "$t" .c)" "$t" \
            $rt_plain $tg_plain $tool_objs $no_engine_objs -lm
    done
}

build_libfuzzer_fuzzers() {   # out/NAME_fuzzer and out/NAME_bytes_fuzzer, one each per target
    local feedback rt tg harness bytes_harness
    feedback=$(compile "$obj/harness-libfuzzer" "$cflags -DHF_ENGINE_LIBFUZZER" fuzz/engine/feedback.c)
    harness=$(compile "$obj/harness" "$cflags -DHF_ENGINE_LIBFUZZER" $HARNESS_SOURCES)
    bytes_harness=$(compile "$obj/harness-bytes" "$cflags -DHF_ENGINE_LIBFUZZER -DHF_BYTE_MUTATOR_ONLY" $HARNESS_SOURCES)
    rt_fuzz=$(compile "$obj/fuzz" "$cflags -fsanitize=fuzzer-no-link" $RUNTIME_SOURCES)
    tg=$(compile "$obj/fuzz" "$cflags -fsanitize=fuzzer-no-link $TRACE_ACCESSES" $TARGET_SOURCES)
    libfuzzer_harness="$harness $feedback $tool_objs"
    # Every fuzzer holds every target and runs the one it is named after
    # (hf_target_for_program): one link, one copy per name.
    # shellcheck disable=SC2086
    $CC $cflags -fsanitize=fuzzer -o "$obj/all_fuzzer" $libfuzzer_harness $rt_fuzz $tg -lm
    # shellcheck disable=SC2086
    $CC $cflags -fsanitize=fuzzer -o "$obj/all_bytes_fuzzer" $bytes_harness $feedback $tool_objs $rt_fuzz $tg -lm
    for name in $(target_names "$out/heisenfuzz"); do
        cp "$obj/all_fuzzer" "$out/${name}_fuzzer"
        cp "$obj/all_bytes_fuzzer" "$out/${name}_bytes_fuzzer"
    done
    # The pthread runtime goes in without coverage: the engine is steered by
    # the program's code and the behaviour features, and a pthread call (a
    # hot path) does not pay for comparison callbacks in the scheduler.
    pthread_lib "$out" "$obj" "$cflags" "$CC" "$rt_plain" "$feedback" "$tool_objs" libfuzzer
}

# AFL++'s libFuzzer driver calls the same harness.  afl-cc drops the
# load/store tracing: AFL++'s own timeout guards against spinning tasks
# there.  The runtime goes in without coverage: AFL++ runs every new queue
# entry three more times to calibrate it, and the scheduler's loops, whose
# counts differ from schedule to schedule, made nearly every run a new
# entry (10 seeds: zk_newleader_ack 879 -> 632 executions, kafka_hw_truncation
# 389 -> 297); the target's code and the behaviour features still steer.
build_afl_fuzzers() {   # out/NAME_afl, one per target
    local feedback harness tg
    local CC=$AFL_CC
    feedback=$(compile "$obj/harness-afl" "$cflags -DHF_ENGINE_AFL" fuzz/engine/feedback.c)
    harness=$(compile "$obj/harness-afl" "$cflags -DHF_ENGINE_AFL" $HARNESS_SOURCES)
    tg=$(compile "$obj/afl" "$cflags" $TARGET_SOURCES)
    afl_harness="$harness $feedback $tool_objs"
    # shellcheck disable=SC2086
    $CC $cflags -fsanitize=fuzzer -o "$obj/all_afl" $afl_harness $rt_plain $tg -lm
    for name in $(target_names "$out/heisenfuzz"); do
        # Preempted at shared accesses: nothing to preempt without the tracing.
        case $name in *_nohint_*) continue ;; esac
        cp "$obj/all_afl" "$out/${name}_afl"
    done
    # build-pthread --afl compiles the program in AFL++'s LLVM-NATIVE mode,
    # which keeps the tracing, against this runtime.
    pthread_lib "$out" "$obj" "$cflags" "$CC" "$rt_plain" "$feedback" "$tool_objs" afl
}

# The mutator library runs inside afl-fuzz: position-independent, built like
# the tool (no engine; load/store tracing catches spinning tasks); each copy
# mutates for the target it is named after.  The same objects but the
# targets, with the program's arguments (invocation.c), make
# OUT/lib/libhf_pthread_mutator.a, which `build-pthread --afl` links a
# program's own library with.
build_afl_mutator() {   # out/NAME_afl_mutator.so, one per target
    local rt tg tool mutator invocation
    rt=$(compile "$obj/pic" "$cflags -fPIC" $RUNTIME_SOURCES)
    tg=$(compile "$obj/pic" "$cflags -fPIC -fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES" $TARGET_SOURCES)
    tool=$(compile "$obj/pic" "$cflags -fPIC" $TOOL_SOURCES $NO_ENGINE_SOURCES)
    mutator=$(compile "$obj/pic" "$cflags -fPIC" $AFL_MUTATOR_SOURCES)
    invocation=$(compile "$obj/pic" "$cflags -fPIC" fuzz/engine/invocation.c)
    rm -f "$out/lib/libhf_pthread_mutator.a"
    # shellcheck disable=SC2086
    ar rcs "$out/lib/libhf_pthread_mutator.a" $mutator $invocation $tool $rt
    # shellcheck disable=SC2086
    $CC $cflags -shared -o "$obj/all_afl_mutator.so" $mutator $invocation $tool $rt $tg -lm
    for name in $(target_names "$out/heisenfuzz"); do
        case $name in *_nohint_*) continue ;; esac
        cp "$obj/all_afl_mutator.so" "$out/${name}_afl_mutator.so"
    done
}

build_self_fuzzers() {   # out/self/NAME_fuzzer: the runtime's own surfaces, under libFuzzer
    mkdir -p "$out/self"
    local cov="$cflags -fsanitize=fuzzer-no-link" tool support
    # The command code too is instrumented here: it is what these fuzz.
    tool=$(compile "$obj/self" "$cov" $TOOL_SOURCES)
    support=$(compile "$obj/self" "$cov" $SELF_SUPPORT_SOURCES)
    for src in $SELF_FUZZER_SOURCES; do
        local o
        o=$(compile "$obj/self" "$cov" "$src")
        # shellcheck disable=SC2086
        $CC $cflags -fsanitize=fuzzer -o "$out/self/$(basename "$src" .c)" $o $support $tool $rt_fuzz -lm
    done
}

# --install PREFIX: the runtime as static libraries, the harness per engine,
# the headers, a pkg-config file per flavour and the tool (see README,
# "Your own targets").  Every archive is self-contained: a flavour's Libs
# name one of them and -lm.
install_tree() {
    local prefix=$INSTALL_PREFIX san_flags=$1
    mkdir -p "$prefix/bin" "$prefix/lib/pkgconfig" "$prefix/include/heisenfuzz"
    cp $PUBLIC_HEADERS "$prefix/include/heisenfuzz/"
    cp "$out/heisenfuzz" "$prefix/bin/heisenfuzz.tmp" && mv "$prefix/bin/heisenfuzz.tmp" "$prefix/bin/heisenfuzz"
    # One word for a build's CC and CXX (CC=heisenfuzz-cc): scripts, not
    # symlinks, since the tool picks its command from its arguments.
    local driver
    for driver in cc c++; do
        printf '#!/bin/sh\n# heisenfuzz-%s: `heisenfuzz %s`, for CC= and CXX=\nexec "$(dirname "$0")/heisenfuzz" %s "$@"\n' \
            "$driver" "$driver" "$driver" >"$prefix/bin/heisenfuzz-$driver.tmp"
        chmod +x "$prefix/bin/heisenfuzz-$driver.tmp" && mv "$prefix/bin/heisenfuzz-$driver.tmp" "$prefix/bin/heisenfuzz-$driver"
    done
    local replay_objs
    replay_objs=$(compile "$obj/replayer" "$cflags -DHF_ENGINE_NONE" fuzz/engine/feedback.c $HARNESS_SOURCES $REPLAYER_SOURCES)
    archive "$prefix/lib/libheisenfuzz.a" $rt_plain $tool_objs $no_engine_objs
    archive "$prefix/lib/libheisenfuzz-replay.a" $replay_objs $rt_plain $tool_objs $no_engine_objs
    archive "$prefix/lib/libheisenfuzz-libfuzzer.a" $libfuzzer_harness $rt_fuzz
    local guard="-fsanitize-coverage=trace-pc-guard $TRACE_ACCESSES"
    # AFL++'s driver refers to the entry point only weakly: without this
    # the linker would leave the harness in its archive.
    local entry="-Wl,--undefined=LLVMFuzzerTestOneInput"
    write_pc "$prefix/lib/pkgconfig/heisenfuzz.pc" heisenfuzz \
        "the heisenfuzz runtime and registry, for regression tests and own mains" "$guard $san_flags" "-lheisenfuzz $san_flags -lm"
    write_pc "$prefix/lib/pkgconfig/heisenfuzz-replay.pc" heisenfuzz-replay \
        "a target as a replayer of input files (no engine)" "$guard $san_flags" "-lheisenfuzz-replay $san_flags -lm"
    write_pc "$prefix/lib/pkgconfig/heisenfuzz-libfuzzer.pc" heisenfuzz-libfuzzer \
        "a target as a libFuzzer fuzzer" "-fsanitize=fuzzer-no-link $TRACE_ACCESSES $san_flags" \
        "$entry -lheisenfuzz-libfuzzer -fsanitize=fuzzer $san_flags -lm"
    if [ -n "${afl_harness:-}" ]; then
        archive "$prefix/lib/libheisenfuzz-afl.a" $afl_harness $rt_plain
        write_pc "$prefix/lib/pkgconfig/heisenfuzz-afl.pc" heisenfuzz-afl \
            "a target as an AFL++ fuzzer (compile with afl-clang-fast)" "" "$entry -lheisenfuzz-afl -fsanitize=fuzzer -lm"
    fi
    echo "build.sh: installed into $prefix (pkg-config: heisenfuzz, heisenfuzz-replay, heisenfuzz-libfuzzer${afl_harness:+, heisenfuzz-afl})" >&2
}

local_build() {
    local out=out opt=-O2 sanitizer="" deps=0
    INSTALL_PREFIX=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --deps) deps=1 ;;
            --sanitizer) [ $# -ge 2 ] || die "--sanitizer needs a value"; sanitizer=$2; shift ;;
            --opt) [ $# -ge 2 ] || die "--opt needs a value"; opt=$2; shift ;;
            --out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift ;;
            --install) [ $# -ge 2 ] || die "--install needs a prefix"; INSTALL_PREFIX=$2; shift ;;
            --print-sources)
                # shellcheck disable=SC2086
                printf '%s=%s\n' RUNTIME "$(echo $RUNTIME_SOURCES)" TARGET "$(echo $TARGET_SOURCES)" \
                    TOOL "$(echo $TOOL_SOURCES)" HARNESS "$HARNESS_SOURCES" ACCESS_POINT "$(echo $ACCESS_POINT_SOURCES)" \
                    INCLUDE "$(echo $INCLUDES | sed 's/-I//g')"
                exit 0 ;;
            -h|--help) sed -n '2,/^set -euo/{/^set/d;p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) die "unknown option '$1' (see ./build.sh --help)" ;;
        esac
        shift
    done
    [ $deps -eq 1 ] && install_deps
    command -v clang >/dev/null || die "clang not found (run ./build.sh --deps as root)"
    [ -f /usr/include/xxhash.h ] || die "xxhash.h not found (run ./build.sh --deps as root)"
    if [ -n "$INSTALL_PREFIX" ]; then
        mkdir -p "$INSTALL_PREFIX" || die "cannot create the prefix $INSTALL_PREFIX"
        INSTALL_PREFIX=$(cd "$INSTALL_PREFIX" && pwd)
    fi

    local san=""
    case "$sanitizer" in
        "") ;;
        address) san="-fsanitize=address -fsanitize-address-use-after-scope" ;;
        undefined) san="-fsanitize=undefined -fno-sanitize-recover=all" ;;
        memory) san="-fsanitize=memory -fsanitize-memory-track-origins" ;;
        *) die "unknown sanitizer '$sanitizer' (address, undefined or memory)" ;;
    esac
    CC=clang
    cflags="-std=c11 -Wall -Wextra -Werror -g $opt -fno-omit-frame-pointer $san"
    obj="$out/obj"
    rm -rf "$obj"
    mkdir -p "$out/tests"
    # Filled by the build_* functions, read by the later ones.
    rt_plain="" tg_plain="" tool_objs="" no_engine_objs="" rt_fuzz="" libfuzzer_harness="" afl_harness=""

    build_tool
    build_tests
    build_libfuzzer_fuzzers
    build_self_fuzzers
    if [ -z "$sanitizer" ] && command -v afl-clang-fast >/dev/null; then
        build_afl_fuzzers
        build_afl_mutator
    fi
    [ -n "$INSTALL_PREFIX" ] && install_tree "$san"
    echo "build.sh: built $out/heisenfuzz, $(target_names "$out/heisenfuzz" | wc -l) fuzzers and $(( $(ls tests/test_*.c | wc -l) + $(regress_sources | wc -l) )) test programs${sanitizer:+ (sanitizer: $sanitizer)}" >&2
}

# OSS-Fuzz's contract: $CC/$CFLAGS compile, $CXX/$CXXFLAGS/$LIB_FUZZING_ENGINE
# link, and $OUT receives extension-less fuzzers with their seed corpus,
# dictionary and options.  It ships the fixed targets (a *_buggy target's
# bug is planted: a demo, not a finding) and the fuzzers of the runtime's
# own surfaces (SELF_FUZZER_SOURCES).
# OSS-Fuzz's engine as feedback.c's, and the load/store tracing that
# catches spinning tasks where it can be had: beside libFuzzer's coverage
# (not in the coverage build, which has none; AFL++'s compiler drops it).
oss_fuzz_flags() {
    : "${CC:?}" "${CXX:?}" "${CFLAGS:=}" "${CXXFLAGS:=}" "${FUZZING_ENGINE:=libfuzzer}"
    engine=-DHF_ENGINE_LIBFUZZER trace=""
    if [ "$FUZZING_ENGINE" = afl ]; then engine=-DHF_ENGINE_AFL; fi
    if [ "$FUZZING_ENGINE" = libfuzzer ] && [[ "$CFLAGS" == *fuzzer-no-link* ]]; then trace=$TRACE_ACCESSES; fi
}

oss_fuzz_build() {
    : "${OUT:?}"
    local engine trace
    oss_fuzz_flags
    local cflags="-std=c11 $CFLAGS $trace"
    local obj="${WORK:-/tmp}/heisenfuzz-obj"
    rm -rf "$obj"
    local rt tg tool harness
    rt=$(compile "$obj/runtime" "-std=c11 $CFLAGS" $RUNTIME_SOURCES)
    tg=$(compile "$obj/targets" "$cflags" $TARGET_SOURCES)
    tool=$(compile "$obj/tool" "-std=c11 $CFLAGS" $TOOL_SOURCES)
    harness=$(compile "$obj/harness" "-std=c11 $CFLAGS $engine" fuzz/engine/feedback.c $HARNESS_SOURCES)
    # One link; each copy runs the target it is named after.
    # shellcheck disable=SC2086
    $CXX $CXXFLAGS -o "$obj/all_fuzzer" $harness $tool $rt $tg $LIB_FUZZING_ENGINE -lm
    local names
    names=$(LLVM_PROFILE_FILE=/dev/null target_names "$obj/all_fuzzer")
    [ -n "$names" ] || die "the fuzzer lists no target"
    for name in $names; do
        case $name in *_buggy) continue ;; esac
        cp "$obj/all_fuzzer" "$OUT/${name}_fuzzer"
        local dir; dir=$(target_dir "$name")
        [ -n "$dir" ] && ship_extras "${name}_fuzzer" "$dir/seeds" "dict/$name.dict"
    done
    local support
    support=$(compile "$obj/self" "-std=c11 $CFLAGS" $SELF_SUPPORT_SOURCES)
    for src in $SELF_FUZZER_SOURCES; do
        local name o
        name=$(basename "$src" .c)
        o=$(compile "$obj/self" "$cflags" "$src")
        # shellcheck disable=SC2086
        $CXX $CXXFLAGS -o "$OUT/$name" $o $support $tool $rt $LIB_FUZZING_ENGINE -lm
        ship_extras "$name" "fuzz/self/seeds/$name" "fuzz/self/$name.dict"
    done
}

# --install PREFIX under OSS-Fuzz's variables: what a user's project needs
# to build its own targets in OSS-Fuzz (fuzz/oss-fuzz-user/): the runtime,
# harness and command code compiled with $CC and $CFLAGS in one archive and
# the flavour heisenfuzz-oss-fuzz, whose Libs leave the engine to
# $LIB_FUZZING_ENGINE.  No tool: the fuzzers carry its commands.
oss_fuzz_install() {
    local engine trace
    oss_fuzz_flags
    mkdir -p "$INSTALL_PREFIX/lib/pkgconfig" "$INSTALL_PREFIX/include/heisenfuzz"
    INSTALL_PREFIX=$(cd "$INSTALL_PREFIX" && pwd)
    local obj="${WORK:-/tmp}/heisenfuzz-install-obj"
    rm -rf "$obj"
    local objs
    objs=$(compile "$obj" "-std=c11 $CFLAGS $engine" $RUNTIME_SOURCES $TOOL_SOURCES fuzz/engine/feedback.c $HARNESS_SOURCES)
    cp $PUBLIC_HEADERS "$INSTALL_PREFIX/include/heisenfuzz/"
    archive "$INSTALL_PREFIX/lib/libheisenfuzz-oss-fuzz.a" $objs
    write_pc "$INSTALL_PREFIX/lib/pkgconfig/heisenfuzz-oss-fuzz.pc" heisenfuzz-oss-fuzz \
        "a target as an OSS-Fuzz fuzzer (link with \$LIB_FUZZING_ENGINE)" "$trace" \
        "-Wl,--undefined=LLVMFuzzerTestOneInput -lheisenfuzz-oss-fuzz -lm"
    echo "build.sh: installed into $INSTALL_PREFIX for OSS-Fuzz ($FUZZING_ENGINE; pkg-config: heisenfuzz-oss-fuzz)" >&2
}

# ship_extras FUZZER SEED_DIR DICT: the seed corpus and dictionary beside a
# fuzzer in $OUT, where the tree has them.
ship_extras() {
    local fuzzer=$1 seeds=$2 dict=$3
    if [ -d "$seeds" ] && command -v zip >/dev/null; then
        rm -f "$OUT/${fuzzer}_seed_corpus.zip"
        zip -q -j "$OUT/${fuzzer}_seed_corpus.zip" "$seeds"/*
    fi
    if [ -f "$dict" ]; then
        cp "$dict" "$OUT/$fuzzer.dict"
        printf '[libfuzzer]\ndict = %s.dict\n' "$fuzzer" >"$OUT/$fuzzer.options"
    fi
}

# The targets/ folder of a target name: the one whose source defines it.
target_dir() {
    local file
    file=$(grep -l -e "\.name = \"$1\"" -e "HF_DEFINE_TARGET_PAIR(${1%_buggy}," targets/*/*.c 2>/dev/null | head -1)
    [ -n "$file" ] && dirname "$file"
}

if [ -n "${OUT:-}" ] && [ -n "${LIB_FUZZING_ENGINE:-}" ]; then
    if [ "${1:-}" = --install ]; then
        [ $# -eq 2 ] || die "under OSS-Fuzz's variables: ./build.sh [--install PREFIX]"
        INSTALL_PREFIX=$2
        oss_fuzz_install
    else
        [ $# -eq 0 ] || die "under OSS-Fuzz's variables build.sh takes no options but --install PREFIX"
        oss_fuzz_build
    fi
else
    local_build "$@"
fi
