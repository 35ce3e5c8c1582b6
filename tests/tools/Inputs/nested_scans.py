"""Writes an .mlir function of N lax.scans nested one in the other (each of
length 1, so any depth runs quickly): `nested_scans.py N`. For nesting.test."""
import sys
n = int(sys.argv[1])
lines = ["func.func @main(%c0: tensor<i32>) -> tensor<i32> {"]
ind = "  "
lines.append("  %r = lax.scan length = 1 carry(%c0) xs() : (tensor<i32>) -> tensor<i32> {")
for i in range(n - 1):
    lines.append("  ^bb0(%%c%d: tensor<i32>):" % (i + 1))
    lines.append("    %%r%d = lax.scan length = 1 carry(%%c%d) xs() : (tensor<i32>) -> tensor<i32> {" % (i + 1, i + 1))
lines.append("  ^bb0(%%c%d: tensor<i32>):" % n)
lines.append("    %%s = lax.add %%c%d, %%c%d : tensor<i32>" % (n, n))
lines.append("    lax.yield %s : tensor<i32>")
for i in reversed(range(n - 1)):
    lines.append("  }")
    lines.append("    lax.yield %%r%d : tensor<i32>" % (i + 1))
lines.append("  }")
lines.append("  return %r : tensor<i32>")
lines.append("}")
print("\n".join(lines))
