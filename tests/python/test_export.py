"""Ahead-of-time export from Python: Compiled.export writes a shared library
with kiln-compile (python/kiln/_export.py).

The library takes exactly the call's flattened array leaves (closed-over
constants compiled in) and writes the flattened output leaves; it is called
here through ctypes and from a C program built against its header. The
oracle is jax.jit on the same inputs.
"""
import ctypes
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

import jax
import jax.numpy as jnp

import kiln
from kiln import _export
from kiln._jaxpr import hoisted_consts

RNG = np.random.default_rng(0)
W1 = RNG.standard_normal((6, 16), dtype=np.float32) * 0.5
B1 = RNG.standard_normal(16, dtype=np.float32) * 0.1
W2 = RNG.standard_normal((16, 3), dtype=np.float32) * 0.5
B2 = jnp.asarray(RNG.standard_normal(3, dtype=np.float32) * 0.1)


@jax.jit
def _out_bias(h):
    # An inner jax.jit closing over a JAX array: a constant of the nested
    # jaxpr, which Kiln's entry takes last (hoisted).
    return h + B2


def mlp_closed(x):
    """An MLP whose parameters are constants it closes over."""
    return _out_bias(jnp.tanh(x @ W1 + B1) @ W2)


def mlp_params(params, x):
    """The same MLP with its parameters a pytree argument."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return {"logits": h @ params["w2"] + params["b2"], "norm": jnp.sqrt((h * h).sum())}


PARAMS = {"w1": W1, "b1": B1, "w2": W2, "b2": np.asarray(B2)}
X = RNG.standard_normal((4, 6), dtype=np.float32)


def call_with_ctypes(path: str, name: str, leaves: list, outputs: list) -> list:
    """NAME_call on numpy buffers: the leaves, then freshly allocated
    outputs of the given (shape, dtype name)."""
    lib = ctypes.CDLL(path)
    ins = [np.ascontiguousarray(x) for x in leaves]
    outs = [np.empty(shape, dtype) for shape, dtype in outputs]
    buffers = (ctypes.c_void_p * (len(ins) + len(outs)))(*(a.ctypes.data for a in ins + outs))
    call = getattr(lib, f"{name}_call")
    call.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    assert call(buffers) == 0
    return outs


def signature(path: str, name: str) -> list:
    """(shape, dtype) per input then output, as the library reports them."""
    lib = ctypes.CDLL(path)
    count = getattr(lib, f"{name}_num_inputs")() + getattr(lib, f"{name}_num_outputs")()
    rank, shape, dtype = (getattr(lib, f"{name}_{f}") for f in ("rank", "shape", "dtype"))
    shape.restype = ctypes.POINTER(ctypes.c_int64)
    dtype.restype = ctypes.c_char_p
    return [(tuple(shape(i)[k] for k in range(rank(i))), dtype(i).decode()) for i in range(count)]


def test_closed_over_constants_are_compiled_in(tmp_path):
    closed = jax.make_jaxpr(mlp_closed)(X)
    assert len(closed.consts) >= 2 and len(hoisted_consts(closed)) == 1  # both kinds bound
    compiled = kiln.jit(mlp_closed, cache_dir=None).lower(X).compile()
    path = str(tmp_path / "libclosed.so")
    exported = compiled.export(path)
    assert (exported.path, exported.name, exported.target, exported.header) == \
        (path, "closed", "cpu", None)
    assert exported.inputs == [((4, 6), "float32")]
    assert exported.outputs == [((4, 3), "float32")]
    lib = ctypes.CDLL(path)
    assert lib.closed_num_inputs() == 1 and lib.closed_num_outputs() == 1
    assert signature(path, "closed") == [((4, 6), "f32"), ((4, 3), "f32")]
    (got,) = call_with_ctypes(path, "closed", [X], exported.outputs)
    want = np.asarray(jax.jit(mlp_closed)(X))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # Other inputs, same library.
    x2 = RNG.standard_normal((4, 6), dtype=np.float32)
    np.testing.assert_allclose(exported.load()(x2), np.asarray(jax.jit(mlp_closed)(x2)),
                               rtol=1e-5, atol=1e-6)


def test_pytree_parameters_are_inputs(tmp_path):
    compiled = kiln.jit(mlp_params, cache_dir=None).lower(PARAMS, X).compile()
    path = str(tmp_path / "libparams.so")
    exported = compiled.export(path, name="mlp")
    leaves = jax.tree_util.tree_leaves((PARAMS, X))
    assert len(leaves) == 5
    assert ctypes.CDLL(path).mlp_num_inputs() == len(leaves)
    assert exported.inputs == [(x.shape, x.dtype.name) for x in leaves]
    want = jax.jit(mlp_params)(PARAMS, X)
    want_leaves = [np.asarray(w) for w in jax.tree_util.tree_leaves(want)]
    assert exported.outputs == [(w.shape, w.dtype.name) for w in want_leaves]
    got = call_with_ctypes(path, "mlp", leaves, exported.outputs)
    for g, w in zip(got, want_leaves):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    # load(): the arguments as the function takes them, its output structure.
    out = exported.load()(PARAMS, X)
    assert set(out) == {"logits", "norm"}
    np.testing.assert_allclose(out["logits"], np.asarray(want["logits"]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["norm"], np.asarray(want["norm"]), rtol=1e-5, atol=1e-6)
    flat = exported.load().call_flat(leaves)
    np.testing.assert_allclose(flat[0], want_leaves[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="input 4 must be float32\\[4, 6\\], got float64"):
        exported.load()(PARAMS, X.astype(np.float64))


C_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "mlp.h"

int main(void) {
  int n = MLP_NUM_INPUTS + MLP_NUM_OUTPUTS;
  void *buffers[MLP_NUM_INPUTS + MLP_NUM_OUTPUTS];
  int64_t sizes[MLP_NUM_INPUTS + MLP_NUM_OUTPUTS];
  for (int i = 0; i < n; ++i) {
    sizes[i] = 1;
    for (int d = 0; d < mlp_rank(i); ++d)
      sizes[i] *= mlp_shape(i)[d];
    buffers[i] = malloc(sizes[i] * sizeof(float) + 1);
  }
  for (int i = 0; i < mlp_num_inputs(); ++i)
    for (int64_t k = 0; k < sizes[i]; ++k)
      ((float *)buffers[i])[k] = (float)((k * 7 + i * 3) % 11 - 5) * 0.125f;
  if (mlp_call(buffers) != 0) {
    fprintf(stderr, "mlp_call: %s\n", mlp_error());
    return 1;
  }
  printf("target %s\n", mlp_target());
  for (int i = mlp_num_inputs(); i < n; ++i)
    for (int64_t k = 0; k < sizes[i]; ++k)
      printf("%d %.9g\n", i - mlp_num_inputs(), ((float *)buffers[i])[k]);
  return 0;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")
def test_c_program_calls_the_library_through_its_header(tmp_path):
    compiled = kiln.jit(mlp_params, cache_dir=None).lower(PARAMS, X).compile()
    exported = compiled.export(tmp_path / "libmlp.so", header=tmp_path / "mlp.h")
    assert exported.name == "mlp" and exported.header == str(tmp_path / "mlp.h")
    header = (tmp_path / "mlp.h").read_text()
    assert "int mlp_call(void *const *buffers);" in header
    assert "#define MLP_NUM_INPUTS 5" in header
    (tmp_path / "main.c").write_text(C_MAIN)
    d = str(tmp_path)
    subprocess.run(["cc", "main.c", "-o", "main", f"-L{d}", "-lmlp", f"-Wl,-rpath,{d}"],
                   cwd=d, check=True, capture_output=True)
    proc = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "target cpu"
    got: dict[int, list[float]] = {}
    for line in lines[1:]:
        i, v = line.split()
        got.setdefault(int(i), []).append(float(v))
    # The C program's inputs, made here the same way.
    leaves = []
    for i, (shape, dtype) in enumerate(exported.inputs):
        k = np.arange(int(np.prod(shape)))
        leaves.append((((k * 7 + i * 3) % 11 - 5) * 0.125).astype(dtype).reshape(shape))
    params = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure((PARAMS, X)), leaves)
    want = jax.tree_util.tree_leaves(jax.jit(mlp_params)(*params))
    assert sorted(got) == list(range(len(want)))
    for i, w in enumerate(want):
        np.testing.assert_allclose(np.array(got[i], np.float32).reshape(w.shape), np.asarray(w),
                                   rtol=1e-5, atol=1e-6)


def test_integer_and_bool_outputs_are_exact(tmp_path):
    def f(x, mask, y):
        k = x * 3 + jnp.where(mask, 1, -1).astype(x.dtype)
        return k, k > 2, jnp.argmax(y, axis=1), (x.astype(jnp.uint8) << 2), mask.sum()

    x = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    mask = (np.arange(12).reshape(3, 4) % 3 == 0)
    y = RNG.standard_normal((3, 5), dtype=np.float32)
    compiled = kiln.jit(f, cache_dir=None).lower(x, mask, y).compile()
    exported = compiled.export(str(tmp_path / "libints.so"))
    want = [np.asarray(w) for w in jax.jit(f)(x, mask, y)]
    assert exported.inputs == [((3, 4), "int32"), ((3, 4), "bool"), ((3, 5), "float32")]
    assert exported.outputs == [(w.shape, w.dtype.name) for w in want]
    assert signature(exported.path, "ints")[3:] == [
        ((3, 4), "i32"), ((3, 4), "bool"), ((3,), "i32"), ((3, 4), "u8"), ((), "i32")]
    got = call_with_ctypes(exported.path, "ints", [x, mask, y], exported.outputs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    for g, w in zip(exported.load()(x, mask, y), want):
        np.testing.assert_array_equal(g, w)


def test_object_alone(tmp_path):
    compiled = kiln.jit(lambda x: x * 2.0, cache_dir=None).lower(X).compile()
    exported = compiled.export(str(tmp_path / "double.o"))
    assert (tmp_path / "double.o").read_bytes()[:4] == b"\x7fELF"
    with pytest.raises(ValueError, match=r"expected a shared library \(\.so\)"):
        exported.load()


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's directory made private, to see that export leaves nothing."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


def test_bad_arguments(tmp_path, private_tmp):
    compiled = kiln.jit(lambda x: x + 1.0, cache_dir=None).lower(X).compile()
    with pytest.raises(ValueError, match=r"path must end in \.so .* or \.o .*, got '.*lib\.dylib'"):
        compiled.export(str(tmp_path / "lib.dylib"))
    with pytest.raises(ValueError, match="target must be 'cpu' or 'gpu', got 'tpu'"):
        compiled.export(str(tmp_path / "libf.so"), target="tpu")
    with pytest.raises(ValueError, match="name must be a C identifier, got '2fast'"):
        compiled.export(str(tmp_path / "libf.so"), name="2fast")
    assert os.listdir(tmp_path) == ["tmp"] and os.listdir(private_tmp) == []


def test_tool_failure_is_a_kiln_error_and_leaves_nothing(tmp_path, private_tmp, monkeypatch):
    compiled = kiln.jit(lambda x: x + 1.0, cache_dir=None).lower(X).compile()
    # kiln-compile cannot write the header: it fails, and removes the library.
    with pytest.raises(kiln.Error, match="kiln-compile: error: cannot write .*nowhere"):
        compiled.export(str(tmp_path / "libf.so"), header=str(tmp_path / "nowhere" / "f.h"))
    assert sorted(os.listdir(tmp_path)) == ["tmp"] and os.listdir(private_tmp) == []
    # The tool missing.
    monkeypatch.setattr(_export, "tool_path", lambda name: str(tmp_path / "no-such-tool"))
    with pytest.raises(kiln.Error, match="cannot run the Kiln tool .*no-such-tool"):
        compiled.export(str(tmp_path / "libf.so"))
    assert os.listdir(private_tmp) == []


def test_typed_keys_go_as_key_data(tmp_path):
    def f(key, x):
        return jax.random.split(key), jax.random.normal(key, x.shape) + x

    key = jax.random.key(1)
    exported = kiln.jit(f, cache_dir=None).lower(key, X).compile().export(tmp_path / "libkeys.so")
    assert exported.inputs == [((2,), "uint32"), ((4, 6), "float32")]
    keys, y = exported.load()(key, X)
    want_keys, want_y = jax.jit(f)(key, X)
    np.testing.assert_array_equal(keys, np.asarray(jax.random.key_data(want_keys)))
    np.testing.assert_allclose(y, np.asarray(want_y), rtol=1e-5, atol=1e-6)


def test_gpu_target(tmp_path):
    """A GPU library is built without a GPU; where there is no CUDA driver
    its calls fail with the reason, where there is one they run."""
    def f(x):
        return jnp.tanh(x) * 2.0

    compiled = kiln.jit(f, cache_dir=None).lower(X).compile()
    try:
        exported = compiled.export(tmp_path / "libgpu.so", target="gpu", gpu_chip="sm_80")
    except kiln.Error as e:
        if "without the GPU runtime" in str(e):
            pytest.skip("Kiln was built without the GPU runtime")
        raise
    assert exported.target == "gpu"
    lib = ctypes.CDLL(exported.path)
    lib.gpu_target.restype = ctypes.c_char_p
    assert lib.gpu_target() == b"gpu sm_80"
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        with pytest.raises(kiln.Error, match="gpu_call: .*no CUDA driver"):
            exported.load()(X)
        return
    try:
        got = exported.load()(X)
    except kiln.Error as e:  # a driver but no usable device
        assert str(e).startswith("gpu_call: ") and len(str(e)) > len("gpu_call: ")
        return
    np.testing.assert_allclose(got, np.asarray(jax.jit(f)(X)), rtol=1e-5, atol=1e-6)
