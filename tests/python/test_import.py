"""`import kiln` changes nothing in the process: not the environment (no
JAX_PLATFORMS), not JAX's configuration; kiln.jit asks JAX for its CPU
device by name. Run in a fresh interpreter without JAX_PLATFORMS, as a user
with a GPU would import kiln for kiln.rewrite."""

import json
import os
import subprocess
import sys

SCRIPT = r"""
import json, os, sys
import jax
env_before = dict(os.environ)  # after JAX's own (TF_CPP_MIN_LOG_LEVEL)
config_before = {k: repr(v) for k, v in jax.config.values.items()}
import kiln
import numpy as np
env_after_import = dict(os.environ)
config_after_import = {k: repr(v) for k, v in jax.config.values.items()}

# Using every entry point changes nothing either.
x = np.arange(4, dtype=np.float32)
out = kiln.jit(lambda v: v * 2)(x)
jout = kiln.jit(lambda v: v + 1, return_jax_arrays=True)(x)
kout = jax.jit(kiln.kernel(lambda v: v - 1))(x)
rout = kiln.rewrite(lambda v: -v)(x)
config_after_use = {k: repr(v) for k, v in jax.config.values.items()}

print(json.dumps({
    "env_import": env_after_import == env_before,
    "env_use": dict(os.environ) == env_before,
    "config_import": [k for k in config_before if config_before[k] != config_after_import.get(k)],
    "config_use": [k for k in config_before if config_before[k] != config_after_use.get(k)],
    "platforms": jax.config.jax_platforms,
    "jax_out_device": str(next(iter(jout.devices()))),
    "results": [np.asarray(out).tolist(), np.asarray(jout).tolist(),
                np.asarray(kout).tolist(), np.asarray(rout).tolist()],
}))
"""


def test_import_kiln_has_no_side_effects():
    env = {k: v for k, v in os.environ.items() if k != "JAX_PLATFORMS"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["env_import"] and got["env_use"]
    assert got["config_import"] == [] and got["config_use"] == []
    assert got["platforms"] is None  # JAX_PLATFORMS was not set for JAX
    assert got["jax_out_device"].startswith("TFRT_CPU") or "cpu" in got["jax_out_device"].lower()
    assert got["results"] == [[0, 2, 4, 6], [1, 2, 3, 4], [-1, 0, 1, 2], [0, -1, -2, -3]]


def test_kiln_module_source_sets_no_environment():
    """No module of the package writes os.environ (a static check beside the
    run above, which sees only the modules it imports)."""
    import re

    import kiln
    package = os.path.dirname(kiln.__file__)
    writes = re.compile(r"environ\[[^]]*\]\s*=[^=]|environ\.(setdefault|update|pop)|putenv|"
                        r"config\.update")
    for name in os.listdir(package):
        if name.endswith(".py"):
            assert not writes.search(open(os.path.join(package, name)).read()), name
