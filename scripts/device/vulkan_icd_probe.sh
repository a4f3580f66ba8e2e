#!/usr/bin/env bash
# Second pass on the GPU machine: where is NVIDIA's Vulkan ICD library; point
# the loader at it when the packaged JSON names a library that is absent.
set -uo pipefail
R=/tmp/vulkan-r2; rm -rf $R; mkdir -p $R "$OUT"
trap 'tar -C /tmp -czf "$OUT/vulkan2.tar.gz" vulkan-r2' EXIT
{ cat /usr/share/vulkan/icd.d/nvidia_icd.json; ls -la /usr/lib/x86_64-linux-gnu | grep -i -E "nvidia|GLX|EGL" | head -60
  find / -xdev \( -name 'libGLX_nvidia.so*' -o -name 'libEGL_nvidia.so*' -o -name 'libnvidia-glcore*' -o -name 'libnvidia-gpucomp*' -o -name 'libnvidia-glvkspirv*' \) 2>/dev/null; } > $R/icd.txt 2>&1
L=$(find / -xdev -name 'libGLX_nvidia.so.0' 2>/dev/null | head -1)
echo "ICD library: ${L:-none}" | tee -a $R/icd.txt
BIN=/tmp/build-vulkan/accel-doctor
cd $R
if [ -n "$L" ]; then
  sed "s|\"library_path\": *\"[^\"]*\"|\"library_path\": \"$L\"|" /usr/share/vulkan/icd.d/nvidia_icd.json > $R/nvidia_icd.json
  export VK_ICD_FILENAMES=$R/nvidia_icd.json
fi
VK_LOADER_DEBUG=error,warn,driver timeout 20 $BIN bench --vulkan > $R/debug.txt 2>&1; echo "debug exit $?" >> $R/icd.txt
$BIN bench --vulkan --json vulkan_only.json > vulkan_only.txt 2>&1; echo "vulkan_only exit $?" | tee -a $R/icd.txt
$BIN bench --quick --no-cpu --vulkan --filter memory/copy,memory/reduce,gemm/square/fp32/4096x4096x4096,gemm/square/fp16/4096x4096x4096,transfer/h2d_pinned/fp32/256MiB,transfer/d2h_pinned/fp32/256MiB --json joined.json > joined.txt 2>&1; echo "joined exit $?" | tee -a $R/icd.txt
