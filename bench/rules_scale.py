#!/usr/bin/env python3
"""Rule engine scale: YAML rules (compiled to PDL at load time) against the
same rewrites as Kiln's hand-written C++ patterns, on generated modules of
growing size. Prints the time of the rewrite pass alone (--mlir-timing) and
the YAML/C++ ratio per size, in wall and in CPU time.

    bench/rules_scale.py --build build [--sizes 10000,25000,50000,100000,200000] [--region]
                         [--repeats 3]

The module repeats a block of 8 ops that both rule sets rewrite completely,
to the same module (checked): transpose(transpose(x)) and
dot_general(transpose(a), b) (rules/library/transpose.yaml; C++:
lax.transpose's canonicalization and --kiln-canonicalize-dot-general). Wall
time is the passes' own (--mlir-timing); CPU time is the process's, times
the passes' share of its wall time. Each row also gives the YAML rules' wall
time per op: flat when the engine is linear in the module's size.

--region also times the region rules of rules/library/loops.yaml (no C++
counterpart) on two modules of N ops: many small scans that they rewrite
(hoisting, removing an unused carry, ys and const), and one scan whose body
is a chain of N ops from its carry that they try on every op (it was
quadratic: only_consts followed each op's backward slice).
"""
import argparse
import importlib.util
import os
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


def many_scans(blocks):
    """`blocks` scans of 8 ops each: exp(w) to hoist, an unused carry and ys."""
    block = """  %s{i}:3 = lax.scan length = 4 consts(%w) carry(%c{p}, %z) xs(%xs) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xf32>) {{
  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %junk: tensor<4xf32>, %x: tensor<4xf32>):
    %e = lax.exp %wc : tensor<4xf32>
    %m = lax.mul %e, %x : tensor<4xf32>
    %a = lax.add %carry, %m : tensor<4xf32>
    %j = lax.sin %junk : tensor<4xf32>
    lax.yield %a, %j, %m : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }}
  %c{i} = lax.neg %s{i}#0 : tensor<4xf32>"""
    lines = ["func.func @f(%w: tensor<4xf32>, %c: tensor<4xf32>, %z: tensor<4xf32>, %xs: tensor<4x4xf32>) -> tensor<4xf32> {"]
    for i in range(blocks):
        lines.append(block.format(i=i, p=i - 1 if i else ""))
    lines.append(f"  return %c{blocks - 1} : tensor<4xf32>\n}}")
    return "\n".join(lines)


def long_body(n):
    """One scan whose body is a chain of `n` ops from the carry."""
    spec = importlib.util.spec_from_file_location(
        "long_scan_body", ROOT / "tests" / "rules" / "Inputs" / "long_scan_body.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen.scan_module(n)


def measure_region(opt, sizes, repeats=3):
    """Yields (ops, many-scans seconds, long-body seconds) per size: the best
    of `repeats` runs of the rules pass with rules/library/loops.yaml."""
    rules = f"--rules={ROOT / 'rules' / 'library' / 'loops.yaml'}"
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            times = []
            for name, text in (("scans", many_scans(max(1, size // 8))), ("body", long_body(size))):
                path = Path(tmp) / f"{name}{size}.mlir"
                path.write_text(text)
                times.append(min(pass_seconds([str(opt), str(path), rules, "--mlir-timing",
                                               "--mlir-disable-threading", "-o", "/dev/null"])[0]
                                 for _ in range(repeats)))
            yield size, times[0], times[1]


def pass_seconds(cmd):
    """The wall time of the rewrite passes (--mlir-timing) and their CPU time:
    the process's user + system time times the passes' share of its wall
    time (parsing, verifying and printing take the rest; on a shared machine
    the CPU time is the steadier of the two)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), cmd, stderr=err)
    # --mlir-timing lists each pass with its wall time; sum the rewrite passes.
    total, whole = 0.0, None
    for line in err.splitlines():
        m = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.*)", line)
        if m and any(k in m.group(2) for k in ("ApplyRules", "Canonicalizer", "CanonicalizeDotGeneral")):
            total += float(m.group(1))
        if m and m.group(2).strip() == "Total":
            whole = float(m.group(1))
    return total, (usage.ru_utime + usage.ru_stime) * total / whole


def measure(opt, sizes, repeats=3):
    """Yields (ops, YAML, C++) per size, each (wall, CPU) seconds of the
    rewrite passes (pass_seconds), the best of `repeats` runs of each
    (alternated), after checking that both rewrite everything to the same
    module."""
    opt = str(opt)
    rules = str(ROOT / "rules" / "library" / "transpose.yaml")
    yaml_args = [f"--rules={rules}", "--kiln-apply-rules"]
    cpp_args = ["--canonicalize", "--kiln-canonicalize-dot-general"]
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            path = Path(tmp) / f"m{size}.mlir"
            path.write_text(module(max(1, size // 8)))
            # Both must rewrite everything (no transpose may be left), to the
            # same module: the same rewrites, timed.
            outs = []
            for extra in (yaml_args, cpp_args):
                out = subprocess.run([opt, str(path), *extra], capture_output=True, text=True,
                                     check=True).stdout
                assert "lax.transpose" not in out, f"{extra} left a transpose"
                outs.append(out)
            assert outs[0] == outs[1], "the YAML rules and the C++ patterns give different modules"
            # Alternated, so that both sides see the same load on a shared
            # machine.
            runs = ([], [])
            for _ in range(repeats):
                for side, extra in zip(runs, (yaml_args, cpp_args)):
                    side.append(pass_seconds([opt, str(path), *extra, "--mlir-timing",
                                              "-o", "/dev/null"]))
            best = lambda side: (min(w for w, _ in side), min(c for _, c in side))
            yield size, best(runs[0]), best(runs[1])


def format_row(row):
    size, (yaml, yaml_cpu), (cpp, cpp_cpu) = row
    return (f"{size:>8} {yaml:>15.3f} {cpp:>17.3f} {yaml / cpp:>6.2f}x "
            f"{yaml_cpu:>9.3f} {cpp_cpu:>9.3f} {yaml_cpu / cpp_cpu:>6.2f}x")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(ROOT / "build"))
    p.add_argument("--sizes", default="10000,25000,50000,100000,200000", help="approximate op counts")
    p.add_argument("--region", action="store_true", help="also time the region rules (loops.yaml)")
    p.add_argument("--repeats", type=int, default=3, help="runs per measurement (the best is kept)")
    args = p.parse_args()
    opt = Path(args.build) / "bin" / "kiln-opt"
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'':>8} {'wall (--mlir-timing)':^41} {'CPU (their share)':^27}")
    print(f"{'ops':>8} {'YAML rules (s)':>15} {'C++ patterns (s)':>17} {'ratio':>7} "
          f"{'YAML (s)':>9} {'C++ (s)':>9} {'ratio':>7} {'YAML us/op':>11}")
    for row in measure(opt, sizes, args.repeats):
        print(format_row(row) + f" {1e6 * row[1][0] / row[0]:>11.2f}", flush=True)
    if args.region:
        print(f"\nregion rules (loops.yaml)\n{'ops':>8} {'many scans (s)':>15} {'us/op':>7} "
              f"{'one long body (s)':>18} {'us/op':>7}")
        for size, scans, body in measure_region(opt, sizes):
            print(f"{size:>8} {scans:>15.3f} {1e6 * scans / size:>7.2f} {body:>18.3f} "
                  f"{1e6 * body / size:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
