"""kiln.Rules: errors when the rules are built, Rules.verify's report
(no temporary paths, small shapes, progress)."""

from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import kiln

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text,message", [
    ("- name: broken\n  match:\n    root: lax.neg(\n", "expected an expression"),
    ("- name: b\n  mtch: {root: 'lax.neg($x)'}\n  rewrite: {root: $x}\n", "unknown key 'mtch'"),
    ("- name: b\n  match: {root: 'lax.nosuchop($x)'}\n  rewrite: {root: $x}\n", "unknown op"),
    ("rules: []\n", "a rule file must be a list of rules"),
])
def test_rule_errors_are_raised_when_the_rules_are_built(text, message, tmp_path):
    with pytest.raises(kiln.RuleError, match=message) as e:
        kiln.Rules.from_text(text, name="mine.yaml")
    assert str(e.value).startswith("mine.yaml:") and "kiln-rules-" not in str(e.value)
    path = tmp_path / "file.yaml"
    path.write_text(text)
    with pytest.raises(kiln.RuleError, match=message):
        kiln.Rules.from_file(path)
    with pytest.raises(kiln.RuleError, match=message):
        kiln.jit(lambda x: -x, rules=text)  # at kiln.jit, before any call
    with pytest.raises(kiln.RuleError, match=message):
        kiln.rewrite(lambda x: -x, rules=str(path))


def test_a_function_a_plugin_may_define_is_checked_at_first_use():
    text = "- name: b\n  match: {root: 'lax.neg($x)'}\n  where: 'no_such_native($x)'\n  rewrite: {root: $x}\n"
    rules = kiln.Rules.from_text(text, name="native.yaml")  # a plugin may come later
    with pytest.raises(kiln.RuleError, match="unknown native function 'no_such_native'"):
        kiln.jit(lambda x: -x, rules=rules)(np.ones(2, np.float32))


WRONG = "- name: wrong\n  match: {root: 'lax.neg(lax.neg($x))'}\n  rewrite: {root: 'lax.neg($x)'}\n"


def test_verify_errors_name_no_temporary_path():
    bad = kiln.Rules.from_text(WRONG, name="wrong.yaml")
    lowered = kiln.jit(lambda x: -(-x) * 2.0, rules=bad).lower(np.ones((3, 4), np.float32))
    with pytest.raises(kiln.RuleError) as e:
        bad.verify(lowered, lowered.program, progress=False)
    msg = str(e.value)
    assert "UNSOUND" in msg and "rule 'wrong'" in msg and "<program 0>: @main" in msg
    assert "/tmp" not in msg and "kiln-verify-" not in msg and "kiln-rules-" not in msg


def mse(x1, x2, y):
    return jnp.square(y - lax.scan(lambda c, xs: (jnp.sin(c), jnp.cos(xs)), x1, x2)[1]).mean()


def test_verify_checks_small_shapes_and_shows_progress():
    rules = kiln.Rules.from_file(ROOT / "examples" / "rules" / "scan_pushup.yaml")
    args = (np.ones((10, 5, 8), np.float32), np.ones((30, 15, 12), np.float32),
            np.ones((30, 15, 12), np.float32))
    lowered = kiln.jit(mse, rules=rules, tags=["reassociates-float"], optimize=False).lower(*args)
    lines = []
    report = rules.verify(lowered, progress=lines.append)
    assert report.startswith("# program 0: checked on small shapes (float32[7,5,6], "
                             "float32[10,9,8], float32[10,9,8])")
    assert "rule 'sink-elementwise-into-scan': 1 instance(s)" in report
    # Each rule's line came as it was checked, after the note on shapes.
    assert lines[0].startswith("kiln verify: program 0: checked on small shapes")
    assert [l for l in lines[1:] if l] == [l for l in report.splitlines()[1:] if l]
    full = rules.verify(lowered, small_shapes=False, progress=False)
    assert not full.startswith("#")
    assert full.splitlines()[0] == report.splitlines()[1]
    # A function that needs its sizes is checked on them, and says so.
    g = kiln.jit(lambda x: -(-x) + jnp.reshape(x, (2, -1)).sum(), rules=rules)
    report = rules.verify(g.lower(np.ones(12, np.float32)), progress=False)
    assert report.startswith("# program 0: checked on the shapes given (float32[12]): "
                             "it does not trace on small ones")
