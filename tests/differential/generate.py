#!/usr/bin/env python3
"""Random valid lax programs for differential testing (Csmith/YARPGen style).

generate(seed) -> Program(text, inputs): a module with one public function
@main (and private callees), random static shapes (rank 0-3, at most 48
elements) and element types (f32, f64, f16, bf16, i8, i32, i64, ui32, i1),
a random DAG over lax's ops (elementwise, compare/select, conversions,
structure, reductions, dot_general, iota, constants with hard values,
dynamic slices, gather/scatter, nested lax.scan/lax.while/lax.cond, calls of
private functions, some of them identical) and inputs as numpy arrays with
hard values mixed in (+-0, +-inf, NaN, subnormals, integer extremes, zero
divisors). The same seed gives the same program and inputs.

Arguments and results have the types .npy carries (no bf16: a bf16 value is
made inside the program and converted to f32 before it is returned).

    python generate.py --seed 7 --out DIR     # DIR/prog.mlir, DIR/in0.npy, ...
"""
import argparse
import os
import random
import re
import sys

import numpy as np

try:
    import ml_dtypes
    BF16 = ml_dtypes.bfloat16
except ImportError:  # pragma: no cover
    BF16 = None

FLOATS = ["f32", "f64", "f16", "bf16"]
INTS = ["i8", "i32", "i64", "ui32"]
ALL = FLOATS + INTS + ["i1"]
NPY = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i8": np.int8,
       "i32": np.int32, "i64": np.int64, "ui32": np.uint32, "i1": np.bool_}
ARG_TYPES = ["f32", "f32", "f64", "f16", "i8", "i32", "i32", "i64", "ui32", "i1"]
BITS = {"f32": 32, "f64": 64, "f16": 16, "bf16": 16, "i8": 8, "i32": 32, "i64": 64, "ui32": 32, "i1": 1}

FLOAT_UNARY = ("neg abs sign exp log log1p sin cos tanh logistic sqrt rsqrt square floor ceil "
               "round exp2 expm1 cbrt tan asin acos atan sinh cosh asinh acosh atanh erf erfc erf_inv").split()
INT_UNARY = "neg abs sign square not population_count".split()
BOOL_UNARY = "not".split()
FLOAT_BINARY = "add sub mul div rem max min pow atan2 nextafter".split()
INT_BINARY = ("add sub mul div rem max min and or xor shift_left shift_right_arithmetic "
              "shift_right_logical").split()
BOOL_BINARY = "and or xor".split()
COMPARE = "EQ NE LT LE GT GE".split()

MAX_ELEMS = 48


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def ttype(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dt + ">"


def lst(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


class V:
    __slots__ = ("name", "shape", "dt")

    def __init__(self, name, shape, dt):
        self.name, self.shape, self.dt = name, tuple(shape), dt

    @property
    def ty(self):
        return ttype(self.shape, self.dt)


def hard_values(dt):
    """Values that break naive implementations."""
    if dt in FLOATS:
        f = {"f32": np.float32, "f64": np.float64, "f16": np.float16}.get(dt)
        if dt == "bf16":
            info = ml_dtypes.finfo(BF16)
            tiny, big, sub = float(info.tiny), float(info.max), float(info.smallest_subnormal)
        else:
            info = np.finfo(f)
            tiny, big, sub = float(info.tiny), float(info.max), float(info.smallest_subnormal)
        return [0.0, -0.0, float("inf"), float("-inf"), float("nan"), sub, -sub, tiny, -tiny,
                big, -big, big / 2, 1.0, -1.0, 0.5, -2.0, 3.0, 1e-3]
    if dt == "i1":
        return [True, False]
    if dt == "ui32":
        return [0, 1, 2, 2**31 - 1, 2**31, 2**32 - 1, 3000000000, 7]
    b = BITS[dt]
    lo, hi = -(2 ** (b - 1)), 2 ** (b - 1) - 1
    return [0, 0, 1, -1, lo, hi, lo + 1, hi - 1, 2, -2, b - 1, b, b + 1]


def random_values(rng, dt, n, hard_p):
    out = []
    hv = hard_values(dt)
    for _ in range(n):
        if rng.random() < hard_p:
            out.append(rng.choice(hv))
        elif dt in FLOATS:
            r = rng.random()
            if r < 0.7:
                out.append(round(rng.uniform(-2, 2), 3))
            elif r < 0.85:
                out.append(float(rng.randint(-4, 4)))
            else:
                out.append(rng.uniform(-100, 100))
        elif dt == "i1":
            out.append(rng.random() < 0.5)
        elif dt == "ui32":
            out.append(rng.randint(0, 9))
        else:
            out.append(rng.randint(-6, 6))
    return out


def float_literal(dt, x):
    """Bit-exact MLIR literal (hex) of x rounded to dt."""
    if dt == "bf16":
        bits = int(np.array([x], dtype=BF16).view(np.uint16)[0])
        return "0x%04X" % bits
    f = {"f32": (np.float32, np.uint32, 8), "f64": (np.float64, np.uint64, 16),
         "f16": (np.float16, np.uint16, 4)}[dt]
    bits = int(np.array([x], dtype=f[0]).view(f[1])[0])
    return "0x%0*X" % (f[2], bits)


def literal(dt, x):
    if dt in FLOATS:
        return float_literal(dt, x)
    if dt == "i1":
        return "true" if x else "false"
    return str(int(x))


class Program:
    def __init__(self, text, inputs, seed, unstable=()):
        self.text, self.inputs, self.seed = text, inputs, seed
        self.unstable = list(unstable)  # outputs the JIT comparison leaves out


class Gen:
    def __init__(self, seed, max_ops=None, hard_p=None):
        self.rng = random.Random(seed)
        self.seed = seed
        self.max_ops = max_ops or self.rng.randint(4, 18)
        self.hard_p = hard_p if hard_p is not None else self.rng.choice([0.0, 0.1, 0.3, 0.6])
        self.counter = 0
        self.taint = {}
        self.dtypes = {}
        self.callee_taint = {}
        self.callee_discrete = {}  # whether a callee's body has a discrete op (or a call)
        self.funcs = []       # private functions' text
        self.callees = []     # (name, arg types, result types)

    # ---- helpers -------------------------------------------------------
    def fresh(self, prefix="v"):
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def rand_shape(self, max_rank=3):
        r = self.rng.choice([0, 1, 1, 2, 2, 2, 3, 3][: 2 + 2 * max_rank])
        while True:
            s = tuple(self.rng.randint(1, 5) for _ in range(r))
            if numel(s) <= MAX_ELEMS:
                return s

    def rand_dt(self, kinds=None):
        pool = kinds or ["f32", "f32", "f64", "f16", "bf16", "i8", "i32", "i32", "i64", "ui32", "i1"]
        return self.rng.choice(pool)

    def pick(self, pool, pred=lambda v: True):
        cands = [v for v in pool if pred(v)]
        if not cands:
            return None
        # Recency bias: deep chains rather than wide fans.
        k = len(cands)
        i = min(k - 1, int(k * (1 - self.rng.random() ** 2)))
        return cands[i]

    def emit(self, blk, line):
        blk["lines"].append(blk["indent"] + line)

    def add(self, blk, v):
        blk["pool"].append(v)
        self.dtypes[v.name] = v.dt
        self.taint[v.name] = self.infer_taint(blk, v)
        return v

    # ---- JIT stability -------------------------------------------------
    # The CPU JIT agrees with the interpreter bit for bit on IEEE basic
    # operations, but only within the error model on sums (dot_general,
    # reduce_sum/prod: other orders) and transcendental functions. A value
    # is 0: exact, 1: approximate (a float within the model), 2: unstable
    # (a discrete function of an approximate value -- a comparison, a
    # conversion to an integer, a bitcast, floor -- which may differ
    # arbitrarily). Outputs that are unstable are left out of the JIT
    # comparison (and only of it).
    APPROX = set(FLOAT_UNARY) - {"neg", "abs", "sign", "floor", "ceil", "round", "sqrt", "square"} | \
        {"dot_general", "reduce_sum", "reduce_prod", "pow", "atan2", "integer_pow"}
    DISCRETE = {"compare", "argmax", "argmin", "is_finite", "floor", "ceil", "round", "sign", "rem",
                "nextafter", "bitcast_convert_type", "convert_element_type", "dynamic_slice",
                "dynamic_update_slice", "gather", "scatter"}

    def arg_taint(self, sources, loop):
        t = max([self.taint.get(v.name, 0) for v in sources] + [0])
        return t

    def set_args_taint(self, args, sources, loop):
        t = self.arg_taint(sources, loop)
        for a in args:
            # A loop carry may become approximate in an earlier iteration.
            self.taint[a.name] = max(t, 1 if loop and a.dt in FLOATS else 0)

    def infer_taint(self, blk, v):
        lines = blk["lines"]
        k = len(lines) - 1
        while k >= 0 and not (" = " in lines[k] and
                              v.name in [x.strip() for x in lines[k].split(" = ", 1)[0].split(",")]):
            k -= 1
        if k < 0:
            return 0
        line = lines[k]
        lhs, rhs = line.split(" = ", 1)
        names = set(re.findall(r"%[\w]+", rhs))
        if rhs.rstrip().endswith("{") or " lax.while " in line or " lax.cond " in line:
            for l in lines[k + 1:]:
                names |= set(re.findall(r"%[\w]+", l))
            names -= set(re.findall(r"%[\w]+", lhs))
            return max([self.taint.get(n, 0) for n in names] + [0])
        m = max([self.taint.get(n, 0) for n in names] + [0])
        call = re.search(r"func\.call @(\w+)", rhs)
        if call:
            # The callee's taint was found with exact arguments; approximate
            # ones through a discrete op of its body (a bitcast of the
            # argument) make the result unstable (generated program 1966).
            if m >= 1 and self.callee_discrete.get(call.group(1), True):
                return 2
            m = max(m, self.callee_taint.get(call.group(1), 2))
        if m == 2:
            return 2
        op = re.search(r"lax\.(\w+)", rhs)
        op = op.group(1) if op else ""
        if m == 1 and op in self.DISCRETE:
            float_in = any(self.dtypes.get(n) in FLOATS for n in names)
            if not (op == "convert_element_type" and v.dt in FLOATS) and float_in:
                return 2
        if m == 1 and op == "convert_element_type" and v.dt in FLOATS:
            # Widening an approximate float: the error model judges the
            # result by the wider type's epsilon, but its error is the
            # narrower one's (the model's shadows do not carry the type).
            src = [self.dtypes.get(n) for n in names if self.dtypes.get(n) in FLOATS]
            rank = {"bf16": 0, "f16": 1, "f32": 2, "f64": 3}
            if src and rank[src[0]] < rank[v.dt]:
                return 2
        if m == 1 and op == "pow":
            # pow amplifies its base's error by the exponent: an approximate
            # base with a huge exponent (cos(-FLT_MAX) = 1 in the JIT, 0.853
            # in libm, then ** -FLT_MAX: 1 against inf) is beyond any
            # first-order bound (generated program 101340).
            base = re.search(r"lax\.pow (%\w+)", rhs)
            if base and self.taint.get(base.group(1), 0) >= 1:
                return 2
        if v.dt in FLOATS and (op in ("reduce_prod", "dot_general") or
                               (op == "reduce_sum" and v.dt in ("f16", "bf16"))):
            # The interpreter multiplies (and sums) in double and rounds
            # once; the JIT in the element type, in another order: where one
            # overflows to inf (then NaN) and the other does not, no error
            # model relates them. Products (a dot's too: 3.4e38 * 3.4e38)
            # overflow easily, narrow sums too.
            return 2
        if v.dt in FLOATS and (m == 1 or op in self.APPROX):
            return 1
        return m

    # ---- leaf producers ------------------------------------------------
    def constant(self, blk, shape, dt, splat=None):
        name = self.fresh("c")
        n = numel(shape)
        if splat is None:
            splat = n == 1 or self.rng.random() < 0.5
        vals = random_values(self.rng, dt, 1 if splat else n, max(self.hard_p, 0.2))
        if splat:
            body = literal(dt, vals[0])
        else:
            def nest(flat, shp):
                if not shp:
                    return literal(dt, flat[0])
                step = numel(shp[1:])
                return "[" + ", ".join(nest(flat[i * step:(i + 1) * step], shp[1:]) for i in range(shp[0])) + "]"
            body = nest(vals, list(shape))
        self.emit(blk, f"{name} = lax.constant dense<{body}> : {ttype(shape, dt)}")
        return self.add(blk, V(name, shape, dt))

    def like(self, blk, v, dt=None):
        """A value of v's shape and element type dt (default v's)."""
        dt = dt or v.dt
        c = [u for u in blk["pool"] if u.shape == v.shape and u.dt == dt and u is not v]
        r = self.rng.random()
        if c and r < 0.6:
            return self.rng.choice(c)
        if r < 0.8:
            src = self.pick(blk["pool"], lambda u: u.shape == v.shape and u.dt != dt)
            if src is not None:
                return self.convert(blk, src, dt)
        if r < 0.9 and dt == v.dt:
            return v
        return self.constant(blk, v.shape, dt)

    def convert(self, blk, v, dt):
        name = self.fresh()
        self.emit(blk, f"{name} = lax.convert_element_type {v.name} : {v.ty} -> {ttype(v.shape, dt)}")
        return self.add(blk, V(name, v.shape, dt))

    def scalar_i32(self, blk):
        v = self.pick(blk["pool"], lambda u: u.shape == () and u.dt in ("i32", "i64"))
        if v is not None and self.rng.random() < 0.7:
            return v
        v = self.pick(blk["pool"], lambda u: u.shape == () and u.dt != "i1")
        if v is not None and self.rng.random() < 0.5:
            return self.convert(blk, v, "i32")
        return self.constant(blk, (), "i32")

    # ---- ops -----------------------------------------------------------
    def op_unary(self, blk):
        v = self.pick(blk["pool"])
        if v.dt in FLOATS:
            r = self.rng.random()
            if r < 0.08:
                name = self.fresh()
                self.emit(blk, f"{name} = lax.is_finite {v.name} : {v.ty} -> {ttype(v.shape, 'i1')}")
                return self.add(blk, V(name, v.shape, "i1"))
            if r < 0.18:
                y = self.rng.choice([-3, -2, -1, 0, 2, 3, 5])
                name = self.fresh()
                self.emit(blk, f"{name} = lax.integer_pow {v.name} y = {y} : {v.ty}")
                return self.add(blk, V(name, v.shape, v.dt))
            op = self.rng.choice(FLOAT_UNARY)
        elif v.dt == "i1":
            op = "not"
        else:
            if self.rng.random() < 0.15:
                y = self.rng.choice([0, 1, 2, 3, 7])
                name = self.fresh()
                self.emit(blk, f"{name} = lax.integer_pow {v.name} y = {y} : {v.ty}")
                return self.add(blk, V(name, v.shape, v.dt))
            op = self.rng.choice(INT_UNARY)
        name = self.fresh()
        self.emit(blk, f"{name} = lax.{op} {v.name} : {v.ty}")
        return self.add(blk, V(name, v.shape, v.dt))

    def op_binary(self, blk):
        a = self.pick(blk["pool"])
        ops = FLOAT_BINARY if a.dt in FLOATS else BOOL_BINARY if a.dt == "i1" else INT_BINARY
        op = self.rng.choice(ops)
        b = self.like(blk, a)
        if self.rng.random() < 0.5:
            a, b = b, a
        name = self.fresh()
        self.emit(blk, f"{name} = lax.{op} {a.name}, {b.name} : {a.ty}")
        return self.add(blk, V(name, a.shape, a.dt))

    def op_compare_select(self, blk):
        a = self.pick(blk["pool"])
        b = self.like(blk, a)
        name = self.fresh()
        self.emit(blk, f"{name} = lax.compare {self.rng.choice(COMPARE)}, {a.name}, {b.name} : {a.ty}")
        p = self.add(blk, V(name, a.shape, "i1"))
        if self.rng.random() < 0.7:
            x = self.pick(blk["pool"], lambda u: u.shape == a.shape and u.dt != "i1") or a
            y = self.like(blk, x)
            name = self.fresh()
            self.emit(blk, f"{name} = lax.select_n {p.name}, {x.name}, {y.name} : {p.ty}, {x.ty}, {y.ty}")
            return self.add(blk, V(name, x.shape, x.dt))
        return p

    def op_convert(self, blk):
        v = self.pick(blk["pool"])
        if self.rng.random() < 0.2:
            same = [d for d in ALL if BITS[d] == BITS[v.dt] and d != v.dt and BITS[d] > 8]
            if same:
                dt = self.rng.choice(same)
                name = self.fresh()
                self.emit(blk, f"{name} = lax.bitcast_convert_type {v.name} : {v.ty} -> {ttype(v.shape, dt)}")
                return self.add(blk, V(name, v.shape, dt))
        return self.convert(blk, v, self.rand_dt())

    def op_iota(self, blk):
        shape = self.rand_shape()
        if not shape:
            shape = (self.rng.randint(1, 5),)
        dt = self.rand_dt([d for d in ALL if d != "i1"])
        name = self.fresh()
        self.emit(blk, f"{name} = lax.iota dimension = {self.rng.randrange(len(shape))} : {ttype(shape, dt)}")
        return self.add(blk, V(name, shape, dt))

    def op_broadcast(self, blk):
        v = self.pick(blk["pool"], lambda u: len(u.shape) < 3)
        if v is None:
            return None
        r = self.rng.randint(len(v.shape), 3)
        dims = sorted(self.rng.sample(range(r), len(v.shape)))
        shape = [self.rng.randint(1, 4) for _ in range(r)]
        for i, d in enumerate(dims):
            shape[d] = v.shape[i] if self.rng.random() < 0.9 or v.shape[i] != 1 else shape[d]
        if numel(shape) > MAX_ELEMS:
            return None
        name = self.fresh()
        self.emit(blk, f"{name} = lax.broadcast_in_dim {v.name} shape = {lst(shape)} dims = {lst(dims)} : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_reshape(self, blk):
        v = self.pick(blk["pool"])
        n = numel(v.shape)
        facts = [d for d in range(1, n + 1) if n % d == 0]
        shape = []
        rest = n
        for _ in range(self.rng.randint(0, 3)):
            d = self.rng.choice([d for d in facts if rest % d == 0])
            shape.append(d)
            rest //= d
        if rest != 1 or (not shape and n != 1):
            shape.append(rest)
        name = self.fresh()
        self.emit(blk, f"{name} = lax.reshape {v.name} : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_transpose(self, blk, v=None):
        v = v or self.pick(blk["pool"], lambda u: len(u.shape) >= 2)
        if v is None:
            return None
        perm = list(range(len(v.shape)))
        self.rng.shuffle(perm)
        shape = [v.shape[p] for p in perm]
        name = self.fresh()
        self.emit(blk, f"{name} = lax.transpose {v.name} permutation = {lst(perm)} : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_rev(self, blk, v=None, dims=None):
        v = v or self.pick(blk["pool"], lambda u: len(u.shape) >= 1)
        if v is None:
            return None
        if dims is None:
            dims = sorted(self.rng.sample(range(len(v.shape)), self.rng.randint(1, len(v.shape))))
        name = self.fresh()
        self.emit(blk, f"{name} = lax.rev {v.name} dims = {lst(dims)} : {v.ty}")
        return self.add(blk, V(name, v.shape, v.dt))

    def op_slice(self, blk):
        v = self.pick(blk["pool"], lambda u: len(u.shape) >= 1)
        if v is None:
            return None
        start, limit, strides, shape = [], [], [], []
        for d in v.shape:
            s = self.rng.randint(0, d - 1)
            l = self.rng.randint(s + 1, d)
            st = self.rng.choice([1, 1, 2, 3])
            start.append(s); limit.append(l); strides.append(st)
            shape.append((l - s + st - 1) // st)
        name = self.fresh()
        self.emit(blk, f"{name} = lax.slice {v.name} start = {lst(start)} limit = {lst(limit)} strides = {lst(strides)} : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_concat(self, blk):
        a = self.pick(blk["pool"], lambda u: len(u.shape) >= 1)
        if a is None:
            return None
        d = self.rng.randrange(len(a.shape))
        parts = [a]
        for _ in range(self.rng.randint(1, 2)):
            c = [u for u in blk["pool"] if u.dt == a.dt and len(u.shape) == len(a.shape)
                 and all(u.shape[i] == a.shape[i] for i in range(len(a.shape)) if i != d)]
            parts.append(self.rng.choice(c) if c and self.rng.random() < 0.7 else self.like(blk, a))
        shape = list(a.shape)
        shape[d] = sum(p.shape[d] for p in parts)
        if numel(shape) > MAX_ELEMS:
            return None
        name = self.fresh()
        self.emit(blk, f"{name} = lax.concatenate {', '.join(p.name for p in parts)} dim = {d} : "
                       f"({', '.join(p.ty for p in parts)}) -> {ttype(shape, a.dt)}")
        return self.add(blk, V(name, shape, a.dt))

    def op_expand_squeeze(self, blk):
        v = self.pick(blk["pool"])
        ones = [i for i, d in enumerate(v.shape) if d == 1]
        name = self.fresh()
        if ones and self.rng.random() < 0.6:
            dims = sorted(self.rng.sample(ones, self.rng.randint(1, len(ones))))
            shape = [d for i, d in enumerate(v.shape) if i not in dims]
            self.emit(blk, f"{name} = lax.squeeze {v.name} dims = {lst(dims)} : {v.ty} -> {ttype(shape, v.dt)}")
        else:
            if len(v.shape) >= 3:
                return None
            r = len(v.shape) + 1
            pos = self.rng.randrange(r)
            shape = list(v.shape[:pos]) + [1] + list(v.shape[pos:])
            self.emit(blk, f"{name} = lax.expand_dims {v.name} dims = [{pos}] : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_dynamic(self, blk):
        v = self.pick(blk["pool"], lambda u: len(u.shape) >= 1)
        if v is None:
            return None
        idx = [self.scalar_i32(blk) for _ in v.shape]
        ity = ", ".join(i.ty for i in idx)
        iname = ", ".join(i.name for i in idx)
        if self.rng.random() < 0.5:
            sizes = [self.rng.randint(1, d) for d in v.shape]
            name = self.fresh()
            self.emit(blk, f"{name} = lax.dynamic_slice {v.name}[{iname}] sizes = {lst(sizes)} : ({v.ty}, {ity}) -> {ttype(sizes, v.dt)}")
            return self.add(blk, V(name, sizes, v.dt))
        u = self.pick(blk["pool"], lambda u: u.dt == v.dt and len(u.shape) == len(v.shape)
                      and all(a <= b for a, b in zip(u.shape, v.shape)))
        if u is None:
            return None
        name = self.fresh()
        self.emit(blk, f"{name} = lax.dynamic_update_slice {v.name}[{iname}], {u.name} : ({v.ty}, {u.ty}, {ity}) -> {v.ty}")
        return self.add(blk, V(name, v.shape, v.dt))

    def op_reduce(self, blk, v=None, kind=None, axes=None):
        v = v or self.pick(blk["pool"], lambda u: len(u.shape) >= 1 and u.dt != "i1")
        if v is None:
            return None
        if axes is None:
            axes = sorted(self.rng.sample(range(len(v.shape)), self.rng.randint(1, len(v.shape))))
        shape = [d for i, d in enumerate(v.shape) if i not in axes]
        name = self.fresh()
        if kind is None and v.dt != "i1" and self.rng.random() < 0.15:
            k = self.rng.choice(["argmax", "argmin"])
            it = self.rng.choice(["i32", "i64"])
            ax = self.rng.randrange(len(v.shape))
            shape = [d for i, d in enumerate(v.shape) if i != ax]
            self.emit(blk, f"{name} = lax.{k} {v.name} axes = [{ax}] : {v.ty} -> {ttype(shape, it)}")
            return self.add(blk, V(name, shape, it))
        kinds = ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"]
        kind = kind or self.rng.choice(kinds)
        self.emit(blk, f"{name} = lax.{kind} {v.name} axes = {lst(axes)} : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_dot(self, blk):
        a = self.pick(blk["pool"], lambda u: u.dt != "i1" and len(u.shape) >= 1)
        if a is None:
            return None
        r = len(a.shape)
        dims = list(range(r))
        self.rng.shuffle(dims)
        nb = self.rng.randint(0, min(1, r - 1))
        nc = self.rng.randint(1 if r - nb >= 1 else 0, r - nb)
        batch, contr = dims[:nb], dims[nb:nb + nc]
        # rhs: batch and contracting dims of a's sizes, plus 0-1 free dims, in random order.
        rdims = [("b", i) for i in range(nb)] + [("c", i) for i in range(nc)]
        if self.rng.random() < 0.7:
            rdims.append(("f", self.rng.randint(1, 4)))
        self.rng.shuffle(rdims)
        rshape = []
        for k, i in rdims:
            rshape.append(a.shape[batch[i]] if k == "b" else a.shape[contr[i]] if k == "c" else i)
        rb = [rdims.index(("b", i)) for i in range(nb)]
        rc = [rdims.index(("c", i)) for i in range(nc)]
        lfree = [a.shape[i] for i in range(r) if i not in batch and i not in contr]
        rfree = [rshape[j] for j, (k, _) in enumerate(rdims) if k == "f"]
        out = [a.shape[i] for i in batch] + lfree + rfree
        if numel(out) > MAX_ELEMS or len(out) > 4:
            return None
        b = self.pick(blk["pool"], lambda u: u.shape == tuple(rshape) and u.dt == a.dt)
        if b is None or self.rng.random() < 0.3:
            b = self.constant(blk, tuple(rshape), a.dt) if self.rng.random() < 0.3 else None
        if b is None:
            src = self.pick(blk["pool"], lambda u: numel(u.shape) == numel(rshape))
            if src is None:
                b = self.constant(blk, tuple(rshape), a.dt)
            else:
                name = self.fresh()
                self.emit(blk, f"{name} = lax.reshape {src.name} : {src.ty} -> {ttype(rshape, src.dt)}")
                b = self.add(blk, V(name, rshape, src.dt))
                if b.dt != a.dt:
                    b = self.convert(blk, b, a.dt)
        if self.rng.random() < 0.3 and len(a.shape) >= 2:
            # A transposed operand (kiln-canonicalize-dot-general folds it).
            perm = list(range(r)); self.rng.shuffle(perm)
            inv = [perm.index(i) for i in range(r)]
            t = self.fresh()
            tshape = [a.shape[p] for p in perm]
            self.emit(blk, f"{t} = lax.transpose {a.name} permutation = {lst(perm)} : {a.ty} -> {ttype(tshape, a.dt)}")
            # transpose back so the dimension numbers still refer to a's layout
            a2 = self.add(blk, V(t, tshape, a.dt))
            batch = [inv[i] for i in batch]
            contr = [inv[i] for i in contr]
            a = a2
            out = [a.shape[i] for i in batch] + [a.shape[i] for i in range(r) if i not in batch and i not in contr] + rfree
        name = self.fresh()
        self.emit(blk, f"{name} = lax.dot_general {a.name}, {b.name} contracting = {lst(contr)} x {lst(rc)} "
                       f"batch = {lst(batch)} x {lst(rb)} : ({a.ty}, {b.ty}) -> {ttype(out, a.dt)}")
        res = self.add(blk, V(name, out, a.dt))
        if self.rng.random() < 0.3 and len(out) >= 2:
            self.op_transpose(blk, res)
        return res

    def op_gather_scatter(self, blk):
        x = self.pick(blk["pool"], lambda u: 1 <= len(u.shape) <= 2)
        if x is None:
            return None
        k = self.rng.randint(1, 4)
        ity = self.rng.choice(["i32", "i64"])
        idx = self.pick(blk["pool"], lambda u: u.shape == (k, 1) and u.dt == ity)
        if idx is None:
            src = self.pick(blk["pool"], lambda u: u.dt in INTS and numel(u.shape) == k)
            if src is not None and self.rng.random() < 0.6:
                name = self.fresh()
                self.emit(blk, f"{name} = lax.reshape {src.name} : {src.ty} -> {ttype((k, 1), src.dt)}")
                idx = self.add(blk, V(name, (k, 1), src.dt))
                if src.dt != ity:
                    idx = self.convert(blk, idx, ity)
            else:
                name = self.fresh("c")
                vals = [self.rng.randint(-2, x.shape[0] + 1) for _ in range(k)]
                self.emit(blk, f"{name} = lax.constant dense<{lst([[v] for v in vals])}> : {ttype((k, 1), ity)}")
                idx = self.add(blk, V(name, (k, 1), ity))
        mode = self.rng.choice(["clip", "promise_in_bounds", "fill_or_drop"])
        rest = list(x.shape[1:])
        name = self.fresh()
        if self.rng.random() < 0.5:
            offs = list(range(1, len(x.shape)))
            self.emit(blk, f"{name} = lax.gather {x.name}[{idx.name}] offset_dims = {lst(offs)} collapsed_slice_dims = [0] "
                           f"start_index_map = [0] slice_sizes = {lst([1] + rest)} mode = {mode} : ({x.ty}, {idx.ty}) -> {ttype([k] + rest, x.dt)}")
            return self.add(blk, V(name, [k] + rest, x.dt))
        kinds = ["set", "min", "max"] if x.dt == "i1" else ["set", "add", "mul", "min", "max"]
        kind = self.rng.choice(kinds)
        if mode == "promise_in_bounds":
            mode = "clip"
        u = self.pick(blk["pool"], lambda u: u.shape == tuple([k] + rest) and u.dt == x.dt) or \
            self.constant(blk, tuple([k] + rest), x.dt)
        wd = list(range(1, len(x.shape)))
        self.emit(blk, f"{name} = lax.scatter {kind} {x.name}[{idx.name}], {u.name} update_window_dims = {lst(wd)} "
                       f"inserted_window_dims = [0] scatter_dims_to_operand_dims = [0] mode = {mode} : "
                       f"({x.ty}, {idx.ty}, {u.ty}) -> {x.ty}")
        return self.add(blk, V(name, x.shape, x.dt))

    # ---- regions -------------------------------------------------------
    def sub_block(self, blk, args, capture=True):
        inner = {"lines": [], "indent": blk["indent"] + "  ",
                 "pool": (list(blk["pool"]) if capture and self.rng.random() < 0.4 else []) + list(args),
                 "depth": blk["depth"] + 1, "top": False}
        return inner

    def body(self, inner, nops, results):
        """Random ops in `inner`, then values of the given (shape, dt)s."""
        for _ in range(nops):
            self.random_op(inner)
        out = []
        for shape, dt in results:
            c = [u for u in inner["pool"] if u.shape == tuple(shape) and u.dt == dt]
            # prefer computed values over captured/args
            if c and self.rng.random() < 0.9:
                out.append(c[-1] if self.rng.random() < 0.6 else self.rng.choice(c))
                continue
            c = [u for u in inner["pool"] if u.shape == tuple(shape)]
            if c and self.rng.random() < 0.8:
                out.append(self.convert(inner, self.rng.choice(c), dt))
            else:
                out.append(self.constant(inner, tuple(shape), dt))
        return out

    def op_scan(self, blk):
        if blk["depth"] >= 2:
            return None
        length = self.rng.randint(1, 5)
        reverse = self.rng.random() < 0.3
        consts = [self.pick(blk["pool"]) for _ in range(self.rng.randint(0, 1))]
        carries = [self.pick(blk["pool"]) for _ in range(self.rng.randint(0, 2))]
        xs, xs_axes, slices = [], [], []
        for _ in range(self.rng.randint(0 if carries else 1, 2)):
            cands = [u for u in blk["pool"] if length in u.shape]
            if cands and self.rng.random() < 0.8:
                x = self.rng.choice(cands)
                ax = self.rng.choice([i for i, d in enumerate(x.shape) if d == length])
            else:
                x = self.op_broadcast_to(blk, length)
                if x is None:
                    continue
                ax = 0
            if self.rng.random() < 0.25 and len(x.shape) >= 2:
                # a transposed xs: kiln-fold-scan-layout folds it into the axis
                t = self.op_transpose(blk, x)
                perm = None
                ax = self.rng.choice([i for i, d in enumerate(t.shape) if d == length])
                x = t
            xs.append(x); xs_axes.append(ax)
            slices.append(V(None, [d for i, d in enumerate(x.shape) if i != ax], x.dt))
        if not carries and not xs:
            return None
        args = []
        for v in consts + carries:
            args.append(V(self.fresh("a"), v.shape, v.dt))
        for s in slices:
            args.append(V(self.fresh("a"), s.shape, s.dt))
        self.set_args_taint(args, consts + carries + xs, loop=True)
        inner = self.sub_block(blk, args)
        ny = self.rng.randint(0 if carries else 1, 2)
        yshapes = [(self.rand_shape(2), self.rand_dt()) for _ in range(ny)]
        yshapes = [(s, d) for s, d in yshapes if numel(s) * length <= MAX_ELEMS] or ([] if carries else [((), "f32")])
        outs = self.body(inner, self.rng.randint(1, 5), [(c.shape, c.dt) for c in carries] + yshapes)
        ys_axes = [self.rng.randint(0, len(s)) for s, _ in yshapes]
        res = [V(self.fresh(), c.shape, c.dt) for c in carries]
        for (s, d), ax in zip(yshapes, ys_axes):
            res.append(V(self.fresh(), list(s[:ax]) + [length] + list(s[ax:]), d))
        attrs = []
        if reverse:
            attrs.append("reverse = true")
        if any(xs_axes):
            attrs.append(f"xs_axes = array<i64: {', '.join(map(str, xs_axes))}>")
        if any(ys_axes):
            attrs.append(f"ys_axes = array<i64: {', '.join(map(str, ys_axes))}>")
        attr = (" {" + ", ".join(attrs) + "}") if attrs else ""
        opnds = consts + carries + xs
        cpart = f" consts({', '.join(v.name for v in consts)})" if consts else ""
        lhs = ", ".join(r.name for r in res)
        rty = ", ".join(r.ty for r in res)
        self.emit(blk, f"{lhs} = lax.scan length = {length}{cpart} carry({', '.join(v.name for v in carries)}) "
                       f"xs({', '.join(v.name for v in xs)}){attr} : ({', '.join(v.ty for v in opnds)}) -> ({rty}) {{")
        self.emit(blk, f"^bb0({', '.join(a.name + ': ' + a.ty for a in args)}):")
        blk["lines"].extend(inner["lines"])
        blk["lines"].append(inner["indent"] + f"lax.yield {', '.join(o.name for o in outs)} : {', '.join(o.ty for o in outs)}")
        self.emit(blk, "}")
        for r in res:
            self.add(blk, r)
        # Consumers the scan rewrites look for.
        ysr = res[len(carries):]
        if ysr and self.rng.random() < 0.5:
            y = self.rng.choice(ysr)
            ax = ys_axes[ysr.index(y)]
            r = self.rng.random()
            if r < 0.4 and y.dt != "i1":
                self.op_reduce(blk, y, kind=self.rng.choice(["reduce_sum", "reduce_max", "reduce_min"]),
                               axes=sorted(set([ax] + [i for i in range(len(y.shape)) if self.rng.random() < 0.3])))
            elif r < 0.7 and len(y.shape) >= 2:
                self.op_transpose(blk, y)
            else:
                self.op_rev(blk, y, [ax])
        return res[0] if res else None

    def op_scan_accumulate(self, blk):
        """A scan whose carry accumulates a reduction of an elementwise
        function of its xs slice (what kiln-scan-to-reduction turns into
        one reduction over the stacked xs)."""
        if blk["depth"] >= 2:
            return None
        x = self.pick(blk["pool"], lambda u: len(u.shape) >= 1 and u.dt != "i1")
        if x is None:
            return None
        ax = self.rng.randrange(len(x.shape))
        length = x.shape[ax]
        sl = [d for i, d in enumerate(x.shape) if i != ax]
        axes = sorted(self.rng.sample(range(len(sl)), self.rng.randint(0, len(sl)))) if sl else []
        cshape = [d for i, d in enumerate(sl) if i not in axes]
        kind, comb = self.rng.choice([("reduce_sum", "add"), ("reduce_max", "max"),
                                      ("reduce_min", "min"), ("reduce_prod", "mul")])
        init = self.pick(blk["pool"], lambda u: u.shape == tuple(cshape) and u.dt == x.dt) or \
            self.constant(blk, tuple(cshape), x.dt)
        ca, xa = V(self.fresh("a"), cshape, x.dt), V(self.fresh("a"), sl, x.dt)
        self.set_args_taint([ca, xa], [init, x], loop=True)
        inner = {"lines": [], "indent": blk["indent"] + "  ", "pool": [xa], "depth": blk["depth"] + 1, "top": False}
        f = xa
        for _ in range(self.rng.randint(0, 2)):
            if x.dt in FLOATS:
                f = self.op_unary(inner) if self.rng.random() < 0.5 else self.op_binary(inner)
            else:
                f = self.op_binary(inner)
            if f.shape != tuple(sl) or f.dt != x.dt:
                f = xa
        if axes:
            r = self.fresh()
            self.emit(inner, f"{r} = lax.{kind} {f.name} axes = {lst(axes)} : {f.ty} -> {ttype(cshape, x.dt)}")
            f = self.add(inner, V(r, cshape, x.dt))
        n = self.fresh()
        self.emit(inner, f"{n} = lax.{comb} {ca.name}, {f.name} : {ca.ty}")
        nxt = self.add(inner, V(n, cshape, x.dt))
        res = V(self.fresh(), cshape, x.dt)
        attrs = []
        if self.rng.random() < 0.3:
            attrs.append("reverse = true")
        if ax:
            attrs.append(f"xs_axes = array<i64: {ax}>")
        attr = (" {" + ", ".join(attrs) + "}") if attrs else ""
        self.emit(blk, f"{res.name} = lax.scan length = {length} carry({init.name}) xs({x.name}){attr} : "
                       f"({init.ty}, {x.ty}) -> {res.ty} {{")
        self.emit(blk, f"^bb0({ca.name}: {ca.ty}, {xa.name}: {xa.ty}):")
        blk["lines"].extend(inner["lines"])
        blk["lines"].append(inner["indent"] + f"lax.yield {nxt.name} : {nxt.ty}")
        self.emit(blk, "}")
        return self.add(blk, res)

    def op_broadcast_to(self, blk, length):
        v = self.pick(blk["pool"], lambda u: len(u.shape) <= 2 and numel(u.shape) * length <= MAX_ELEMS)
        if v is None:
            return None
        shape = [length] + list(v.shape)
        name = self.fresh()
        self.emit(blk, f"{name} = lax.broadcast_in_dim {v.name} shape = {lst(shape)} dims = {lst(range(1, len(shape)))} : {v.ty} -> {ttype(shape, v.dt)}")
        return self.add(blk, V(name, shape, v.dt))

    def op_while(self, blk):
        if blk["depth"] >= 2:
            return None
        carries = [self.pick(blk["pool"]) for _ in range(self.rng.randint(1, 2))]
        bconsts = [self.pick(blk["pool"]) for _ in range(self.rng.randint(0, 1))]
        cconsts = [self.pick(blk["pool"]) for _ in range(self.rng.randint(0, 1))]
        limit = self.rng.randint(0, 4)
        zero = self.constant(blk, (), "i32", splat=True) if False else None
        name0 = self.fresh("c")
        self.emit(blk, f"{name0} = lax.constant dense<0> : tensor<i32>")
        cnt = V(name0, (), "i32")
        all_c = [cnt] + carries
        # cond region: counter < limit, and (sometimes) a data-dependent test
        cargs = [V(self.fresh("a"), v.shape, v.dt) for v in cconsts + all_c]
        self.set_args_taint(cargs, cconsts + bconsts + carries, loop=True)
        cb = self.sub_block(blk, cargs, capture=False)
        lim = self.fresh("c")
        self.emit(cb, f"{lim} = lax.constant dense<{limit}> : tensor<i32>")
        p = self.fresh()
        ic = cargs[len(cconsts)]
        self.emit(cb, f"{p} = lax.compare LT, {ic.name}, {lim} : tensor<i32>")
        pred = V(p, (), "i1")
        if self.rng.random() < 0.5:
            self.add(cb, pred)
            for _ in range(self.rng.randint(1, 3)):
                self.random_op(cb)
            q = self.body(cb, 0, [((), "i1")])[0]
            p2 = self.fresh()
            self.emit(cb, f"{p2} = lax.and {p}, {q.name} : tensor<i1>")
            pred = V(p2, (), "i1")
        bargs = [V(self.fresh("a"), v.shape, v.dt) for v in bconsts + all_c]
        self.set_args_taint(bargs, cconsts + bconsts + carries, loop=True)
        bb = self.sub_block(blk, [a for a in bargs if a is not bargs[len(bconsts)]])
        outs = self.body(bb, self.rng.randint(1, 4), [(c.shape, c.dt) for c in carries])
        one = self.fresh("c")
        self.emit(bb, f"{one} = lax.constant dense<1> : tensor<i32>")
        nxt = self.fresh()
        self.emit(bb, f"{nxt} = lax.add {bargs[len(bconsts)].name}, {one} : tensor<i32>")
        res = [V(self.fresh(), v.shape, v.dt) for v in all_c]
        opnds = cconsts + bconsts + all_c
        parts = []
        if cconsts:
            parts.append(f"cond_consts({', '.join(v.name for v in cconsts)})")
        if bconsts:
            parts.append(f"body_consts({', '.join(v.name for v in bconsts)})")
        parts.append(f"carry({', '.join(v.name for v in all_c)})")
        self.emit(blk, f"{', '.join(r.name for r in res)} = lax.while {' '.join(parts)} : "
                       f"({', '.join(v.ty for v in opnds)}) -> ({', '.join(r.ty for r in res)})")
        self.emit(blk, "cond {")
        self.emit(blk, f"^bb0({', '.join(a.name + ': ' + a.ty for a in cargs)}):")
        blk["lines"].extend(cb["lines"])
        blk["lines"].append(cb["indent"] + f"lax.yield {pred.name} : tensor<i1>")
        self.emit(blk, "} body {")
        self.emit(blk, f"^bb0({', '.join(a.name + ': ' + a.ty for a in bargs)}):")
        blk["lines"].extend(bb["lines"])
        outs = [V(nxt, (), "i32")] + outs
        blk["lines"].append(bb["indent"] + f"lax.yield {', '.join(o.name for o in outs)} : {', '.join(o.ty for o in outs)}")
        self.emit(blk, "}")
        for r in res:
            self.add(blk, r)
        return res[-1]

    def op_cond(self, blk):
        if blk["depth"] >= 2:
            return None
        if self.rng.random() < 0.5:
            idx = self.pick(blk["pool"], lambda u: u.shape == () and u.dt == "i1")
            nb = 2
        else:
            idx = None
            nb = self.rng.randint(1, 3)
        if idx is None:
            idx = self.scalar_i32(blk)
            if idx.dt != "i32":
                idx = self.convert(blk, idx, "i32")
        opnds = [self.pick(blk["pool"]) for _ in range(self.rng.randint(0, 2))]
        rtypes = [(self.rand_shape(2), self.rand_dt()) for _ in range(self.rng.randint(1, 2))]
        res = [V(self.fresh(), s, d) for s, d in rtypes]
        self.emit(blk, f"{', '.join(r.name for r in res)} = lax.cond {idx.name} ({', '.join(v.name for v in opnds)}) : "
                       f"({', '.join(v.ty for v in [idx] + opnds)}) -> ({', '.join(r.ty for r in res)})")
        for b in range(nb):
            args = [V(self.fresh("a"), v.shape, v.dt) for v in opnds]
            for a, v in zip(args, opnds):
                self.taint[a.name] = self.taint.get(v.name, 0)
            inner = self.sub_block(blk, args)
            outs = self.body(inner, self.rng.randint(0, 3), rtypes)
            self.emit(blk, ("branch" if b == 0 else "} branch") + f" {b} {{")
            self.emit(blk, f"^bb0({', '.join(a.name + ': ' + a.ty for a in args)}):")
            blk["lines"].extend(inner["lines"])
            blk["lines"].append(inner["indent"] + f"lax.yield {', '.join(o.name for o in outs)} : {', '.join(o.ty for o in outs)}")
        self.emit(blk, "}")
        for r in res:
            self.add(blk, r)
        return res[0]

    def op_call(self, blk):
        if not blk["top"]:
            return None
        if self.callees and self.rng.random() < 0.5:
            name, ats, rts = self.rng.choice(self.callees)
            args = []
            for s, d in ats:
                c = [u for u in blk["pool"] if u.shape == tuple(s) and u.dt == d]
                args.append(self.rng.choice(c) if c else self.constant(blk, tuple(s), d))
        else:
            args = [self.pick(blk["pool"]) for _ in range(self.rng.randint(1, 2))]
            name, ats, rts = self.make_callee(args)
        res = [V(self.fresh(), s, d) for s, d in rts]
        self.emit(blk, f"{', '.join(r.name for r in res)} = func.call @{name}({', '.join(a.name for a in args)}) : "
                       f"({', '.join(a.ty for a in args)}) -> ({', '.join(r.ty for r in res)})")
        for r in res:
            self.add(blk, r)
        return res[0]

    def make_callee(self, args):
        name = f"callee{len(self.callees)}"
        fargs = [V(self.fresh("a"), a.shape, a.dt) for a in args]
        # The callee's taint assuming its arguments exact; calls add theirs.
        for a in fargs:
            self.taint[a.name] = 0
            self.dtypes[a.name] = a.dt
        inner = {"lines": [], "indent": "  ", "pool": list(fargs), "depth": 1, "top": False}
        for _ in range(self.rng.randint(1, 4)):
            self.random_op(inner)
        outs = [inner["pool"][-1]]
        text = [f"func.func private @{name}({', '.join(a.name + ': ' + a.ty for a in fargs)}) -> ({outs[0].ty}) {{"]
        text += inner["lines"]
        text.append(f"  return {outs[0].name} : {outs[0].ty}")
        text.append("}")
        self.funcs.append("\n".join(text))
        self.callee_taint[name] = self.taint.get(outs[0].name, 0)
        body_ops = {m.group(1) for l in inner["lines"] for m in re.finditer(r"lax\.(\w+)", l)}
        self.callee_discrete[name] = bool(body_ops & self.DISCRETE) or any(
            "func.call" in l for l in inner["lines"])
        sig = (name, [(a.shape, a.dt) for a in args], [(outs[0].shape, outs[0].dt)])
        self.callees.append(sig)
        if self.rng.random() < 0.5:
            # An identical twin (kiln-dedup-functions merges them).
            twin = f"callee{len(self.callees)}"
            self.funcs.append("\n".join(text).replace(f"@{name}(", f"@{twin}(", 1))
            self.callee_taint[twin] = self.callee_taint[name]
            self.callee_discrete[twin] = self.callee_discrete[name]
            self.callees.append((twin,) + sig[1:])
        return sig

    OPS = [("op_unary", 14), ("op_binary", 20), ("op_compare_select", 7), ("op_convert", 7),
           ("op_iota", 2), ("op_broadcast", 5), ("op_reshape", 4), ("op_transpose", 4),
           ("op_rev", 2), ("op_slice", 4), ("op_concat", 3), ("op_expand_squeeze", 2),
           ("op_dynamic", 3), ("op_reduce", 7), ("op_dot", 5), ("op_gather_scatter", 3),
           ("op_scan", 5), ("op_scan_accumulate", 2), ("op_while", 2), ("op_cond", 2), ("op_call", 2), ("constant", 2)]

    def random_op(self, blk):
        names = [n for n, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        for _ in range(10):
            n = self.rng.choices(names, weights)[0]
            if n == "constant":
                return self.constant(blk, self.rand_shape(), self.rand_dt())
            if not blk["pool"]:
                return self.constant(blk, self.rand_shape(), self.rand_dt())
            r = getattr(self, n)(blk)
            if r is not None:
                return r
        return self.op_unary(blk)

    # ---- the program ---------------------------------------------------
    def generate(self):
        nargs = self.rng.randint(1, 4)
        args = []
        for i in range(nargs):
            args.append(V(f"%arg{i}", self.rand_shape(), self.rng.choice(ARG_TYPES)))
            self.dtypes[args[-1].name] = args[-1].dt
        blk = {"lines": [], "indent": "  ", "pool": list(args), "depth": 0, "top": True}
        for _ in range(self.max_ops):
            self.random_op(blk)
        # Results: values nothing else uses (the sinks), a few of them.
        text = "\n".join(blk["lines"])
        sinks = [v for v in blk["pool"] if v not in args and text.count(v.name + " ") + text.count(v.name + ",") +
                 text.count(v.name + "]") + text.count(v.name + ")") <= 1]
        outs = sinks[-4:] or [blk["pool"][-1]]
        rets = []
        for v in outs:
            if v.dt == "bf16":
                v = self.convert(blk, v, "f32")
            rets.append(v)
        lines = [f"func.func @main({', '.join(a.name + ': ' + a.ty for a in args)}) -> ({', '.join(r.ty for r in rets)}) {{"]
        lines += blk["lines"]
        lines.append(f"  return {', '.join(r.name for r in rets)} : {', '.join(r.ty for r in rets)}")
        lines.append("}")
        unstable = [i for i, r in enumerate(rets) if self.taint.get(r.name, 0) == 2]
        text = f"// generated by tests/differential/generate.py --seed {self.seed}\n" + \
            (f"// jit-unstable-outputs: {','.join(map(str, unstable))}\n" if unstable else "") + \
            "\n".join(self.funcs + ["\n".join(lines)]) + "\n"
        inputs = []
        for a in args:
            vals = random_values(self.rng, a.dt, numel(a.shape), self.hard_p)
            inputs.append(np.array(vals, dtype=NPY[a.dt]).reshape(a.shape))
        return Program(text, inputs, self.seed, unstable)


def generate(seed, **kw):
    return Gen(seed, **kw).generate()


def write(prog, out):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "prog.mlir")
    with open(path, "w") as f:
        f.write(prog.text)
    files = []
    for i, x in enumerate(prog.inputs):
        p = os.path.join(out, f"in{i}.npy")
        np.save(p, x)
        files.append(p)
    return path, files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="directory for prog.mlir and in<i>.npy (default: print)")
    ap.add_argument("--max-ops", type=int, default=None)
    a = ap.parse_args()
    prog = generate(a.seed, max_ops=a.max_ops)
    if a.out:
        write(prog, a.out)
    else:
        sys.stdout.write(prog.text)


if __name__ == "__main__":
    main()
