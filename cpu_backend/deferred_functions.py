"""Public functions compiled at their first call instead of up front.

The functions the autodiff passes make (`f_vjp_0`, `f_grad_0`, a Jacobian's `f_vmap_x24`) are
public, callable like the user's, but usually called only inlined into the user's own
functions (`df`, whose body is an `autodiff.grad`). Compiling each of them for itself as well
was about 40% of a cold compile (examples/mlp.mlir: 2.9 s with them, 1.7 s without), so
`gradir.compile` compiles the user's functions up front and a derived one when it is first
called (`gradir.compilation.derived_functions`), as JAX compiles a function at its first call.

This module imports neither xDSL nor MLIR: an executable loaded from the compilation cache
holds one too, and compiles (or loads from the cache) only when a deferred function is called.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from gradir.native_calls import CompiledFunctions, FunctionSignature, checked_arguments

CompileFunctions = Callable[[tuple[str, ...]], CompiledFunctions]
"""Compiles the named functions of the same program with the same options (`gradir.compile`
with `functions=`): a `CpuExecutable`, which has `compile_seconds`."""


class DeferredFunctions:
    """Functions of one program not compiled yet: their signatures (known without compiling
    them), and what each was compiled to once it was called."""

    def __init__(self, signatures: dict[str, FunctionSignature], compile_functions: CompileFunctions | None):
        if signatures and compile_functions is None:
            raise ValueError("deferred functions need a way to compile them")
        self.signatures = signatures
        self._compile_functions = compile_functions
        self._compiled: dict[str, CompiledFunctions] = {}
        self._lock = threading.Lock()

    def call(self, name: str, arguments: tuple) -> tuple:
        """Call deferred function `name`, compiling it alone first if this is its first call
        (the arguments are checked before, so a wrong call costs no compile)."""
        compiled = self._compiled.get(name)
        if compiled is None:
            checked_arguments(self.signatures[name], arguments)
            with self._lock:  # one compile, however many threads call at once
                compiled = self._compiled.get(name)
                if compiled is None:
                    compiled = self._compiled[name] = self._compile_functions((name,))
        return compiled.call(name, *arguments)

    def compile_all(self) -> None:
        """Compile, together, every deferred function not compiled yet."""
        with self._lock:
            pending = tuple(name for name in self.signatures if name not in self._compiled)
            if pending:
                self._compiled.update(dict.fromkeys(pending, self._compile_functions(pending)))

    @property
    def compile_seconds(self) -> float:
        """Seconds spent compiling the ones compiled so far (0 for those from the cache)."""
        unique = {id(compiled): compiled for compiled in self._compiled.values()}
        return sum(compiled.compile_seconds for compiled in unique.values())
