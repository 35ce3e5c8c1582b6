#!/usr/bin/env bash
# Kiln's main demo: sets up (dependencies + build), then takes the seeds'
# programs through Kiln: import a jaxpr as JAX prints it, rewrite it with a
# YAML rule file, compile it with the LLVM JIT, check the numbers against the
# reference interpreter, and time it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build" >/dev/null
bin="$build/bin"
seeds="$root/examples/seeds"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*" | sed "s|$root/||g; s|$bin/||g; s|$tmp/|/tmp/|g"; "$@"; }

step "Seed 002: the loss mean((y - scan(f, c, xs).ys)**2), as JAX printed its jaxpr"
cat "$seeds/seed002_before.jaxpr"

step "1. Import the jaxpr (old untyped format: input types on the command line)"
run "$bin/kiln-translate" --import-jaxpr "$seeds/seed002_before.jaxpr" \
  --jaxpr-input-types="f32[10,5,8],f32[30,15,12],f32[30,15,12]" -o "$tmp/mse.mlir"
cat "$tmp/mse.mlir"

step "2. Rewrite with a YAML rule file (no rebuild): push the reduction into the scan"
echo "   The float sum regroups, so its rule is tagged reassociates-float and runs only when enabled."
run "$bin/kiln-opt" "$tmp/mse.mlir" --rules="$root/examples/rules/scan_pushup.yaml" \
  --rule-tags=+reassociates-float --rule-stats --kiln-apply-rules --canonicalize -o "$tmp/mse-pushed.mlir"
cat "$tmp/mse-pushed.mlir"

step "3. Compile (LLVM JIT), run, check against the reference interpreter, time"
echo "-- as written (stacked 30x15x12 output, then reduced):"
run "$bin/kiln-run" "$tmp/mse.mlir" --random-inputs --seed 1 --check --repeat 200
echo "-- with the push-up (a running sum carried by the scan):"
run "$bin/kiln-run" "$tmp/mse-pushed.mlir" --random-inputs --seed 1 --check --repeat 200

step "Seed 000: f1 (dot_general + transpose) and f2 (einsum) end in the same IR"
run "$bin/kiln-opt" --kiln-optimize "$seeds/seed000_f1.mlir" -o "$tmp/f1.mlir"
run "$bin/kiln-opt" --kiln-optimize "$seeds/seed000_f2.mlir" -o "$tmp/f2.mlir"
if diff <(sed 's/@f1/@f/' "$tmp/f1.mlir") <(sed 's/@f2/@f/' "$tmp/f2.mlir") >/dev/null; then
  echo "identical after --kiln-optimize:"; cat "$tmp/f1.mlir"
else
  echo "NOT identical"; exit 1
fi

step "Seed 003: TDMA written with transposes and [::-1]; the scans take them over"
run "$bin/kiln-opt" --kiln-optimize "$seeds/seed003_tdma.mlir" -o "$tmp/tdma.mlir"
grep -E "lax\.(scan|transpose|rev)" "$tmp/tdma.mlir" | sed 's/ : .*//'
run "$bin/kiln-run" "$tmp/tdma.mlir" --random-inputs --positive-inputs --check --repeat 20

step "From Python: kiln.jit and kiln.rewrite on the seeds' own JAX code (examples/python/quickstart.py)"
run "${KILN_VENV:-$root/.venv}/bin/python" "$root/examples/python/quickstart.py"

echo
echo "Next: docs/python.md (import kiln), docs/rules.md (write your own rules), docs/rewrites.md,"
echo "bench/run (peers side by side)."
