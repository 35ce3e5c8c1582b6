"""fuse-elementwise-limits.test's helper.

  fusion_limits.py write FILE N: a lax function summing N f32[4] inputs in
      a chain of adds.
  fusion_limits.py check: reads kiln-opt's output on stdin; every
      linalg.generic has at most 64 inputs, and there are several (the
      chain was split)."""
import re
import sys

if sys.argv[1] == "write":
    path, n = sys.argv[2], int(sys.argv[3])
    t = "tensor<4xf32>"
    args = ", ".join(f"%a{i}: {t}" for i in range(n))
    body = [f"%s0 = lax.add %a0, %a1 : {t}"]
    body += [f"%s{i - 1} = lax.add %s{i - 2}, %a{i} : {t}" for i in range(2, n)]
    lines = "\n  ".join(body)
    with open(path, "w") as f:
        f.write(f"func.func @main({args}) -> {t} {{\n  {lines}\n  return %s{n - 2} : {t}\n}}\n")
else:
    text = sys.stdin.read()
    sizes = [len(g.split(",")) for g in re.findall(r"linalg\.generic \{[^}]*\} ins\(([^:]*):", text)]
    assert len(sizes) >= 3, sizes
    assert max(sizes) <= 64, sizes
    print("ok", sizes)
