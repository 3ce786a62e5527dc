#!/bin/bash
# test_chart.sh — the discovery log and `heisenfuzz chart` end to end: a real
# libFuzzer campaign of counter (the fixed variant) logs its discoveries,
# the chart is drawn, rendered by headless Chromium and checked not blank;
# parallel processes (libFuzzer -jobs, AFL++ main and secondary) merge; a
# plateau and a crash are marked; a corrupt or cut log is an error naming
# file and line, or with --skip-bad a chart of the good lines.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${HF_OUT:-out}
HF="$OUT/heisenfuzz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {   # CONDITION-STATUS MESSAGE
    if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

render() {   # SVG PNG: a screenshot of the SVG as a browser shows it
    local profile
    profile=$(mktemp -d)
    timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --screenshot="$2" --window-size=1000,700 "file://$1" >/dev/null 2>&1
    rm -rf "$profile"
    [ -s "$2" ]
}

value() { awk -v k="$1" '$1 == k {print $2}' "$2"; }   # KEY FILE: from png_check.py's output

# ---- A real campaign ----------------------------------------------------------
mkdir -p "$tmp/corpus"
HEISENFUZZ_LOG="$tmp/campaign.log" "$OUT/counter_fuzzer" -runs=20000 -seed=1 "$tmp/corpus" \
    >"$tmp/fuzz.out" 2>&1
check $? "counter_fuzzer -runs=20000 -seed=1 with HEISENFUZZ_LOG runs to the end"
done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/fuzz.out")
last_execs=$(awk '$1 == "stats" {n = $4} END {print n}' "$tmp/campaign.log")
[ -n "$done_runs" ] && [ "$last_execs" = "$done_runs" ]
check $? "the log's last line, written at exit, counts every run libFuzzer did ($last_execs of $done_runs)"
grep -q "^#[0-9]*	bhv: " "$tmp/fuzz.out"
check $? "the fuzzer prints status lines beside libFuzzer's"
[ "$(tail -c 1 "$tmp/campaign.log" | od -An -c | tr -d ' ')" = '\n' ]
check $? "the log ends with a whole line"

"$HF" chart "$tmp/campaign.log" -o "$tmp/chart.svg" >"$tmp/chart.out" 2>&1
check $? "heisenfuzz chart draws it"
grep -q "<svg" "$tmp/chart.svg" && grep -q "Behaviour discovery: counter (libFuzzer, 1 process)" "$tmp/chart.svg"
check $? "an SVG whose title names target and engine"
grep -q "^#20000	bhv: " "$tmp/chart.out" && grep -q "^plateau: " "$tmp/chart.out"
check $? "chart prints the campaign's status line and its plateau verdict"

if ! command -v chromium >/dev/null; then
    echo "not ok - chromium is not installed (./build.sh --deps)"
else
    render "$tmp/chart.svg" "$tmp/chart.png"
    check $? "headless Chromium renders the chart to PNG"
    python3 tests/png_check.py "$tmp/chart.png" behaviours=1f5fbf goodturing=e07b00 >"$tmp/png.txt"
    colours=$(value colours "$tmp/png.txt")
    ink=$(value non_white_percent "$tmp/png.txt")
    [ "${colours:-0}" -ge 8 ] && awk -v p="${ink:-0}" 'BEGIN {exit !(p > 2 && p < 60)}'
    check $? "the PNG is not blank: $colours colours, ${ink}% of pixels inked"
    [ "$(value behaviours "$tmp/png.txt")" -ge 300 ] && [ "$(value goodturing "$tmp/png.txt")" -ge 300 ]
    check $? "the behaviours curve and the Good-Turing curve are drawn (their colours cover $(value behaviours "$tmp/png.txt") and $(value goodturing "$tmp/png.txt") pixels)"
fi

# ---- A short campaign: Good-Turing above 1 ------------------------------------------
# The first lines of a campaign expect more than one new behaviour a run
# (f1/n up to 30, as kafka_idempotent_buggy's first 27 executions), then
# none for two lines (f1 = 0).  The line keeps inside the plot, on its own
# axis: it neither runs along the top edge nor lies on the bottom one.
python3 - "$tmp/short.log" <<'PY'
import sys
lines = ["start 00000000000a 1700000000.000 11 demo libFuzzer"]
f1s = [30, 0, 0, 5, 20, 28, 23, 25, 25, 26, 27, 29, 30, 31, 33, 33, 34, 35, 34, 33, 35, 34, 33, 33, 34, 33, 33]
for n, f1 in enumerate(f1s, 1):
    s = 30 + 4 * n
    lines.append("stats 00000000000a %.3f %d %d.%09d %d %d 0 %.6e %.3f 0" % (
        0.005 * n, n, 2 * n, 200000000 * n % 10**9, s, f1, f1 / n, s + f1 * (f1 - 1) / 2.0))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$HF" chart "$tmp/short.log" -o "$tmp/short.svg" >/dev/null 2>&1
check $? "chart draws a short campaign whose Good-Turing starts above 1"
if command -v chromium >/dev/null && render "$tmp/short.svg" "$tmp/short.png"; then
    # The plot spans x 90-910, y 86-490 (chart.c); the right axis's labels
    # and the legend are orange too, outside it.
    python3 tests/png_check.py "$tmp/short.png" all=e07b00@92,60,908,520 top=e07b00@92,60,908,87 \
        bottom=e07b00@92,489,908,520 >"$tmp/short.txt"
    [ "$(value all "$tmp/short.txt")" -ge 300 ] && [ "$(value top "$tmp/short.txt")" -le 4 ] &&
        [ "$(value bottom "$tmp/short.txt")" -le 4 ]
    check $? "its Good-Turing line is drawn inside the plot: $(value all "$tmp/short.txt") orange pixels, $(value top "$tmp/short.txt") on or above the top edge, $(value bottom "$tmp/short.txt") on or below the bottom one"
fi

# ---- A crash is logged before the abort -------------------------------------------------
mkdir -p "$tmp/buggy"
HEISENFUZZ_LOG="$tmp/buggy.log" "$OUT/counter_buggy_fuzzer" -seed=1 -runs=200000 \
    -artifact_prefix="$tmp/buggy/" "$tmp/buggy" >"$tmp/buggy.out" 2>&1
status=$?
last=$(tail -n 1 "$tmp/buggy.log")
[ $status -ne 0 ] && [ "$(echo "$last" | awk '$1 == "stats" {print $11}')" = 1 ]
check $? "counter_buggy aborts on its bug, and the log's last line, written first, counts the crash"
"$HF" chart "$tmp/buggy.log" -o "$tmp/buggy.svg" >/dev/null 2>&1 && grep -q 'class="crash"' "$tmp/buggy.svg"
check $? "the chart marks it"

# ---- Parallel processes merge ------------------------------------------------------
mkdir -p "$tmp/jobs/corpus"
(cd "$tmp/jobs" && HEISENFUZZ_LOG="$tmp/jobs.log" "$OLDPWD/$OUT/counter_fuzzer" -jobs=2 -workers=2 \
    -runs=3000 -seed=1 corpus >/dev/null 2>&1)
"$HF" chart "$tmp/jobs.log" -o "$tmp/jobs.svg" >"$tmp/jobs.out" 2>&1
grep -q "(libFuzzer, 2 processes)" "$tmp/jobs.out"
check $? "libFuzzer -jobs=2 appending to one log: chart merges 2 processes"
total=$(awk '$1 == "stats" {n[$2] = $4} END {for (p in n) s += n[p]; print s}' "$tmp/jobs.log")
grep -q "^#$total	" "$tmp/jobs.out"
check $? "their executions add up ($total)"

if command -v afl-fuzz >/dev/null && [ -x "$OUT/counter_afl" ]; then
    mkdir -p "$tmp/afl/in" && printf '\001\002' >"$tmp/afl/in/seed"
    # afl-fuzz refuses sanitizer options it did not choose; this binary has
    # no sanitizer.
    for role in "-M main" "-S second"; do
        # shellcheck disable=SC2086
        env -u ASAN_OPTIONS -u UBSAN_OPTIONS -u MSAN_OPTIONS AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
            AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 HEISENFUZZ_LOG="$tmp/afl-${role#-? }.log" \
            timeout 180 afl-fuzz $role -i "$tmp/afl/in" -o "$tmp/afl/out" -E 3000 -- "$OUT/counter_afl" \
            >"$tmp/afl-${role#-? }.out" 2>&1 &
    done
    wait
    "$HF" chart "$tmp/afl-main.log" "$tmp/afl-second.log" -o "$tmp/afl.svg" >"$tmp/afl.out" 2>&1
    grep -q "(AFL++, 2 instances)" "$tmp/afl.out"
    check $? "AFL++ main and secondary, one log each: chart merges them as 2 instances$(
        grep -q "(AFL++, 2 instances)" "$tmp/afl.out" || echo " ($(head -n 1 "$tmp/afl.out"); main: $(grep -a -m 1 -i "error\|fatal\|abort" "$tmp/afl-main.out"); second: $(grep -a -m 1 -i "error\|fatal\|abort" "$tmp/afl-second.out"); log lines: $(cat "$tmp"/afl-*.log 2>/dev/null | wc -l))")"
fi

# ---- A plateau and a crash -------------------------------------------------------------
# Two processes with a synthetic history: discoveries stop at 10 logical
# hours of 120 (the rule wants the effort to grow tenfold after the last
# one), every behaviour is seen again, one run fails.
python3 - "$tmp/plateau.log" <<'PY'
import sys
def chao1(s, f1, f2):
    return s + f1 * f1 / (2.0 * f2) if f2 else s + f1 * (f1 - 1) / 2.0
lines = ["start 00000000000a 1700000000.000 11 demo libFuzzer",
         "start 00000000000b 1700000005.500 12 demo libFuzzer"]
for k, pid in enumerate(["00000000000a", "00000000000b"]):
    counts, n, crashes = {}, 0, 0
    for step in range(1, 61):
        for i in range(1000):
            n += 1
            sig = (n * 7919) % (40 + step) if step < 5 else (n * 7919) % 69
            sig += 1000 * k if sig % 5 == 0 else 0
            counts[sig] = counts.get(sig, 0) + 1
            if counts[sig] <= 3:
                lines.append("seen %s %016x %d" % (pid, sig, counts[sig]))
        crashes += k == 1 and step == 20
        s = len(counts)
        f1 = sum(v == 1 for v in counts.values())
        f2 = sum(v == 2 for v in counts.values())
        ns = n * 3600 * 1000000
        lines.append("stats %s %.3f %d %d.%09d %d %d %d %.6e %.3f %d" % (
            pid, step * 10.0, n, ns // 10**9, ns % 10**9, s, f1, f2, f1 / n, chao1(s, f1, f2), crashes))
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$HF" chart "$tmp/plateau.log" -o "$tmp/plateau.svg" >"$tmp/plateau.out" 2>&1
grep -q "^plateau: no new behaviour since 10.00 h logical, 55.5 s wall, execution 10000$" "$tmp/plateau.out"
check $? "a campaign quiet after 10 of 120 logical hours: chart names 10.00 h, 55.5 s wall"
grep -q 'class="plateau"' "$tmp/plateau.svg" && grep -q 'class="crash"' "$tmp/plateau.svg" &&
    grep -q "Plateau: nothing new since 10.00 h logical" "$tmp/plateau.svg"
check $? "the SVG marks the plateau and the crash"
if command -v chromium >/dev/null && render "$tmp/plateau.svg" "$tmp/plateau.png"; then
    python3 tests/png_check.py "$tmp/plateau.png" plateau=2e8b3e crash=d0021b >"$tmp/png2.txt"
    [ "$(value plateau "$tmp/png2.txt")" -ge 300 ] && [ "$(value crash "$tmp/png2.txt")" -ge 20 ]
    check $? "and Chromium draws both ($(value plateau "$tmp/png2.txt") plateau-green, $(value crash "$tmp/png2.txt") crash-red pixels)"
fi

"$HF" chart --x wall "$tmp/plateau.log" -o "$tmp/wall.svg" >/dev/null 2>&1 &&
    grep -q "wall-clock time since the first process began" "$tmp/wall.svg" &&
    "$HF" chart --x executions "$tmp/plateau.log" -o "$tmp/execs.svg" >/dev/null 2>&1 &&
    grep -q ">executions (all processes)<" "$tmp/execs.svg"
check $? "--x wall and --x executions put those clocks on the x axis"

# ---- Bad logs ------------------------------------------------------------------------
awk 'NR == 10 {$3 = "zz"} {print}' "$tmp/campaign.log" >"$tmp/corrupt.log"
echo "an older chart" >"$tmp/kept.svg"
"$HF" chart "$tmp/corrupt.log" -o "$tmp/kept.svg" >/dev/null 2>"$tmp/err.txt"
status=$?
[ $status -eq 2 ] && [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "corrupt.log:10 (byte [0-9]*): " "$tmp/err.txt"
check $? "a corrupt line: exit 2 and one line naming file, line and byte ($(cat "$tmp/err.txt"))"
[ "$(cat "$tmp/kept.svg")" = "an older chart" ]
check $? "and the existing output file is left as it was"

head -c -4 "$tmp/campaign.log" >"$tmp/cut.log"
lines=$(wc -l <"$tmp/campaign.log")
"$HF" chart "$tmp/cut.log" -o "$tmp/cut.svg" >/dev/null 2>"$tmp/err.txt"
status=$?
[ $status -eq 2 ] && grep -q "cut.log:$lines (byte [0-9]*): line cut short" "$tmp/err.txt" && [ ! -e "$tmp/cut.svg" ]
check $? "a cut last line: exit 2 naming line $lines, no chart written"

"$HF" chart --skip-bad "$tmp/corrupt.log" -o "$tmp/skip.svg" >"$tmp/skip.out" 2>"$tmp/err.txt"
status=$?
[ $status -eq 0 ] && grep -q "skipped 1 bad line; the first: .*corrupt.log:10 " "$tmp/err.txt" &&
    grep -q "1 bad log line skipped" "$tmp/skip.svg"
check $? "--skip-bad: a chart of the good lines, the skipped one named"

"$HF" chart -o "$tmp/none.svg" >/dev/null 2>&1
[ $? -eq 2 ]
check $? "chart without a log is a usage error (exit 2)"
