"""Ahead-of-time export: a compiled signature of a kiln.jit function as a
shared library with a C entry point, built by the kiln-compile tool.

``kiln.jit(f).lower(*args).compile().export("libf.so", header="f.h")``
binds the constants `f` closes over into the program (Program.bind_arguments),
so that the library takes exactly the call's flattened array leaves (in
jax.tree_util order) and writes the flattened output leaves: ``f_call(void
*const *buffers)``, inputs then outputs, dense row-major host buffers on the
CPU (tools/kiln-compile/kiln-compile.cpp says what else it exports).
``Exported.load()`` calls such a library from Python through ctypes.
"""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from . import _kiln
from ._rules import tool_path

# One (shape, dtype name) per array: the dtype as numpy and JAX name it.
Spec = tuple[tuple[int, ...], str]

# The library's short dtype names (NAME_dtype, the header) -> numpy's.
_DTYPE_NAMES = {
    "f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "bool": "bool",
}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _spec(described: str) -> Spec:
    """'f32[2,3]' (CompiledFunction.input_types) -> ((2, 3), 'float32')."""
    kind, _, dims = described.rstrip("]").partition("[")
    return tuple(int(d) for d in dims.split(",") if d), _DTYPE_NAMES.get(kind, kind)


def _numpy_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def default_name(path: str) -> str:
    """kiln-compile's default prefix: the file name without "lib" and its
    extension, each character a C identifier cannot hold made '_'."""
    stem = Path(path).stem
    stem = stem[3:] if stem.startswith("lib") else stem
    name = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in stem)
    return name if name and not name[0].isdigit() else "kiln_" + name


@dataclass
class Exported:
    """A library written by ``Compiled.export``: where it is, the prefix of
    its C entry points (``NAME_call`` ...), and its signature, one (shape,
    dtype name) per flattened array leaf (``inputs``, then ``outputs``)."""
    path: str
    name: str
    target: str
    inputs: list[Spec]
    outputs: list[Spec]
    header: str | None = None
    # The output pytree of the function, which Library.__call__ rebuilds.
    out_tree: Any = field(default=None, repr=False, compare=False)

    def load(self) -> "Library":
        """The library loaded into this process (ctypes), callable with
        numpy arrays. A shared library only (an object alone has no
        entry points to call); a library loaded once stays loaded, so
        export a changed function to another path to load it."""
        return Library(self)


class Library:
    """An exported library loaded with ctypes. ``lib(*args)`` takes the
    function's arguments (pytrees of arrays, or their flattened leaves) and
    returns its outputs in the function's structure (typed PRNG keys in as
    their key data, out as key data); ``lib.call_flat(arrays)`` takes and
    returns the flattened leaves. Inputs must have the exported
    shapes and dtypes (Python scalars are converted); each call allocates
    its outputs and goes through ``NAME_call_host`` (host buffers, for
    either target)."""

    def __init__(self, exported: Exported):
        if not exported.path.endswith(".so"):
            raise ValueError(f"load: expected a shared library (.so), got '{exported.path}'")
        self.exported = exported
        self._lib = ctypes.CDLL(os.path.abspath(exported.path))
        prefix = exported.name
        self._call = getattr(self._lib, f"{prefix}_call_host")
        self._call.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        self._call.restype = ctypes.c_int
        self._error = getattr(self._lib, f"{prefix}_error")
        self._error.argtypes = []
        self._error.restype = ctypes.c_char_p
        num_inputs = getattr(self._lib, f"{prefix}_num_inputs")
        num_inputs.restype = ctypes.c_int
        if num_inputs() != len(exported.inputs):
            raise _kiln.Error(f"{exported.path}: takes {num_inputs()} inputs, not the "
                              f"{len(exported.inputs)} exported (another library at this path?)")
        self._in = [(shape, _numpy_dtype(d)) for shape, d in exported.inputs]
        self._out = [(shape, _numpy_dtype(d)) for shape, d in exported.outputs]

    def call_flat(self, arrays: Sequence[Any]) -> list[np.ndarray]:
        if len(arrays) != len(self._in):
            raise TypeError(f"{self.exported.name}: expected {len(self._in)} array leaves, "
                            f"got {len(arrays)}")
        ins = []
        for i, (x, (shape, dtype)) in enumerate(zip(arrays, self._in)):
            if isinstance(x, (bool, int, float)):
                a = np.asarray(x, dtype)
            else:
                a = np.ascontiguousarray(x)
            if a.dtype != dtype or a.shape != shape:
                raise TypeError(f"{self.exported.name}: input {i} must be "
                                f"{dtype.name}{list(shape)}, got {a.dtype.name}{list(a.shape)}")
            ins.append(a)
        outs = [np.empty(shape, dtype) for shape, dtype in self._out]
        buffers = (ctypes.c_void_p * max(len(ins) + len(outs), 1))(
            *(a.ctypes.data for a in ins + outs))
        if self._call(buffers) != 0:
            why = self._error()
            raise _kiln.Error(f"{self.exported.name}_call: "
                              f"{why.decode() if why else 'failed'}")
        return outs

    def __call__(self, *args) -> Any:
        import jax
        from ._jit import unwrap_keys  # typed PRNG keys as their key data
        outs = self.call_flat(unwrap_keys(jax.tree_util.tree_leaves(args))[0])
        tree = self.exported.out_tree
        return outs if tree is None else jax.tree_util.tree_unflatten(tree, outs)


def _flag(name: str, value: Any) -> str:
    """A CPU pipeline option (kiln.jit's compiler_options) as kiln-compile's
    flag: ("scan_vector_bits", 256) -> "--scan-vector-bits=256"."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    return f"--{name.replace('_', '-')}={value}"


def export(program: _kiln.Program, leading: Sequence[Any], trailing: Sequence[Any],
           path: str | os.PathLike, *, inputs: Sequence[str], outputs: Sequence[str],
           out_tree: Any = None, header: str | os.PathLike | None = None,
           name: str | None = None, target: str = "cpu", cpu: str = "host",
           gpu_chip: str | None = None, fp_contract: bool = False,
           compiler_options: dict[str, Any] | None = None,
           plugins: Sequence[str] = ()) -> Exported:
    """Writes `program`'s "main" as a library at `path` with kiln-compile,
    `leading` and `trailing` (the arrays main takes before and after the
    caller's: the closed-over and the hoisted constants) bound into it.
    `inputs`/`outputs`: the caller's arrays as CompiledFunction describes
    them ('f32[2,3]'). Raises ValueError for a bad argument, kiln.Error
    when the tool is missing or fails (its diagnostics in the message)."""
    path = os.fspath(path)
    if not path.endswith((".so", ".o")):
        raise ValueError(f"export: path must end in .so (a shared library) or .o (the object "
                         f"alone), got '{path}'")
    if target not in ("cpu", "gpu"):
        raise ValueError(f"export: target must be 'cpu' or 'gpu', got {target!r}")
    if not isinstance(cpu, str) or not cpu:
        raise ValueError(f"export: cpu must be 'host' or an LLVM CPU name, got {cpu!r}")
    if name is None:
        name = default_name(path)
    elif not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise ValueError(f"export: name must be a C identifier, got {name!r}")
    header = None if header is None else os.fspath(header)

    bound = program.bind_arguments("main", [np.asarray(c) for c in leading],
                                   [np.asarray(c) for c in trailing])
    tool = tool_path("kiln-compile")
    with tempfile.TemporaryDirectory(prefix="kiln-export-") as tmp:
        source = Path(tmp) / f"{name}.mlir"
        source.write_text(bound.text())
        cmd = [tool, str(source), "-o", path, f"--name={name}", "--entry=main",
               f"--target={target}", f"--cpu={cpu}"]
        if header is not None:
            cmd.append(f"--header={header}")
        if gpu_chip is not None:
            cmd.append(f"--gpu-chip={gpu_chip}")
        if fp_contract:
            cmd.append("--fp-contract")
        for option, value in sorted((compiler_options or {}).items()):
            # A CPU library runs every loop on the calling thread: the
            # threshold of the JIT's parallel loops does not apply.
            if option == "min_parallel_work" and target == "cpu":
                continue
            cmd.append(_flag(option, value))
        cmd += [f"--plugin={p}" for p in plugins]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True)
        except OSError as e:
            raise _kiln.Error(f"cannot run the Kiln tool {tool}: {e}") from None
        message = (proc.stderr or proc.stdout).replace(str(source), f"<{name}.mlir>").rstrip()
    if proc.returncode != 0:
        raise _kiln.CompileError(message or f"kiln-compile exited with status {proc.returncode}")
    return Exported(path, name, target, [_spec(s) for s in inputs],
                    [_spec(s) for s in outputs], header, out_tree)
