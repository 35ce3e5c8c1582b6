#!/usr/bin/env bash
# Kiln's main demo: sets up (dependencies + build), then takes a seed program
# through Kiln and prints what each step does.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build" >/dev/null
bin="$build/bin"
seeds="$root/examples/seeds"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Seed 000 f1 as written (dot_general, then transpose): $seeds/seed000_f1.mlir"
"$bin/kiln-opt" "$seeds/seed000_f1.mlir"

step "After canonicalization (kiln-opt --canonicalize)"
"$bin/kiln-opt" --canonicalize "$seeds/seed000_f1.mlir"
