"""A scan whose body is a chain of N ops from the carry (nothing to hoist),
printed to stdout: region rules asked of every body op must stay linear in N
(tests/rules/region-rules-scale.test). With `wide`: N negs of the carry,
summed in a chain, for a rule that fires on each neg
(tests/rules/region-dependence-scale.test)."""
import sys


def scan_module(n, wide=False):
    L=["func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {",
       "  %c, %ys = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs) : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {",
       "  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):"]
    prev="%carry"
    for i in range(n):
        if wide:
            L.append(f"    %n{i} = lax.neg %carry : tensor<4xf32>")
            L.append(f"    %v{i} = lax.add {prev}, %n{i} : tensor<4xf32>")
        else:
            op = "lax.sin" if i%2 else "lax.cos"
            L.append(f"    %v{i} = {op} {prev} : tensor<4xf32>")
        prev=f"%v{i}"
    L.append(f"    lax.yield {prev}, %x : tensor<4xf32>, tensor<4xf32>")
    L.append("  }")
    L.append("  return %c : tensor<4xf32>\n}")
    return "\n".join(L)


if __name__ == "__main__":  # bench/rules_scale.py imports scan_module
    print(scan_module(int(sys.argv[1]), wide=sys.argv[2:] == ["wide"]))
