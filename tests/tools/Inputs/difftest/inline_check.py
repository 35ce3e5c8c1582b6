"""Checks the reducer's inliner (tests/differential/program.py) against the
reference interpreter: each generated program with calls, and the same
program with every call inlined and its callees dropped, give the same
output bits on the program's generated inputs.

    inline_check.py SRC BIN WORK SEED|FILE.mlir...

(a file runs on kiln-run's --random-inputs)
"""
import glob
import os
import subprocess
import sys

import numpy as np

src, bindir, work, seeds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, os.path.join(src, "tests", "differential"))
from program import drop_uncalled, inline_calls  # noqa: E402

for s in seeds:
    d = os.path.join(work, os.path.basename(s))
    if s.endswith(".mlir"):
        os.makedirs(d)
        with open(s) as f, open(os.path.join(d, "prog.mlir"), "w") as g:
            g.write(f.read())
    else:
        subprocess.run([os.path.join(bindir, "kiln-difftest"), "generate", "--seed", s, "--out", d], check=True)
    text = open(os.path.join(d, "prog.mlir")).read()
    inlined = inline_calls(text)
    assert inlined is not None, f"seed {s} has no call"
    inlined = drop_uncalled(inlined)
    assert "func.call" not in inlined and "func.func private" not in inlined, inlined
    with open(os.path.join(d, "inlined.mlir"), "w") as f:
        f.write(inlined)
    ins = sorted(glob.glob(os.path.join(d, "in*.npy")), key=lambda p: int(p[len(d) + 3:-4]))
    outs = []
    for prog in ("prog.mlir", "inlined.mlir"):
        o = os.path.join(d, prog + ".out")
        subprocess.run([os.path.join(bindir, "kiln-run"), os.path.join(d, prog), "--interpret", "--outputs", o] +
                       ([f"--inputs={','.join(ins)}"] if ins else []) +
                       (["--random-inputs"] if s.endswith(".mlir") else []), check=True, capture_output=True)
        outs.append([np.load(p) for p in sorted(glob.glob(os.path.join(o, "*.npy")))])
    assert len(outs[0]) == len(outs[1]) > 0, s
    for a, b in zip(*outs):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), f"seed {s} differs"
    print(f"{os.path.basename(s)}: {text.count('func.call')} calls inlined, {len(outs[0])} outputs identical")
