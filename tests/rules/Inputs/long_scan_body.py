"""A scan whose body is a chain of N ops from the carry (nothing to hoist),
printed to stdout: region rules asked of every body op must stay linear in N
(tests/rules/region-rules-scale.test)."""
import sys


def scan_module(n):
    L=["func.func @f(%w: tensor<4xf32>, %c0: tensor<4xf32>, %xs: tensor<6x4xf32>) -> tensor<4xf32> {",
       "  %c, %ys = lax.scan length = 6 consts(%w) carry(%c0) xs(%xs) : (tensor<4xf32>, tensor<4xf32>, tensor<6x4xf32>) -> (tensor<4xf32>, tensor<6x4xf32>) {",
       "  ^bb0(%wc: tensor<4xf32>, %carry: tensor<4xf32>, %x: tensor<4xf32>):"]
    prev="%carry"
    for i in range(n):
        op = "lax.sin" if i%2 else "lax.cos"
        L.append(f"    %v{i} = {op} {prev} : tensor<4xf32>")
        prev=f"%v{i}"
    L.append(f"    lax.yield {prev}, %x : tensor<4xf32>, tensor<4xf32>")
    L.append("  }")
    L.append("  return %c : tensor<4xf32>\n}")
    return "\n".join(L)


if __name__ == "__main__":
    print(scan_module(int(sys.argv[1])))
