#!/usr/bin/env bash
# Installs Kiln's dependencies (Debian 12 packages, idempotent), then configures and builds.
# Usage: scripts/setup.sh [build-dir]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"

packages=(
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
  libyaml-cpp-dev libeigen3-dev libopenblas-pthread-dev libgtest-dev
  cmake ninja-build ccache g++ python3 python3-numpy python3-dev python3-venv
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The pinned Python environment (.venv: jax, jaxlib CPU, equinox, flax,
# optax, diffrax, pytest) of the JAX conformance corpus and the benchmarks.
"$root/scripts/python-env.sh" "${KILN_VENV:-$root/.venv}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm
fi
cmake --build "$build" -j"${KILN_JOBS:-$(nproc)}"

# `import kiln` in the venv: the package is assembled in $build/python
# (python/CMakeLists.txt); a .pth file puts it on the venv's path.
venv="${KILN_VENV:-$root/.venv}"
if [ -d "$build/python/kiln" ]; then
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$build/python" >"$site/kiln.pth"
fi
