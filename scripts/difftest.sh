#!/usr/bin/env bash
# Long differential-testing campaigns (tests/differential, docs/soundness.md):
# generated lax programs, each compared with the reference interpreter on the
# original program after every Kiln pass, --canonicalize, the CPU JIT and the
# rule library (kiln-verify-rules on a sample).
#
#   scripts/difftest.sh --programs N --seed S [--jobs J] [--bin DIR] [--snapshot]
#                       [--reduce --save DIR] [--json FILE] [run.py options...]
#
# --snapshot first copies the tools and their libraries to a scratch
# directory (under the build lock) and tests that copy, so that a rebuild in
# the shared tree cannot relink them under a running campaign; the rule
# library and examples/rules are copied with them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${KILN_PYTHON:-$here/.venv/bin/python}"
bin="$here/build/bin"
snapshot=0
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --snapshot) snapshot=1; shift ;;
    --bin) bin="$2"; shift 2 ;;
    --bin=*) bin="${1#--bin=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
if [[ $snapshot == 1 ]]; then
  snap="$(mktemp -d "${TMPDIR:-/tmp}/kiln-difftest-bin.XXXXXX")"
  trap 'rm -rf "$snap"' EXIT
  mkdir -p "$snap/lib"
  copy() {
    cp "$bin/kiln-opt" "$bin/kiln-run" "$bin/kiln-verify-rules" "$bin/kiln-difftest" "$snap/"
    cp -L "$bin"/../lib/*.so "$snap/lib/" 2>/dev/null || true
    # The rules kiln-verify-rules checks, as the copied tools know them (a
    # rule edited in the tree may use a constraint the copy lacks).
    mkdir -p "$snap/rules"
    cp -r "$here/rules/library" "$snap/rules/library"
    cp -r "$here/examples/rules" "$snap/rules/examples"
  }
  if command -v flock > /dev/null; then
    (flock 9; copy) 9> /tmp/kiln-build.lock
  else
    copy
  fi
  bin="$snap"
  # The tools' RUNPATH names the build tree's lib/ and the JIT's runtime
  # path is compiled in: without these, a rebuild in the tree still swapped
  # libraries under the campaign (kiln-verify-rules and the JIT crashed on
  # half-written ones in the campaign of seeds 300000-319999).
  export LD_LIBRARY_PATH="$snap/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export KILN_RUNTIME_CPU="$snap/lib/libKilnRuntimeCpu.so"
  args=(--rules "$snap/rules/library" --rules "$snap/rules/examples" "${args[@]}")
fi
"$python" "$here/tests/differential/run.py" --bin "$bin" "${args[@]}"
