#!/usr/bin/env bash
# Sets up Kiln (dependencies + build), then runs every test (lit + GoogleTest) through ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build"
cd "$build"
ctest --output-on-failure -j"${KILN_JOBS:-$(nproc)}"
