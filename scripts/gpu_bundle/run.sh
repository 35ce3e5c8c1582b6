#!/usr/bin/env bash
# Runs the GPU bundle (docs/gpu.md): bash run.sh [--out DIR] [--budget S].
# Needs python3 with numpy; jax with CUDA for the XLA timings. cuBLAS is
# looked for in the CUDA Toolkit and in the Python environment's nvidia
# wheels (where JAX's CUDA plugin has it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
paths="$here/lib"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && paths="$paths:$d"
done
wheels="$("$python" - <<'PY' 2>/dev/null || true
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()]
dirs = sorted({os.path.dirname(p) for r in roots
               for p in glob.glob(os.path.join(r, "nvidia", "*", "lib", "libcublas*.so*"))})
print(":".join(dirs))
PY
)"
[ -n "$wheels" ] && paths="$paths:$wheels"
export LD_LIBRARY_PATH="$paths${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$python" "$here/run.py" "$@"
