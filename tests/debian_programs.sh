#!/bin/bash
# debian_programs.sh — real multi-threaded programs from Debian, fuzzed as
# they are: their source from the archive (apt-get source), built from
# their own build system with `heisenfuzz cc` / `heisenfuzz c++`, then a
# campaign that compresses and one that decompresses a small file with two
# threads, one that compresses into a file whose writes and syncs may fail
# (file faults), and one that does so on a machine that may crash (and
# start the program again on what was synced) (a benchmark of real code,
# not a test: not part of tests/run.sh).
#
#   tests/debian_programs.sh [--seconds N] [--seed S] [--work DIR] [--campaigns LIST] [PROGRAM...]
#
#   PROGRAM      pbzip2 (C++), zstd (C, -T2), xz (C, -T2), pigz (C);
#                default: all four
#   --seconds N  each campaign's length (default 300)
#   --seed S     libFuzzer's seed (default 1)
#   --work DIR   where the sources, builds and campaigns go (default
#                /tmp/heisenfuzz-debian); kept afterwards
#   --campaigns LIST  which to run, of compress,decompress,faults,crashes
#                (default: all)
#
# Needs root once: it adds a deb-src entry for the archive the machine's
# debian.sources names (saying so) and installs a build dependency
# (libbz2-dev) and the reference tools (bzip2, zstd, xz-utils).  A program
# whose source the registry does not serve, or that does not build, is
# reported as skipped, with the reason, and the script goes on.
#
# The property of a run: exit status 0, no deadlock, no sanitizer report,
# no assertion (the layer's own, and the program's).  Each campaign is
# `heisenfuzz fuzz`, whose progress line gives the executions, their rate,
# the behaviours seen (bhv), Chao1's estimate of those there are (chao1),
# and the singletons and doubletons behind it (f1, f2).  After it, up to 50
# of its corpus's schedules are replayed with the program's stdout in a
# file (HEISENFUZZ_PROGRAM_OUTPUT=FILE), which the reference tool must
# turn back into the input: "the output decompresses to the input", for
# schedules the campaign found different.  Under file faults the program
# writes its output file, the replays write it out
# (HEISENFUZZ_PROGRAM_FILES), and a run that exited 0 must have written
# the input's compressed form; one that exited non-zero after a fault
# refused the failed file, which is counted, not checked.  Under crashes,
# every run must end with the compressed form written, whatever crash it
# met: the program started again on what survived must finish the job.
# Prints one line per campaign.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
hf="$repo/out/heisenfuzz"
seconds=300 seed=1 work=/tmp/heisenfuzz-debian campaigns=compress,decompress,faults,crashes programs=()
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --campaigns) campaigns=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "debian_programs.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) programs+=("$1"); shift ;;
    esac
done
[ ${#programs[@]} -gt 0 ] || programs=(pbzip2 zstd xz pigz)
[ -x "$hf" ] || { echo "debian_programs.sh: no $hf (run ./build.sh)" >&2; exit 2; }
mkdir -p "$work"

say() { echo "debian_programs.sh: $*" >&2; }
wanted() { [[ ",$campaigns," == *",$1,"* ]]; }

# ---- the archive's sources ----------------------------------------------------

if ! grep -rqs -e '^deb-src ' -e '^Types:.*deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    main=/etc/apt/sources.list.d/debian.sources
    if [ "$(id -u)" -eq 0 ] && [ -f "$main" ]; then
        say "adding deb-src for the archive $main names: /etc/apt/sources.list.d/heisenfuzz-deb-src.sources"
        sed 's/^Types: deb$/Types: deb-src/' "$main" >/etc/apt/sources.list.d/heisenfuzz-deb-src.sources
    else
        say "no deb-src entry, and cannot add one (needs root and $main): apt-get source may fail"
    fi
fi
if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || say "apt-get update failed: the registry may be unreachable"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libbz2-dev bzip2 zstd xz-utils \
        >/dev/null 2>&1 || say "could not install libbz2-dev bzip2 zstd xz-utils"
fi

# The input: the runtime's own sources, the same bytes on every machine
# with this checkout.
input_of() {   # input_of BYTES FILE
    cat "$repo"/schedule/*.c "$repo"/schedule/*.h | head -c "$1" >"$2"
}

# fetch PACKAGE: the unpacked source's directory on stdout, or nothing.
fetch() {
    local dir="$work/src-$1"
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir.tmp" && rm -rf "$dir.tmp"/*
        if ! (cd "$dir.tmp" && apt-get source -qq "$1" >fetch.log 2>&1); then
            # The registry may lack the newest version (a security update's
            # source) and still serve an older one.
            local why version fetched=
            why=$(grep -m1 -e '^E:' "$dir.tmp/fetch.log")
            for version in $(apt-cache showsrc "$1" 2>/dev/null | sed -n 's/^Version: //p' | sort -ruV); do
                rm -rf "$dir.tmp"/* && (cd "$dir.tmp" && apt-get source -qq "$1=$version" >fetch.log 2>&1) &&
                    { fetched=$version; break; }
            done
            if [ -z "$fetched" ]; then
                say "$1: skipped: apt-get source $1 failed: $why"
                return
            fi
            say "$1: the newest source failed ($why); took version $fetched"
        fi
        mv "$dir.tmp" "$dir"
    fi
    find "$dir" -mindepth 1 -maxdepth 1 -type d | head -1
}

# ---- one program --------------------------------------------------------------

# build NAME: NAME's fuzzer at $work/NAME/NAME_fuzzer, or a line why not.
build() {
    local name=$1 src log="$work/$1/build.log"
    mkdir -p "$work/$name"
    case $name in
    pbzip2) src=$(fetch pbzip2) ;;
    zstd) src=$(fetch libzstd) ;;
    xz) src=$(fetch xz-utils) ;;
    pigz) src=$(fetch pigz) ;;
    *) say "$name: no such program here (pbzip2, zstd, xz, pigz)"; return 1 ;;
    esac
    [ -n "$src" ] || return 1
    local made
    (
        cd "$src" || exit 1
        case $name in
        # clang reads "%"PRIuMAX" as a C++11 literal suffix (g++ warns).
        pbzip2) make clean && make CXX="$hf c++ -Wno-reserved-user-defined-literal" ;;
        zstd) make -C programs clean && make -C programs zstd CC="$hf cc" ;;
        xz) ./configure CC="$hf cc" --disable-shared --disable-nls --disable-doc --disable-scripts --disable-xzdec \
                --disable-lzmadec --disable-lzmainfo --disable-lzma-links && make clean && make ;;
        pigz) make clean && make CC="$hf cc" ;;
        esac
    ) >"$log" 2>&1 || { say "$name: skipped: its build failed ($log): $(grep -m1 -e 'error' "$log")"; return 1; }
    case $name in
    pbzip2) made="$src/pbzip2" ;; zstd) made="$src/programs/zstd" ;; xz) made="$src/src/xz/xz" ;; pigz) made="$src/pigz" ;;
    esac
    cp "$made" "$work/$name/${name}_fuzzer"
}

# The two campaigns' arguments and the reference tool that checks them.
compress_args() {
    case $1 in
    pbzip2) echo "-p2 -b1 -c -k input" ;;   # 100 kB blocks: four of them
    zstd) echo "-T2 -1 -c input" ;;
    # A 64 KiB block of LZMA at -O0 is over the layer's 10,000,000 steps.
    xz) echo "-T2 -0 --block-size=16KiB -c -k input" ;;
    pigz) echo "-p 2 -b 128 -c -k input" ;;
    esac
}
# Compressing into a file (input.EXT), for the campaign under file faults.
to_file_args() {
    case $1 in
    pbzip2) echo "-p2 -b1 -k -f input" ;;
    zstd) echo "-T2 -1 -f input -o input.zst" ;;
    xz) echo "-T2 -0 --block-size=16KiB -k -f input" ;;
    pigz) echo "-p 2 -b 128 -k -f input" ;;
    esac
}
# The input's size: four blocks (xz's runs are the slowest: 8 million
# steps for 64 KiB).
input_size() { case $1 in xz) echo 65536 ;; *) echo 350000 ;; esac; }
reference() { case $1 in pbzip2) echo "bzip2 -dc" ;; zstd) echo "zstd -dc" ;; xz) echo "xz -dc" ;; pigz) echo "gzip -dc" ;; esac; }
suffix() { case $1 in pbzip2) echo bz2 ;; zstd) echo zst ;; xz) echo xz ;; pigz) echo gz ;; esac; }

# campaign NAME KIND ARGS EXPECTED: a `heisenfuzz fuzz` of ARGS, then the
# round trip of its corpus (the program's stdout must be EXPECTED after the
# reference tool, or EXPECTED itself for KIND decompress).
# fuzz_in DIR NAME ARGS: NAME's fuzzer and inputs copied into DIR (made
# anew), and `heisenfuzz fuzz` of ARGS there (in the caller's environment);
# sets status, last (its last progress line) and found (its verdict).
fuzz_in() {
    local dir=$1 name=$2 args=$3
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$work/$name/${name}_fuzzer" "$work/$name/input"* "$dir/"
    (cd "$dir" && HEISENFUZZ_ARGS="$args" timeout $((seconds + 300)) "$hf" fuzz --seed "$seed" --max-time "$seconds" \
        "./${name}_fuzzer" >fuzz.out 2>&1)
    status=$?
    last=$(grep -a '^heisenfuzz: \[' "$dir/fuzz.out" | tail -1 | sed 's/^heisenfuzz: //')
    found=$(grep -a -m1 -e 'verdict: fail' -e 'no failure found' "$dir/fuzz.out")
}

campaign() {
    local name=$1 kind=$2 args=$3 expected=$4 dir="$work/$1/$2" status last found
    fuzz_in "$dir" "$name" "$args"
    local checked=0 wrong=0 out="$dir/out" inputs
    inputs=$(ls "$dir/hf-work/${name}"/* 2>/dev/null | head -50)
    for f in $inputs; do
        (cd "$dir" && HEISENFUZZ_ARGS="$args" HEISENFUZZ_PROGRAM_OUTPUT="$out" "./${name}_fuzzer" --replay "$f" >/dev/null 2>&1)
        checked=$((checked + 1))
        if [ "$kind" = compress ]; then $(reference "$name") <"$out" 2>/dev/null | cmp -s - "$expected" || wrong=$((wrong + 1))
        else cmp -s "$out" "$expected" || wrong=$((wrong + 1)); fi
    done
    echo "$name $kind ($args): status $status; ${found:-no verdict}; last progress: ${last:-none}; round trip: $wrong wrong of $checked corpus schedules"
}

# faults_campaign NAME ARGS KIND: `heisenfuzz fuzz` of ARGS with file
# faults (KIND faults) or machine crashes (KIND crashes), then the corpus's
# schedules replayed with the run's files written out: those whose run
# exited 0 must hold input.EXT, which the reference tool turns back into
# the input.
faults_campaign() {
    local name=$1 args=$2 kind=$3 dir="$work/$1/$3" ext status last found
    # The option, in the environment of every command below.
    case $kind in
    faults) local -x HEISENFUZZ_FILE_FAULTS=1 ;;
    crashes) local -x HEISENFUZZ_CRASHES=1 ;;
    esac
    ext=$(suffix "$name")
    fuzz_in "$dir" "$name" "$args"
    local checked=0 wrong=0 refused=0 failed=0 crashed=0 f timeline
    mkdir -p "$dir/kept"
    for f in $(ls "$dir/hf-work/${name}"/* 2>/dev/null | head -50); do
        timeline=$(cd "$dir" && HEISENFUZZ_ARGS="$args" HEISENFUZZ_PROGRAM_FILES=kept \
            "./${name}_fuzzer" --replay "$f" 2>/dev/null)
        checked=$((checked + 1))
        [[ "$timeline" == *"machine crash in"* ]] && crashed=$((crashed + 1))
        if [[ "$timeline" == *"verdict: fail"* ]]; then failed=$((failed + 1))
        elif [[ "$timeline" == *"after a file fault"* ]]; then refused=$((refused + 1))
        else $(reference "$name") <"$dir/kept/input.$ext" 2>/dev/null | cmp -s - "$dir/input" || wrong=$((wrong + 1)); fi
    done
    echo "$name $kind ($args, --${kind/faults/file-faults}): status $status; ${found:-no verdict}; last progress: ${last:-none}; of $checked corpus schedules ($crashed with a machine crash): $failed failed, $refused exited non-zero after a file fault, $wrong of the rest wrote a wrong input.$ext"
}

for name in "${programs[@]}"; do
    say "$name: fetching and building"
    build "$name" || continue
    input_of "$(input_size "$name")" "$work/$name/input"
    # The calm run's output is the decompressing campaign's input (and the
    # first round trip).
    ext=$(suffix "$name")
    (cd "$work/$name" && HEISENFUZZ_ARGS="$(compress_args "$name")" HEISENFUZZ_PROGRAM_OUTPUT="$work/$name/input.$ext" \
        "./${name}_fuzzer" --replay /dev/null >calm.out 2>&1)
    if ! $(reference "$name") <"$work/$name/input.$ext" 2>/dev/null | cmp -s - "$work/$name/input"; then
        say "$name: the calm run does not compress: $(grep -a '^verdict:' "$work/$name/calm.out")"
        continue
    fi
    if wanted compress; then
        say "$name: compressing for $seconds s"
        campaign "$name" compress "$(compress_args "$name")" "$work/$name/input"
    fi
    if wanted decompress; then
        say "$name: decompressing for $seconds s"
        decompress=$(compress_args "$name" | sed "s/-c/-d -c/; s/ input\$/ input.$ext/")
        campaign "$name" decompress "$decompress" "$work/$name/input"
    fi
    if wanted faults; then
        say "$name: compressing into a file under file faults for $seconds s"
        faults_campaign "$name" "$(to_file_args "$name")" faults
    fi
    if wanted crashes; then
        say "$name: compressing into a file on a machine that may crash for $seconds s"
        faults_campaign "$name" "$(to_file_args "$name")" crashes
    fi
done
