#!/usr/bin/env bash
# End-to-end: `accel-doctor explain` as a user runs it - real fixtures (with and
# without machine context), standard input, garbage (exit 3), a missing file
# (exit 2), --json parsed by Python, --from a saved report and --here (this
# machine's probes).
# Usage: explain.sh <path-to-accel-doctor> <scratch-dir>   (env: ACCEL_SHARED_ERRORS)
set -u
BIN=${1:?usage: explain.sh <accel-doctor> <scratch-dir>}
SCRATCH=${2:?usage: explain.sh <accel-doctor> <scratch-dir>}
mkdir -p "$SCRATCH"
HERE=$(cd "$(dirname "$0")" && pwd)
# Check the knowledge base of this source tree (the copy beside the binary can be stale).
export ACCEL_DOCTOR_KB=${ACCEL_DOCTOR_KB:-$HERE/../../kb}
export NO_COLOR=1
FIX=${ACCEL_SHARED_ERRORS:-}

source "$HERE/lib/checks.sh"  # pass, fail, run
# has/lacks here read $OUT, ignoring case.
has() { if grep -qiF -- "$2" <<<"$OUT"; then pass "$1 mentions '$2'"; else fail "$1 does not mention '$2'"; fi; }
lacks() { if grep -qiF -- "$2" <<<"$OUT"; then fail "$1 mentions '$2'"; else pass "$1 does not mention '$2'"; fi; }

# Inline logs, so the script tests something even without the shared fixtures.
printf 'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\nRuntimeError: HIP error: invalid device function\n' >"$SCRATCH/hip.log"
printf 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 7.79 GiB of which 11.44 MiB is free.\n' >"$SCRATCH/oom.log"
printf 'Memory access fault by GPU node-1 (Agent handle: 0x55f8) on address (nil). Reason: unknown\n' >"$SCRATCH/fault.log"

# ---- real fixtures with their context
if [ -n "$FIX" ] && [ -d "$FIX" ]; then
  run koboldai 0 explain "$FIX/rocm-rx6600-nobinary-koboldai/log.txt" --arch gfx1032 --backend rocm
  has koboldai "HSA_OVERRIDE_GFX_VERSION=10.3.0"
  has koboldai "line 1:"
  run gfx1010 0 explain "$FIX/pytorch-gfx1010-not-in-wheel/log.txt" --arch gfx1010 --gpu "AMD Radeon RX 5700 XT"
  has gfx1010 "PYTORCH_ROCM_ARCH=gfx1010"
  lacks gfx1010 "HSA_OVERRIDE_GFX_VERSION=10.3.0"
  run sm120_stdin 0 explain --arch sm_120 --gpu "NVIDIA GeForce RTX 5090" <"$FIX/cuda-sm120-no-kernel-image-deepseek/log.txt"
  has sm120_stdin "cu128"
  has sm120_stdin "standard input"
  # Every fixture through the CLI with its context: recognised, no forbidden advice.
  for dir in "$FIX"/*/; do
    [ -f "$dir/case.json" ] && [ -f "$dir/log.txt" ] || continue
    name=$(basename "$dir")
    mapfile -t ctx < <(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["context"]
for k in ("os", "arch", "backend", "gpu", "versions"):
    print(c.get(k, "").replace("\n", " "))' "$dir/case.json")
    run "fixture-$name" 0 explain "$dir/log.txt" --os "${ctx[0]}" --arch "${ctx[1]}" --backend "${ctx[2]}" \
      --gpu "${ctx[3]}" --versions "${ctx[4]}"
    while IFS= read -r bad; do
      [ -n "$bad" ] && lacks "fixture-$name" "$bad"
    done < <(python3 -c 'import json,sys; [print(m) for m in json.load(open(sys.argv[1]))["expect"].get("must_not_mention", [])]' "$dir/case.json")
  done
else
  echo "*** WARNING: ACCEL_SHARED_ERRORS (${FIX:-unset}) is missing: real fixtures not tested, inline logs only ***"
fi

# ---- standard input, '-' and nothing
run stdin_dash 0 explain - --arch gfx1031 <"$SCRATCH/hip.log"
has stdin_dash "HSA_OVERRIDE_GFX_VERSION=10.3.0"
cat "$SCRATCH/oom.log" | "$BIN" explain >"$SCRATCH/pipe.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "batch" "$SCRATCH/pipe.out"; then pass "pipe without FILE"; else fail "pipe without FILE (rc $rc)"; fi

# ---- nothing known: the possibilities, each with its condition
run unknown_arch 0 explain "$SCRATCH/hip.log"
has unknown_arch "depends on the machine"
has unknown_arch "HSA_OVERRIDE_GFX_VERSION=10.3.0"
has unknown_arch "PYTORCH_ROCM_ARCH"
has unknown_arch "HIP_VISIBLE_DEVICES"

# ---- evidence without an error: the torch build read from a pip list / collect_env line
printf 'Package    Version\ntorch                     2.4.0+cpu\n' >"$SCRATCH/piplist.log"
run cpu_wheel 0 explain "$SCRATCH/piplist.log" --gpu "NVIDIA GeForce RTX 3060"
has cpu_wheel "CPU-only"
has cpu_wheel "whl/cu126"
printf 'PyTorch version: 2.8.0+cu128\nGPU models and configuration: GPU 0: NVIDIA GeForce GTX 1080\n' >"$SCRATCH/pascal.log"
run pascal_cu128 0 explain "$SCRATCH/pascal.log"
has pascal_cu128 "without sm_61"
has pascal_cu128 "whl/cu126"

# ---- nothing recognised: exit 3
head -c 200000 /dev/urandom >"$SCRATCH/garbage.bin"
run garbage_binary 3 explain "$SCRATCH/garbage.bin"
has garbage_binary "Nothing recognised"
python3 -c 'import random; random.seed(7); print("\n".join("".join(random.choice("abcdefghij klmnop,.;") for _ in range(80)) for _ in range(2000)))' >"$SCRATCH/garbage.txt"
run garbage_text 3 explain "$SCRATCH/garbage.txt"
printf 'epoch 1 loss 0.3\nCUDA available: True\n>>> torch.cuda.is_available()\nTrue\n' >"$SCRATCH/healthy.log"
run healthy 3 explain "$SCRATCH/healthy.log"
# an unknown error: still exit 3, with the line that reads most like the error
printf 'loading\nTraceback (most recent call last):\n  File "app.py", line 3, in <module>\nzorblax.FrobnicationError: the frobnicator refused to start\n' >"$SCRATCH/unknown.log"
run unknown_error 3 explain "$SCRATCH/unknown.log"
has unknown_error "read most like the error"
has unknown_error "line 4: zorblax.FrobnicationError"
run unknown_error_json 3 explain "$SCRATCH/unknown.log" --json
if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["recognised"] is False and d["diagnoses"] == [], d
assert d["key_lines"][-1]["line"] == 4 and d["key_lines"][-1]["weight"] == 3, d["key_lines"]
assert d["near_matches"] == [], d["near_matches"]
' "$OUT"; then pass "json names the key line of an unknown error"; else fail "json key lines: $OUT"; fi
# GBK bytes (a Chinese Windows console), not UTF-8: the JSON still comes out (exit 3, not 4)
printf 'OSError: \xd5\xd2\xb2\xbb\xb5\xbd\xd6\xb8\xb6\xa8\xb5\xc4\xc4\xa3\xbf\xe9\xa1\xa3 frobnicator\n' >"$SCRATCH/gbk.log"
run gbk_json 3 explain "$SCRATCH/gbk.log" --json
if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["key_lines"][0]["line"] == 1' "$OUT"; then pass "json of a non-UTF-8 log"; else fail "json of a non-UTF-8 log: $OUT"; fi

# ---- usage errors: exit 2
: >"$SCRATCH/empty.log"
run empty 2 explain "$SCRATCH/empty.log"
if grep -q "empty.log is empty" <<<"$ERR" && [ "$(wc -l <<<"$ERR")" -eq 1 ]; then pass "empty file is named as empty, in one line"; else fail "empty file: $ERR"; fi
run empty_stdin 2 explain - </dev/null
if grep -q "standard input is empty" <<<"$ERR"; then pass "empty standard input is named as empty"; else fail "empty stdin: $ERR"; fi
run missing 2 explain "$SCRATCH/does-not-exist.log"
if grep -q "does-not-exist.log" <<<"$ERR"; then pass "missing file is named"; else fail "missing file not named: $ERR"; fi
run directory 2 explain "$SCRATCH"
run bad_option 2 explain --no-such-option "$SCRATCH/hip.log"
echo '{"hello": 1}' >"$SCRATCH/not-a-report.json"
run bad_from 2 explain --from "$SCRATCH/not-a-report.json" "$SCRATCH/hip.log"

# ---- --json
run json 0 explain "$SCRATCH/oom.log" --json
if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["recognised"] is True, d
top = d["diagnoses"][0]
assert top["id"] == "gpu_out_of_memory", top["id"]
for k in ("cause", "fix", "reference", "title", "severity", "status"):
    assert top[k], k
assert top["matched_lines"][0]["line"] == 1 and "out of memory" in top["matched_lines"][0]["text"]
assert d["input"]["lines"] == 1
' "$OUT"; then pass "json is valid and complete"; else fail "json: $OUT"; fi
run json_garbage 3 explain "$SCRATCH/garbage.bin" --json
if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["recognised"] is False and d["diagnoses"] == [] and d["input"]["binary"] is True' "$OUT"; then
  pass "json for nothing recognised"
else
  fail "json for nothing recognised: $OUT"
fi
run json_possibilities 0 explain "$SCRATCH/hip.log" --json
if python3 -c '
import json, sys
top = json.loads(sys.argv[1])["diagnoses"][0]
assert top["context_needed"] is True
assert len(top["fixes"]) >= 4 and all(f["when"] and not f["applies"] for f in top["fixes"])
' "$OUT"; then pass "json lists the possibilities"; else fail "json possibilities: $OUT"; fi

# ---- --from a saved report (a natively supported MI210 with a leftover override)
cat >"$SCRATCH/report.json" <<'JSON'
{"schema_version": 1,
 "context": {"command": "env",
   "environment": {"host": {"os": "Ubuntu 22.04.4 LTS"},
     "torch": {"version": "2.5.1+rocm6.2", "backend": "rocm"},
     "devices": [{"id": "cuda:0", "type": "hip", "name": "AMD Instinct MI210", "vendor": "amd", "arch": "gfx90a"}],
     "env_vars": [{"name": "HSA_OVERRIDE_GFX_VERSION", "value": "10.3.0", "effect": "..."}]}},
 "results": [], "findings": []}
JSON
run from_report 0 explain --from "$SCRATCH/report.json" "$SCRATCH/fault.log"
has from_report "unset HSA_OVERRIDE_GFX_VERSION"
has from_report "gfx90a"
run from_report_override_arg 0 explain --from "$SCRATCH/report.json" --arch gfx1032 "$SCRATCH/hip.log"
has from_report_override_arg "HSA_OVERRIDE_GFX_VERSION"

# ---- --here: this machine's probes are the context (no engine is started)
HSA_OVERRIDE_GFX_VERSION=10.3.0 run here 0 explain --here --json "$SCRATCH/hip.log"
if python3 -c '
import json, platform, sys
d = json.loads(sys.argv[1])
assert d["context"]["source"] == "here", d["context"]
facts = d["context"]["facts"]
# the probed OS, and the override from the process environment (a complete list: env_known)
want = {"Linux": "linux", "Windows": "windows", "Darwin": "macos"}.get(platform.system())
assert want is None or facts.get("os") in (want, "wsl"), facts
assert facts.get("override_set") is True and facts.get("override_value") == "10.3.0", facts
' "$OUT"; then pass "--here takes the OS and the environment from this machine"; else fail "--here: $OUT"; fi
run here_and_from 2 explain --here --from "$SCRATCH/report.json" "$SCRATCH/hip.log"
run json_check 0 explain "$SCRATCH/hip.log" --json
if python3 -c '
import json, sys
top = json.loads(sys.argv[1])["diagnoses"][0]
assert any(f.get("check") for f in top["fixes"]), top["fixes"]
assert json.loads(sys.argv[1])["context"]["source"] == "none"
' "$OUT"; then pass "listed possibilities say how to tell them apart"; else fail "json check: $OUT"; fi

echo
if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed (outputs in $SCRATCH)"
  exit 1
fi
echo "all explain checks passed"
