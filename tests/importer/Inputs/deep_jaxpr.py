"""Writes deeply nested jaxprs for error-nesting.test: `deep_jaxpr.py KIND N`.

pjit   N pjit equations, each one's jaxpr inline in the one before
lets   N named jaxprs, each calling the one before (`let f1 = ... in`)
parens a parameter value nested N parentheses deep
mixed  a parameter value nested N deep in alternating ( [ {
"""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = []
if kind == "pjit":
    body = "{ lambda ; a:f32[]. let b:f32[] = sin a in (b,) }"
    for _ in range(n):
        body = ("{ lambda ; a:f32[]. let b:f32[] = pjit[name=f jaxpr=" + body +
                "] a in (b,) }")
    out.append(body)
elif kind == "lets":
    out.append("let f0 = { lambda ; a:f32[]. let b:f32[] = sin a in (b,) } in")
    for i in range(1, n + 1):
        out.append("let f%d = { lambda ; a:f32[]. let b:f32[] = pjit[name=f jaxpr=f%d] a in (b,) } in"
                   % (i, i - 1))
    out.append("{ lambda ; a:f32[]. let b:f32[] = pjit[name=f jaxpr=f%d] a in (b,) }" % n)
elif kind in ("parens", "mixed"):
    pairs = [("(", ")")] if kind == "parens" else [("(", ")"), ("[", "]"), ("{", "}")]
    value = "1"
    opens = "".join(pairs[i % len(pairs)][0] for i in range(n))
    closes = "".join(pairs[i % len(pairs)][1] for i in reversed(range(n)))
    out.append("{ lambda ; a:f32[3]. let\n    b:f32[] = reduce_sum[axes=" + opens + value +
               closes + "] a\n  in (b,) }")
else:
    sys.exit("unknown kind " + kind)
sys.stdout.write("\n".join(out) + "\n")
