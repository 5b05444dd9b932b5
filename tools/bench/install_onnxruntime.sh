#!/usr/bin/env bash
# Installs ONNX Runtime's shared library (from the onnxruntime-node npm package, which ships
# libonnxruntime.so.1 for linux x64) into a cache directory, once, and prints its path.
#   tools/bench/install_onnxruntime.sh [cache-dir]
# --ignore-scripts: the package's install step would try to download more and fails offline.
set -euo pipefail
version=1.30.0
cache="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/mlc/onnxruntime-${version}}"
lib="$cache/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1"
if [[ ! -f "$lib" ]]; then
  mkdir -p "$cache"
  (cd "$cache" && npm install --prefix "$cache" "onnxruntime-node@${version}" --ignore-scripts --no-audit --no-fund \
      > "$cache/npm.log" 2>&1) || { echo "install_onnxruntime: npm install failed (see $cache/npm.log)" >&2; exit 1; }
fi
[[ -f "$lib" ]] || { echo "install_onnxruntime: $lib is missing after the install" >&2; exit 1; }
echo "$lib"
