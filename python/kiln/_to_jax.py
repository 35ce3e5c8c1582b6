"""Evaluating a lax program with JAX's own primitives.

Every lax op maps back to the JAX primitive it came from (docs/lax-ops.md
names each op's jaxpr primitive); Kiln's extensions map to what JAX accepts:
a scan's per-operand scan axes become moves of that axis to the front (xs)
and back (ys) around ``jax.lax.scan``. The result is traced by JAX like any
JAX code, so it composes with jax.jit, jax.grad, jax.vmap and shardings and
runs on every backend JAX has.

The program comes as plain data from ``kiln._kiln.Program.export()``: per
function its block arguments and ops, each op with its operand and result
ids, result types, attributes and regions.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from . import _kiln


def _jax():
    import jax
    return jax


def _dtype(name: str):
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _constant(value) -> np.ndarray:
    _, dtype, shape, values, splat = value
    dt = _dtype(dtype)
    if splat:
        return np.full(shape, values[0], dtype=dt)
    return np.asarray(values, dtype=dt).reshape(shape)


# JAX's lax functions whose names are not their primitives'.
_LAX_FUNCTION = {"and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
                 "not": "bitwise_not"}


def _elementwise() -> dict[str, Callable]:
    """Every parameterless elementwise lax op (the dialect's list, so a new
    one needs no entry here) by op name: the lax function of its primitive."""
    lax = _jax().lax
    table = {op: getattr(lax, _LAX_FUNCTION.get(primitive, primitive))
             for op, primitive, _ in _kiln.elementwise_primitives()}
    table["lax.is_finite"] = lax.is_finite
    return table


_COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]  # lax::ComparisonDirection's order


class Evaluator:
    """Evaluates one exported program's functions on JAX values."""

    def __init__(self, exported: dict, callbacks=None):
        self.functions = exported["functions"]
        self.elementwise = _elementwise()
        # The traced function's Python callbacks (kiln/_callbacks.py), which
        # lax.host_callback numbers: bound again as the primitives they were.
        self.callbacks = callbacks

    def call(self, name: str, args: Sequence[Any]) -> list:
        fn = self.functions[name]
        if len(args) != len(fn["args"]):
            raise _kiln.Error(f"@{name} takes {len(fn['args'])} arguments, got {len(args)}")
        return self.region(fn, list(args), {})

    def region(self, region: dict, args: list, outer: dict) -> list:
        """Runs a region's ops; returns the operands of its terminator.
        `outer` holds the values of enclosing regions (regions may use them)."""
        env = dict(outer)
        env.update(zip(region["args"], args))
        for op in region["ops"]:
            name = op["name"]
            operands = [env[i] for i in op["operands"]]
            if name in ("func.return", "lax.yield"):
                return operands
            results = self.op(op, operands, env)
            env.update(zip(op["results"], results))
        raise _kiln.Error("a region without a terminator")

    def op(self, op: dict, xs: list, env: dict) -> list:
        jax = _jax()
        lax, jnp = jax.lax, jax.numpy
        name, attrs = op["name"], op["attrs"]
        types = op["result_types"]
        if name == "func.call":
            return self.call(attrs["callee"], xs)
        if not name.startswith("lax."):
            raise _kiln.Error(f"{op['location']}: error: kiln.rewrite cannot evaluate '{name}'")
        kind = name[4:]
        shape = tuple(types[0][0]) if types else ()
        dtype = _dtype(types[0][1]) if types else None
        if kind == "abs" and np.issubdtype(dtype, np.unsignedinteger):
            return [xs[0]]  # JAX's abs refuses unsigned integers; on them lax.abs is the identity
        if name in self.elementwise:
            return [self.elementwise[name](*xs)]
        if kind == "host_callback":
            if self.callbacks is None:
                raise _kiln.Error(f"{op['location']}: error: host callback {attrs['index']} "
                                  "has no Python function to call")
            cb = self.callbacks.callbacks[attrs["index"]]
            return list(cb.primitive.bind(*xs, **cb.params))
        if kind == "round":
            method = lax.RoundingMethod(attrs.get("rounding_method", 0))
            return [lax.round(xs[0], method)]
        if kind == "reduce_precision":
            return [lax.reduce_precision(xs[0], attrs["exponent_bits"], attrs["mantissa_bits"])]
        if kind == "integer_pow":
            return [lax.integer_pow(xs[0], attrs["y"])]
        if kind == "compare":
            return [getattr(lax, _COMPARE[attrs["direction"]])(xs[0], xs[1])]
        if kind == "select_n":
            return [lax.select_n(xs[0], *xs[1:])]
        if kind == "convert_element_type":
            return [lax.convert_element_type(xs[0], dtype)]
        if kind == "bitcast_convert_type":
            return [lax.bitcast_convert_type(xs[0], dtype)]
        if kind == "constant":
            return [_constant(attrs["value"])]
        if kind == "iota":
            return [lax.broadcasted_iota(dtype, shape, attrs["dimension"])]
        if kind == "broadcast_in_dim":
            return [lax.broadcast_in_dim(xs[0], shape, tuple(attrs["broadcast_dimensions"]))]
        if kind == "reshape":
            return [lax.reshape(xs[0], shape)]
        if kind == "transpose":
            return [lax.transpose(xs[0], tuple(attrs["permutation"]))]
        if kind == "rev":
            return [lax.rev(xs[0], tuple(attrs["dimensions"]))]
        if kind == "slice":
            return [lax.slice(xs[0], attrs["start_indices"], attrs["limit_indices"],
                              attrs.get("strides") or None)]
        # The primitives themselves: lax.dynamic_slice and
        # lax.dynamic_update_slice (the functions) count a negative start
        # from the end, as numpy does, before the primitive clamps it.
        if kind == "dynamic_slice":
            return [lax.dynamic_slice_p.bind(xs[0], *xs[1:],
                                             slice_sizes=tuple(attrs["slice_sizes"]))]
        if kind == "dynamic_update_slice":
            return [lax.dynamic_update_slice_p.bind(xs[0], xs[1], *xs[2:])]
        if kind == "concatenate":
            return [lax.concatenate(xs, attrs["dimension"])]
        if kind == "squeeze":
            return [lax.squeeze(xs[0], tuple(attrs["dimensions"]))]
        if kind == "expand_dims":
            return [lax.expand_dims(xs[0], tuple(attrs["dimensions"]))]
        if kind == "dot_general":
            dims = ((tuple(attrs["lhs_contracting_dimensions"]), tuple(attrs["rhs_contracting_dimensions"])),
                    (tuple(attrs["lhs_batch_dimensions"]), tuple(attrs["rhs_batch_dimensions"])))
            return [lax.dot_general(xs[0], xs[1], dims, preferred_element_type=dtype)]
        if kind == "cholesky":
            # lax.cholesky keeps the operand's strict upper triangle and is
            # NaN throughout for a matrix that is not positive definite;
            # jax.lax.linalg.cholesky zeroes the upper triangle.
            x = xs[0]
            factor = lax.linalg.cholesky(x, symmetrize_input=False)
            n = x.shape[-1]
            lower = jnp.tril(jnp.ones((n, n), bool))
            failed = jnp.isnan(factor).any(axis=(-2, -1), keepdims=True)
            return [jnp.where(failed, jnp.nan, jnp.where(lower, factor, x)).astype(x.dtype)]
        if kind == "lu":
            return list(lax.linalg.lu(xs[0]))
        if kind == "geqrf":
            from jax._src.lax import linalg as lax_linalg  # geqrf is not public
            return list(lax_linalg.geqrf(xs[0]))
        if kind == "householder_product":
            return [lax.linalg.householder_product(xs[0], xs[1])]
        if kind == "svd":
            full, uv = bool(attrs.get("full_matrices", False)), bool(attrs.get("compute_uv", True))
            if not uv:
                return [lax.linalg.svd(xs[0], full_matrices=full, compute_uv=False)]
            u, s, vt = lax.linalg.svd(xs[0], full_matrices=full, compute_uv=True)
            return [s, u, vt]
        if kind == "eigh":
            return list(lax.linalg.eigh(xs[0], lower=bool(attrs.get("lower", True))))
        if kind == "eig":
            vectors = bool(attrs.get("compute_vectors", False))
            out = lax.linalg.eig(xs[0], compute_left_eigenvectors=False,
                                 compute_right_eigenvectors=vectors)
            out = out if isinstance(out, (list, tuple)) else [out]
            real = xs[0].dtype
            return [part(z).astype(real) for z in out for part in (jnp.real, jnp.imag)]
        if kind == "triangular_solve":
            return [lax.linalg.triangular_solve(
                xs[0], xs[1], left_side=bool(attrs["left_side"]), lower=bool(attrs["lower"]),
                transpose_a=bool(attrs["transpose_a"]), unit_diagonal=bool(attrs["unit_diagonal"]))]
        if kind in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
            reduce = {"reduce_sum": jnp.sum, "reduce_max": jnp.max, "reduce_min": jnp.min,
                      "reduce_prod": jnp.prod}[kind]
            return [reduce(xs[0], axis=tuple(attrs["axes"])).astype(dtype)]
        if kind in ("argmax", "argmin"):
            f = lax.argmax if kind == "argmax" else lax.argmin
            return [f(xs[0], attrs["axes"][0], dtype)]
        if kind == "sort":
            return list(lax.sort(tuple(xs), dimension=attrs["dimension"], is_stable=True,
                                 num_keys=attrs["num_keys"]))
        if kind == "top_k":
            return list(lax.top_k(xs[0], attrs["k"], axis=attrs["axis"]))
        if kind == "scan":
            return self.scan(op, xs, env)
        if kind == "while":
            return self.while_(op, xs, env)
        if kind == "cond":
            branches = [lambda *a, r=r: tuple(self.region(r, list(a), env)) for r in op["regions"]]
            # An index out of [0, n) runs the last branch (lax.cond, as
            # XLA's conditional); lax.switch would clamp it to the nearest.
            n, index = len(branches), jnp.asarray(xs[0]).astype(jnp.int32)
            index = jnp.where((index < 0) | (index >= n), n - 1, index)
            return list(lax.switch(index, branches, *xs[1:]))
        if kind == "gather":
            return [self.gather(attrs, xs, shape)]
        if kind == "scatter":
            return [self.scatter(attrs, xs)]
        raise _kiln.Error(f"{op['location']}: error: kiln.rewrite cannot evaluate '{name}'")

    def scan(self, op: dict, xs: list, env: dict) -> list:
        jax = _jax()
        jnp = jax.numpy
        a = op["attrs"]
        nc, nk = a["num_consts"], a["num_carry"]
        consts, init, seqs = xs[:nc], xs[nc:nc + nk], xs[nc + nk:]
        xs_axes = a.get("xs_axes") or [0] * len(seqs)
        ys_axes = a.get("ys_axes") or [0] * (len(op["results"]) - nk)
        # JAX scans over axis 0: Kiln's per-operand axes move there and back.
        seqs = [jnp.moveaxis(x, ax, 0) if ax else x for x, ax in zip(seqs, xs_axes)]
        body = op["regions"][0]

        def step(carry, x):
            out = self.region(body, list(consts) + list(carry) + list(x), env)
            return tuple(out[:nk]), tuple(out[nk:])

        final, ys = jax.lax.scan(step, tuple(init), tuple(seqs), length=a["length"],
                                 reverse=a.get("reverse", False), unroll=a.get("unroll", 1))
        ys = [jnp.moveaxis(y, 0, ax) if ax else y for y, ax in zip(ys, ys_axes)]
        return list(final) + ys

    def while_(self, op: dict, xs: list, env: dict) -> list:
        jax = _jax()
        a = op["attrs"]
        ncc, nbc = a["num_cond_consts"], a["num_body_consts"]
        cond_consts, body_consts, init = xs[:ncc], xs[ncc:ncc + nbc], xs[ncc + nbc:]
        cond_region, body_region = op["regions"]

        def cond(carry):
            return self.region(cond_region, list(cond_consts) + list(carry), env)[0]

        def body(carry):
            return tuple(self.region(body_region, list(body_consts) + list(carry), env))

        return list(jax.lax.while_loop(cond, body, tuple(init)))

    @staticmethod
    def _mode(attrs):
        lax = _jax().lax
        return [lax.GatherScatterMode.CLIP, lax.GatherScatterMode.FILL_OR_DROP,
                lax.GatherScatterMode.PROMISE_IN_BOUNDS][attrs.get("mode", 0)]

    def gather(self, attrs, xs, shape):
        lax = _jax().lax
        dn = lax.GatherDimensionNumbers(
            offset_dims=tuple(attrs["offset_dims"]),
            collapsed_slice_dims=tuple(attrs["collapsed_slice_dims"]),
            start_index_map=tuple(attrs["start_index_map"]),
            operand_batching_dims=tuple(attrs.get("operand_batching_dims", ())),
            start_indices_batching_dims=tuple(attrs.get("start_indices_batching_dims", ())))
        fill = attrs.get("fill_value")
        return lax.gather(xs[0], xs[1], dn, tuple(attrs["slice_sizes"]), mode=self._mode(attrs),
                          fill_value=fill)

    def scatter(self, attrs, xs):
        lax = _jax().lax
        dn = lax.ScatterDimensionNumbers(
            update_window_dims=tuple(attrs["update_window_dims"]),
            inserted_window_dims=tuple(attrs["inserted_window_dims"]),
            scatter_dims_to_operand_dims=tuple(attrs["scatter_dims_to_operand_dims"]),
            operand_batching_dims=tuple(attrs.get("operand_batching_dims", ())),
            scatter_indices_batching_dims=tuple(attrs.get("scatter_indices_batching_dims", ())))
        f = [lax.scatter, lax.scatter_add, lax.scatter_mul, lax.scatter_min,
             lax.scatter_max][attrs.get("kind", 0)]
        return f(xs[0], xs[1], xs[2], dn, mode=self._mode(attrs))
