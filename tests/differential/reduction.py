"""Reduction of a finding: greedy delta debugging over @main's top-level
ops (run.py --reduce), and the lit regression test a reduced finding is
saved as (--save)."""
import copy
import os
import re
import shutil

import numpy as np

from checks import JIT_COMPARISONS, comparisons, difftest, reference
from program import ANY_OP_RE, EXACT_RE, STMT_RE, Case, Mod, drop_uncalled, inline_calls, nested_ops, private_functions, split_top, uses

# Seconds a reduction candidate's check may take (a generated program's
# checks take well under one).
TRY_TIMEOUT = 3


def fails(tools, wd, case, comparison, kind):
    """Whether `case` still fails `comparison` the same way (kiln-difftest
    on it alone, that comparison only; parse and interpreter findings come
    before any comparison)."""
    shutil.rmtree(wd, ignore_errors=True)
    case.write(wd)
    names = comparisons(tools)
    only = [comparison] if comparison in names else [names[0]]
    res = difftest(tools, [wd], jit=comparison in JIT_COMPARISONS, only=only)[wd]
    return any(f["comparison"] == comparison and f["kind"] == kind for f in res["findings"])


def values_of(tools, wd, case, names_types):
    """The interpreter's values of some @main values (added as outputs)."""
    m = Mod(case.text)
    extra = []
    for n, t in names_types:
        if t.endswith("bf16>"):
            return None
        extra.append((n, t))
    m.rets = m.rets + extra
    c = Case(m.text(), case.inputs)
    shutil.rmtree(wd, ignore_errors=True)
    path, inputs = c.write(wd)
    refs, err = reference(tools, wd, path, inputs)
    if refs is None:
        return None
    return [np.load(r) for r in refs[len(m.rets) - len(extra):]]


GENERIC_OP_RE = re.compile(r'^(\s*)%[\w#:]+ = "')
BLOCK_ARGS_RE = re.compile(r"^\s*\^bb0\((.*)\):$")


def value_types(tools, wd, case):
    """{name: type} of every value of @main (arguments, block arguments, op
    results at any depth), from kiln-opt's generic form: its ops with
    results come in the same order as the program's; None if it cannot be
    read."""
    m = Mod(case.text)
    types = dict(m.args)
    names = []
    for l in m.lines():
        op = ANY_OP_RE.match(l)
        if op:
            names.append(op.group(1).split(", "))
        bb = BLOCK_ARGS_RE.match(l)
        if bb:
            types.update(tuple(a.split(": ")) for a in split_top(bb.group(1)))
    os.makedirs(wd, exist_ok=True)
    p = os.path.join(wd, "types.mlir")
    with open(p, "w") as f:
        f.write(case.text)
    st, out = tools.call([tools.opt, p, "--mlir-print-op-generic"])
    if st != "ok":
        return None
    lines = out.split("\n")
    start = next((i for i, l in enumerate(lines) if 'sym_name = "main"' in l), None)
    if start is None:
        return None
    func_indent = len(lines[start]) - len(lines[start].lstrip())
    results = []
    for i in range(start + 1, len(lines)):
        l = lines[i]
        if l.startswith(" " * func_indent + "})"):
            break
        g = GENERIC_OP_RE.match(l)
        if not g:
            continue
        end = l
        if l.rstrip().endswith("({"):
            # A region op: its types are on the line closing its regions.
            end = next(e for e in lines[i + 1:] if e.startswith(g.group(1) + "})"))
        t = end[end.rfind(") -> ") + 5:].strip()
        results.append(split_top(t[1:-1] if t.startswith("(") else t))
    if len(results) != len(names):
        return None
    for ns, ts in zip(names, results):
        if len(ns) != len(ts):
            return None
        types.update(zip(ns, ts))
    return types


def reduce_case(tools, wd, case, comparison, kind, log=lambda s: None, budget=400):
    """Greedy delta debugging over @main's ops (calls inlined, top-level
    ops cut, nested ones replaced by an operand); returns the smallest
    failing Case."""
    tries = [0]
    # A candidate may loop forever (a while's counter replaced by its
    # operand): tries get a short time limit unless the finding is a hang.
    try_tools = copy.copy(tools)
    if kind != "timeout":
        try_tools.timeout = min(tools.timeout, TRY_TIMEOUT)

    def still(c):
        tries[0] += 1
        if tries[0] > budget:
            return False
        return fails(try_tools, os.path.join(wd, "try"), c, comparison, kind)

    def with_mod(c, m, inputs=None):
        return Case(m.text(), c.inputs if inputs is None else inputs)

    def drop_unused_args(c):
        m = Mod(c.text)
        body = "\n".join(l for _, ls in m.stmts for l in ls) + " " + " ".join(n for n, _ in m.rets)
        keep = [i for i, (a, _) in enumerate(m.args) if uses(a, body)]
        if len(keep) == len(m.args):
            return c
        # rename kept args %arg<i> stays valid (names are free-form in MLIR)
        m.args = [m.args[i] for i in keep]
        return Case(m.text(), [c.inputs[i] for i in keep])

    # 0. calls inlined (all of them, else callee by callee), so that the
    # steps below see the callees' ops in @main.
    inlined = inline_calls(case.text)
    if inlined is not None:
        c2 = Case(drop_uncalled(inlined), case.inputs)
        if still(c2):
            case = c2
        else:
            for name in private_functions(Mod(case.text).head):
                inlined = inline_calls(case.text, only={name})
                if inlined is not None:
                    c2 = Case(drop_uncalled(inlined), case.inputs)
                    if still(c2):
                        case = c2
    # 1. one output
    m = Mod(case.text)
    if len(m.rets) > 1:
        for r in list(m.rets):
            m2 = Mod(case.text)
            m2.rets = [r]
            m2.dce()
            c2 = drop_unused_args(with_mod(case, m2))
            if still(c2):
                case = c2
                break
    m = Mod(case.text)
    m.dce()
    c2 = drop_unused_args(with_mod(case, m))
    if c2.text != case.text and still(c2):
        case = c2
    # 2. cut statements, from the first (inputs side) to the last
    changed = True
    cnt = 0
    while changed and tries[0] < budget:
        changed = False
        m = Mod(case.text)
        types = value_types(tools, os.path.join(wd, "types"), case)
        if types is None:
            log("reduce: cannot read types")
            break
        for si in range(len(m.stmts)):
            m = Mod(case.text)
            if si >= len(m.stmts):
                break
            names = m.stmts[si][0]
            if any(n not in types for n in names):
                continue
            ts = [types[n] for n in names]
            lines_only = len(m.stmts[si][1]) == 1
            # (a) constants: small splats of zero/one for single-line ops
            # (b) arguments holding the interpreter's values
            vals = values_of(tools, os.path.join(wd, "vals"), case, list(zip(names, ts)))
            if vals is None:
                continue
            m2 = Mod(case.text)
            del m2.stmts[si]
            newargs = []
            for n, t, v in zip(names, ts, vals):
                an = "%cut" + n[1:]
                m2.args.append((an, t))
                newargs.append(v)
                m2.stmts = [(rs, [re.sub(re.escape(n) + r"\b", an, l) for l in ls]) for rs, ls in m2.stmts]
                m2.rets = [(an if rn == n else rn, rt) for rn, rt in m2.rets]
            m2.dce()
            c2 = drop_unused_args(Case(m2.text(), case.inputs + newargs))
            if not lines_only or len(Mod(c2.text).stmts) < len(m.stmts):
                if still(c2):
                    case = c2
                    changed = True
                    cnt += 1
                    break
    # 3. inside regions too: dead ops go; a one-line op whose result has the
    # type of one of its operands is replaced by that operand (floor(x) ->
    # x), and what it leaves dead goes with it.
    m = Mod(case.text)
    m.nested_dce()
    c2 = Case(m.text(), case.inputs)
    if c2.text != case.text and still(c2):
        case = c2
    changed = True
    while changed and tries[0] < budget:
        changed = False
        types = value_types(tools, os.path.join(wd, "types"), case)
        if types is None:
            break
        lines = Mod(case.text).lines()
        top = [(i, i, STMT_RE.match(l).group(1).split(", ")) for i, l in enumerate(lines)
               if STMT_RE.match(l) and (i + 1 == len(lines) or STMT_RE.match(lines[i + 1]))]
        for first, last, names in reversed(sorted(nested_ops(lines) + top)):
            if first != last or len(names) != 1 or names[0] not in types:
                continue
            r = names[0]
            rhs = lines[first].split(" = ", 1)[1]
            operands = dict.fromkeys(re.findall(r"%[\w]+", rhs))
            for o in operands:
                if types.get(o) != types[r]:
                    continue
                rest = lines[:first] + lines[first + 1:]
                m2 = Mod(case.text)
                m2.set_lines([re.sub(re.escape(r) + r"\b", o, l) for l in rest])
                m2.rets = [(o if n == r else n, t) for n, t in m2.rets]
                m2.nested_dce()
                m2.dce()
                c2 = drop_unused_args(Case(m2.text(), case.inputs))
                if still(c2):
                    case, changed = c2, True
                    break
            if changed or tries[0] >= budget:
                break
    # callees whose calls were cut
    c2 = Case(drop_uncalled(case.text), case.inputs)
    if c2.text != case.text and still(c2):
        case = c2
    # 4. inputs as constants
    m = Mod(case.text)
    i = 0
    while i < len(Mod(case.text).args) and tries[0] < budget:
        m = Mod(case.text)
        a, t = m.args[i]
        x = case.inputs[i]
        dt = t[t.rfind("x") + 1:-1] if "x" in t[7:] else t[7:-1]
        lit = dense_literal(x, dt)
        m.args.pop(i)
        m.stmts.insert(0, ([a], [f"  {a} = lax.constant dense<{lit}> : {t}"]))
        c2 = Case(m.text(), case.inputs[:i] + case.inputs[i + 1:])
        if still(c2):
            case = c2
        else:
            i += 1
    m = Mod(case.text)
    log(f"reduce: {tries[0]} tries, {len(m.stmts)} ops left at the top level, "
        f"{len(nested_ops(m.lines()))} inside regions, {len(private_functions(m.head))} callees")
    return case


def literal(dt, x):
    """The MLIR literal of a scalar (floats in hex, bit-exact), as the
    generator writes constants."""
    floats = {"f32": (np.float32, np.uint32, 8), "f64": (np.float64, np.uint64, 16),
              "f16": (np.float16, np.uint16, 4)}
    if dt in floats:
        f, u, width = floats[dt]
        return "0x%0*X" % (width, int(np.array([x], dtype=f).view(u)[0]))
    if dt == "i1":
        return "true" if x else "false"
    return str(int(x))


def dense_literal(x, dt):
    def rec(a):
        if a.ndim == 0:
            return literal(dt, a.item() if dt != "i1" else bool(a))
        return "[" + ", ".join(rec(b) for b in a) + "]"
    return rec(np.asarray(x))


def origin_of(source, gen_args=()):
    """Where a case came from, for a regression's header: a seed (int, with
    the generator's other options) or a program directory."""
    if isinstance(source, int):
        return " ".join([f"generated program seed {source}", *gen_args])
    return f"program {os.path.basename(os.path.normpath(source))}"


def regression_text(tools, case, comparison, kind, name, source, detail):
    nin = len(case.inputs)
    ins = ",".join(f"%S/Inputs/{name}.in{i}.npy" for i in range(nin))
    inflag = f"--inputs {ins}" if nin else ""
    lines = [f"// Reduced by tests/differential/run.py from {origin_of(source, tools.gen_args)}:",
             f"// {comparison} gave a {kind} against the reference interpreter on the original program.",
             "// RUN: rm -rf %t && mkdir -p %t",
             f"// RUN: kiln-run %s --interpret {inflag} --outputs %t/ref".replace("  ", " ")]
    m = Mod(case.text)
    refs = ",".join(f"%t/ref/out{i}.npy" for i in range(len(m.rets)))
    if comparison in JIT_COMPARISONS:
        flags = " --min-thresholds" if comparison == "jit-min-thresholds" else ""
        if EXACT_RE.search(case.text):
            # Every output was marked exact (IEEE basic operations and data
            # movement only): the JIT must give the interpreter's bits.
            lines.insert(2, "// Its outputs are computed exactly: compared bit for bit (--check-k 0).")
            flags += " --check-k 0"
        lines.append(f"// RUN: kiln-run %s --no-cache{flags} {inflag} --expect {refs}".replace("  ", " "))
    elif comparison == "interpreter":
        pass
    else:
        _, pipeline, k = next(p for p in tools.passes if p[0] == comparison)
        lines.append(f"// RUN: kiln-opt %s --pass-pipeline='{pipeline}' -o %t/after.mlir")
        lines.append(f"// RUN: kiln-run %t/after.mlir --interpret {inflag} --expect {refs} --check-k {k}".replace("  ", " "))
    # The generator's header lines name the original program's outputs.
    body = [l for l in case.text.split("\n")
            if not l.startswith(("// generated by", "// jit-unstable-outputs", "// jit-exact-outputs"))]
    return "\n".join(lines) + "\n\n" + "\n".join(body).strip() + "\n"


def save_regression(tools, case, comparison, kind, source, outdir, detail, name=None):
    """Writes `case` to outdir/NAME.mlir as a lit test (inputs in
    outdir/Inputs/); `source` is the seed (int) or program directory it was
    reduced from."""
    if name is None:
        stem = f"seed{source}" if isinstance(source, int) else os.path.basename(os.path.normpath(source))
        name = f"{stem}-{comparison}"
    os.makedirs(os.path.join(outdir, "Inputs"), exist_ok=True)
    for i, x in enumerate(case.inputs):
        np.save(os.path.join(outdir, "Inputs", f"{name}.in{i}.npy"), x)
    p = os.path.join(outdir, f"{name}.mlir")
    with open(p, "w") as f:
        f.write(regression_text(tools, case, comparison, kind, name, source, detail))
    return p


