#!/usr/bin/env bash
# The Python package end to end (issue 14; docs/python.md), run by `make test`
# after ctest: a venv with the system's site packages (so Debian's
# python3-torch is its torch), `pip install --no-build-isolation .` offline,
# then accel-doctor measuring through the Python-hosted engine:
#   1. python -m accel_doctor ops --quick --device cpu --filter F: results,
#      and the report names the Python engine, the venv's interpreter, torch;
#      without a front end, python -m accel_doctor says what to install (exit 2);
#   2. the front end alone (no engine beside it) finds python on PATH with
#      the package and says so;
#   3. --import: a module that fails to import is recorded in the report,
#      and --import or --device dml with the native engine is a set-up
#      error (exit 2), as is --device dml without torch-directml;
#   4. the test PrivateUse1 backend (tests/python/testdev, built in BUILD_DIR
#      as libaccel_doctor_testdev.so, or ACCEL_DOCTOR_TESTDEV_LIB):
#      --import accel_doctor_testdev --device privateuseone:0 ops --quick on
#      its two native ops and some others: the native ones are device work
#      (profile.where backend_kernels), every other one cpu_fallback with
#      the op named and its time (aten::tanh announced by a Python warning),
#      and the timing says host_clock_scalar_copy.
# usage: tests/python/package.sh BUILD_DIR [OUT_DIR]
# BUILD_DIR is a configured torch build (make build): pip builds the
# extension module in it (ACCEL_DOCTOR_BUILD_DIR), so only the module's own
# file compiles. PYTHON: the interpreter with torch (default: the first of
# /usr/bin/python3, python3 that imports torch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$root/tests/e2e/lib/common.sh"
on_error_explain

build=$(cd "${1:?usage: package.sh BUILD_DIR [OUT_DIR]}" && pwd)
out=${2:-$build/python-package-test}
rm -rf "$out"; mkdir -p "$out"
start=$(date +%s)

if [ -z "${PYTHON:-}" ]; then
  for p in /usr/bin/python3 python3 python; do
    if command -v "$p" >/dev/null && "$p" -c 'import torch' 2>/dev/null; then PYTHON=$(command -v "$p"); break; fi
  done
fi
[ -n "${PYTHON:-}" ] || { echo "FAIL: no python3 that imports torch (scripts/setup.sh installs python3-torch)" >&2; exit 1; }

venv=$build/py-venv
rm -rf "$venv"
# Without its own pip (ensurepip is missing from some Pythons, and copying
# pip in takes seconds): pip, setuptools and torch come from PYTHON's own
# packages. --system-site-packages gives the base interpreter's; when PYTHON
# is itself a venv's (the H200's /opt/torch/.venv) they live in that venv's
# site-packages, which a .pth file adds (harmless where they are seen already).
"$PYTHON" -m venv --system-site-packages --without-pip "$venv"
py=$venv/bin/python
"$PYTHON" -c 'import site; print("\n".join(site.getsitepackages()))' > \
  "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_accel_doctor_parent.pth"
"$py" -c 'import setuptools, pip, torch' || { echo "FAIL: the venv's python cannot import torch, pip and setuptools" >&2; exit 1; }
before=$(cd "$root" && git status --porcelain 2>/dev/null || true)
(cd "$root" && ACCEL_DOCTOR_BUILD_DIR="$build" CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-2}" \
   "$py" -m pip install --no-build-isolation --no-deps --no-index --no-cache-dir . > "$out/pip.log" 2>&1) ||
  { echo "FAIL: pip install (last lines of $out/pip.log):" >&2; tail -n 40 "$out/pip.log" >&2; exit 1; }
echo "pip install: $(( $(date +%s) - start )) s"
# The source tree stays as it was: setuptools' folders are ignored, nothing else appears.
after=$(cd "$root" && git status --porcelain 2>/dev/null || true)
[ "$before" = "$after" ] ||
  { echo "FAIL: pip install changed the source tree:" >&2; diff <(echo "$before") <(echo "$after") >&2; exit 1; }

check_report() {  # check_report JSON: python engine, this venv, torch, results present
  "$py" - "$1" "$py" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1]))
host = report["context"]["environment"]["torch"].get("host", {})
errors = []
if host.get("kind") != "python": errors.append("host.kind is %r, not python" % host.get("kind"))
if os.path.realpath(host.get("python_executable", "")) != os.path.realpath(sys.argv[2]) and \
   host.get("python_executable") != sys.argv[2]:
    errors.append("python_executable %r is not the venv's %r" % (host.get("python_executable"), sys.argv[2]))
if not host.get("python_version"): errors.append("no python_version")
if not host.get("torch_python_version"): errors.append("no torch_python_version")
if host.get("command", [])[1:] != ["-m", "accel_doctor.engine"]: errors.append("command %r" % host.get("command"))
results = report["results"]
if not results: errors.append("no results")
# unavailable: a dtype this torch lacks (Debian's 1.13 has no fp16 matmul on the CPU), said with its reason.
bad = [r["key"] + ": " + r["status"] for r in results if r["status"] not in ("ok", "unavailable")]
if not any(r["status"] == "ok" for r in results): errors.append("nothing ok")
if bad: errors.append("not ok: " + ", ".join(bad))
if any(r.get("device") != "cpu" for r in results): errors.append("a result not on cpu")
if errors:
    print("FAIL: " + "; ".join(errors)); sys.exit(1)
print("%d results ok through the Python engine (python %s, torch %s)" %
      (len(results), host["python_version"], host["torch_python_version"]))
PY
}

filter=${ACCEL_PY_TEST_FILTER:-ops/linalg/matmul/fp32,ops/elementwise/add/}
stamp() { echo "$1: $(( $(date +%s) - start )) s since the start"; }
# 1. python -m accel_doctor: the front end shipped in the package, this venv as engine.
run_doctor 0 "$out/module" "$py" -m accel_doctor --json "$out/module.json" ops --quick --device cpu --filter "$filter"
check_report "$out/module.json"
stamp "1. python -m accel_doctor ops"
# python -m accel_doctor without a front end (none in the package, none on PATH): a clear message, exit 2.
rc=0
PATH=/nonexistent "$py" -c 'import sys, accel_doctor.__main__ as m; m.FRONT_END = "no-such-front-end"; sys.exit(m.main(["env"]))' \
  > "$out/no_front_end.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "no accel-doctor front end found" "$out/no_front_end.txt" ||
  { echo "FAIL: python -m accel_doctor without a front end: exit $rc" >&2; cat "$out/no_front_end.txt" >&2; exit 1; }

# 2. The front end with no engine beside it finds the venv's python on PATH.
mkdir -p "$out/alone"
cp "$build/accel-doctor" "$out/alone/"
cp -r "$root/kb" "$out/alone/kb"
PATH="$venv/bin:$PATH" run_doctor 0 "$out/fallback" "$out/alone/accel-doctor" --json "$out/fallback.json" \
  ops --quick --device cpu --filter "$filter"
grep -q "using the Python engine $venv/bin/python" "$out/fallback.err" ||
  grep -q "using the Python engine .*python" "$out/fallback.err" ||
  { echo "FAIL: the front end did not say it used the Python engine:" >&2; cat "$out/fallback.err" >&2; exit 1; }
grep -q "no accel-doctor-torch beside accel-doctor" "$out/fallback.err" ||
  { echo "FAIL: the front end did not say which engine it did not find" >&2; cat "$out/fallback.err" >&2; exit 1; }
check_report "$out/fallback.json"
stamp "2. the front end's Python fallback"

# 3. --import: a plugin that fails to import is in the report with its error.
run_doctor 1 "$out/import" "$build/accel-doctor" --python "$py" --import accel_doctor_no_such_plugin \
  --json "$out/import.json" env
"$py" - "$out/import.json" <<'PY'
import json, sys
host = json.load(open(sys.argv[1]))["context"]["environment"]["torch"]["host"]
plugins = host.get("plugins", [])
assert plugins and plugins[0]["module"] == "accel_doctor_no_such_plugin", plugins
assert "ModuleNotFoundError" in plugins[0]["error"], plugins
print("plugin import failure recorded: " + plugins[0]["error"])
PY
rc=0
"$build/accel-doctor" --import torch_directml ops --list > "$out/native_import.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "needs the Python engine" "$out/native_import.txt" ||
  { echo "FAIL: --import with the native engine: exit $rc" >&2; cat "$out/native_import.txt" >&2; exit 1; }
rc=0
"$build/accel-doctor" --device dml ops --list > "$out/native_dml.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "needs the Python engine" "$out/native_dml.txt" ||
  { echo "FAIL: --device dml with the native engine: exit $rc" >&2; cat "$out/native_dml.txt" >&2; exit 1; }
# --device dml in an environment without torch-directml: exit 2, saying what to check.
rc=0
"$py" -m accel_doctor --device dml ops --quick --filter matmul > "$out/no_dml.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "no DirectML device is visible" "$out/no_dml.txt" ||
  { echo "FAIL: --device dml without torch_directml: exit $rc" >&2; cat "$out/no_dml.txt" >&2; exit 1; }

stamp "3. --import and --device dml"

# 4. The test PrivateUse1 backend: a plugin device like torch-directml's.
testdev_lib=${ACCEL_DOCTOR_TESTDEV_LIB:-$build/tests/libaccel_doctor_testdev.so}
[ -f "$testdev_lib" ] || { echo "FAIL: no test backend library $testdev_lib (target accel_doctor_testdev)" >&2; exit 1; }
t4=$(date +%s)
# Its two native ops in fp32 and bf16 (its plain loops are slow in fp16), four fallback ops.
testdev_filter=${ACCEL_PY_TESTDEV_FILTER:-ops/linalg/matmul/fp32,ops/linalg/matmul/bf16,ops/elementwise/add/fp32,ops/elementwise/add/bf16,ops/elementwise/mul/fp32,ops/elementwise/exp/fp32,ops/elementwise/tanh/fp32,ops/reduction/sum_all/fp32}
ACCEL_DOCTOR_TESTDEV_LIB="$testdev_lib" PYTHONPATH="$here/testdev${PYTHONPATH:+:$PYTHONPATH}" \
  run_doctor 1 "$out/testdev" "$py" -m accel_doctor --import accel_doctor_testdev --device privateuseone:0 \
  --json "$out/testdev.json" ops --quick --filter "$testdev_filter"
"$py" - "$out/testdev.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
env = report["context"]["environment"]
errors = []
plugins = env["torch"]["host"].get("plugins", [])
if not plugins or plugins[0].get("module") != "accel_doctor_testdev" or plugins[0].get("error"):
    errors.append("plugin not imported: %r" % plugins)
dev = [d for d in env["devices"] if d["id"] == "privateuseone:0"]
if not dev or dev[0].get("plugin") != "accel_doctor_testdev" or dev[0].get("announces_cpu_fallback") is not True:
    errors.append("privateuseone:0 not described by its plugin: %r" % dev)
if env.get("selection", {}).get("chosen") != "privateuseone:0":
    errors.append("selection %r" % env.get("selection"))
native = ("ops/linalg/matmul/", "ops/elementwise/add/")
results = [r for r in report["results"] if r["kind"] == "check"]  # not the bandwidth row ops measures for the roofline
if len(results) < 8: errors.append("only %d checks" % len(results))
if len([r for r in results if r["key"].startswith(native)]) != 4: errors.append("not the 4 native checks")
for r in results:
    p = r.get("profile") or {}
    where, key = p.get("where"), r["key"]
    if r["status"] != "ok": errors.append("%s: status %s (%s)" % (key, r["status"], r.get("reason", "")))
    if r.get("device") != "privateuseone:0": errors.append("%s on %r" % (key, r.get("device")))
    if r.get("timing", {}).get("method") != "host_clock_scalar_copy":
        errors.append("%s timed by %r" % (key, r.get("timing", {}).get("method")))
    if key.startswith(native):
        if where != "backend_kernels" or p.get("fallback_ops"):
            errors.append("%s: native op shown as %r %r" % (key, where, p.get("fallback_ops")))
    else:
        ops = p.get("fallback_ops", [])
        if where != "cpu_fallback" or not ops:
            errors.append("%s: a fallback op shown as %r" % (key, where))
        elif not all(o["op"].startswith("aten::") and o["calls"] > 0 and o["time_us"] > 0 for o in ops):
            errors.append("%s: fallback without its op or cost: %r" % (key, ops))
        elif not p.get("fallback_cost_us", 0) > 0:
            errors.append("%s: no fallback_cost_us" % key)
# aten::tanh is the Python-implemented op: its announcement is a Python warning.
tanh = [r for r in results if r["key"] == "ops/elementwise/tanh/fp32"]
if not tanh or [o["op"] for o in tanh[0]["profile"].get("fallback_ops", [])] != ["aten::tanh"]:
    errors.append("the Python warning of aten::tanh was not seen: %r" % (tanh[0]["profile"] if tanh else None))
if errors:
    print("FAIL: the test backend run:\n  " + "\n  ".join(errors)); sys.exit(1)
fb = [r for r in results if r["profile"]["where"] == "cpu_fallback"]
print("test backend: %d native checks on the device, %d cpu_fallback (e.g. %s: %s)" % (
    len(results) - len(fb), len(fb), fb[0]["key"], fb[0]["profile"]["detail"]))
PY
grep -q "cpu_fallback" "$out/testdev.txt" ||
  { echo "FAIL: the ops table does not show cpu_fallback" >&2; cat "$out/testdev.txt" >&2; exit 1; }
grep -q "host clock around a synchronising scalar copy" "$out/testdev.txt" ||
  { echo "FAIL: the ops table does not say how the device was timed" >&2; cat "$out/testdev.txt" >&2; exit 1; }
# The rules on the saved report: the cpu_fallback finding names the announced ops.
run_doctor 1 "$out/testdev_diagnose" "$build/accel-doctor" diagnose --from "$out/testdev.json"
diagnosis=$(tr '\n' ' ' < "$out/testdev_diagnose.txt" | tr -s ' ')  # findings are wrapped to the width
grep -q "silently fall back to the CPU" <<< "$diagnosis" &&
  grep -q "the backend announced these ops on the CPU: aten::mul.out" <<< "$diagnosis" ||
  { echo "FAIL: no cpu_fallback finding naming the ops:" >&2; cat "$out/testdev_diagnose.txt" >&2; exit 1; }
stamp "4. the test backend (its own run: $(( $(date +%s) - t4 )) s)"

echo "python package test: passed in $(( $(date +%s) - start )) s"
