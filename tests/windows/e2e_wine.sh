#!/usr/bin/env bash
# End-to-end under Wine: accel-doctor.exe of the mingw-w64 build as a user
# runs it (kb/ beside it): --version, env, explain FILE (a recorded error log),
# diagnose --from, report --from --html, compare A B (recorded reports),
# checking exit codes and key output. Wine's own machine facts are not checked
# (ARCHITECTURE.md: an emulator makes them up).
# Usage: e2e_wine.sh <accel-doctor.exe> <scratch-dir>; $ACCEL_WINE is the Wine
# loader, with WINEPREFIX/WINEDEBUG set by ctest.
set -u
BIN=${1:?usage: e2e_wine.sh <accel-doctor.exe> <scratch-dir>}
SCRATCH=${2:?usage: e2e_wine.sh <accel-doctor.exe> <scratch-dir>}
WINE=${ACCEL_WINE:?ACCEL_WINE: the Wine loader}
REPORTS=${ACCEL_TEST_FIXTURES:?}/reports
ERRORS=${ACCEL_SHARED_ERRORS:?}
mkdir -p "$SCRATCH"
export NO_COLOR=1
unset ACCEL_DOCTOR_KB  # the kb/ beside the .exe, as a user has it

source "$(dirname "$0")/../e2e/lib/checks.sh"  # pass, fail, run
RUN_PREFIX=("$WINE")
# has here ignores case.
has() { if grep -qiF -- "$2" <<<"$3"; then pass "$1 mentions '$2'"; else fail "$1 does not mention '$2'"; fi; }

run version 0 --version
has version "0.1.0 (" "$OUT"

run env "0 1" env
has env "Windows" "$OUT"
# Every Windows section is there, each fact with a value or "not collected: why" (Wine's values unchecked).
for section in "Windows: Adapters (DXGI)" "Windows: OS and power" "Windows: Security" "Windows: AMD stack" \
  "Windows: Runtimes" "Windows: Python" "GPU indices"; do
  has env "$section" "$OUT"
done
for fact in "HW GPU scheduling" "TDR delay" "power scheme" "power mode" "power source" "efficiency mode (EcoQoS)" \
  "remote session" "Smart App Control" "HIP runtime" "HIP in a torch wheel" "Adrenalin" "VC++ / OpenMP" \
  "DirectML.dll" "onnxruntime.dll"; do
  # "  <label padded to 22> <value>": the label, then something after it.
  if awk -v f="  $fact " 'index($0, f) == 1 { rest = substr($0, length(f) + 1); gsub(/^ +/, "", rest); if (rest != "") ok = 1 }
    END { exit !ok }' <<<"$OUT"; then
    pass "env shows '$fact' with a value or a reason"
  else
    fail "env has no value or reason for '$fact'"
  fi
done

run env_json "0 1" env --json -
if python3 - "$SCRATCH/env_json.out" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read().replace("\r", "")
w = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]["context"]["environment"]["windows"]
assert isinstance(w, dict), "environment.windows missing"
for key in ("adapters", "os_build", "hardware_gpu_scheduling", "tdr_delay_s", "power_scheme", "power_mode",
            "power_source", "process_ecoqos", "remote_session", "smart_app_control", "vc_runtime", "directml",
            "onnxruntime", "hip_runtime", "runtimes_missing", "not_collected", "pythons", "torch_hip_runtime",
            "python_processes", "onnxruntime_directml_ep", "adrenalin_version"):
    assert key in w, key
assert w["adrenalin_version"] or "adrenalin_version" in w["not_collected"], "adrenalin: neither a value nor a reason"
assert w["pythons"] or "pythons" in w["not_collected"], "pythons: neither a list nor a reason"
# A fact without a value has its reason (the scalar ones).
for key in ("hardware_gpu_scheduling", "tdr_delay_s", "power_scheme", "power_mode", "power_source",
            "process_ecoqos", "smart_app_control"):
    assert w[key] not in (None, "") or key in w["not_collected"], key + ": neither a value nor a reason"
if not w["adapters"]:
    assert "adapters" in w["not_collected"], "no adapters and no reason"
for a in w["adapters"]:
    assert a["luid"].startswith("0x") and a["dxgi_index"] >= 0, a
    # DXCore's WDDM version, or why not (Wine has no dxcore.dll; a software adapter may not say).
    assert a["wddm_version"] or {"dxcore", "wddm_version"} & set(a["not_collected"]) or "dxcore" in w["not_collected"], a
PY
then pass "env --json - has environment.windows, each fact with a value or a reason"; else fail "env --json - windows section"; fi

WIN=${ACCEL_TEST_FIXTURES:?}/windows
run win_problems 1 diagnose --from "$WIN/windows-laptop-problems.json"
# The console shows titles (the ids are in --json): one phrase of each windows.* title.
for title in "DXGI adapter 0 is the integrated" "Windows is saving power" "Smart App Control is on" \
  "Visual C++ runtime is not installed" "GPU timeout detection (TDR)" "The HIP SDK is 6.2" \
  "would load Windows' in-box DirectML"; do
  has win_problems "$title" "$OUT"
done
run win_igpu 1 diagnose --from "$WIN/windows-dml-igpu-measured.json"
has win_igpu "The integrated GPU does the work" "$OUT"
has win_igpu "torch_directml.device(1)" "$OUT"
run win_healthy "0 1" diagnose --from "$WIN/windows-healthy.json"
if grep -qE "DXGI adapter 0 is the|saving power|Smart App Control is|Visual C[+][+] runtime|detection [(]TDR[)]|HIP SDK is|in-box DirectML" <<<"$OUT"; then fail "windows-healthy.json: a windows.* finding"; else pass "windows-healthy.json: no windows.* finding"; fi
run win_report 0 report --from "$WIN/windows10-rdp-old.json" --format md
has win_report "### Windows" "$OUT"
has win_report "Microsoft Basic Render Driver" "$OUT"
has win_report "### GPU indices" "$OUT"
# GPU busy while measuring, as the Windows build renders a report that has the samples.
run busy_report 0 report --from "$REPORTS/h200-gpu-busy-low.json" --format md
has busy_report "### GPU busy while measuring" "$OUT"
run busy_diagnose 1 diagnose --from "$REPORTS/h200-gpu-busy-low.json"
has busy_diagnose "The GPU was busy under 20%" "$OUT"

LOG="$ERRORS/cuda-oom-4gb-card-lifespan/log.txt"
run explain 0 explain "$LOG"
has explain "memory" "$OUT"
has explain "batch" "$OUT"

run diagnose "0 1" diagnose --from "$REPORTS/rtx4090-cpu-only-torch.json"
has diagnose "Verdict: " "$OUT"
has diagnose "Findings" "$OUT"

run report "0 1" report --from "$REPORTS/h200-healthy.json" --html "$SCRATCH/report.html"
if grep -q "<html" "$SCRATCH/report.html" 2>/dev/null && grep -q "vega" "$SCRATCH/report.html"; then
  pass "report --html wrote a page with its charting code"
else
  fail "report --html wrote no page"
fi

run compare_self 0 compare "$REPORTS/h200-healthy.json" "$REPORTS/h200-healthy.json"
has compare_self "Regression: no" "$OUT"
run compare_slow 1 compare "$REPORTS/h200-healthy.json" "$REPORTS/h200-slow.json"
has compare_slow "Regression: yes" "$OUT"

# The Vulkan ceiling through Wine's own vulkan-1.dll (Wine 8: it answers
# vkEnumerateInstanceVersion with 1.0.0, so the engine, which needs 1.1,
# measures nothing): `bench --vulkan` alone is then a set-up error, one clean
# line on stdout, and --json still holds the skipped row that says why.
rm -f "$SCRATCH/vulkan.json"
run vulkan 2 bench --vulkan --json "$SCRATCH/vulkan.json"
lines=$(grep -c . <<<"$OUT")
if [ "$lines" -eq 1 ] && grep -q "^Vulkan ceiling: not measured: " <<<"$OUT"; then
  pass "bench --vulkan: one line ($OUT)"
else
  fail "bench --vulkan: expected one 'Vulkan ceiling: not measured:' line, got $lines: $OUT"
fi
if python3 - "$SCRATCH/vulkan.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1], encoding="utf-8"))["results"]
assert [r["key"] for r in rows] == ["bench/vulkan/ceiling/none/-/-"], rows
assert rows[0]["status"] == "skipped" and rows[0]["reason"].startswith("Vulkan ceiling not measured: "), rows[0]
PY
then pass "bench --vulkan --json: the skipped row with its reason"; else fail "bench --vulkan --json: no skipped row"; fi
# No loader at all (a machine without vulkan-1.dll): the same contract, naming the DLL.
ACCEL_DOCTOR_VULKAN_LOADER=no-such-vulkan-1.dll run vulkan_noloader 2 bench --vulkan
has vulkan_noloader "no Vulkan loader" "$OUT"
has vulkan_noloader "no-such-vulkan-1.dll" "$OUT"

run missing 2 diagnose --from "$SCRATCH/no-such.json"
has missing "no-such.json" "$ERR"

# The ONNX Runtime engine on the Windows DLL (onnxruntime-node 1.30.0's
# win32-x64/onnxruntime.dll, from scripts/fetch_onnxruntime.sh): the CPU
# provider, the Model Editor, profiling and the EP-device list work under
# Wine; a DirectML session cannot (Wine has no D3D12 GPU), so dml is refused.
ORT_DLL="${ACCEL_ORT_DLL:-${XDG_CACHE_HOME:-$HOME/.cache}/accel-doctor/onnxruntime-node-1.30.0/win32-x64/onnxruntime.dll}"
if [ -f "$ORT_DLL" ]; then
  ORT_WIN="Z:$(tr '/' '\\' <<<"$ORT_DLL")"
  t0=$(date +%s)
  run ort_cpu "0 1" ort --device cpu --quick --no-workloads --onnxruntime "$ORT_WIN" --json "$SCRATCH/ort.json"
  echo "     (ort --device cpu --quick --no-workloads under Wine: $(($(date +%s) - t0)) s)"
  has ort_cpu "ONNX Runtime 1.30.0" "$OUT"
  if python3 - "$SCRATCH/ort.json" <<'PY'
import collections, json, sys
r = json.load(open(sys.argv[1], encoding="utf-8", errors="replace"))
info = r["context"]["environment"]["onnxruntime"]
assert info["version"] == "1.30.0" and info["device"] == "cpu", info
assert info["model_path"] == "model_editor", info["model_path"]
assert "DmlExecutionProvider" in info["providers"], info["providers"]
rows = [x for x in r["results"] if x["key"].startswith("ort/")]
st = collections.Counter(x["status"] for x in rows)
print("     statuses under Wine:", dict(st))
assert len(rows) >= 80 and st["ok"] >= 50, st
assert all(x["profile"]["where"] == "host" for x in rows if x["status"] == "ok")
PY
  then pass "ort.json under Wine: the catalog on the Windows DLL"; else fail "ort.json under Wine"; fi
  run ort_dml 2 ort --device dml:0 --quick --onnxruntime "$ORT_WIN"
  has ort_dml "dml:0" "$ERR"
  run ort_missing 2 ort --onnxruntime 'C:\nonexistent\onnxruntime.dll'
  has ort_missing "no such file" "$ERR"
elif [ "${ACCEL_REQUIRE_ORT:-0}" = "1" ]; then
  fail "no ONNX Runtime DLL at $ORT_DLL (scripts/setup.sh test fetches it)"
else
  echo "skip - no ONNX Runtime DLL at $ORT_DLL"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
