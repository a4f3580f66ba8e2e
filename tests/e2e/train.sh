#!/usr/bin/env bash
# End-to-end: `train --quick --json` on this machine (the CPU on CI) gives
# valid JSON with measured step rows, the item cost and the batch sweep;
# then an injected allocation limit ends a sweep cleanly, reported as such.
set -euo pipefail
BIN="$1"; OUT="$2"; mkdir -p "$OUT"
"$BIN" train --quick --json "$OUT/train.json" > "$OUT/train.txt"
"$BIN" train --quick --model mlp --precision fp32 --filter sweep --sweep-min 8 --sweep-max 64 \
  --inject-oom-above-bytes 23000000 --json "$OUT/oom.json" > "$OUT/oom.txt"
grep -q "INJECTED out-of-memory limit" "$OUT/oom.txt"
python3 - "$OUT/train.json" "$OUT/oom.json" <<'PY'
import json, math, sys
rep = json.load(open(sys.argv[1]))
assert rep["context"]["command"] == "train", rep["context"]["command"]
rows = rep["results"]
assert rows and all(r["kind"] == "train" for r in rows)
keys = {r["key"]: r for r in rows}
steps = [r for r in rows if r["key"].rsplit("/", 1)[-1].startswith("b") and r["status"] == "ok"]
assert steps, "no step row ran"
for r in steps:
    m = r["metrics"]
    assert m["samples_per_s"] > 0 and m["step_ms"] > 0, r["key"]
    assert math.isfinite(m["loss_final"]) and m["loss_final"] < m["loss_first"], (r["key"], m)
    assert "h2d_bytes_per_step" in m or "profile_unavailable" in r["evidence"], r["key"]
for model in ("mlp", "cnn"):
    assert keys[f"train/cpu/{model}/fp32/b32"]["status"] == "ok"
    bf16 = keys[f"train/cpu/{model}/bf16/b32"]
    assert bf16["status"] == "ok", bf16
    assert bf16["accuracy"]["rel_error"] <= bf16["accuracy"]["tolerance"], bf16["accuracy"]
    assert keys[f"train/cpu/{model}/fp16/b32"]["status"] in ("ok", "unavailable")
    cost = keys[f"train/cpu/{model}/fp32/b32/item_cost"]
    assert cost["status"] == "ok" and "item_cost_us" in cost["metrics"], cost
    sweep = keys[f"train/cpu/{model}/fp32/sweep"]
    assert sweep["status"] == "ok", sweep
    assert len(sweep["evidence"]["curve"]) >= 2 and sweep["metrics"]["max_batch"] >= 32, sweep
    assert sweep["evidence"]["limit"] == "cap", sweep["evidence"]
oom = json.load(open(sys.argv[2]))["results"]
assert len(oom) == 1, oom
s = oom[0]
assert s["key"] == "train/cpu/mlp/fp32/sweep" and s["status"] == "ok", s
assert s["evidence"]["limit"] == "injected_out_of_memory" and s["evidence"]["injected"] is True, s["evidence"]
assert s["metrics"]["injected_limit_bytes"] == 23000000
batches = [p["batch"] for p in s["evidence"]["curve"]]
assert batches and batches == [8 * 2**i for i in range(len(batches))], batches
assert s["metrics"]["oom_at_batch"] == 2 * batches[-1] and s["metrics"]["max_batch"] == batches[-1], s["metrics"]
print("train reports ok")
PY
