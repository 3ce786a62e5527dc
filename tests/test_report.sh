#!/bin/bash
# test_report.sh — `heisenfuzz report` on real, short, seeded libFuzzer
# campaigns: the page is rendered by headless Chromium and checked for what a
# person would see (the chart drawn, one table row per property of the
# target, a never-held sometimes marked, the crash with the file that
# replays it); a pthread program's log is titled with the program's name and
# says in one line that no fault kind is allowed; an older log without facts lines reads with its counts shown
# as unknown; a corrupt log is the chart's file:line error, exit 2, and no
# output (an existing file is left as it was).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${HF_OUT:-out}
HF="$OUT/heisenfuzz"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
umask 022

check() {   # CONDITION-STATUS MESSAGE
    if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

chromium_run() {   # FLAG... URL: headless Chromium with a throwaway profile
    local profile
    profile=$(mktemp -d)
    timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" "$@" 2>/dev/null
    local status=$?
    rm -rf "$profile"
    return $status
}

value() { awk -v k="$1" '$1 == k {print $2}' "$2"; }   # KEY FILE: from png_check.py's output

# ---- A campaign on a world target, short enough to leave things unexercised ---
# cluster: 300 runs of the seeded search over inputs of at most 4 bytes (a
# few decisions each: a narrow workload), a few seconds.  What it leaves
# unexercised is found by the report, not chosen here.
mkdir -p "$tmp/corpus"
HEISENFUZZ_LOG="$tmp/cluster.log" "$OUT/cluster_fuzzer" -seed=1 -runs=300 -max_len=4 "$tmp/corpus" \
    >"$tmp/fuzz.txt" 2>&1
check $? "a 300-run seeded libFuzzer campaign on cluster (inputs up to 4 bytes) with HEISENFUZZ_LOG"

"$HF" report "$tmp/cluster.log" -o "$tmp/cluster.html" >"$tmp/report.txt" 2>&1
status=$?
check $status "report writes the page ($(head -1 "$tmp/report.txt"))"
[ "$(stat -c %a "$tmp/cluster.html")" = 644 ]
check $? "the page gets 0666 less the umask (umask 022: $(stat -c %a "$tmp/cluster.html"))"
! grep -qiE '<script|<link|<img|<iframe|src=|url\((["'"'"']?)http' "$tmp/cluster.html" &&
    [ -z "$(grep -o 'https\?://[^"]*' "$tmp/cluster.html" | grep -v -x 'http://www.w3.org/2000/svg')" ]
check $? "the page is self-contained: no script, no link, nothing fetched"

# The properties of the target, counted from what the fuzzer declared (the
# log's property lines of files under targets/cluster/) and from the source.
declared=$(awk '$1 == "property" && $5 ~ /^targets\/cluster\// {n++} END {print n + 0}' "$tmp/cluster.log")
in_source=$(grep -hoE '\bhf_(always|always_or_unreachable|sometimes|reachable|unreachable|eventually)\(' \
    targets/cluster/*.c | wc -l)
[ "$declared" -gt 0 ] && [ "$declared" -eq "$in_source" ]
check $? "cluster has $declared properties in the log's catalogue, as many as its source uses ($in_source)"

if ! command -v chromium >/dev/null; then
    echo "ok - # SKIP chromium is not installed: the rendered page is not checked"
else
    chromium_run --dump-dom "file://$tmp/cluster.html" >"$tmp/dom.html"
    python3 - "$tmp/dom.html" >"$tmp/rows.txt" <<'EOF'
# The rendered DOM's property rows, one per line: class, then the cells.
import html.parser, sys
class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.rows = []; self.row = None; self.cell = None
    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "tr" and cls.split()[:1] in (["prop"], ["fault"]): self.row = [cls]
        elif tag == "td" and self.row is not None: self.cell = ""
    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None: self.row.append(self.cell.strip()); self.cell = None
        elif tag == "tr" and self.row is not None: self.rows.append(self.row); self.row = None
    def handle_data(self, data):
        if self.cell is not None: self.cell += data
p = Rows(); p.feed(open(sys.argv[1]).read())
for r in p.rows: print("\t".join(r))
EOF
    rows=$(grep -c "^prop " "$tmp/rows.txt")
    [ "$rows" -eq "$declared" ]
    check $? "the rendered property table has one row per property of the target ($rows rows, $declared properties)"

    # Every sometimes/reachable the log says never held (no held line with a
    # count above 0) is a row marked "never held", and only those.
    awk '$1 == "property" && ($4 == "sometimes" || $4 == "reachable") {kind[$3] = $4; where[$3] = $5}
         $1 == "held" && $5 > 0 {held[$3] = 1}
         END {for (i in kind) if (!held[i] && where[i] ~ /^targets\/cluster\//) print where[i]}' \
        "$tmp/cluster.log" | sort >"$tmp/never.log.txt"
    awk -F'\t' '$1 ~ /never-held/ {print $5}' "$tmp/rows.txt" | sort >"$tmp/never.page.txt"
    [ -s "$tmp/never.log.txt" ] && cmp -s "$tmp/never.log.txt" "$tmp/never.page.txt" &&
        awk -F'\t' '$1 ~ /never-held/ && ($3 != "sometimes" && $3 != "reachable" || $2 !~ /never held/) {bad = 1}
                    END {exit bad}' "$tmp/rows.txt"
    check $? "the sometimes/reachable never held are the rows marked never held ($(tr '\n' ' ' <"$tmp/never.page.txt"))"
    first=$(grep "^prop " "$tmp/rows.txt" | head -1 | cut -f1)
    [[ "$first" == *never-* ]]
    check $? "and what never happened stands first (first row: $first)"
    awk -F'\t' '$1 ~ /^fault / && $1 ~ /never-injected|not-allowed/ && $2 !~ /never injected/ {bad = 1}
                $1 ~ /^fault / {n++} END {exit bad || n != 19}' "$tmp/rows.txt"
    check $? "the fault table has the 19 kinds, those never injected marked"

    chromium_run --screenshot="$tmp/cluster.png" --window-size=1150,1800 "file://$tmp/cluster.html" >/dev/null
    if [ -s "$tmp/cluster.png" ]; then
        python3 tests/png_check.py "$tmp/cluster.png" curve=1f5fbf marked=fff1c2 >"$tmp/png.txt"
        [ "$(value curve "$tmp/png.txt")" -ge 300 ] && [ "$(value marked "$tmp/png.txt")" -ge 10000 ]
        check $? "Chromium draws the chart's curve ($(value curve "$tmp/png.txt") curve-blue pixels) and the marked rows ($(value marked "$tmp/png.txt") highlight pixels)"
    else
        check 1 "Chromium screenshots the page"
    fi
fi

# ---- A pthread program: no simulated world, so no fault kind to list ----------
# lost_update.c's fuzzer, 300 seeded runs (artifacts, should one fail, in $tmp).
mkdir -p "$tmp/program-corpus"
if "$HF" build-pthread targets/pthread/lost_update.c -o "$tmp/lost_update_fuzzer" >/dev/null 2>&1; then
    HEISENFUZZ_LOG="$tmp/program.log" "$tmp/lost_update_fuzzer" -seed=1 -runs=300 -artifact_prefix="$tmp/" \
        "$tmp/program-corpus" >/dev/null 2>&1
    "$HF" report "$tmp/program.log" -o "$tmp/program.html" >/dev/null 2>&1
    check $? "a 300-run campaign of a pthread program's fuzzer reports"
    # Named after the program (its fuzzer's name less _fuzzer), not the
    # layer's one target, pthread_program.
    grep -q '<title>heisenfuzz report: lost_update</title>' "$tmp/program.html" &&
        grep -q 'class="title">Behaviour discovery: lost_update (' "$tmp/program.html" &&
        ! grep -q pthread_program "$tmp/program.html"
    check $? "its page and chart are titled lost_update ($(grep -o '<title>[^<]*' "$tmp/program.html"))"
    if command -v chromium >/dev/null; then
        chromium_run --dump-dom "file://$tmp/program.html" >"$tmp/program-dom.html"
        fault_rows=$(grep -c '<tr class="fault' "$tmp/program-dom.html")
        said=$(grep -c 'no simulated world: the target allows no fault kind' "$tmp/program-dom.html")
        [ "$fault_rows" -eq 0 ] && [ "$said" -eq 1 ] && grep -q '<svg' "$tmp/program-dom.html" &&
            grep -q 'No simulated world: the target allows no fault kind' "$tmp/program-dom.html"
        check $? "its rendered page (chart drawn) says once that no fault kind is allowed and lists no kind ($fault_rows fault rows)"
    else
        echo "ok - # SKIP chromium is not installed: the pthread program's page is not rendered"
    fi
else
    check 1 "build-pthread builds targets/pthread/lost_update.c"
fi

# ---- A crash, and the file that replays it ------------------------------------------
mkdir -p "$tmp/crash" "$tmp/corpus2"
HEISENFUZZ_LOG="$tmp/crash.log" "$OUT/counter_buggy_fuzzer" -seed=1 -runs=20000 \
    -artifact_prefix="$tmp/crash/" "$tmp/corpus2" >/dev/null 2>&1
"$HF" report "$tmp/crash.log" -o "$tmp/crash.html" >/dev/null 2>&1
artifact=$(ls "$tmp/crash/"crash-* 2>/dev/null | head -1)
[ -n "$artifact" ] && grep -q "<code>$artifact</code>" "$tmp/crash.html" &&
    grep -q 'the final count equals the number of increments' <(grep 'class="crash"' "$tmp/crash.html")
check $? "a crash is listed with its failing property and the file libFuzzer wrote ($(basename "${artifact:-none}"))"
"$HF" replay -q counter_buggy "$artifact" >/dev/null 2>&1
[ $? -eq 1 ]
check $? "and that file replays the failure"

# ---- An older log: no facts lines, no categories ---------------------------------
awk '$1 == "seen" {print $1, $2, $3, $4; next}
     $1 == "facts" || $1 == "property" || $1 == "held" || $1 == "fault" || $1 == "crash" {next} {print}' \
    "$tmp/cluster.log" >"$tmp/old.log"
"$HF" chart "$tmp/old.log" -o "$tmp/old.svg" >/dev/null 2>&1 && "$HF" report "$tmp/old.log" -o "$tmp/old.html" >/dev/null 2>&1
check $? "an older log (no facts lines) still charts and reports"
unknown_rows=$(grep -c '<tr class="prop unknown">.*unknown</td>' "$tmp/old.html")
zero_counts=$(grep '<tr class="prop' "$tmp/old.html" | grep -c '<td class="n">0</td>')
[ "$unknown_rows" -eq "$declared" ] && [ "$zero_counts" -eq 0 ] && grep -q 'every count is unknown' "$tmp/old.html"
check $? "its $unknown_rows property rows show unknown, none a zero ($zero_counts)"

# ---- Bad logs --------------------------------------------------------------------------
line=$(awk '$1 == "held" {print NR; exit}' "$tmp/cluster.log")
awk -v n="$line" 'NR == n {$5 = $4 + 1} {print}' "$tmp/cluster.log" >"$tmp/corrupt.log"
echo "an older report" >"$tmp/kept.html"
"$HF" report "$tmp/corrupt.log" -o "$tmp/kept.html" >/dev/null 2>"$tmp/err.txt"
status=$?
"$HF" chart "$tmp/corrupt.log" -o "$tmp/kept.svg" >/dev/null 2>"$tmp/chart-err.txt"
[ $status -eq 2 ] && [ "$(wc -l <"$tmp/err.txt")" -eq 1 ] && grep -q "corrupt.log:$line (byte [0-9]*): " "$tmp/err.txt" &&
    [ "$(sed 's/ (--skip-bad.*//' "$tmp/err.txt")" = "$(sed 's/ (--skip-bad.*//' "$tmp/chart-err.txt")" ]
check $? "a corrupt held line: exit 2 and chart's one-line error naming file, line and byte ($(cat "$tmp/err.txt"))"
[ "$(cat "$tmp/kept.html")" = "an older report" ] && [ -z "$(ls "$tmp" | grep 'kept.html.tmp')" ]
check $? "and the existing output file is left as it was, no temporary file behind"
"$HF" report --skip-bad "$tmp/corrupt.log" -o "$tmp/skip.html" >/dev/null 2>"$tmp/err.txt" &&
    grep -q "1 bad log line skipped" "$tmp/skip.html"
check $? "--skip-bad reports the good lines and says one was skipped"

"$HF" report -o "$tmp/none.html" >/dev/null 2>&1
[ $? -eq 2 ] && [ ! -e "$tmp/none.html" ]
check $? "report without a log is a usage error (exit 2)"
"$HF" report --help | grep -q "usage: heisenfuzz report"
check $? "report --help"
