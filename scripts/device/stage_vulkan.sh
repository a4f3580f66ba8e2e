#!/usr/bin/env bash
# Stages issue 13's Vulkan validation for the GPU machine (nothing can be
# installed there): Debian's .debs in DIR/gl and DIR/tools (see
# vulkan_validate.sh) and this tree's build inputs in DIR/src.tar.gz
# (tracked and new files; no docs, tests or fixtures: the run builds with
# -DACCEL_BUILD_TESTS=OFF). DIR must be a path the device call carries.
#   scripts/device/stage_vulkan.sh DIR
# There:  mkdir -p /tmp/src && tar -xzf DIR/src.tar.gz -C /tmp/src &&
#         OUT=$OUT bash /tmp/src/scripts/device/vulkan_validate.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
dir="${1:?usage: stage_vulkan.sh DIR}"
mkdir -p "$dir/gl" "$dir/tools"
(cd "$dir/gl" && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
(cd "$dir/tools" && apt-get download libvulkan-dev glslc libshaderc1 spirv-tools libcli11-dev \
  nlohmann-json3-dev libfmt-dev libfmt9 libre2-dev libre2-9 >/dev/null)
git ls-files --cached --others --exclude-standard -- CMakeLists.txt cmake src kb third_party web scripts \
  | tar -czf "$dir/src.tar.gz" -T -
du -sh "$dir"
