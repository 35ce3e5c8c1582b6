"""Plugins from Python: a plugin belongs to the rule sets that name it (not
to every rewrite after it was loaded), and a process that used rules and
then a plugin exits cleanly (it used to crash in the exit handlers)."""

import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from jax import lax

import kiln

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = (Path(os.environ.get("KILN_BIN", ROOT / "build" / "bin")).parent / "lib"
          / "libKilnExamplePlugin.so")

pytestmark = pytest.mark.skipif(not PLUGIN.exists(), reason="the example plugin is not built")

# Calls the example plugin's native constraint is_even; named apart from
# the plugin's own rule (even-power-of-neg), which does the same.
EVEN = """
- name: my-even-power
  match: {root: 'lax.integer_pow(lax.neg($x)) {y = $n}'}
  where: 'is_even($n)'
  rewrite: {root: 'lax.integer_pow($x) {y = $n}'}
"""


def even_power(x):
    return lax.integer_pow(-x, 4) + lax.integer_pow(-x, 3)


def test_rules_then_plugin_exit_cleanly(python_env):
    script = f"""
import numpy as np, kiln
x = np.ones(4, np.float32)
print(kiln.jit(lambda x: -x, rules="- name: nn\\n  match: {{root: 'lax.neg(lax.neg($x))'}}\\n"
                                 "  rewrite: {{root: $x}}\\n")(x).tolist())
print(kiln.jit(lambda x: x + 1, plugins=[{str(PLUGIN)!r}])(x).tolist())
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, env=python_env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split("\n")[:2] == ["[-1.0, -1.0, -1.0, -1.0]", "[2.0, 2.0, 2.0, 2.0]"]


def test_a_plugin_serves_only_the_rules_that_name_it():
    x = np.linspace(-2, 2, 12, dtype=np.float32)
    # (-x)^4 == x^4 exactly: the rewritten program computes what the
    # original does bit for bit; XLA fuses the add into a multiply-add
    # (docs/python.md, Numerics), so jax.jit agrees within rounding.
    want = np.asarray(kiln.jit(even_power)(x))
    np.testing.assert_allclose(want, np.asarray(jax.jit(even_power)(x)), rtol=1e-6)
    with_plugin = kiln.jit(even_power, rules=EVEN, plugins=[str(PLUGIN)])
    np.testing.assert_array_equal(np.asarray(with_plugin(x)), want)
    stats = with_plugin.lower(x).rule_stats()
    assert stats.get("my-even-power") == 1 and stats.get("even-power-of-neg", 0) == 0, stats
    # Loaded now, the plugin still does not serve rules that do not name it:
    # the same file fails the same way whatever ran before, naming the plugin.
    with pytest.raises(kiln.RuleError, match="unknown native function 'is_even'.*plugin 'example'"):
        kiln.jit(even_power, rules=EVEN)(x)
    # ... and its own patterns and rules stay out of plain kiln.jit.
    plain = kiln.jit(even_power).lower(x).optimized().as_text()
    assert plain.count("lax.neg") == 1, plain


def test_the_plugins_own_rules_run_with_it():
    x = np.linspace(-2, 2, 12, dtype=np.float32)
    lowered = kiln.jit(even_power, plugins=[str(PLUGIN)]).lower(x)
    assert lowered.rule_stats().get("even-power-of-neg") == 1
    np.testing.assert_array_equal(np.asarray(lowered.compile()(x)), np.asarray(kiln.jit(even_power)(x)))
