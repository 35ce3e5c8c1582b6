"""The generator's programs as text: @main split into top-level statements
(Mod), a program with its inputs (Case), and the program the JIT comparison
runs (jit_view). Used by the campaign (run.py, checks.py) and the reducer
(reduction.py)."""
import os
import re

import numpy as np

# An op's results at the start of a line: at @main's top level (two
# spaces), inside a region (four or more), at any depth.
STMT_RE = re.compile(r"^  (%[\w]+(?:, %[\w]+)*) = ")
NESTED_OP_RE = re.compile(r"^( {4,})(%[\w]+(?:, %[\w]+)*) = ")
ANY_OP_RE = re.compile(r"^\s+(%[\w]+(?:, %[\w]+)*) = ")


class Mod:
    """@main split into top-level statements (the generator's layout)."""

    def __init__(self, text):
        lines = text.split("\n")
        i = next(i for i, l in enumerate(lines) if l.startswith("func.func @main("))
        self.head = lines[:i]
        j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("  return "))
        self.sig = lines[i]
        self.ret = lines[j]
        self.tail = lines[j + 1:]
        self.set_lines(lines[i + 1:j])
        m = re.match(r"func\.func @main\((.*)\) -> \((.*)\) \{$", self.sig)
        self.args = [tuple(a.split(": ")) for a in split_top(m.group(1))] if m.group(1) else []
        rm = re.match(r"  return (.*) : (.*)$", self.ret)
        self.rets = list(zip(rm.group(1).split(", "), split_top(rm.group(2))))

    def lines(self):
        """@main's body, its return excepted."""
        return [l for _, ls in self.stmts for l in ls]

    def set_lines(self, lines):
        """Sets @main's body (its return excepted) and splits it into statements."""
        self.stmts = []  # (results, lines)
        cur = None
        for l in lines:
            m = STMT_RE.match(l)
            if m:
                cur = (m.group(1).split(", "), [l])
                self.stmts.append(cur)
            else:
                cur[1].append(l)

    def text(self):
        # A program reduced for an exact-output finding marks every output
        # exact (jit_view(exact_only=True)); the marker follows the outputs.
        head = [f"// jit-exact-outputs: {','.join(str(i) for i in range(len(self.rets)))}"
                if EXACT_RE.match(l) else l for l in self.head]
        sig = f"func.func @main({', '.join(a + ': ' + t for a, t in self.args)}) -> ({', '.join(t for _, t in self.rets)}) {{"
        ret = f"  return {', '.join(n for n, _ in self.rets)} : {', '.join(t for _, t in self.rets)}"
        body = [l for _, ls in self.stmts for l in ls]
        return "\n".join(head + [sig] + body + [ret] + self.tail)

    def nested_dce(self):
        """Drops ops inside regions whose results are unused."""
        lines = self.lines()
        rets = " ".join(n for n, _ in self.rets)
        changed = True
        while changed:
            changed = False
            for first, last, names in reversed(nested_ops(lines)):
                rest = "\n".join(lines[:first] + lines[last + 1:]) + " " + rets
                if not any(uses(n, rest) for n in names):
                    del lines[first:last + 1]
                    changed = True
                    break
        self.set_lines(lines)

    def dce(self):
        """Drops statements whose results are unused (text-level use test)."""
        changed = True
        while changed:
            changed = False
            used = " ".join(n for n, _ in self.rets)
            alltext = "\n".join(l for _, ls in self.stmts for l in ls) + "\n" + used
            for s in list(self.stmts):
                body = "\n".join(s[1])
                rest = alltext.replace(body, "")
                if not any(uses(r, rest) for r in s[0]):
                    self.stmts.remove(s)
                    alltext = rest
                    changed = True
        # unused arguments go too (their inputs with them): handled by caller

# The lines of a region op at its own indentation: region headers and ends
# ("cond {", "} body {", "branch 0 {", "} branch 1 {", "}").
REGION_LINE_RE = re.compile(r"^(\}|cond \{$|branch \d+ \{$)")


def nested_ops(lines):
    """The ops with results inside regions of `lines` (@main's body), in
    order: (first line, last line, result names); a region op's last line
    closes its last region."""
    ops = []
    for i, l in enumerate(lines):
        m = NESTED_OP_RE.match(l)
        if not m:
            continue
        ind, last = m.group(1), i
        for k in range(i + 1, len(lines)):
            if lines[k].startswith(ind + " ") or (lines[k].startswith(ind) and
                                                  REGION_LINE_RE.match(lines[k][len(ind):])):
                last = k
            else:
                break
        ops.append((i, last, m.group(2).split(", ")))
    return ops


FUNC_RE = re.compile(r"^func\.func private @([\w]+)\((.*)\) -> \((.*)\) \{$")
CALL_RE = re.compile(r"^(\s+)(%[\w]+(?:, %[\w]+)*) = func\.call @([\w]+)\((.*?)\) : ")
NAME_RE = re.compile(r"%[\w]+")


class Function:
    """A private callee of the generator's layout: `func.func private @f(...)
    -> (...) {`, its body indented by two, `  return ...`, `}`."""

    def __init__(self, name, args, body, rets, first, last):
        self.name, self.args, self.body, self.rets = name, args, body, rets
        self.first, self.last = first, last  # its lines in the module's head


def private_functions(head):
    """{name: Function} of the private functions among `head`'s lines."""
    fns = {}
    for i, l in enumerate(head):
        m = FUNC_RE.match(l)
        if not m:
            continue
        j = next(k for k in range(i + 1, len(head)) if head[k] == "}")
        args = [a.split(": ")[0] for a in split_top(m.group(2))] if m.group(2) else []
        ret = re.match(r"  return (.*) : ", head[j - 1])
        rets = ret.group(1).split(", ") if ret else []
        fns[m.group(1)] = Function(m.group(1), args, head[i + 1:j - 1], rets, i, j)
    return fns


def inline_calls(text, only=None, depth=8):
    """`text` with the calls of @main (at any depth) to private functions
    (those named in `only`, or all) replaced by the callees' bodies, their
    values renamed apart (%v3 -> %v3_i1), and so on into the callees' own
    calls (`depth` levels); None if there is no such call.
    Inlining keeps the meaning: a callee is isolated from above and the
    generator's bodies are straight-line ops and region ops."""
    m = Mod(text)
    fns = private_functions(m.head)
    out, subst = [], {}
    # Suffixes not used yet (a second pass inlines the callees' calls).
    first = n = max([int(x) for x in re.findall(r"_i(\d+)\b", text)], default=0)
    for l in m.lines():
        c = CALL_RE.match(l)
        if not c or c.group(3) not in fns or (only is not None and c.group(3) not in only):
            out.append(l)
            continue
        n += 1
        f = fns[c.group(3)]
        ren = dict(zip(f.args, [o.strip() for o in c.group(4).split(",")] if c.group(4) else []))

        def rename(s, n=n, ren=ren):
            return NAME_RE.sub(lambda x: ren.get(x.group(0), f"{x.group(0)}_i{n}"), s)

        out += [c.group(1) + rename(b[2:]) for b in f.body]
        subst.update(zip(c.group(2).split(", "), [rename(r) for r in f.rets]))
    if n == first:
        return None

    def resolve(name):
        while name in subst:
            name = subst[name]
        return name

    def apply(s):
        return NAME_RE.sub(lambda x: resolve(x.group(0)), s)

    m.set_lines([apply(l) for l in out])
    m.rets = [(resolve(r), t) for r, t in m.rets]
    # The callees' own calls, now in @main (a recursive callee stops here).
    deeper = inline_calls(m.text(), only, depth - 1) if depth > 1 else None
    return deeper or m.text()


def drop_uncalled(text):
    """`text` without the private functions nothing calls."""
    while True:
        m = Mod(text)
        lines = text.split("\n")
        for f in private_functions(m.head).values():
            rest = lines[:f.first] + lines[f.last + 1:]
            if not any(f"@{f.name}(" in l for l in rest):
                text = "\n".join(rest)
                break
        else:
            return text


def uses(name, text):
    """Whether SSA name `name` (%v1) occurs in `text` (not %v10)."""
    return re.search(re.escape(name) + r"\b", text) is not None


def split_top(s):
    """Splits 'tensor<2xf32>, tensor<i1>' at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Case:
    """A program with its inputs (arrays), reducible."""

    def __init__(self, text, inputs):
        self.text, self.inputs = text, list(inputs)

    @staticmethod
    def read(wd):
        with open(os.path.join(wd, "prog.mlir")) as f:
            text = f.read()
        inputs = []
        while os.path.exists(os.path.join(wd, f"in{len(inputs)}.npy")):
            inputs.append(np.load(os.path.join(wd, f"in{len(inputs)}.npy")))
        return Case(text, inputs)

    def write(self, wd):
        os.makedirs(wd, exist_ok=True)
        p = os.path.join(wd, "prog.mlir")
        with open(p, "w") as f:
            f.write(self.text)
        files = []
        for i, x in enumerate(self.inputs):
            q = os.path.join(wd, f"in{i}.npy")
            np.save(q, x)
            files.append(q)
        return p, files


UNSTABLE_RE = re.compile(r"^// jit-unstable-outputs: ([\d,]+)$", re.M)
EXACT_RE = re.compile(r"^// jit-exact-outputs: ([\d,]*)$", re.M)


def marked(regex, text):
    """The output indices a marker line lists (empty without the line)."""
    m = regex.search(text)
    return {int(i) for i in m.group(1).split(",") if i} if m else set()


def jit_view(text, exact_only=False):
    """The program the JIT comparison runs: without the outputs the generator
    marked unstable (discrete functions of approximate values, which the
    error model cannot compare), and the indices of the outputs kept; None
    when no output is left. Without markers (every output compared within
    the error model), or with `exact_only` only the outputs marked exact,
    all marked exact (compared bit for bit): the reducer's two views of a
    JIT finding. An exact output stays exact as the reducer cuts it (its
    operands, and the interpreter's values standing in for them, are exact
    too)."""
    drop, exact = marked(UNSTABLE_RE, text), marked(EXACT_RE, text)
    mod = Mod(text)
    keep = [i for i in range(len(mod.rets)) if i not in drop and (not exact_only or i in exact)]
    if not keep:
        return None
    mod.rets = [mod.rets[i] for i in keep]
    mod.head = [l for l in mod.head if not UNSTABLE_RE.match(l) and not EXACT_RE.match(l)]
    if exact_only:
        mod.head.append("// jit-exact-outputs: ")  # text() lists every output
    mod.dce()
    return mod.text(), keep
