"""Rules for kiln.jit and kiln.rewrite: YAML files, YAML text, plugins.

Kiln's rule engine (docs/rules.md) reads rule files; rules given as text are
written once to a private temporary directory under the name the user gave
them, and every error message names that name, not the temporary path.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable, Sequence, Union

from . import _kiln

_TEXT_DIR: str | None = None


def _text_dir() -> str:
    global _TEXT_DIR
    if _TEXT_DIR is None:
        _TEXT_DIR = tempfile.mkdtemp(prefix="kiln-rules-")
        atexit.register(shutil.rmtree, _TEXT_DIR, True)
    return _TEXT_DIR


class Rules:
    """A set of rule sources: YAML files or directories, YAML text, and
    plugin libraries (.so, loaded once per process when first used).

    >>> rules = kiln.Rules.from_text('''
    ... - name: neg-neg
    ...   match:
    ...     inner: lax.neg($x)
    ...     root:  lax.neg(inner)
    ...   rewrite:
    ...     root: $x
    ... ''', name="negneg.yaml")
    """

    def __init__(self, sources: Iterable["RulesLike"] = (), *, plugins: Sequence[str] = ()):
        self._files: list[tuple[str, str]] = []  # (path given to Kiln, name the user knows)
        self._plugins: list[str] = [str(p) for p in plugins]
        for source in sources:
            self._add(source)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Rules":
        """A YAML rule file, or every *.yaml of a directory."""
        r = cls()
        r._add_path(Path(path))
        return r

    @classmethod
    def from_text(cls, text: str, name: str = "rules.yaml") -> "Rules":
        """YAML rules given as text; `name` stands for it in messages."""
        r = cls()
        r._add_text(text, name)
        return r

    @classmethod
    def from_functions(cls, pattern, replacement, *, name: str, example_args=None,
                       tags: Sequence[str] = (), where: Sequence[str] | str = (),
                       description: str = "", any_order: bool = True) -> "Rules":
        """One rule written as two JAX functions of the same parameters:
        where the program computes `pattern`, compute `replacement`.

        >>> rules = kiln.Rules.from_functions(
        ...     lambda a, b: jnp.exp(jnp.log(a) - jnp.log(b)),
        ...     lambda a, b: a / b, name="exp-log-ratio", tags=["changes-precision"])

        Both are traced with JAX on `example_args` (default: one f32[8]
        per parameter) and written as a YAML rule (``.yaml()``; for
        kiln-opt, a file of it) that fires at any shape and dtype its ops
        match; `where` adds conditions of the rule language
        (``"is_float($a)"``: parameters are ``$name``); `any_order`: the
        operands of commutative ops (add, mul, max, min, and, or, xor)
        match in either order. What a pattern may hold: docs/rules.md,
        "Rules as JAX functions"."""
        from ._rule_functions import rule_from_functions
        text = rule_from_functions(pattern, replacement, name=name, example_args=example_args,
                                   tags=tags, where=where, description=description,
                                   any_order=any_order)
        return cls.from_text(text, name=f"{name}.yaml")

    def rule(self, pattern, *, name: str | None = None, example_args=None,
             tags: Sequence[str] = (), where: Sequence[str] | str = (),
             any_order: bool = True):
        """Decorator form of `from_functions`: the decorated function is the
        replacement of `pattern`, and the rule joins these rules.

        >>> rules = kiln.Rules()
        >>> @rules.rule(lambda a, b: jnp.exp(jnp.log(a) - jnp.log(b)),
        ...             tags=["changes-precision"])
        ... def exp_log_ratio(a, b):
        ...     "exp(log a - log b) is a / b for positive a, b"
        ...     return a / b

        The rule's name is `name`, else the function's with ``_`` as ``-``
        (``exp-log-ratio``); its description the function's docstring. The
        function is returned unchanged, an ordinary JAX function still."""
        if not callable(pattern):
            raise TypeError("Rules.rule(pattern): the pattern must be a function of the "
                            f"replacement's parameters, got {type(pattern).__name__}")

        def add(replacement):
            import inspect
            rule_name = name or replacement.__name__.replace("_", "-")
            if rule_name == "<lambda>":
                raise ValueError("Rules.rule: a lambda has no name; pass name=")
            self._add(Rules.from_functions(
                pattern, replacement, name=rule_name, example_args=example_args, tags=tags,
                where=where, description=inspect.getdoc(replacement) or "",
                any_order=any_order))
            return replacement
        return add

    def yaml(self) -> str:
        """The YAML of every rule file, concatenated (what kiln-opt reads)."""
        texts = []
        for path, _ in self._files:
            p = Path(path)
            files = sorted(list(p.glob("*.yaml")) + list(p.glob("*.yml"))) if p.is_dir() else [p]
            texts += [f.read_text() for f in files]
        return "".join(t if t.endswith("\n") else t + "\n" for t in texts)

    def __add__(self, other: "RulesLike") -> "Rules":
        out = Rules()
        out._files = list(self._files)
        out._plugins = list(self._plugins)
        out._add(other)
        return out

    def _add(self, source: "RulesLike") -> None:
        if isinstance(source, Rules):
            self._files += source._files
            self._plugins += source._plugins
        elif isinstance(source, os.PathLike):
            self._add_path(Path(source))
        elif isinstance(source, str):
            if "\n" in source or (":" in source and not os.path.exists(source)):
                self._add_text(source, "rules.yaml")
            else:
                self._add_path(Path(source))
        else:
            raise TypeError(f"rules: expected a path, YAML text or kiln.Rules, got {type(source).__name__}")

    def _add_path(self, path: Path) -> None:
        if not path.exists():
            raise _kiln.RuleError(f"{path}: error: no such rule file or directory")
        _check(str(path), str(path))
        self._files.append((str(path), str(path)))

    def _add_text(self, text: str, name: str) -> None:
        base = Path(name).name
        if not base or base in (".", "..") or "\0" in name:
            # `name` is the rules' file name in messages; ".." named the
            # parent directory, and the rules were silently dropped.
            raise ValueError(f"Rules.from_text: name must be a file name such as "
                             f"'rules.yaml', got {name!r}")
        digest = hashlib.sha256(text.encode()).hexdigest()[:16]
        directory = Path(_text_dir()) / digest
        directory.mkdir(exist_ok=True)
        path = directory / Path(name).name
        if not path.exists():
            path.write_text(text)
        _check(str(path), name)
        self._files.append((str(path), name))

    @property
    def files(self) -> list[str]:
        """The rule files (text rules as their temporary files)."""
        return [f for f, _ in self._files]

    @property
    def plugins(self) -> list[str]:
        return list(self._plugins)

    def load_plugins(self) -> None:
        for p in self._plugins:
            _load_plugin(p)

    def readable(self, message: str) -> str:
        """`message` with temporary paths replaced by the names given."""
        for path, name in self._files:
            if path != name:
                message = message.replace(path, name)
        return message

    def __repr__(self) -> str:
        names = [n for _, n in self._files] + self._plugins
        return f"kiln.Rules({names!r})"

    def run_opt(self, program_text: str, flags: Sequence[str], tags: Sequence[str] = ()) -> str:
        """Runs kiln-opt with these rules on a lax program (text) with
        `flags` (--rule-stats, --rule-explain=...); returns what the rule
        engine printed, temporary paths replaced by the names given.
        Raises kiln.RuleError when the tool fails."""
        tool = tool_path("kiln-opt")
        with tempfile.TemporaryDirectory(prefix="kiln-opt-") as tmp:
            path = Path(tmp) / "program.mlir"
            path.write_text(program_text)
            cmd = [tool, "--kiln-apply-rules", *(f"--rules={f}" for f in self.files),
                   *(f"--plugin={p}" for p in self._plugins), *flags]
            if tags:
                cmd.append(f"--rule-tags={tag_spec(tags)}")
            cmd += [str(path), "-o", os.devnull]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            text = self.readable(proc.stdout + proc.stderr).replace(str(path), "<program>")
        if proc.returncode != 0:
            raise _kiln.RuleError(text.rstrip())
        return text

    def verify(self, *programs, seeds: int = 3, positive_inputs: bool = False,
               small_shapes: bool = True, progress=True) -> str:
        """Checks these rules with kiln-verify-rules on `programs` (each a
        kiln.Lowered, a kiln.Program, or the path of a .mlir file): every
        rule alone, once and to a fixpoint, against the original program in
        the reference interpreter, on random inputs and then hard values
        (+-0, +-inf, NaN, subnormals). Returns the report, one line per rule;
        raises kiln.RuleError when a rule changes a result beyond what its
        tags allow (exact: not a bit), breaks the IR or does not converge.

        The interpreter's time grows with the arrays' sizes: with
        `small_shapes` (the default) a kiln.jit function's kiln.Lowered is
        traced again on small arrays (every dimension above 4 made 5, 6,
        7, ... in the order of the sizes, so that equal sizes stay equal)
        and checked so; a function that does not trace so (a reshape that
        needs its sizes, a captured array) is checked on the shapes given.
        The report's first lines say which shapes were checked.
        `progress`: print each rule's line as it is checked (to stderr;
        a callable receives the lines instead; False: quiet)."""
        if not programs:
            raise ValueError("Rules.verify needs at least one program to check the rules on")
        if not isinstance(seeds, int) or seeds < 1:
            raise ValueError(f"Rules.verify: seeds must be an int >= 1 (no input set checks "
                             f"nothing), got {seeds!r}")
        tool = tool_path("kiln-verify-rules")
        say = _progress_sink(progress)
        notes = []
        with tempfile.TemporaryDirectory(prefix="kiln-verify-") as tmp:
            corpus, names = [], {}
            for i, prog in enumerate(programs):
                if isinstance(prog, (str, os.PathLike)):
                    corpus.append(str(prog))
                    continue
                if small_shapes and hasattr(prog, "_small"):
                    small, note = prog._small()
                    notes.append(f"program {i}: {note}")
                    prog = small
                text = prog.as_text() if hasattr(prog, "as_text") else str(prog)
                path = Path(tmp) / f"program{i}.mlir"
                path.write_text(text)
                corpus.append(str(path))
                names[str(path)] = f"<program {i}>"
            for note in notes:
                say(f"kiln verify: {note}")
            cmd = [tool, *(f"--rules={f}" for f in self.files), f"--seeds={seeds}", *corpus]
            if positive_inputs:
                cmd.append("--positive-inputs")
            cmd += [f"--plugin={p}" for p in self._plugins]

            def readable(text: str) -> str:
                text = self.readable(text)
                for path, name in names.items():
                    text = text.replace(path, name)
                return text.replace(tmp + os.sep, "").replace(tmp, "<tmp>")

            returncode, out, err = _run_streaming(cmd, lambda line: say(readable(line)))
            report = readable(out + err)
        if notes:
            report = "".join(f"# {n}\n" for n in notes) + report
        if returncode != 0:
            raise _kiln.RuleError(report.rstrip())
        return report


def _progress_sink(progress):
    if callable(progress):
        return progress
    if progress:
        import sys
        return lambda line: print(line, file=sys.stderr, flush=True)
    return lambda line: None


def _run_streaming(cmd: list[str], on_line) -> tuple[int, str, str]:
    """Runs `cmd`; calls `on_line` with each line of its output as it comes
    (its stdout is a pseudo-terminal where there is one, so that the tool
    writes each line at once rather than all at its end). Returns (exit
    code, stdout, stderr)."""
    try:
        import pty
        master, slave = pty.openpty()
    except (ImportError, OSError):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            on_line(line)
        return proc.returncode, proc.stdout, proc.stderr
    with tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(cmd, stdout=slave, stderr=err, stdin=subprocess.DEVNULL)
        os.close(slave)
        chunks, pending = [], b""
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the tool has exited and closed the terminal
                data = b""
            if not data:
                break
            chunks.append(data)
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                on_line(line.decode(errors="replace").rstrip("\r"))
        if pending:
            on_line(pending.decode(errors="replace").rstrip("\r"))
        os.close(master)
        returncode = proc.wait()
        err.seek(0)
        stderr = err.read()
    stdout = b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")
    return returncode, stdout, stderr


RulesLike = Union[Rules, str, os.PathLike]

_EMPTY: _kiln.Program | None = None


def _check(path: str, name: str) -> None:
    """Loads the rule file (or directory) `path` once, on an empty program,
    so that an error in it (YAML, an unknown key or op, a bad expression)
    is raised when the kiln.Rules is built, named by `name`. A function
    no plugin loaded so far defines is left for the first use: the plugin
    may come with kiln.jit's `plugins=`."""
    global _EMPTY
    if _EMPTY is None:
        _EMPTY = _kiln.Program.from_mlir("module {}\n", "<rules check>")
    try:
        _EMPTY.apply_rules([path], "")
    except _kiln.RuleError as e:
        message = str(e)
        if "unknown native function" in message:
            return
        raise _kiln.RuleError(message.replace(path, name)) from None

_LOADED_PLUGINS: set[str] = set()


def _load_plugin(path: str) -> None:
    real = os.path.realpath(path)
    if real not in _LOADED_PLUGINS:
        _kiln.load_plugin(path)
        _LOADED_PLUGINS.add(real)


def as_rules(rules: RulesLike | Sequence[RulesLike] | None, plugins: Sequence[str] = ()) -> Rules | None:
    """Normalizes kiln.jit's/kiln.rewrite's `rules` argument."""
    if rules is None and not plugins:
        return None
    if rules is None:
        out = Rules()
    elif isinstance(rules, (list, tuple)):
        out = Rules(rules)
    else:
        out = Rules([rules])
    out._plugins += [str(p) for p in plugins]
    return out


def tag_spec(tags: Sequence[str] | str) -> str:
    """("reassociates-float", "-exact") -> "+reassociates-float,-exact"."""
    if isinstance(tags, str):
        tags = [t for t in tags.split(",") if t]
    return ",".join(t if t[:1] in "+-" else "+" + t for t in tags)


def tool_path(name: str) -> str:
    """A Kiln tool: $KILN_BIN/name, else the build's bin/ beside this package."""
    candidates = []
    if os.environ.get("KILN_BIN"):
        candidates.append(Path(os.environ["KILN_BIN"]) / name)
    candidates.append(Path(__file__).resolve().parent.parent.parent / "bin" / name)
    for c in candidates:
        if c.exists():
            return str(c)
    found = shutil.which(name)
    if found:
        return found
    raise _kiln.Error(f"cannot find the Kiln tool {name} (set KILN_BIN)")
