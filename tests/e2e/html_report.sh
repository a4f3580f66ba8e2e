#!/usr/bin/env bash
# End-to-end: the HTML report of a real CPU run, opened in headless Chromium
# (Debian's `chromium`, installed by `scripts/setup.sh test`). The page must
# run without a script error and draw every chart: its status element
# (<pre id="render-status">) must say drawn == charts with no errors, and
# every chart container must hold an SVG with marks. A screenshot is kept as
# an artifact: <scratch>/report.png. Without Chromium the test FAILS.
#   bash tests/e2e/html_report.sh <accel-doctor> <scratch-dir>
set -euo pipefail
BIN="$1"; OUT="$2"
rm -rf "$OUT"; mkdir -p "$OUT"

# $CHROMIUM overrides the browser (a path); by default Debian's chromium on PATH.
CHROMIUM="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$CHROMIUM" ] || [ ! -x "$CHROMIUM" ]; then
  echo "FAIL: chromium is not installed${CHROMIUM:+ (no executable at $CHROMIUM)}; this test renders the HTML"
  echo "      report in headless Chromium. Install it with 'scripts/setup.sh test' (Debian package: chromium)."
  exit 1
fi
# Chromium profiles are scratch: remove them however the test ends.
trap 'rm -rf "$OUT"/profile-*' EXIT

run() {  # run NAME ARGS...: accel-doctor on the CPU; exit 0 (healthy) or 1 (some checks failed) is fine
  local name="$1"; shift
  local rc=0
  "$BIN" --device cpu "$@" > "$OUT/$name.stdout" 2> "$OUT/$name.stderr" || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "FAIL: accel-doctor $* exited with $rc"; cat "$OUT/$name.stderr"; exit 1
  fi
}

# 1. A real CPU run of each suite, written straight to HTML and to JSON.
#    Small filters keep it short on a 2-core machine; the page gets a matrix
#    with failing cells (fp16/bf16 on a CPU torch), a roofline, benchmarks
#    and the LLM prefill/decode curves.
run ops ops --quick --filter matmul,add,softmax,layer_norm,fft,sum_all --json "$OUT/ops.json" --html "$OUT/ops.html"
run bench bench --quick --filter gemm/square,memory/copy --json "$OUT/bench.json"
run llm llm --quick --prompt 32,64 --gen 8 --no-cpu --json "$OUT/llm.json"
# 2. The saved reports rendered together, as CI or a support thread would.
"$BIN" report --from "$OUT/ops.json" --from "$OUT/bench.json" --from "$OUT/llm.json" \
  --html "$OUT/report.html" --format md > "$OUT/report.md"
grep -q '^## accel-doctor report$' "$OUT/report.md" || { echo "FAIL: no Markdown summary"; cat "$OUT/report.md"; exit 1; }

chrome() {  # chrome PROFILE-NAME ARGS...: headless Chromium, offline, a fresh profile
  local profile="$OUT/profile-$1"; shift
  rm -rf "$profile"; mkdir -p "$profile"
  # --virtual-time-budget lets the page's promises (vegaEmbed) settle before
  # the DOM is dumped or the screenshot taken.
  timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --virtual-time-budget=30000 "$@"
}

check_page() {  # check_page HTML MIN-CHARTS
  local html="$1" min="$2" dom="${1%.html}.dom.html"
  chrome "$(basename "$html" .html)" --dump-dom "file://$html" > "$dom" 2> "$dom.stderr" || {
    echo "FAIL: chromium could not load $html"; tail -20 "$dom.stderr"; exit 1; }
  python3 - "$dom" "$min" <<'PY'
import json, sys
from html.parser import HTMLParser

dom_path, minimum = sys.argv[1], int(sys.argv[2])
dom = open(dom_path, encoding="utf-8").read()

class Charts(HTMLParser):
    """Per chart container: whether an <svg> sits in it and how many marks it holds."""
    def __init__(self):
        super().__init__()
        self.stack, self.charts, self.status, self.in_status = [], {}, "", False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        chart = a.get("id") if tag == "div" and "chart" in classes else None
        self.stack.append((tag, chart))
        if chart:
            self.charts[chart] = {"svg": 0, "marks": 0}
        owner = next((c for _, c in reversed(self.stack) if c), None)
        if owner:
            if tag == "svg":
                self.charts[owner]["svg"] += 1
            if tag in ("path", "rect", "line", "circle", "text"):
                self.charts[owner]["marks"] += 1
        if tag == "pre" and a.get("id") == "render-status":
            self.in_status = True
    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag == "pre":
            self.in_status = False
    def handle_data(self, data):
        if self.in_status:
            self.status += data

p = Charts()
p.feed(dom)
problems = []
try:
    status = json.loads(p.status)
except ValueError:
    sys.exit(f"FAIL: {dom_path}: no readable render status: {p.status!r}")
if not status.get("done"):
    problems.append("the page never finished rendering (done is false)")
if status.get("errors"):
    problems.append(f"script errors: {status['errors']}")
if status.get("drawn") != status.get("charts"):
    problems.append(f"drew {status.get('drawn')} of {status.get('charts')} charts")
if status.get("charts", 0) < minimum:
    problems.append(f"only {status.get('charts')} charts, expected at least {minimum}")
if len(p.charts) != status.get("charts"):
    problems.append(f"{len(p.charts)} chart containers, status says {status.get('charts')}")
for name, c in p.charts.items():
    if c["svg"] == 0 or c["marks"] < 5:
        problems.append(f"{name}: no drawn SVG ({c})")
if problems:
    sys.exit(f"FAIL: {dom_path}:\n  " + "\n  ".join(problems))
print(f"{dom_path}: {status['drawn']}/{status['charts']} charts drawn, no script errors: " +
      ", ".join(f"{k} {v['marks']} marks" for k, v in sorted(p.charts.items())))
PY
}

check_page "$OUT/ops.html" 2       # roofline, benchmark bandwidth row of the ops run
check_page "$OUT/report.html" 5    # + GEMM, prefill and decode curves

# 3. A screenshot of the combined page, kept as a test artifact.
chrome shot --hide-scrollbars --window-size=1400,3000 --screenshot="$OUT/report.png" \
  "file://$OUT/report.html" > "$OUT/screenshot.log" 2>&1 || true
size=$(stat -c %s "$OUT/report.png" 2>/dev/null || echo 0)
if [ "$size" -lt 20000 ]; then
  echo "FAIL: no screenshot (or a blank one: $size bytes) at $OUT/report.png"; tail -20 "$OUT/screenshot.log"; exit 1
fi
echo "html report ok: screenshot $OUT/report.png ($size bytes)"
