#!/bin/bash
# relink_target.sh — a libFuzzer fuzzer of the last local build with one
# target's source replaced by another version of it (an older commit's, a
# sharpened copy), for the plateau experiments: nothing in the tree changes
# and nothing is rebuilt but that one file.
#
#   tests/relink_target.sh ROOT SOURCE FUZZER
#
# ROOT/SOURCE is the replacement, at the path the tree's version has
# (SOURCE, e.g. targets/ping/ping.c): it is compiled from ROOT, so the paths
# its properties carry read as the tree's and the report counts them as the
# target's own.  It is compiled as build.sh compiles targets for libFuzzer
# and linked, in place of the tree's version, with the objects of the build
# in HF_OUT (default out; build.sh's layout, OUT/obj, and a plain build, not
# a sanitizer's).  FUZZER is the output; it runs the target it is named
# after (NAME_fuzzer), as build.sh's fuzzers do.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: tests/relink_target.sh ROOT SOURCE FUZZER (see the header of this file)" >&2; exit 2; }
tree=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(cd "$tree" && cd "${HF_OUT:-out}" 2>/dev/null && pwd) || { echo "relink_target.sh: no build at ${HF_OUT:-out} (run ./build.sh first)" >&2; exit 2; }
root=$(cd "$1" && pwd) source=$2 fuzzer=$3
[ -f "$root/$source" ] || { echo "relink_target.sh: no $root/$source" >&2; exit 2; }
obj="$OUT/obj"
replaced="$obj/fuzz/$(echo "$source" | tr '/' '_').o"
for o in harness/fuzz_engine_harness.c.o harness-libfuzzer/fuzz_engine_feedback.c.o "${replaced#"$obj/"}"; do
    [ -f "$obj/$o" ] || { echo "relink_target.sh: no $obj/$o (run ./build.sh --out ${HF_OUT:-out})" >&2; exit 2; }
done
# The source lists are build.sh's own (--print-sources), so that this
# link cannot drift from the build's.
sources=$("$tree/build.sh" --print-sources)
list() { sed -n "s/^$1=//p" <<<"$sources"; }
# The level build.sh gives it: -O0 for a source whose accesses are
# preemption points (build.sh's ACCESS_POINT_SOURCES), else -O2.
level=-O2
case " $(list ACCESS_POINT) " in *" $source "*) level=-O0 ;; esac
includes=()
for d in $(list INCLUDE); do includes+=("-I$tree/$d"); done
new_obj=$(mktemp "${TMPDIR:-/tmp}/relink_target.XXXXXX.o")
trap 'rm -f "$new_obj"' EXIT
(cd "$root" && clang -std=c11 -Wall -Wextra -Werror -g $level -fno-omit-frame-pointer -fsanitize=fuzzer-no-link \
    -fsanitize-coverage=trace-loads,trace-stores "${includes[@]}" -c "$source" -o "$new_obj")
# build.sh's fuzzer link: harness, feedback, the command code, the runtime
# and every target, the one replaced; objects named as build.sh's compile()
# names them.
object() { echo "$obj/$1/$(echo "$2" | tr '/' '_').o"; }
link_objs=()
for src in $(list HARNESS); do link_objs+=("$(object harness "$src")"); done
link_objs+=("$obj/harness-libfuzzer/fuzz_engine_feedback.c.o")
for src in $(list TOOL); do link_objs+=("$(object plain "$src")"); done
for src in $(list RUNTIME); do link_objs+=("$(object fuzz "$src")"); done
for src in $(list TARGET); do
    [ "$src" = "$source" ] || link_objs+=("$(object fuzz "$src")")
done
for o in "${link_objs[@]}"; do
    [ -f "$o" ] || { echo "relink_target.sh: no $o (run ./build.sh --out ${HF_OUT:-out})" >&2; exit 2; }
done
clang -std=c11 -g -O2 -fno-omit-frame-pointer -fsanitize=fuzzer -o "$fuzzer" "${link_objs[@]}" "$new_obj" -lm
