#!/bin/bash
# test_docs.sh — the documentation a newcomer walks: the top README stays
# short and points at a README per folder, every relative link resolves,
# the README's tour runs as shown (from a directory of its own), and every
# `heisenfuzz COMMAND --option` shown in any README is an option that
# command's --help lists.  (The tutorial in targets/README.md needs an
# installed heisenfuzz: tests/test_install.sh runs it.)
set -uo pipefail
cd "$(dirname "$0")/.."
tree=$PWD
out=$(cd "${HF_OUT:-out}" && pwd)
# shellcheck source=tests/doc_blocks.sh
. tests/doc_blocks.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
readmes=(README.md schedule/README.md targets/README.md fuzz/README.md tests/README.md)
readmes+=(fuzz/*/README.md)

lines=$(wc -l <README.md)
if [ "$lines" -le 250 ]; then echo "ok - README.md is $lines lines (at most 250)"
else echo "not ok - README.md is $lines lines, more than 250"; fi

for f in "${readmes[@]:1}"; do
    folder=${f%/README.md}
    if head -1 "$f" | grep -q "^# $folder/ — "; then echo "ok - $f opens with what $folder/ is for"
    else echo "not ok - $f is missing or does not open with '# $folder/ — ...'"; fi
    if grep -q "($f)" README.md; then echo "ok - README.md links to $f"
    else echo "not ok - README.md does not link to $f"; fi
done

for f in "${readmes[@]}"; do
    dir=$(dirname "$f")
    bad=""
    for link in $(grep -o '](\([^)#:]*\))' "$f" | sed 's/^](//; s/)$//'); do
        [ -e "$dir/$link" ] || bad="$bad $link"
    done
    if [ -z "$bad" ]; then echo "ok - every relative link in $f resolves"
    else echo "not ok - $f links to what does not exist:$bad"; fi
done

# Options shown with a command, in any README's shell blocks, exist.
for f in "${readmes[@]}"; do
    unknown=""
    while IFS= read -r line; do
        command=${line%%#*}
        # shellcheck disable=SC2206
        words=($command)
        for ((i = 0; i < ${#words[@]}; i++)); do
            case ${words[i]} in */heisenfuzz|heisenfuzz) ;; *) continue ;; esac
            sub=${words[i+1]:-}
            [[ $sub =~ ^[a-z-]+$ ]] || continue
            help=$("$out/heisenfuzz" "$sub" --help 2>&1) || { unknown="$unknown $sub"; continue; }
            for ((j = i + 2; j < ${#words[@]}; j++)); do
                w=${words[j]}
                [ "$w" = "--" ] && break
                [[ $w =~ ^--[a-z-]+ ]] || continue
                opt=${BASH_REMATCH[0]}
                grep -q -- "$opt" <<<"$help" || unknown="$unknown $sub:$opt"
            done
        done
    done < <(awk '/^```sh/ { inside = 1; next } /^```/ { inside = 0 } inside' "$f")
    if [ -z "$unknown" ]; then echo "ok - every heisenfuzz command and option in $f's shell blocks is in its --help"
    else echo "not ok - $f shows what the commands' --help does not know:$unknown"; fi
done

# The tour, as a reader runs it from the repository: out/ is the build.
mkdir -p "$tmp/tour/tests/regress"
ln -s "$out" "$tmp/tour/out"
ln -s "$tree/dict" "$tmp/tour/dict"
cd "$tmp/tour" || exit 1
doc_run "$tree/README.md" tour "$tmp/tour.log"
if [ -s chart.svg ] && grep -q "<svg" chart.svg && grep -q "<table" report.html; then
    echo "ok - the tour leaves its chart and report"
else
    echo "not ok - the tour left no chart.svg or report.html"
fi
if ls tests/regress/counter_buggy_*.c >/dev/null 2>&1; then echo "ok - the tour's --emit-test wrote a regression test"
else echo "not ok - the tour's --emit-test wrote no regression test"; fi
