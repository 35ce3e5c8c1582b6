#!/usr/bin/env python3
"""Rule engine scale: YAML rules (compiled to PDL at load time) against the
same rewrites as Kiln's hand-written C++ patterns, on generated modules of
growing size. Prints the time of the rewrite pass alone (--mlir-timing) and
the YAML/C++ ratio per size.

    bench/rules_scale.py --build build [--sizes 25000,50000,100000,200000]

The module repeats a block of 8 ops that both rule sets rewrite completely:
transpose(transpose(x)) and dot_general(transpose(a), b) (rules/library/
transpose.yaml; C++: lax.transpose's canonicalization and
--kiln-canonicalize-dot-general).
"""
import argparse
import re
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = """  %t{i} = lax.transpose %x permutation = [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %u{i} = lax.transpose %t{i} permutation = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %v{i} = lax.transpose %u{i} permutation = [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
  %d{i} = lax.dot_general %v{i}, %y contracting = [0] x [0] batch = [] x [] : (tensor<3x4xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %e{i} = lax.add %d{i}, %acc{p} : tensor<4x5xf32>
  %w{i} = lax.transpose %y permutation = [1, 0] : tensor<3x5xf32> -> tensor<5x3xf32>
  %f{i} = lax.dot_general %x, %w{i} contracting = [1] x [1] batch = [] x [] : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
  %acc{i} = lax.add %e{i}, %f{i} : tensor<4x5xf32>
"""


def module(blocks):
    lines = ["func.func @f(%x: tensor<4x3xf32>, %y: tensor<3x5xf32>, %acc: tensor<4x5xf32>) -> tensor<4x5xf32> {"]
    for i in range(blocks):
        lines.append(BLOCK.format(i=i, p=i - 1 if i else ""))  # block 0 adds the argument %acc
    lines.append(f"  return %acc{blocks - 1} : tensor<4x5xf32>\n}}")
    return "\n".join(lines)


def pass_seconds(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    # --mlir-timing lists each pass with its wall time; sum the rewrite passes.
    total = 0.0
    for line in out.splitlines():
        m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*)", line)
        if m and any(k in m.group(2) for k in ("ApplyRules", "Canonicalizer", "CanonicalizeDotGeneral")):
            total += float(m.group(1))
    return total


def measure(opt, sizes, repeats=3):
    """Yields (ops, YAML seconds, C++ seconds) per size: the best of `repeats`
    runs of the rewrite passes, after checking that both rewrite everything."""
    opt = str(opt)
    rules = str(ROOT / "rules" / "library" / "transpose.yaml")
    yaml_args = [f"--rules={rules}", "--kiln-apply-rules"]
    cpp_args = ["--canonicalize", "--kiln-canonicalize-dot-general"]
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = Path(tmp) / f"m{size}.mlir"
            path.write_text(module(max(1, size // 8)))
            # Both must rewrite everything: no transpose may be left.
            for extra in (yaml_args, cpp_args):
                out = subprocess.run([opt, str(path), *extra], capture_output=True, text=True).stdout
                assert "lax.transpose" not in out, f"{extra} left a transpose"
            timed = lambda extra: min(pass_seconds([opt, str(path), *extra, "--mlir-timing",
                                                    "-o", "/dev/null"]) for _ in range(repeats))
            yield size, timed(yaml_args), timed(cpp_args)


def format_row(row):
    size, yaml, cpp = row
    return f"{size:>8} {yaml:>15.3f} {cpp:>17.3f} {yaml / cpp:>6.2f}x"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--sizes", default="25000,50000,100000,200000", help="approximate op counts")
    args = p.parse_args()
    print(f"{'ops':>8} {'YAML rules (s)':>15} {'C++ patterns (s)':>17} {'ratio':>7}")
    for row in measure(Path(args.build) / "bin" / "kiln-opt", [int(s) for s in args.sizes.split(",")]):
        print(format_row(row), flush=True)


if __name__ == "__main__":
    main()
