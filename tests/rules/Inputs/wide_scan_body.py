"""A scan whose body has N negs of the carry, summed in a chain, printed to
stdout: a rule that fires on each neg and asks a dependence predicate before
each rewrite must stay linear in N (tests/rules/region-dependence-scale.test)."""
import sys


def scan_module(n):
    L=["func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {",
       "  %c = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs) : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> tensor<4xf32> {",
       "  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):"]
    acc="%carry"
    for i in range(n):
        L.append(f"    %n{i} = lax.neg %carry : tensor<4xf32>")
        L.append(f"    %s{i} = lax.add {acc}, %n{i} : tensor<4xf32>")
        acc=f"%s{i}"
    L.append(f"    lax.yield {acc} : tensor<4xf32>")
    L.append("  }")
    L.append("  return %c : tensor<4xf32>\n}")
    return "\n".join(L)


print(scan_module(int(sys.argv[1])))
