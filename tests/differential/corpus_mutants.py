#!/usr/bin/env python3
"""Differential testing from real programs: the ecosystem corpus's programs
(tests/ecosystem, written with flax, haiku, equinox, optax, numpyro, ...)
with mutated inputs, each run under jax.jit (the oracle) and kiln.jit and
compared leaf by leaf (docs/soundness.md, "Mutants of the corpus").

    python tests/differential/corpus_mutants.py --seed S --programs N
        [--program NAME] [--keep DIR] [--json FILE] [--timeout 120]

Mutant S is drawn from seed S alone: a program of the corpus, then one or
two mutations of its example arguments:

- batch: the leading size shared by the most float arguments (a batch, a
  sequence, a node count) becomes another (1, 2, 3, 5, 8, 17, 31, 64, 100,
  128 or 256), every argument with that leading size resized along it (rows
  repeated), so that the program runs at sizes on both sides of Kiln's
  thresholds;
- values: float arguments rescaled (1e-3 to 1e3), negated or redrawn;
- hard: 1-5 % of one float argument's elements set to +-0, +-inf, NaN,
  subnormals or the largest finite values;
- narrow: every float32 argument cast to bfloat16 or float16 (compared at a
  tolerance of 5e-2 or 1e-2; the oracle runs with XLA's excess precision
  off, so that it rounds each narrow op's result as Kiln does);
- sharing: one array argument passed again in place of another of the same
  shape and dtype (the same buffer twice: aliasing).

A mutant that jax.jit refuses (a batch size a weight does not match, a dtype
a library rejects) is *inapplicable* and not counted as checked. Statuses:
pass, mismatch, error (kiln.jit raised), timeout, crash (the worker died),
inapplicable, jax-jit-differs (Kiln's results differ from jax.jit's but
match JAX's op-by-op evaluation of the same program, jax.disable_jit: not a
finding of Kiln's; counted apart). Each mutant runs in a worker process, restarted after a
timeout or a crash. The exit status is 1 when a mutant failed.

Which program a seed draws depends on the corpus (its sorted names): a
finding is reproduced with ``--program NAME --seed S --programs 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "ecosystem"))
os.environ.setdefault("JAX_PLATFORMS", "cpu")
# The oracle rounds every bf16/f16 op's result, as the jaxpr says and Kiln
# does: by default XLA keeps a narrow op's f32 result where only an f32
# consumer reads it (docs/python.md, Numerics).
EXCESS_PRECISION_OFF = "--xla_allow_excess_precision=false"
if EXCESS_PRECISION_OFF not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + EXCESS_PRECISION_OFF).strip()

import numpy as np  # noqa: E402

import ecosystem  # noqa: E402

KINDS = ("batch", "values", "hard", "narrow", "sharing")
BATCH_SIZES = (1, 2, 3, 5, 8, 17, 31, 64, 100, 128, 256)
MAX_ELEMENTS = 1 << 22  # per resized argument
HARD = (0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 1.1754944e-38, 3.4e38, -3.4e38)
NARROW_TOL = {"bfloat16": 5e-2, "float16": 1e-2}


def _float_leaf(x) -> bool:
    dt = getattr(x, "dtype", None)
    return (dt is not None and getattr(x, "ndim", None) is not None
            and dt.name in ("float32", "float64", "float16", "bfloat16"))


def _array_leaf(x) -> bool:
    dt = getattr(x, "dtype", None)
    return (dt is not None and getattr(x, "shape", None) is not None
            and not dt.name.startswith("key"))


class Mutant:
    """One program's arguments and the mutations applied to them."""

    def __init__(self, program, seed: int):
        import jax
        self.program = program
        self.rng = np.random.default_rng([seed, 0x6b696c6e])
        self.leaves, self.tree = jax.tree_util.tree_flatten(program.args())
        self.done: list[str] = []
        self.rtol, self.atol = program.rtol, program.atol

    def args(self):
        import jax
        return jax.tree_util.tree_unflatten(self.tree, self.leaves)

    def floats(self) -> list[int]:
        return [i for i, x in enumerate(self.leaves) if _float_leaf(x) and np.size(x) > 0]

    # Each mutation returns False where it does not apply.
    def batch(self) -> bool:
        sizes: dict[int, int] = {}
        for i in self.floats():
            if np.ndim(self.leaves[i]) >= 1 and np.shape(self.leaves[i])[0] >= 2:
                n = np.shape(self.leaves[i])[0]
                sizes[n] = sizes.get(n, 0) + 1
        if not sizes:
            return False
        n = max(sizes, key=lambda k: (sizes[k], k))
        new = int(self.rng.choice([b for b in BATCH_SIZES if b != n]))
        rows = np.arange(new) % n
        for i, x in enumerate(self.leaves):
            if _array_leaf(x) and np.ndim(x) >= 1 and np.shape(x)[0] == n:
                if np.size(x) // n * new > MAX_ELEMENTS:
                    return False
                self.leaves[i] = np.take(np.asarray(x), rows, axis=0)
        self.done.append(f"batch {n}->{new}")
        return True

    def values(self) -> bool:
        floats = self.floats()
        if not floats:
            return False
        chosen = [i for i in floats if self.rng.random() < 0.5] or [int(self.rng.choice(floats))]
        how = str(self.rng.choice(["scale", "negate", "redraw"]))
        for i in chosen:
            x = np.asarray(self.leaves[i])
            if how == "scale":
                s = float(10.0 ** self.rng.integers(-3, 4))
                y = x.astype(np.float64) * s
            elif how == "negate":
                y = np.where(self.rng.random(x.shape) < 0.5, -x.astype(np.float64), x)
            else:
                y = self.rng.normal(0.0, float(np.std(x.astype(np.float64))) or 1.0, x.shape)
            self.leaves[i] = np.asarray(y).astype(x.dtype)
        self.done.append(f"values {how} of {len(chosen)} argument(s)")
        return True

    def hard(self) -> bool:
        floats = self.floats()
        if not floats:
            return False
        i = int(self.rng.choice(floats))
        x = np.array(self.leaves[i])
        rate = float(self.rng.choice([0.01, 0.02, 0.05]))
        where = self.rng.random(x.shape) < rate
        picks = self.rng.choice(np.array(HARD, np.float64), size=x.shape)
        with np.errstate(over="ignore"):
            x[where] = picks[where].astype(x.dtype)
        self.leaves[i] = x
        self.done.append(f"hard values in argument {i} ({int(where.sum())} of {x.size})")
        return True

    def narrow(self) -> bool:
        import jax.numpy as jnp
        f32 = [i for i in self.floats() if self.leaves[i].dtype.name == "float32"]
        if not f32:
            return False
        name = str(self.rng.choice(["bfloat16", "float16"]))
        for i in f32:
            self.leaves[i] = np.asarray(self.leaves[i]).astype(jnp.dtype(name))
        tol = NARROW_TOL[name]
        self.rtol, self.atol = max(self.rtol, tol), max(self.atol, tol)
        self.done.append(f"narrow float32->{name}")
        return True

    def sharing(self) -> bool:
        by_type: dict[tuple, list[int]] = {}
        for i, x in enumerate(self.leaves):
            if _array_leaf(x) and np.ndim(x) >= 1:
                by_type.setdefault((tuple(np.shape(x)), x.dtype.name), []).append(i)
        pairs = [v for v in by_type.values() if len(v) >= 2]
        if not pairs:
            return False
        group = pairs[int(self.rng.integers(len(pairs)))]
        src, dst = (int(j) for j in self.rng.choice(group, size=2, replace=False))
        self.leaves[dst] = self.leaves[src]
        self.done.append(f"argument {dst} is argument {src}")
        return True


def draw(programs: list, seed: int, only: str | None = None) -> Mutant:
    """Mutant `seed`: its program (or `only`) and one or two mutations."""
    rng = np.random.default_rng([seed, 0x70726f67])
    names = sorted(p.name for p in programs)
    by_name = {p.name: p for p in programs}
    program = by_name[only] if only else by_name[names[int(rng.integers(len(names)))]]
    mutant = Mutant(program, seed)
    kinds = list(rng.permutation(KINDS))
    wanted = 1 + int(rng.random() < 0.4)
    for kind in kinds:
        if len(mutant.done) >= wanted:
            break
        getattr(mutant, kind)()
    return mutant


def run_mutant(programs: list, seed: int, only: str | None, cache_dir) -> dict:
    import kiln
    rec = dict(seed=seed, program="", library="", mutations=[], status="", message="",
               worst=None)
    try:
        mutant = draw(programs, seed, only)
    except Exception as e:  # the corpus's own builder failed
        rec.update(status="inapplicable", message=ecosystem.first_line(e))
        return rec
    p = mutant.program
    rec.update(program=p.name, library=p.library, mutations=mutant.done)
    if not mutant.done:
        rec.update(status="inapplicable", message="no mutation applies to its arguments")
        return rec
    args = mutant.args()
    try:
        want = ecosystem._block(ecosystem.oracle_jit(p)(*args))
    except Exception as e:
        rec.update(status="inapplicable", message=ecosystem.first_line(e))
        return rec
    try:
        fast = (kiln.filter_jit if p.filter_jit else kiln.jit)(p.fn, cache_dir=cache_dir)
        got = fast(*args)
    except Exception as e:
        rec.update(status="error", message=ecosystem.first_line(e))
        return rec
    ok, worst, _, detail = ecosystem.compare(got, want, mutant.rtol, mutant.atol)
    rec.update(status="pass" if ok else "mismatch", worst=worst, message="" if ok else detail)
    if not ok and _matches_eager(p, args, got, mutant):
        rec["status"] = "jax-jit-differs"
    return rec


def _matches_eager(p, args, got, mutant) -> bool:
    """Whether Kiln's results match JAX's own op-by-op evaluation
    (jax.disable_jit: each primitive run alone, loops in Python) where
    they differ from jax.jit's: then jax.jit's whole-program compilation
    departs from the program's semantics (a hard value through jaxopt's
    LBFGS: NaN op by op and under Kiln, 0 under jax.jit), which is no
    finding of Kiln's. False when the eager run fails."""
    import jax
    try:
        with jax.disable_jit():
            eager = ecosystem._block(p.fn(*args))
    except Exception:
        return False
    return ecosystem.compare(got, eager, mutant.rtol, mutant.atol)[0]


def worker_main(fd: int, cache: bool) -> int:
    programs = list(ecosystem.load_programs().values())
    out = os.fdopen(fd, "w", buffering=1)
    cache_dir = None
    if cache:
        from kiln import _kiln
        cache_dir = _kiln.default_cache_dir()
    for line in sys.stdin:
        if not line.strip():
            continue
        seed, _, only = line.strip().partition(" ")
        out.write(json.dumps(run_mutant(programs, int(seed), only or None, cache_dir)) + "\n")
    return 0


def _ecosystem_runner():
    """tests/ecosystem/run.py (its worker processes), by path: this
    directory has a run.py of its own."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("ecosystem_run",
                                                  REPO / "tests" / "ecosystem" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--programs", type=int, default=100, help="mutants to run")
    ap.add_argument("--program", help="mutate this corpus program only")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    ap.add_argument("--cache", action="store_true", help="use Kiln's compile cache")
    ap.add_argument("--keep", help="write each finding's record here (seed-S.json)")
    ap.add_argument("--json", help="write every record here (a JSON list)")
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker is not None:
        return worker_main(args.worker, args.cache)

    Worker = _ecosystem_runner().Worker
    counts: dict[str, int] = {}
    records, worker = [], None
    started = time.monotonic()
    for seed in range(args.seed, args.seed + args.programs):
        if worker is None:
            worker = Worker(Path(__file__).resolve(), ["--cache"] if args.cache else [])
        request = f"{seed} {args.program}" if args.program else str(seed)
        got = worker.run(request, args.timeout + (30.0 if seed == args.seed else 0.0))
        if isinstance(got, str):
            worker.close(kill=True)
            worker = None
            got = dict(seed=seed, program=args.program or "", library="", mutations=[],
                       status="timeout" if got == "timeout" else "crash",
                       message=got if got != "timeout" else
                       f"no result within {args.timeout:.0f} s", worst=None)
        records.append(got)
        counts[got["status"]] = counts.get(got["status"], 0) + 1
        line = f"seed {seed}: {got['status']} {got['program']} [{'; '.join(got['mutations'])}]"
        if got["status"] not in ("pass", "inapplicable"):
            line += f": {got['message']}"
            if args.keep and got["status"] != "jax-jit-differs":
                Path(args.keep).mkdir(parents=True, exist_ok=True)
                Path(args.keep, f"seed-{seed}.json").write_text(json.dumps(got, indent=1) + "\n")
        print(line, flush=True)
    if worker is not None:
        worker.close()
    elapsed = time.monotonic() - started
    checked = sum(v for k, v in counts.items() if k != "inapplicable")
    print(f"{args.programs} mutants ({checked} checked) in {elapsed:.0f} s: "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1) + "\n")
    failed = sum(v for k, v in counts.items()
                 if k not in ("pass", "inapplicable", "jax-jit-differs"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
