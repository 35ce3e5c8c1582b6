#!/usr/bin/env python3
"""XLA through jax.jit (XLA:CPU, the installed jaxlib) as a peer of every seed
workload. Runs under the project's pinned environment (.venv, `jax` is not in
Debian's python), in a process of its own that bench/harness.py starts with
XLA's thread settings in its environment (they are read when jax's CPU client
is created, so they cannot change inside one process):

    jax_peers.py serve
        Requests on stdin, one JSON object a line: {"peer": NAME, "inputs":
        [.npy...], "out": .npy, "repeat": R, "warmup": W, "x64": bool,
        "sample_s": S}; answers on stdout, one JSON line each: {"times_s":
        [...], "threads": N, "note": "..."} or {"error": "..."}. The output of
        the last call is written to "out" for the harness's check.
    jax_peers.py first-call PROGRAM [--cache-dir DIR] [--threads N]
        Time to first result of one seed program in this (fresh) process:
        the first jitted call, blocking on its result, after `import jax`
        and the backend's start. With --cache-dir, jax's persistent
        compilation cache in DIR (empty: cold, the entry is written; filled
        by an earlier process: warm); without, no persistent cache. Prints
        one JSON line: first_s (wall), first_cpu_s (the process's CPU time
        during the call, every thread), steady_s. PROGRAM is a seed's name
        or scaling:FAMILY:SIZE, a program of bench/compile_scaling.py.

The programs are the seeds' own code, tests/jax/programs/seeds.py, taken from
that file's source definition by definition (`load_seeds`): importing the
module would also run its module-level model initialisation (jax.random,
Equinox and Flax init: about 5 s of jitted calls, which would also warm up
XLA's compiler before a "first call") and its corpus registration.
"""
import argparse
import ast
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SEEDS_PY = ROOT / "tests" / "jax" / "programs" / "seeds.py"

os.environ.setdefault("JAX_PLATFORMS", "cpu")


# --- the seeds' code ----------------------------------------------------------
def _is_program_call(node):
    """`program(...)(...)`: seeds.py's corpus registration wrapped around a
    lambda (seed002_before)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Call)
            and isinstance(node.func.func, ast.Name) and node.func.func.id == "program")


def load_seeds(*wanted):
    """{name: [each definition of `name` in seeds.py, in order]} for the
    top-level functions and classes named, with the definitions and imports
    they use. seeds.py defines f_eqx and f_flax twice (the model captured,
    then passed as an argument): both versions are returned. Globals the
    code reads but seeds.py sets by running JAX (eqxmlp, flaxmlp, params)
    are left to the caller: set them in `namespace` (returned under
    "__namespace__")."""
    tree = ast.parse(SEEDS_PY.read_text(), str(SEEDS_PY))
    defs, imports = {}, {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom) and node.module == "corpus":
                continue  # the registry: `program` is stubbed below
            for alias in node.names:
                imports[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defs.setdefault(node.name, []).append(node)
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name) and _is_program_call(node.value)):
            defs.setdefault(node.targets[0].id, []).append(node)
    chosen, todo = set(), list(wanted)
    while todo:
        name = todo.pop()
        if name in chosen:
            continue
        if name not in defs and name not in imports:
            raise KeyError(f"{name}: not a top-level definition of {SEEDS_PY}")
        chosen.add(name)
        for node in defs.get(name, []):
            todo += [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and
                     n.id not in chosen and (n.id in defs or n.id in imports)]
    nodes = sorted({id(n): n for name in chosen
                    for n in defs.get(name, []) + ([imports[name]] if name in imports else [])
                    }.values(), key=lambda n: n.lineno)
    namespace = {"__name__": "seeds", "program": lambda *a, **k: (lambda fn: fn)}
    versions = {}
    for node in nodes:
        exec(compile(ast.Module([node], type_ignores=[]), str(SEEDS_PY), "exec"), namespace)
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            name = node.name if hasattr(node, "name") else node.targets[0].id
            versions.setdefault(name, []).append(namespace[name])
    versions["__namespace__"] = namespace
    return versions


# --- the peers ----------------------------------------------------------------
def xla_pool_threads():
    """Threads of XLA:CPU's intra-op pool (named tf_XLAEigen; its size is
    PJRT_NPROC, else the number of CPUs)."""
    count = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                count += f.read().startswith("tf_XLAEigen")
        except OSError:
            pass
    return count


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def eqx_model(seeds, w1, b1, w2, b2, w3, b3):
    """The seed's EqxMLP with the given weights (eqx.nn.Linear: weight [out,
    in]). Built abstractly (eval_shape), then filled: no XLA computation."""
    import equinox as eqx
    import jax
    EqxMLP = seeds["EqxMLP"][0]
    skeleton = eqx.filter_eval_shape(lambda: EqxMLP(jax.random.key(42)))
    leaves = lambda m: [m.layers[0].weight, m.layers[0].bias, m.layers[1].weight,
                        m.layers[1].bias, m.layers[2].weight, m.layers[2].bias]
    return eqx.tree_at(leaves, skeleton, [jax.device_put(p) for p in (w1, b1, w2, b2, w3, b3)])


def flax_params(w1, b1, w2, b2, w3, b3):
    """FlaxMLP's parameters (nn.Dense: kernel [in, out]) with the given
    weights, in the structure FlaxMLP().init returns."""
    import jax
    dense = [(w1, b1), (w2, b2), (w3, b3)]
    return {"params": {f"Dense_{i}": {"kernel": jax.device_put(w.T.copy()),
                                      "bias": jax.device_put(b)}
                       for i, (w, b) in enumerate(dense)}}


def build(peer, arrays):
    """(call, args, post, note) for one peer on the harness's inputs: `call(*args)`
    runs it once, `post(out)` turns its output into the harness's (numpy)."""
    import jax
    import numpy as np
    ident = lambda out: np.asarray(out)
    if peer in ("w1-f1", "w1-f2"):  # seed 000: f1 (double vmap), f2 (einsum), both @jax.jit
        s = load_seeds("f1", "f2")
        return s[peer[3:]][0], arrays, ident, ""
    if peer == "w2-carry-row":
        # seed 003's kernel with init = zeros(n), one carry row per system
        # (seeds.tdma_batch_carry: the program examples/seeds/seed003_tdma
        # was traced from, the one Kiln compiles).
        return jax.jit(load_seeds("tdma_batch_carry")["tdma_batch_carry"][0]), arrays, ident, ""
    if peer == "w2-verbatim":
        # seed 003's tdma_jax_kernel verbatim: its init = zeros((m, n))
        # broadcasts each step's carry to [m, n] (m identical rows), so it
        # does m times the work and returns [n, m, m].
        n, m = arrays[0].shape
        item = arrays[0].dtype.itemsize
        need = 6 * n * m * m * item  # stacked cp, dp, their reversals, sol, its transpose
        if need > 0.6 * mem_available():
            raise MemoryError(f"tdma_jax_kernel verbatim on ({n}, {m}) needs ~{need / 2**30:.0f} GiB "
                              f"(its carry is [{m}, {n}]), {mem_available() / 2**30:.0f} GiB available")

        def post(out):
            out = np.asarray(out)
            if out.shape == (n, m, m) and np.array_equal(out, np.broadcast_to(out[:, :1, :], out.shape)):
                return out[:, 0, :]  # the m rows are one solution m times
            return out  # the shape check then fails
        return (jax.jit(load_seeds("tdma_jax_kernel")["tdma_jax_kernel"][0]), arrays, post,
                f"verbatim: carry [{m}, {n}], result [{n}, {m}, {m}] ({m} equal copies)")
    if peer == "w3-before":  # seed 002: the MSE over the scan's stacked ys
        return jax.jit(load_seeds("seed002_before")["seed002_before"][0]), arrays, ident, ""
    if peer == "w3-after":
        # The seed's hand-pushed version, verbatim: it divides by 5400, the
        # seed's element count; other shapes are rescaled after the call.
        size = arrays[1].size
        post = lambda out: np.asarray(np.asarray(out, np.float64) * 5400.0 / size)
        return (jax.jit(load_seeds("seed002_after")["seed002_after"][0]), arrays, post,
                "" if size == 5400 else f"result x 5400/{size} after the call (the seed's constant)")
    if peer.startswith("w4-"):  # seed 004: the MLPs, per call from Python
        s = load_seeds("EqxMLP", "FlaxMLP", "f_eqx", "filter_eqx", "f_flax")
        ns = s["__namespace__"]
        x, weights = jax.device_put(arrays[0]), arrays[1:]
        ns["eqxmlp"] = eqx_model(s, *weights)
        ns["flaxmlp"] = s["FlaxMLP"][0]()
        ns["params"] = flax_params(*weights)
        f_eqx_closure, f_eqx_arg = s["f_eqx"]
        f_flax_closure, f_flax_arg = s["f_flax"]
        calls = {"w4-eqx-closure": (f_eqx_closure, (x,)),
                 "w4-eqx-arg": (f_eqx_arg, (x, ns["eqxmlp"])),
                 "w4-eqx-filter-jit": (s["filter_eqx"][0], (x, ns["eqxmlp"])),
                 "w4-flax-closure": (f_flax_closure, (x,)),
                 "w4-flax-arg": (f_flax_arg, (x, ns["flaxmlp"], ns["params"]))}
        if peer.startswith("w4-kiln-"):
            # The same functions under kiln.jit (the kiln package, built
            # into the venv by scripts/setup.sh), called with the numpy
            # input: its per-call path is C++ (python/JitFunction.cpp).
            import kiln
            x_np = np.asarray(arrays[0])
            kiln_calls = {
                "w4-kiln-eqx-closure": (kiln.jit(f_eqx_closure), (x_np,)),
                "w4-kiln-eqx-arg": (kiln.jit(f_eqx_arg), (x_np, ns["eqxmlp"])),
                "w4-kiln-flax-closure": (kiln.jit(f_flax_closure), (x_np,)),
                "w4-kiln-flax-arg": (kiln.jit(lambda x, p: f_flax_arg(x, ns["flaxmlp"], p)),
                                     (x_np, ns["params"])),
            }
            fn, args = kiln_calls[peer]
            return fn, args, ident, "kiln.jit, numpy in and out"
        fn, args = calls[peer]
        return fn, args, ident, ""
    raise KeyError(f"unknown JAX peer {peer!r}")


def time_request(req):
    import jax
    import numpy as np
    jax.config.update("jax_enable_x64", bool(req.get("x64")))
    arrays = [np.load(p) for p in req["inputs"]]
    fn, args, post, note = build(req["peer"], arrays)
    if not req["peer"].startswith("w4-"):
        args = [jax.device_put(a) for a in args]

    if req["peer"].startswith("w4-kiln-"):
        def call():  # numpy results: ready when the call returns
            return fn(*args)
    else:
        def call():
            return jax.block_until_ready(fn(*args))
    repeat, warmup = req["repeat"], req["warmup"]
    # Warm-up as the harness's other peers: `warmup` calls and 20 ms or more
    # (the first one compiles).
    start, n = time.perf_counter(), 0
    while n < warmup or (time.perf_counter() - start < 0.02 and n < 100000):
        out = call()
        n += 1
    times = []
    if req.get("per_call"):
        # Time per call, each call waited for: batches of `calls` calls.
        t0 = time.perf_counter()
        for _ in range(100):
            call()
        per = (time.perf_counter() - t0) / 100
        calls = max(100, int(req.get("sample_s", 0.1) / per))
        for _ in range(repeat):
            t0 = time.perf_counter()
            for _ in range(calls):
                out = call()
            times.append((time.perf_counter() - t0) / calls)
        note = (note + "; " if note else "") + f"{calls} calls a sample"
    else:
        for _ in range(repeat):
            t0 = time.perf_counter()
            out = call()
            times.append(time.perf_counter() - t0)
    np.save(req["out"], post(out))
    jax.config.update("jax_enable_x64", False)
    return {"times_s": times, "threads": xla_pool_threads(), "note": note}


def serve():
    import jax
    jax.config.update("jax_enable_compilation_cache", False)
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # what the programs print (seed 001 at trace time) goes to stderr
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = time_request(json.loads(line))
        except Exception as e:  # one failing peer must not stop the others
            answer = {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
        answers.write(json.dumps(answer) + "\n")


# --- time to first result -------------------------------------------------------
def first_call_program(name):
    """(jitted function, numpy inputs) of a seed program at the size of its
    examples/seeds file (Kiln's compile rows): random inputs."""
    import numpy as np
    rng = np.random.default_rng(0)
    normal = lambda *shape: rng.standard_normal(shape, dtype=np.float32)
    if name == "seed001":  # outer_fn: ten inner_fn calls; the seed's state
        return load_seeds("outer_fn")["outer_fn"][0], [np.arange(5, dtype=np.uint32)]
    if name == "seed000_f2":
        return load_seeds("f2")["f2"][0], [normal(600, 821), normal(32, 100, 821)]
    if name == "seed002_mse":
        import jax
        return (jax.jit(load_seeds("seed002_before")["seed002_before"][0]),
                [normal(10, 5, 8), normal(30, 15, 12), normal(30, 15, 12)])
    if name == "seed003_tdma":
        import jax
        diags = [rng.uniform(0.5, 1.5, (1000, 100)).astype(np.float32) for _ in range(4)]
        return jax.jit(load_seeds("tdma_batch_carry")["tdma_batch_carry"][0]), diags
    if name == "seed004_mlp_eqx":  # the model passed as an argument, as Kiln's @mlp takes it
        s = load_seeds("EqxMLP", "f_eqx")
        shapes = [(64, 4), (64,), (64, 64), (64,), (2, 64), (2,)]
        model = eqx_model(s, *(normal(*sh) * 0.3 for sh in shapes))
        return s["f_eqx"][1], [normal(4), model]
    if name.startswith("scaling:"):  # bench/compile_scaling.py's FAMILY:SIZE
        import jax
        sys.path.insert(0, str(ROOT / "bench"))
        import compile_scaling
        _, family, size = name.split(":")
        fn, shapes = compile_scaling.build(family, int(size))
        return jax.jit(fn), [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    raise KeyError(f"unknown program {name!r}")


def first_call(args):
    import jax
    import numpy as np
    if args.cache_dir:
        jax.config.update("jax_compilation_cache_dir", args.cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    else:
        jax.config.update("jax_enable_compilation_cache", False)
    fn, inputs = first_call_program(args.program)
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    jax.devices()  # the backend's start is not the program's
    inputs = [jax.device_put(x) if isinstance(x, np.ndarray) else x for x in inputs]
    jax.block_until_ready(inputs)
    t0, c0 = time.perf_counter(), time.process_time()
    jax.block_until_ready(fn(*inputs))
    first, first_cpu = time.perf_counter() - t0, time.process_time() - c0
    steady = []
    for _ in range(5):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*inputs))
        steady.append(time.perf_counter() - t0)
    answers.write(json.dumps({"first_s": first, "first_cpu_s": first_cpu,
                              "steady_s": sorted(steady)[2],
                              "threads": xla_pool_threads()}) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve")
    fc = sub.add_parser("first-call")
    fc.add_argument("program")
    fc.add_argument("--cache-dir")
    args = parser.parse_args()
    if args.command == "serve":
        serve()
    else:
        first_call(args)


if __name__ == "__main__":
    main()
