#!/usr/bin/env bash
# Creates (or refreshes) the Python environment of the JAX conformance corpus
# (tests/jax/): a venv with exactly the packages pinned in requirements.txt.
#
#   bash scripts/python-env.sh [VENV_DIR]      # default: <repo>/.venv
#
# Idempotent: the sha256 of requirements.txt installed last is kept in
# VENV_DIR/.kiln-requirements.sha256; when it matches, the script prints one
# line and does nothing else. When requirements.txt changed, the venv is built
# anew, so that it holds the pinned set and nothing left over.
#
# CPU only: requirements.txt is the complete, closed set of pins (transitive
# ones included) and is installed with `pip install --no-deps`, so pip never
# resolves anything on its own and cannot pull in a CUDA wheel; the script
# also refuses a venv that ends up with any nvidia-* or jax-cuda* package.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$repo/.venv}"
req="$repo/requirements.txt"
stamp="$venv/.kiln-requirements.sha256"

[ -f "$req" ] || { echo "python-env: $req not found" >&2; exit 1; }
want="$(sha256sum "$req" | cut -d' ' -f1)"

# Fast path: the pinned set is already installed and the interpreter runs.
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
   "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
  echo "python-env: $venv is up to date (requirements.txt ${want:0:12})"
  exit 0
fi

log() { echo "python-env: $*"; }

# A venv from an older requirements.txt (or a broken one) is rebuilt from
# scratch. Only a directory that is a venv (pyvenv.cfg) is ever removed.
if [ -e "$venv" ]; then
  if [ -f "$venv/pyvenv.cfg" ]; then
    log "rebuilding $venv (requirements.txt changed or the venv is broken)"
    rm -rf "$venv"
  elif [ -n "$(ls -A "$venv" 2>/dev/null)" ]; then
    echo "python-env: $venv exists and is not a venv; refusing to touch it" >&2
    exit 1
  fi
fi

# python3 -m venv; where venv/ensurepip are missing (Debian's python3 without
# python3-venv), install python3-venv and use the system interpreter.
make_venv() { "$1" -m venv "$venv" >/dev/null 2>&1 && [ -x "$venv/bin/pip" ]; }
if ! make_venv python3; then
  rm -rf "$venv"
  log "python3 -m venv failed; installing python3-venv"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq python3-venv >/dev/null
  make_venv /usr/bin/python3 || { echo "python-env: cannot create a venv" >&2; exit 1; }
fi

log "installing requirements.txt into $venv"
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$venv/bin/python" -m pip install --quiet --no-deps --only-binary=:all: -r "$req"
# The pins must form a consistent, closed set (pip check: every dependency of
# every installed package is installed in a compatible version).
"$venv/bin/python" -m pip check >/dev/null || {
  "$venv/bin/python" -m pip check >&2 || true
  echo "python-env: requirements.txt is not a closed, consistent set of pins" >&2
  exit 1
}
if "$venv/bin/python" -m pip list --format=freeze | grep -qiE '^(nvidia-|jax-cuda|jax_cuda)'; then
  echo "python-env: a CUDA package was installed; requirements.txt must be CPU only" >&2
  exit 1
fi
echo "$want" >"$stamp"
log "ready: $("$venv/bin/python" -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__)')"
