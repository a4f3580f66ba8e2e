#!/usr/bin/env bash
# Issue 13's validation on a GPU machine: the Vulkan compute ceiling against
# the datasheet and against the torch engine in the same run.
#   scripts/device/stage_vulkan.sh DIR          (here: the .debs and this tree, packed)
#   OUT=... bash scripts/device/vulkan_validate.sh DIR   (there, from the unpacked tree)
# DIR/gl/*.deb: Debian's Vulkan loader and GL vendor-neutral libraries
# (libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2), unpacked
# to / with ldconfig at the start (the GPU machine has NVIDIA's driver but no
# loader; the workplace's device notes give this recipe). DIR/tools/*.deb: the
# build's Debian tools and headers (glslc, libshaderc1, spirv-tools,
# libvulkan-dev, CLI11, nlohmann-json, fmt, RE2), unpacked apart in /tmp/tools.
# Tries the ICD manifests one by one until one gives a GPU (the default
# search, the driver's own under /usr/local/nvidia, a manifest naming the EGL
# or the GLX library by absolute path), records why each failed, then
# measures. Packs everything into $OUT/vulkan.tar.gz, summary.txt beside it.
set -uo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
DEPS="$(cd "${1:?usage: vulkan_validate.sh DIR}" && pwd)"
OUT="${OUT:-/tmp/vulkan-out}"; R=/tmp/vulkan-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/vulkan.tar.gz" vulkan-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
say() { echo "$*" | tee -a "$R/summary.txt"; }
t_start=$(date +%s)
for d in "$DEPS"/gl/*.deb; do dpkg -x "$d" /; done
ldconfig
mkdir -p /tmp/tools
for d in "$DEPS"/tools/*.deb; do dpkg -x "$d" /tmp/tools; done
T=/tmp/tools/usr
for tool in glslc spirv-as spirv-val; do  # the tools' own libraries, for them alone
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/lib/x86_64-linux-gnu exec %s/bin/%s "$@"\n' "$T" "$T" "$tool" > /tmp/tools/$tool
  chmod +x /tmp/tools/$tool
done

{ echo "== host"; date -u; nproc; nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader
  cat /proc/driver/nvidia/version; uname -r; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
  env | grep -E '^(NVIDIA|VK_|__EGL|__GLX)' ; ls -la /dev/nvidia* /dev/dri 2>&1
  echo "== ICD manifests"; for f in /usr/share/vulkan/icd.d/* /etc/vulkan/icd.d/* /usr/local/nvidia/share/vulkan/icd.d/* \
      /usr/share/glvnd/egl_vendor.d/* /usr/local/nvidia/share/glvnd/egl_vendor.d/*; do [ -f "$f" ] && { echo "-- $f"; cat "$f"; }; done
  echo "== libraries"; ldconfig -p | grep -E 'vulkan|GLX|EGL|GLdispatch|nvidia-glcore|nvidia-gpucomp|nvidia-glvkspirv|nvidia-tls|nvidia-glsi'
  find / -xdev \( -name 'libGLX_nvidia.so*' -o -name 'libEGL_nvidia.so*' -o -name 'libnvidia-glcore.so*' \
      -o -name 'libnvidia-gpucomp.so*' -o -name 'libnvidia-glvkspirv.so*' \) 2>/dev/null | xargs ls -la 2>/dev/null
  echo "== CUDA L2"; python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(p.name, 'L2_cache_size', getattr(p, 'L2_cache_size', 'n/a'), 'SMs', p.multi_processor_count)"
} > "$R/machine.txt" 2>&1
say "host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>/dev/null | head -1); $(grep -m1 'L2_cache_size' "$R/machine.txt")"

BUILD=/tmp/build-vulkan; rm -rf "$BUILD"
t0=$(date +%s)
cmake -S "$SRC" -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$T" -DACCEL_GLSLC=/tmp/tools/glslc -DACCEL_SPIRV_AS=/tmp/tools/spirv-as \
  -DACCEL_SPIRV_VAL=/tmp/tools/spirv-val > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
grep "Vulkan ceiling" "$R/configure.txt" | tee -a "$R/summary.txt"
ninja -C $BUILD -j "$(nproc)" accel-doctor > "$R/build.txt" 2>&1; rc=$?
say "front end build rc=$rc in $(( $(date +%s) - t0 )) s"
# The torch engine (the framework side of the join) builds while the ICDs are probed.
ninja -C $BUILD -j "$(nproc)" accel-doctor-torch > "$R/build_engine.txt" 2>&1 &
engine_build=$!
BIN=$BUILD/accel-doctor
[ -x "$BIN" ] || { say "no binary"; grep -E "error|FAILED" "$R/build.txt" | head -20 | tee -a "$R/summary.txt"; exit 1; }

cd "$R"
manifest() {  # name library: a manifest naming the library by absolute path
  printf '{"file_format_version": "1.0.1", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' "$2" > "$R/$1.json"
  echo "$R/$1.json"
}
EGL=$(find / -xdev -name 'libEGL_nvidia.so.0' 2>/dev/null | head -1)
GLX=$(find / -xdev -name 'libGLX_nvidia.so.0' 2>/dev/null | head -1)
variants=("default|" "nvidia-share|/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json")
[ -n "$EGL" ] && variants+=("egl-abs|$(manifest egl "$EGL")")
[ -n "$GLX" ] && variants+=("glx-abs|$(manifest glx "$GLX")")
chosen=""
for v in "${variants[@]}"; do
  name=${v%%|*}; file=${v#*|}
  [ -n "$file" ] && [ ! -f "$file" ] && { say "ICD $name: $file absent"; continue; }
  ( [ -n "$file" ] && export VK_DRIVER_FILES="$file" VK_ICD_FILENAMES="$file" \
      __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    VK_LOADER_DEBUG=error,warn,driver timeout 120 "$BIN" bench --vulkan --json "vk_$name.json" \
      > "vk_$name.txt" 2> "vk_$name.err" ); rc=$?
  say "ICD $name (${file:-loader default}): exit $rc; $(grep -m1 -E 'Vulkan device 0|not measured|vkCreateInstance' "vk_$name.txt" "vk_$name.err" | head -1)"
  if [ $rc -eq 0 ] && grep -q '"discrete_gpu"' "vk_$name.json" 2>/dev/null; then chosen=$v; break; fi
done
wait $engine_build; say "engine build rc=$? at $(( $(date +%s) - t_start )) s"
[ -z "$chosen" ] && { say "RESULT: no ICD gave a Vulkan GPU"; exit 0; }
name=${chosen%%|*}; file=${chosen#*|}
say "RESULT: Vulkan GPU through ICD '$name'"
[ -n "$file" ] && export VK_DRIVER_FILES="$file" VK_ICD_FILENAMES="$file" \
  __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
run() {  # name, args...
  local n=$1; shift; local s; s=$(date +%s.%N)
  timeout 240 "$BIN" "$@" --json "$R/$n.json" > "$R/$n.txt" 2> "$R/$n.err"; local rc=$?
  say "$n: accel-doctor $* -> exit $rc in $(python3 -c "print(f'{$(date +%s.%N) - $s:.1f}')") s"
}
run vulkan_2 bench --vulkan
run torch_copy bench --quick --no-cpu --filter memory/copy
run joined bench --quick --no-cpu --vulkan \
  --filter memory/copy,memory/reduce,gemm/square/fp32/4096x4096x4096,gemm/square/fp16/4096x4096x4096,gemm/square/int8/4096x4096x4096,transfer/h2d_pinned/fp32/256MiB,transfer/d2h_pinned/fp32/256MiB
cat "vk_$name.txt" joined.txt >> "$R/summary.txt"
python3 - "vk_$name.json" vulkan_2.json joined.json <<'PY' | tee -a "$R/summary.txt"
import json, sys
def rows(p):
    try: return json.load(open(p))["results"]
    except Exception as e: print(p, "unreadable:", e); return []
def fig(r): return r["metrics"].get("tflops") or r["metrics"].get("tops") or r["metrics"].get("gbps") or 0
def gpu_rows(p): return [r for r in rows(p) if r["key"].startswith("bench/vulkan/") and
                         not r["evidence"].get("vulkan_device", {}).get("software", True)]
runs = [gpu_rows(p) for p in sys.argv[1:]]
keys = sorted({r["key"] for run in runs for r in run})
for k in keys:
    figs = [f'{fig(r):.4g}' for run in runs for r in run if r["key"] == k and r["status"] == "ok"]
    st = [r["status"] for run in runs for r in run if r["key"] == k]
    iqr = [f'{100*r["timing"]["iqr_us"]/r["timing"]["median_us"]:.1f}%' for run in runs for r in run
           if r["key"] == k and r.get("timing")]
    print(f'{k}: {", ".join(figs)} (statuses {st}; IQR/median {iqr})')
fma = [fig(r) for run in runs for r in run if r["key"] == "bench/vulkan/compute/fma/fp32/chains32" and r["status"] == "ok"]
if fma:
    fma.sort(); t = fma[len(fma)//2]
    print(f"TARGET fp32 FMA median of {len(fma)} runs {t:.1f} TFLOP/s = {100*t/67:.1f}% of 67 (>= 85%: {'PASS' if t >= 0.85*67 else 'FAIL'})")
torch = [r for r in rows("torch_copy.json") + rows("joined.json")
         if r["key"] == "bench/cuda/memory/copy/fp32/rotating" and r["status"] == "ok"]
vcopy = [r for run in runs for r in run if r["key"] == "bench/vulkan/memory/copy/u32/large" and r["status"] == "ok"]
if torch and vcopy:
    a = sorted(r["metrics"]["gbps"] for r in vcopy)[len(vcopy)//2]
    b = sorted(r["metrics"]["gbps"] for r in torch)[len(torch)//2]
    print(f"TARGET copy: Vulkan median {a:.0f} GB/s ({len(vcopy)} runs) vs torch {b:.0f} GB/s ({len(torch)} runs) = {a/b:.3f}x (>= 0.95: {'PASS' if a >= 0.95*b else 'FAIL'})")
for r in rows("joined.json"):
    if r["key"].startswith("bench/vulkan/") and "framework_ratio" in r["metrics"]:
        print(f'joined {r["key"]}: framework {r["evidence"]["framework"]["key"]} / ceiling = {r["metrics"]["framework_ratio"]:.3f}')
PY
say "total $(( $(date +%s) - t_start )) s"
