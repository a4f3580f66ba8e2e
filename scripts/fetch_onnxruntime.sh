#!/usr/bin/env bash
# Fetches ONNX Runtime's shared libraries for the tests of the ONNX Runtime
# engine (issue 12) from npm's onnxruntime-node package, without running its
# install script (which downloads more from the internet): `npm pack` only
# downloads the tarball, and we extract the runtime libraries from it.
# Idempotent: a finished cache folder (marked by .complete) is left as is.
#   scripts/fetch_onnxruntime.sh            prints the cache folder
# Layout of onnxruntime-node 1.30.0 (checked with `tar tzf`):
#   package/bin/napi-v6/linux/x64/libonnxruntime.so.1     (no .so.1.30.0)
#   package/bin/napi-v6/win32/x64/{onnxruntime,DirectML,dxcompiler,dxil}.dll
set -euo pipefail
version="${ORT_NODE_VERSION:-1.30.0}"
dest="${XDG_CACHE_HOME:-$HOME/.cache}/accel-doctor/onnxruntime-node-$version"
if [ -f "$dest/.complete" ]; then
  echo "$dest"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "fetch_onnxruntime: npm is needed (apt-get install npm)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "onnxruntime-node@$version" >/dev/null)
tar -xzf "$tmp/onnxruntime-node-$version.tgz" -C "$tmp" \
  package/bin/napi-v6/linux/x64/libonnxruntime.so.1 \
  package/bin/napi-v6/win32/x64/onnxruntime.dll \
  package/bin/napi-v6/win32/x64/DirectML.dll
mkdir -p "$dest/linux-x64" "$dest/win32-x64"
cp "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$dest/linux-x64/"
cp "$tmp/package/bin/napi-v6/win32/x64/onnxruntime.dll" \
  "$tmp/package/bin/napi-v6/win32/x64/DirectML.dll" "$dest/win32-x64/"
touch "$dest/.complete"
echo "$dest"
