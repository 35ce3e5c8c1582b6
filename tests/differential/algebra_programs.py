#!/usr/bin/env python3
"""Generated instances of the algebra library's patterns (docs/rules.md):
random jax.numpy programs made of the motifs its rules rewrite, checked by
kiln-verify-rules and against jax.jit.

    python tests/differential/algebra_programs.py --kiln-bin build/bin \\
        --seed S --programs N [--keep DIR] [--json] [--require-all]

Each seed draws a program: a base shape (a scalar to 77,000 elements, so
that the rewritten code crosses the cost model's thresholds) and a dtype
(float32, float64, or int32 with the motifs that are exact on integers),
three inputs, then 6 to 16 motifs -- `exp(log a - log b)`, `x ** 6 / x **
4`, `a * b + c * b`, `sum(jnp.stack([...]), 0)`, `trace(A @ B.T)`, `(s * B)
@ C`, per-row loops, ... -- each written as users write it and applied to
values the program has already computed (squashed into the domain the
motif's rules assume: positive, moderate). Every motif's result is an
output. Then, per program:

- kiln-verify-rules with the library (rules/library/algebra and its blas/)
  checks each rule alone on every instance the programs hold, against the
  reference interpreter on the original program, within the error the
  rule's tags allow, on the inputs the rule declares;
- kiln.jit with the whole library and every tag on runs it against
  jax.jit on the program's inputs (a loose bound: the tags allow
  reassociation and changed precision; this catches wrong rewrites, not
  rounding).

Prints the instances each rule found; with --require-all, exit 1 when a
rule of the library has none. Exit 1 on an UNSOUND or non-converging rule
or an oracle mismatch.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = [ROOT / "rules" / "library" / "algebra", ROOT / "rules" / "library" / "algebra" / "blas"]
ALL_TAGS = ["reassociates-float", "changes-precision", "assumes-positive", "assumes-nonnegative",
            "assumes-finite", "assumes-no-overflow"]
SHAPES = [(), (7,), (5, 6), (4, 5, 6), (33, 65), (3, 8, 16), (130, 70), (300, 257)]
# kiln-verify-rules interprets every instance a dozen times per rule: its
# copy of a program has these shapes instead of the largest ones.
SMALL = {(130, 70): (13, 70), (300, 257): (30, 71), (33, 65): (11, 65)}


# Motifs with many variants (reductions x arities) are drawn more often.
WEIGHTS = {"reduce-of-stack": 12, "reduce-of-array": 6, "reduce-of-concatenate": 6,
           "reduce-of-constant": 4, "pow-constants": 3, "scaled-dot": 2, "scaled-dot-typed": 2,
           "reduce-of-reduce": 2}


def motifs(jnp, lax, jax):
    """(name, where it applies, domain, function): `where` is "any", "2d"
    (a matrix base shape), "rank1+" or "3d"; domain "pos" (positive,
    moderate), "any" (moderate, either sign) or "int" (also exact on
    integers). A function takes the Builder and its inputs' count of
    pool values and returns one array."""
    def M(name, where, domain, arity, fn):
        return (name, where, domain, arity, fn)

    c = lambda b, v: jnp.asarray(v, b.dtype)  # a constant of the program's dtype
    return [
        # exp-log.yaml
        M("exp-log-ratio", "any", "pos", 2, lambda b, x, y: jnp.exp(jnp.log(x) - jnp.log(y))),
        M("exp-log-product", "any", "pos", 2, lambda b, x, y: jnp.exp(jnp.log(x) + jnp.log(y))),
        M("exp-neg-log", "any", "pos", 1, lambda b, x: jnp.exp(-jnp.log(x))),
        M("exp-of-log", "any", "pos", 1, lambda b, x: jnp.exp(jnp.log(x))),
        M("log-of-exp", "any", "any", 1, lambda b, x: jnp.log(jnp.exp(x))),
        M("exp-times-exp", "any", "any", 2, lambda b, x, y: jnp.exp(x) * jnp.exp(y)),
        M("exp-over-exp", "any", "any", 2, lambda b, x, y: jnp.exp(x) / jnp.exp(y)),
        M("log-plus-log", "any", "pos", 2, lambda b, x, y: jnp.log(x) + jnp.log(y)),
        M("log-minus-log", "any", "pos", 2, lambda b, x, y: jnp.log(x) - jnp.log(y)),
        M("log-of-sqrt", "any", "pos", 1, lambda b, x: jnp.log(jnp.sqrt(x))),
        M("log-of-integer-pow", "any", "pos", 1, lambda b, x: jnp.log(x ** 3)),
        M("log-of-reciprocal", "any", "pos", 1, lambda b, x: jnp.log(1 / x)),
        M("sqrt-of-exp", "any", "any", 1, lambda b, x: jnp.sqrt(jnp.exp(x))),
        M("integer-pow-of-exp", "any", "any", 1, lambda b, x: jnp.exp(x) ** 3),
        # pow-sqrt.yaml
        M("square", "any", "int", 1, lambda b, x: jnp.square(x)),
        M("mul-self", "any", "int", 1, lambda b, x: x * x),
        M("integer-pow-minus-one", "any", "pos", 1, lambda b, x: x ** -1),
        M("even-power-of-neg", "any", "int", 1, lambda b, x: (-x) ** 4),
        M("even-power-of-abs", "any", "any", 1, lambda b, x: jnp.abs(x) ** 2),
        M("x-over-sqrt-x", "any", "pos", 1, lambda b, x: x / jnp.sqrt(x)),
        M("x-times-rsqrt-x", "any", "pos", 1, lambda b, x: x * lax.rsqrt(x)),
        M("one-over-rsqrt", "any", "pos", 1, lambda b, x: 1 / lax.rsqrt(x)),
        M("sqrt-times-sqrt", "any", "pos", 1, lambda b, x: jnp.sqrt(x) * jnp.sqrt(x)),
        M("even-power-of-sqrt", "any", "pos", 1, lambda b, x: jnp.sqrt(x) ** 4),
        M("even-power-of-rsqrt", "any", "pos", 1, lambda b, x: lax.rsqrt(x) ** 2),
        M("sqrt-of-square", "any", "any", 1, lambda b, x: jnp.sqrt(x ** 2)),
        M("sqrt-of-even-power", "any", "any", 1, lambda b, x: jnp.sqrt(x ** 4)),
        M("power-over-power", "any", "pos", 1, lambda b, x: x ** 6 / x ** 4),
        M("power-over-x", "any", "pos", 1, lambda b, x: x ** 3 / x),
        M("x-over-power", "any", "pos", 1, lambda b, x: x / x ** 3),
        M("power-times-power", "any", "int", 1, lambda b, x: x ** 2 * x ** 3),
        M("power-times-x", "any", "int", 1, lambda b, x: x * x * x),
        M("power-of-power", "any", "int", 1, lambda b, x: (x ** 2) ** 3),
        M("pow-constants", "any", "pos", 1,
          lambda b, x: (jnp.power(x, c(b, 2.0)), jnp.power(x, c(b, 3.0)), jnp.power(x, c(b, 4.0)),
                        jnp.power(x, c(b, -1.0)), jnp.power(x, c(b, -2.0)))[b.pick(5)]),
        M("pow-half", "any", "pos", 1, lambda b, x: jnp.power(x, c(b, 0.5))),
        M("pow-minus-half", "any", "pos", 1, lambda b, x: jnp.power(x, c(b, -0.5))),
        M("pow-one-and-a-half", "any", "pos", 1, lambda b, x: jnp.power(x, c(b, 1.5))),
        # collect.yaml
        M("add-self", "any", "int", 1, lambda b, x: x + x),
        M("add-scaled-self", "any", "int", 1, lambda b, x: x + 3 * x),
        M("sub-scaled-self", "any", "int", 1, lambda b, x: 3 * x - x),
        M("factor-common-sum", "any", "int", 3, lambda b, x, y, z: x * y + z * y),
        M("factor-common-difference", "any", "int", 3, lambda b, x, y, z: x * y - z * y),
        M("factor-common-divisor", "any", "pos", 3,
          lambda b, x, y, z: (x / y + z / y) if b.pick(2) else (x / y - z / y)),
        M("mul-constants", "any", "int", 1, lambda b, x: (x * 2) * 3),
        M("add-constants", "any", "int", 1, lambda b, x: (x + 2) + 5),
        M("div-by-power-of-two", "any", "any", 1, lambda b, x: x / 4),
        M("div-by-constant", "any", "any", 1, lambda b, x: x / 3),
        M("div-of-div", "any", "pos", 3, lambda b, x, y, z: (x / y) / z),
        M("sub-self", "any", "int", 1, lambda b, x: x - x),
        M("add-neg", "any", "int", 2, lambda b, x, y: x + (-y)),
        M("sub-neg", "any", "int", 2, lambda b, x, y: x - (-y)),
        M("neg-times-neg", "any", "int", 2, lambda b, x, y: (-x) * (-y)),
        M("neg-over-neg", "any", "pos", 2, lambda b, x, y: (-x) / (-y)),
        M("mul-by-minus-one", "any", "int", 1, lambda b, x: x * -1),
        # scalars.yaml
        M("sum-of-scaled", "any", "any", 1, lambda b, x: jnp.sum(b.scalar() * x)),
        M("sum-of-constant-scaled", "any", "int", 1, lambda b, x: jnp.sum(3 * x, axis=b.axes())),
        M("sum-of-constant-divided", "any", "any", 1, lambda b, x: jnp.sum(x / 3, axis=b.axes())),
        M("sum-of-neg", "any", "int", 1, lambda b, x: jnp.sum(-x, axis=b.axes())),
        M("reduce-of-constant", "rank1+", "int", 1,
          lambda b, x: [jnp.max(x + 2, axis=b.axes()), jnp.min(x - 3, axis=b.axes()),
                        jnp.max(x * 2, axis=b.axes()), jnp.min(x * 3, axis=b.axes()),
                        jnp.max(-x, axis=b.axes()), jnp.min(-x, axis=b.axes()),
                        jnp.max(x - 1, axis=b.axes()), jnp.min(x + 4, axis=b.axes())][b.pick(8)]),
        M("scaled-dot", "2d", "any", 2,
          lambda b, x, y: [(b.scalar() * x) @ y.T, x @ (b.scalar() * y).T,
                           (2.5 * x) @ y.T, x @ (y * 0.5).T][b.pick(4)]),
        M("scaled-dot-typed", "2d", "any", 2,
          lambda b, x, y: jnp.matmul(b.scalar() * x, y.T, preferred_element_type=b.dtype)
          if b.pick(2) else jnp.matmul(x, (3 * y).T, preferred_element_type=b.dtype)),
        # contractions.yaml, blas/dot-forms.yaml
        M("sum-of-outer-product", "2d", "any", 2,
          lambda b, x, y: jnp.sum(x[:, :, None] * y.T[None], 1)),
        M("trace-of-matmul", "2d", "any", 2,
          lambda b, x, y: jnp.trace(x @ y.T) if b.pick(2) else jnp.trace(x.T @ y)),
        M("trace-of-matmul-transposed", "2d", "any", 2, lambda b, x, y: jnp.trace(x @ y.T.T.T)),
        M("diagonal-of-matmul", "2d", "any", 2,
          lambda b, x, y: jnp.diagonal(x @ y.T) if b.pick(2) else jnp.diag(x.T @ y)),
        M("take-arange", "rank1+", "int", 1, lambda b, x: x[jnp.arange(x.shape[0])]),
        M("sum-of-product", "rank1+", "any", 2, lambda b, x, y: jnp.sum(x * y)),
        M("sum-of-square", "rank1+", "any", 1,
          lambda b, x: jnp.sum(x ** 2) if b.pick(2) else jnp.sum(jnp.square(x), axis=-1)),
        M("matvec-by-broadcast", "2d", "any", 2, lambda b, x, y: jnp.sum(x * y[0][None, :], 1)),
        M("batched-dot", "3d", "any", 2, lambda b, x, y: jnp.sum(x * y, -1)),
        M("sum-diag-of-matmul", "2d", "any", 2, lambda b, x, y: jnp.sum(jnp.diag(x @ y.T))),
        # reshape-dot.yaml
        M("reshape-matmul", "3d", "any", 2,
          lambda b, x, y: (x.reshape(-1, x.shape[-1]) @ y[0].T).reshape(x.shape[:-1] + (-1,))),
        M("reshape-matmul-typed", "3d", "any", 2,
          lambda b, x, y: jnp.matmul(x.reshape(-1, x.shape[-1]), y[0].T,
                                     preferred_element_type=b.dtype).reshape(
                                         x.shape[:-1] + (-1,))),
        M("matmul-of-merged", "2d", "any", 2,
          lambda b, x, y: (x.reshape(x.shape[0] // b.divisor(x.shape[0]), -1, x.shape[1])
                           @ y.T).reshape(x.shape[0], -1)),
        M("reshape-of-reshape", "rank1+", "int", 1, lambda b, x: x.reshape(-1).reshape(x.shape)),
        # rows.yaml
        M("expand-dims-of-elementwise", "rank1+", "int", 2,
          lambda b, x, y: jnp.expand_dims(x + y, 0)),
        M("expand-dims-of-squeeze", "rank1+", "int", 1,
          lambda b, x: jnp.expand_dims(jnp.squeeze(x[None], 0), 0)),
        M("row-broadcast", "2d", "int", 1, lambda b, x: jnp.broadcast_to(x[0], (1,) + x.shape[1:])),
        M("concatenate-of-elementwise", "rank1+", "any", 2,
          lambda b, x, y: jnp.concatenate([jnp.tanh(x), jnp.tanh(y)])),
        M("concatenate-of-slices", "rank1+", "int", 1,
          lambda b, x: jnp.concatenate([x[: x.shape[0] // 2], x[x.shape[0] // 2:]])),
        M("per-row-loop", "2d", "any", 2,
          lambda b, x, y: jnp.stack([jnp.tanh(x[i]) * y[i] for i in range(min(x.shape[0], 8))])),
        # stacks.yaml: every reduction kind over stacks, arrays and concatenates
        M("reduce-of-stack", "any", "int", 3,
          lambda b, *xs: b.reduction()(jnp.stack(b.copies(xs, [2, 3, 4, 5, 6, 8])), axis=0)),
        M("reduce-of-array", "any", "int", 3,
          lambda b, *xs: b.reduction()(jnp.array(b.copies(xs, [2, 3, 4])), axis=0)),
        M("reduce-of-concatenate", "rank1+", "int", 3,
          lambda b, *xs: b.reduction()(jnp.concatenate(b.copies(xs, [2, 3, 4])), axis=None)),
        # broadcast-reduce.yaml, transpose.yaml (included by the library)
        M("reduce-of-reduce", "3d", "int", 1,
          lambda b, x: [jnp.sum(jnp.sum(x, 0), 0), jnp.max(jnp.max(x, 1), 0),
                        jnp.min(jnp.min(x, 2), 1)][b.pick(3)]),
        M("reduce-of-size-one", "rank1+", "int", 1, lambda b, x: jnp.sum(x[None], axis=0)),
        M("broadcast-of-broadcast", "rank1+", "int", 1,
          lambda b, x: jnp.broadcast_to(jnp.broadcast_to(x, (2,) + x.shape)[:, None],
                                        (2, 3) + x.shape)),
        M("transpose-of-transpose", "2d", "int", 1, lambda b, x: x.T.T + 1),
        # calls.yaml
        M("small-call", "any", "any", 2, lambda b, x, y: jax.jit(lambda u, v: u * v + 1)(x, y)),
        M("cond-of-constant", "any", "int", 1,
          lambda b, x: lax.cond(True, lambda v: v + 1, lambda v: v - 1, x)),
    ]


class Builder:
    """The decisions of one program (drawn once, replayed on every trace)."""

    def __init__(self, seed: int, jnp, lax, jax, small: bool = False):
        self.rng = random.Random(seed)
        self.jnp, self.lax, self.jax = jnp, lax, jax
        self.shape = self.rng.choice(SHAPES)
        if small:  # the interpreter's copy: the same program, at most 2,145 elements
            self.shape = SMALL.get(self.shape, self.shape)
        self.kind = self.rng.choices(["f32", "f64", "i32"], [5, 2, 3])[0]
        self.dtype = {"f32": jnp.float32, "f64": jnp.float64, "i32": jnp.int32}[self.kind]
        rank = len(self.shape)
        fits = {"any": True, "rank1+": rank >= 1, "2d": rank == 2, "3d": rank == 3}
        self.menu = [m for m in motifs(jnp, lax, jax)
                     if fits[m[1]] and (self.kind != "i32" or m[2] == "int")]
        self.steps = []
        weights = [WEIGHTS.get(m[0], 1) for m in self.menu]
        for _ in range(self.rng.randint(6, 16)):
            motif = self.rng.choices(self.menu, weights)[0]
            self.steps.append((motif, self.rng.random(), self.rng.getrandbits(32)))

    # Helpers the motifs call while the program is traced; each draws from
    # the step's own stream.
    def pick(self, n):
        return self.step_rng.randrange(n)

    def axes(self):
        rank = len(self.shape)
        return None if rank == 0 or self.pick(2) else self.pick(rank)

    def scalar(self):
        return self.jnp.tanh(self.pool[0].reshape(-1)[0]) + 1.5

    def divisor(self, n):
        return next(d for d in (5, 3, 2, 1) if n % d == 0)

    def reduction(self):
        jnp, dt = self.jnp, self.dtype
        # dtype: with x64 on, jnp.sum and jnp.prod of int32 would widen to int64.
        return [lambda v, axis: jnp.sum(v, axis, dtype=dt), jnp.max, jnp.min,
                lambda v, axis: jnp.prod(v, axis, dtype=dt)][self.pick(4)]

    def copies(self, xs, counts):
        n = counts[self.pick(len(counts))]
        return [xs[i % len(xs)] * (1 if i < len(xs) else -1) for i in range(n)]

    def domain(self, x, domain):
        """`x` brought into what the motif's rules assume."""
        jnp = self.jnp
        if self.kind == "i32":
            return jnp.clip(x, -9, 9)
        if domain == "pos":
            return jnp.tanh(x) + 1.5        # (0.5, 2.5)
        return 2 * jnp.tanh(x)              # (-2, 2)

    def program(self, *inputs):
        self.pool, outs = list(inputs), []
        for (name, _, domain, arity, fn), where, bits in self.steps:
            self.step_rng = random.Random(bits)
            args = [self.domain(self.pool[self.pick(len(self.pool))], domain)
                    for _ in range(arity)]
            out = fn(self, *args)
            outs.append(out)
            if out.shape == self.shape and out.dtype == self.dtype and where < 0.5:
                self.pool.append(out)
        return outs

    def inputs(self, seed):
        import numpy as np
        rng = np.random.default_rng(seed)
        if self.kind == "i32":
            return [rng.integers(-20, 20, self.shape).astype(np.int32) for _ in range(3)]
        dt = np.float32 if self.kind == "f32" else np.float64
        return [rng.standard_normal(self.shape).astype(dt) for _ in range(3)]


def compare(got, want) -> str | None:
    import numpy as np
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"output {i}: {g.dtype}{list(g.shape)} vs jax {w.dtype}{list(w.shape)}"
        if g.dtype.kind in "iub":
            if not np.array_equal(g, w):
                return f"output {i}: integers differ"
            continue
        if not np.array_equal(np.isfinite(g), np.isfinite(w)):
            return f"output {i}: non-finite elements differ"
        fin = np.isfinite(w)
        if fin.any():
            scale = max(1.0, float(np.abs(w[fin]).max()))
            err = float(np.abs(g[fin].astype(np.float64) - w[fin]).max())
            if err > 2e-3 * scale:
                return f"output {i}: max error {err:.3g} (scale {scale:.3g})"
    return None


def verify(bin_dir: Path, files: list[Path]) -> dict:
    """kiln-verify-rules over `files`: {rule: (instances, status line)}."""
    # --in-context: most rules match what other rules leave (transposes
    # folded into dot_general, x * x as x ** 2, a cond on a constant
    # index opened), so each rule is also checked where the whole library
    # brings each program, just before its first application there.
    cmd = [str(bin_dir / "kiln-verify-rules"), "--seeds=2", "--in-context"]
    cmd += [f"--rules={p}" for p in LIBRARY] + [str(f) for f in files]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    rules = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"rule '([^']+)'.*?: (\d+) instance\(s\).*?: (ok|UNSOUND|DOES NOT CONVERGE)",
                     line)
        if m:
            rules[m.group(1)] = (int(m.group(2)), m.group(3), line)
            continue
        m = re.match(r"rule '([^']+)'.*no instance", line)
        if m:
            rules[m.group(1)] = (0, "no instance", line)
    if proc.returncode not in (0, 1) or not rules:
        raise SystemExit(f"kiln-verify-rules failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return rules


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln-bin", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--programs", type=int, default=20)
    ap.add_argument("--keep", help="write every program's lax module here")
    ap.add_argument("--require-all", action="store_true",
                    help="exit 1 when a rule of the library has no instance")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax import lax
    import kiln

    bin_dir = Path(args.kiln_bin)
    findings, files, start = [], [], time.time()
    rules = [str(p) for p in LIBRARY]
    keep = Path(args.keep) if args.keep else None
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        for seed in range(args.seed, args.seed + args.programs):
            b = Builder(seed, jnp, lax, jax)
            xs = b.inputs(seed)
            small = Builder(seed, jnp, lax, jax, small=True)
            text = kiln.jit(small.program, cache_dir=None).lower(*small.inputs(seed)).as_text()
            path = out_dir / f"algebra-{seed}.mlir"
            path.write_text(f"// algebra_programs.py --seed {seed}: {small.kind}"
                            f"{list(small.shape)}, motifs "
                            f"{' '.join(s[0][0] for s in small.steps)}\n" + text)
            # jnp.trace, jnp.where and friends are private functions: each
            # rule alone sees their bodies once the calls are inlined.
            inlined = out_dir / f"algebra-{seed}-inlined.mlir"
            subprocess.run([str(bin_dir / "kiln-opt"), str(path), "--inline", "--symbol-dce",
                            "-o", str(inlined)], check=True)
            files += [path, inlined]
            try:
                got = kiln.jit(b.program, rules=rules, tags=ALL_TAGS, cache_dir=None)(*xs)
                problem = compare(got, jax.jit(b.program)(*xs))
            except kiln.Error as e:
                problem = f"kiln.Error: {str(e).splitlines()[0]}"
            if problem:
                findings.append(f"seed {seed}: {problem}")
        verdicts = verify(bin_dir, files)
    for name, (count, status, line) in sorted(verdicts.items()):
        if status in ("UNSOUND", "DOES NOT CONVERGE"):
            findings.append(line)
    missing = sorted(n for n, (count, _, _) in verdicts.items() if count == 0)
    summary = {"first_seed": args.seed, "programs": args.programs,
               "rules": len(verdicts), "rules_with_instances": len(verdicts) - len(missing),
               "instances": sum(c for c, _, _ in verdicts.values()),
               "findings": findings, "rules_without_instances": missing,
               "seconds": round(time.time() - start, 1)}
    if args.json:
        print(json.dumps(summary))
    else:
        for name, (count, status, _) in sorted(verdicts.items()):
            print(f"{count:6d}  {status:18s} {name}")
        for f in findings:
            print("FINDING", f)
        print(f"{args.programs} programs, {summary['instances']} instances of "
              f"{summary['rules_with_instances']} of {summary['rules']} rules, "
              f"{len(findings)} findings, {summary['seconds']} s")
        if missing:
            print("rules without an instance:", " ".join(missing))
    return 1 if findings or (args.require_all and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
