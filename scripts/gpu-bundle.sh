#!/usr/bin/env bash
# Builds the GPU bundle (docs/gpu.md, "The GPU bundle") into BUILD/gpu-bundle:
#   bash scripts/gpu-bundle.sh [build-dir] [out-dir]
# then checks, without a GPU, that it runs: every library loads and the
# runner reports why no GPU can run it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="${2:-$build/gpu-bundle}"
python="${KILN_PYTHON:-$root/.venv/bin/python}"
"$python" "$root/scripts/gpu_bundle/build.py" --build "$build" --out "$out"
du -sh "$out"
