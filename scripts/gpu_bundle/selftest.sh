#!/usr/bin/env bash
# The GPU bundle, checked on a machine without a GPU (ctest's gpu-bundle):
#   bash scripts/gpu_bundle/selftest.sh BUILD WORK PYTHON
# 1. builds the bundle into WORK/gpu, checks its size, and runs its runner,
#    which must load every library and report why no GPU can run them
#    (or, where a GPU is, pass every check);
# 2. builds the same bundle for the CPU into WORK/cpu and runs its checks,
#    then judges the runner's results with check.py (the error model): the
#    runner's logic and the exact check, end to end, without a GPU.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$1" work="$2" python="$3"
rm -rf "$work" && mkdir -p "$work"
"$python" "$here/build.py" --build "$build" --out "$work/gpu"
size=$(du -sb "$work/gpu" | cut -f1)
[ "$size" -le $((32 * 1024 * 1024)) ] || { echo "bundle is $size bytes, over 32 MiB"; exit 1; }
PYTHON="$python" bash "$work/gpu/run.sh" --out "$work/gpu-run" --checks-only > "$work/gpu-run.log"
"$python" - "$work/gpu-run/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
status = report["machine"]["gpu_status"]
checks = report["checks"]
if status:  # no GPU: every library loaded, and the reason is reported
    bad = [c for c in checks if c["status"] != "loaded (no GPU: not run)"]
    assert not bad, bad[:3]
    assert any(status in n for n in report["notes"]), report["notes"]
    print(f"gpu bundle: {len(checks)} libraries load; no GPU: {status}")
else:
    bad = [c for c in checks if c["status"] != "ok"]
    assert not bad, bad[:3]
    print(f"gpu bundle: {len(checks)} checks ok on {report['machine']['device']}")
PY
"$python" "$here/build.py" --build "$build" --out "$work/cpu" --target cpu
PYTHON="$python" bash "$work/cpu/run.sh" --out "$work/cpu-run" --checks-only > "$work/cpu-run.log"
"$python" "$here/check.py" "$work/cpu" "$work/cpu-run" --build "$build" | tail -1
