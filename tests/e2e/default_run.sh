#!/usr/bin/env bash
# End-to-end: the README's run command (the default diagnosis) on this
# machine's best device: env, operator checks, benchmarks, a small LLM run,
# findings and a verdict, in a valid, versioned JSON report; the exit code
# agrees with the findings (1 when one is at warning or above).
set -euo pipefail
BIN="$1"; OUT="$2"; mkdir -p "$OUT"
rc=0
"$BIN" --json "$OUT/report.json" > "$OUT/stdout.txt" 2> "$OUT/stderr.txt" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  echo "default run exited with $rc"; cat "$OUT/stderr.txt"; exit 1
fi
for want in "Summary:" "^benchmark " "^pp128 " "^Verdict: "; do
  grep -q "$want" "$OUT/stdout.txt" || { echo "no '$want' in the output"; cat "$OUT/stdout.txt"; exit 1; }
done
python3 - "$OUT/report.json" "$rc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema_version"] == 1, r["schema_version"]
ctx = r["context"]
assert ctx["tool"]["version"], "tool version"
assert ctx["argv"][0].endswith("accel-doctor"), ctx["argv"]
assert ctx["environment"]["host"]["os"] or ctx["environment"]["host"]["not_collected"], "host"
assert ctx["environment"]["torch"]["version"], "torch version"
checks = [x for x in r["results"] if x["kind"] == "check"]
assert len(checks) >= 100, f"only {len(checks)} checks"
ok = [x for x in checks if x["status"] == "ok"]
assert len(ok) >= len(checks) // 2, f"only {len(ok)} ok"
for x in ok:
    t = x["timing"]
    assert t["median_us"] > 0 and len(t["samples_us"]) >= 2, x["key"]
    assert x["profile"]["where"] in ("host", "device_kernels", "no_device_work", "cpu_fallback", "profiler_blind", "unavailable"), x["key"]
kinds = {x["kind"] for x in r["results"]}
assert {"check", "bench", "llm"} <= kinds, kinds
assert not [x for x in r["results"] if x["kind"] == "phase"], "a phase failed"
assert r["verdict"], "no verdict"
# The LLM rows quote the bench phase's own rows as their ceilings: one figure
# per key in the whole report (issue 19: 9.45 GB/s quoted, 10.32 shown).
keys = [x["key"] for x in r["results"]]
assert len(keys) == len(set(keys)), "a key appears twice"
bench = {x["key"]: x for x in r["results"] if x["kind"] == "bench"}
for x in r["results"]:
    if x["kind"] != "llm":
        continue
    for field, metric in (("gemm_ceiling", "tflops"), ("bandwidth_ceiling", "gbps")):
        c = x.get("evidence", {}).get(field)
        if c and metric in c:
            assert c["key"] in bench and bench[c["key"]]["metrics"][metric] == c[metric], (x["key"], c)
serious = [f for f in r["findings"] if f["severity"] in ("critical", "warning")]
rc = int(sys.argv[2])
assert (rc == 1) == bool(serious or [x for x in checks if x["status"] in ("error", "mismatch", "crashed", "hung", "off_device")]), (rc, [f["title"] for f in serious])
print(f"report ok: {len(checks)} checks, {len(ok)} ok, {len(r['findings'])} findings, exit {rc}")
PY
