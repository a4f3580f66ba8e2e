#!/usr/bin/env bash
# Issue 13's validation on a GPU machine: the Vulkan compute ceiling against
# the datasheet and against the torch engine in the same run.
#   OUT=... scripts/device/vulkan_validate.sh
# Needs Debian's libvulkan1, libvulkan-dev, glslc, libshaderc1 .debs in
# .devdeps-vulkan/ (apt-get download them; the GPU machine has NVIDIA's Vulkan
# driver but no loader) and the staged build deps in .devdeps/.
# Packs everything into $OUT/vulkan.tar.gz and copies summary.txt beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/vulkan-out}"; R=/tmp/vulkan-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/vulkan.tar.gz" vulkan-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
say() { echo "$*" | tee -a "$R/summary.txt"; }
for d in .devdeps-vulkan/*.deb; do dpkg -x "$d" /; done
ldconfig
say "host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>/dev/null | head -2 | tr '\n' ';')"
say "Vulkan ICDs: $(ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d 2>/dev/null | tr '\n' ' ')"
ls -la /usr/lib/x86_64-linux-gnu/libGLX_nvidia* /usr/lib/x86_64-linux-gnu/libnvidia-glvkspirv* >> "$R/icd_libs.txt" 2>&1

BUILD=/tmp/build-vulkan; rm -rf "$BUILD"
t0=$(date +%s)
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr" > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
grep "Vulkan ceiling" "$R/configure.txt" | tee -a "$R/summary.txt"
ninja -C $BUILD -j "$(nproc)" accel-doctor accel-doctor-torch > "$R/build.txt" 2>&1; rc=$?
say "build rc=$rc in $(( $(date +%s) - t0 )) s"
grep -E "error|FAILED" "$R/build.txt" | head -20
BIN=$BUILD/accel-doctor
[ -x "$BIN" ] || { say "no binary"; exit 1; }

run() {  # name, args...
  local name=$1; shift
  local s; s=$(date +%s.%N)
  "$BIN" "$@" --json "$R/$name.json" > "$R/$name.txt" 2> "$R/$name.err"; local rc=$?
  say "$name: accel-doctor $* -> exit $rc in $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s"
}
cd "$R"
run vulkan_only bench --vulkan
run torch_copy bench --quick --no-cpu --filter memory/copy
run joined bench --quick --no-cpu --vulkan \
  --filter memory/copy,memory/reduce,gemm/square/fp32/4096x4096x4096,gemm/square/fp16/4096x4096x4096,transfer/h2d_pinned/fp32/256MiB,transfer/d2h_pinned/fp32/256MiB
cat vulkan_only.txt joined.txt >> "$R/summary.txt"
python3 - <<'PY' | tee -a "$R/summary.txt"
import json
def rows(p):
    try: return json.load(open(p))["results"]
    except Exception as e: print(p, "unreadable:", e); return []
def fig(r): return r["metrics"].get("tflops") or r["metrics"].get("gbps") or 0
vk = [r for r in rows("vulkan_only.json") if r["key"].startswith("bench/vulkan/")]
gpu = [r for r in vk if not r["evidence"].get("vulkan_device", {}).get("software", True)]
for r in vk:
    print(f'{r["device"]} {r["key"]}: {r["status"]} {fig(r):.2f} {r.get("reason","")}')
fma = [r for r in gpu if r["key"] == "bench/vulkan/compute/fma/fp32/chains32" and r["status"] == "ok"]
if fma:
    t = fma[0]["metrics"]["tflops"]
    print(f"TARGET fp32 FMA {t:.1f} TFLOP/s = {100*t/67:.1f}% of 67 (>= 85%: {'PASS' if t >= 0.85*67 else 'FAIL'})")
torch = [r for r in rows("torch_copy.json") if r["key"] == "bench/cuda/memory/copy/fp32/rotating" and r["status"] == "ok"]
vcopy = [r for r in gpu if r["key"] == "bench/vulkan/memory/copy/u32/large" and r["status"] == "ok"]
if torch and vcopy:
    a, b = vcopy[0]["metrics"]["gbps"], torch[0]["metrics"]["gbps"]
    print(f"TARGET copy: Vulkan {a:.0f} GB/s vs torch {b:.0f} GB/s = {a/b:.3f}x (>= 0.95: {'PASS' if a >= 0.95*b else 'FAIL'})")
for r in rows("joined.json"):
    if r["key"].startswith("bench/vulkan/") and "framework_ratio" in r["metrics"]:
        print(f'joined {r["key"]}: framework {r["evidence"]["framework"]["key"]} / ceiling = {r["metrics"]["framework_ratio"]:.3f}')
PY
