#!/usr/bin/env bash
# Stages accel-doctor's build dependencies (CLI11, nlohmann-json, fmt, RE2,
# GoogleTest, and pybind11 for the Python module where pip has none) from
# Debian packages into .devdeps/root, for the GPU machine where nothing can
# be installed. Run here; the device run carries .devdeps.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.devdeps
mkdir -p "$out/debs" "$out/root"
pkgs=(libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 libre2-dev libre2-9 libgtest-dev libgmock-dev pybind11-dev)
(cd "$out/debs" && apt-get download "${pkgs[@]}" >/dev/null)
for d in "$out"/debs/*.deb; do dpkg -x "$d" "$out/root"; done
du -sh "$out/root"
