from collections.abc import Callable, Sequence

"""Type stubs of kiln._kiln, the native module (python/*.cpp).

Generated with `python -m nanobind.stubgen -m kiln._kiln`, then the
exception classes written out."""


class Error(Exception):
    """An error of Kiln's: the diagnostics as Kiln's tools print them."""

class JaxprImportError(Error):
    """A jaxpr Kiln cannot import (unsupported primitive, bad text)."""

class RuleError(Error):
    """A rule file, rule or plugin that does not load or apply."""

class CompileError(Error):
    """A program Kiln's pipeline cannot compile."""


class Program:
    """A lax module (see kiln.Lowered for the user-facing view)"""

    @staticmethod
    def from_jaxpr(text: str, filename: str = '<jaxpr>', input_types: str = '') -> Program:
        """Imports a jaxpr as JAX prints it; raises kiln.JaxprImportError"""

    @staticmethod
    def from_jaxpr_tree(tree: tuple, name: str = '<jaxpr>') -> Program:
        """Imports a jaxpr from kiln._jaxpr.jaxpr_tree (JAX's objects, no text); raises kiln.JaxprImportError"""

    @staticmethod
    def from_mlir(text: str, filename: str = '<mlir>') -> Program:
        """Parses lax MLIR text"""

    def text(self, locations: bool = False) -> str: ...

    def __str__(self) -> str: ...

    def optimize(self, reassociate: bool = False) -> Program: ...

    def apply_rules(self, rule_files: Sequence[str], tags: str = '', trace: bool = False,
                    plugins: Sequence[str] = ()) -> tuple[Program, str]: ...

    def compile(self, entry: str = 'main', cache_dir: str = '', fp_contract: bool = False, options: dict = {}) -> CompiledFunction:
        """Compiles `entry` for the CPU; `options`: CPU pipeline options by name (lowering/CpuPipelineOptions.def, '_' for '-')"""

    def interpret(self, entry: str, args: Sequence[object]) -> list: ...

    def export(self) -> dict: ...

    def entries(self) -> list[str]: ...
    def bind_arguments(self, entry: str, leading: Sequence[object],
                       trailing: Sequence[object]) -> "Program": ...

def load_plugin(path: str) -> None:
    """Loads a Kiln plugin (.so) once per process; its rules, patterns and native functions join the rewrites that name it (apply_rules' plugins)"""

def default_cache_dir() -> str: ...

def elementwise_primitives() -> list[tuple[str, str, int]]:
    """(op name, JAX primitive, arity) of every parameterless elementwise lax op"""

def importable_primitives() -> list[str]:
    """Sorted names of the jaxpr primitives Kiln's importer reads"""

def ffi_handler() -> object:
    """The XLA FFI handler of kiln.kernel (a PyCapsule for jax.ffi.register_ffi_target)"""

class CompiledFunction:
    """A lax function compiled for the CPU (kiln::Executable)"""

    def __call__(self, *args) -> object: ...

    def call_flat(self, arrays: object) -> object:
        """Calls with one array (or scalar) per input after the bound constants"""

    def bind(self, leading: Sequence[object], trailing: Sequence[object]) -> None: ...

    def set_output_tree(self, treedef: object | None) -> None: ...
    def set_host_callback(self, handler: Callable[[int, int], None] | None) -> None: ...
    def set_threads(self, threads: int) -> None:
        """The most threads each call's runtime GEMM may use (0: the process default)"""

    @property
    def input_types(self) -> list: ...

    @property
    def input_dtypes(self) -> list: ...

    @property
    def output_types(self) -> list: ...

    @property
    def address(self) -> int:
        """The object's address: kiln.kernel's `executable` attribute"""

    @property
    def cache(self) -> str: ...

class JitFunction:
    """kiln.jit's callable: compiled signatures are called from C++"""

    def __init__(self, fallback: object) -> None:
        """
        fallback(self, *args, **kwargs) handles every call the fast path does not
        """

    def __call__(self, *args, **kwargs) -> object: ...

    def _add_fast_path(self, args: tuple, compiled: CompiledFunction, pinned: list) -> bool: ...

    def _clear_fast_paths(self) -> None: ...

    @property
    def _num_fast_paths(self) -> int: ...
