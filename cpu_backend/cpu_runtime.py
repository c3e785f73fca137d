"""Run linalg-on-tensors modules on the CPU through MLIR's ExecutionEngine.

`CpuExecutable(source)` records every public function's signature
(`mlir_bridge.host_execution.read_signatures`, before bufferization turns
results into out-parameters), lowers the module with
`cpu_pipeline.lower_to_llvm`, JIT-compiles it and generates machine code for
every function up front, so `compile_seconds` covers all compilation and
the first call is as fast as the others; except the `deferred` functions
(`gradir.compile` defers the derived ones), made private here and compiled at
their first call (`deferred_functions`). Calls take and return NumPy arrays
(and numbers for scalar arguments and results): the executable allocates the
outputs and checks every argument before any native code runs, so a wrong
shape or a number its type cannot hold is an `ArgumentError`, never a crash or
a silent truncation.

Compiled modules are cached per process, keyed by their MLIR text: building a
second executable from the same module reuses the machine code. The engine generates
position-independent code, so the same machine code, dumped as an object file
(`library_contents`), links into a shared library (`library_export`): what `gradir.export`
writes and the persistent compilation cache keeps; `CpuExecutable.from_library` wraps such a
library, loaded without xDSL or MLIR (`gradir.native_library`). This module imports neither
at its top, so that a cached compile loads neither. Calls go through `gradir.native_calls`,
as the library's do.

The compiled code allocates its temporaries with `malloc` on every call. With
glibc's defaults a large buffer is `mmap`ed and given back to the system when
freed, so every call page-faults it in again: that was two thirds of the ADBench
GMM gradient at (20, 50, 1000) (12.3 ms -> 4.0 ms) and 40% at (64, 200). Like
the caching allocators of PyTorch and XLA, the runtime therefore keeps freed
memory for reuse (`retain_freed_memory`: glibc's `mallopt`, no `mmap`, no
trimming), once, when the first module is compiled; the process's memory then
stays at its high-water mark. `GRADIR_SYSTEM_MALLOC=1` leaves malloc alone.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gradir.cpu_backend.deferred_functions import DeferredFunctions
from gradir.errors import ArgumentError, PipelineError, reports_internal_errors
from gradir.instrumentation import stage
from gradir.native_calls import (
    PACKED_ENTRY_POINT,
    CompiledFunctions,
    FunctionSignature,
    available_memory,
    call_guarded,
    find_signature,
)

if TYPE_CHECKING:  # MLIR and xDSL load only to compile: a cached executable needs neither
    from mlir import ir
    from mlir import ir as mlir_ir
    from mlir.execution_engine import ExecutionEngine
    from xdsl.dialects.builtin import ModuleOp

    from gradir.cpu_backend.deferred_functions import CompileFunctions
    from gradir.cpu_backend.library_export import LibraryContents
    from gradir.native_library import NativeLibrary


@functools.lru_cache(maxsize=None)
def runner_utils_library() -> str | None:
    """libmlir_c_runner_utils.so from the MLIR wheel, if this wheel ships one that loads.

    The pipeline never needs it (strided copies are lowered to loops), but when
    present it provides the `printMemref*` helpers for debugging. A library
    that fails to load inside the ExecutionEngine aborts the process, so it is
    loaded with ctypes first.
    """
    from mlir import ir

    package = Path(ir.__file__).resolve().parent  # `mlir` is a namespace package
    for candidate in sorted(package.rglob("libmlir_c_runner_utils.so*")):
        try:
            ctypes.CDLL(str(candidate))
        except OSError:
            continue
        return str(candidate)
    return None


@dataclass
class _CompiledModule:
    """One JIT-compiled module; shared by every executable built from the same text."""

    context: ir.Context
    engine: ExecutionEngine
    signatures: dict[str, FunctionSignature]
    deferred_signatures: dict[str, FunctionSignature]
    """The public functions left out of this module (made private, compiled only where inlined)."""
    public_names: tuple[str, ...]
    """The input's public functions, those left out too, in its order."""
    entry_points: dict[str, ctypes._CFuncPtr]
    module: ir.Module
    """The LLVM-dialect module the engine compiled, printed only on request (`llvm_text`)."""
    compile_seconds: float
    check_failures: list[tuple[str | None, str]]
    """The run-time checks' (location, message) pairs (`run_time_checks`), by number."""
    guards: dict[str, str]
    """Public function -> its guarded entry point (`checked_allocations`)."""
    key_symbol: str
    limit_symbol: str
    opt_level: int
    parallel: bool
    """Whether the code has OpenMP regions: then it calls the thread runtime (`thread_runtime`)."""

    @functools.cached_property
    def llvm_text(self) -> str:
        """The module as MLIR text; printed on the first request, not at every compile: the
        MLP gradient's 1.5 MB took 90 ms, 5% of its compile, and only tests and benchmarks
        read it."""
        return str(self.module)

    def library_contents(self) -> LibraryContents:
        """The machine code as an object file, and what a library's manifest says of it."""
        from gradir.cpu_backend.library_export import LibraryContents

        with tempfile.TemporaryDirectory(prefix="gradir-object-") as work:
            path = Path(work) / "code.o"
            self.engine.dump_to_object_file(str(path))
            object_code = path.read_bytes()
        return LibraryContents(
            object_code, self.signatures, self.guards, self.key_symbol, self.limit_symbol,
            self.check_failures, self.opt_level, self.parallel,
        )  # fmt: skip


_CACHE: dict[tuple[str, int, int, tuple[str, ...]], _CompiledModule] = {}
_CACHE_LOCK = threading.Lock()


_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_KEPT_FREE_BYTES = 1 << 30


@functools.cache
def retain_freed_memory() -> bool:
    """Make glibc's malloc keep freed memory for reuse instead of unmapping it
    (large buffers from the heap, not `mmap`; the heap trimmed only above 1 GiB).
    True when done; False without glibc or with `GRADIR_SYSTEM_MALLOC=1`."""
    if os.environ.get("GRADIR_SYSTEM_MALLOC", "") not in ("", "0"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False  # not glibc: its own policy stays
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(_M_MMAP_MAX, 0)) and bool(mallopt(_M_TRIM_THRESHOLD, _KEPT_FREE_BYTES))


def _compile(text: str, opt_level: int, threads: int, deferred: tuple[str, ...] = ()) -> _CompiledModule:
    from mlir import ir as mlir_ir
    from mlir.execution_engine import ExecutionEngine

    from gradir.cpu_backend.checked_allocations import check_allocations
    from gradir.cpu_backend.cpu_pipeline import lower_to_llvm
    from gradir.cpu_backend.run_time_checks import check_messages, failure_function
    from gradir.cpu_backend.thread_runtime import runtime_symbols
    from gradir.mlir_bridge import guarded, new_context, public_functions, symbol_name, to_mlir_module, walk_ops
    from gradir.mlir_bridge.host_execution import read_signatures
    from gradir.mlir_bridge.result_sizes import add_result_size_functions

    retain_freed_memory()
    start = time.perf_counter()
    context = new_context()
    module = to_mlir_module(text, context)
    with context, mlir_ir.Location.unknown():
        public_names = tuple(symbol_name(function) for function in public_functions(module))
        deferred_signatures = _leave_out(module, deferred)
        add_result_size_functions(module)
    signatures = read_signatures(module)
    _ALLOCATION_LIMIT.value = available_memory()
    lower_to_llvm(module, allocation_limit=_ALLOCATION_LIMIT.value, threads=threads)
    # Serial code has no OpenMP region (only `parallel_loops`, for more than one thread, makes
    # them): not walking its 17k LLVM ops for one saved 12 ms of the MLP gradient's compile.
    parallel = threads > 1 and any(True for _ in walk_ops(module, {"omp.parallel"}))
    check_failures = check_messages(module)
    with context, stage("cpu-llvm"):
        failed_check = failure_function(module)
        checked = guarded("cpu-llvm", context, lambda: check_allocations(module, list(signatures), failed_check))
    library = runner_utils_library()
    with context, stage("cpu-jit"):
        engine = guarded(
            "cpu-jit",
            context,
            # Position-independent, so that the same machine code links into a shared library
            # (`library_export`; the JIT's default model needs text relocations there).
            lambda: ExecutionEngine(
                module, opt_level=opt_level, shared_libs=[library] if library else [], enable_pic=True
            ),
        )
        engine.raw_register_runtime(checked.key_symbol, ctypes.c_void_p(ctypes.addressof(_allocation_key())))
        engine.raw_register_runtime(checked.limit_symbol, ctypes.c_void_p(ctypes.addressof(_ALLOCATION_LIMIT)))
        for symbol, address in (runtime_symbols() if parallel else {}).items():
            engine.raw_register_runtime(symbol, ctypes.c_void_p(address))
        entry_points = {}
        for name in signatures:
            # The first lookup runs LLVM's code generation for the whole module.
            address = guarded("cpu-jit", context, lambda: engine.raw_lookup(checked.guards[name]))
            if not address:
                raise PipelineError(f"cpu-jit: no machine code for public function '{name}'")
            entry_points[name] = PACKED_ENTRY_POINT(address)
    return _CompiledModule(
        context, engine, signatures, deferred_signatures, public_names, entry_points, module,
        time.perf_counter() - start, check_failures,
        dict(checked.guards), checked.key_symbol, checked.limit_symbol, opt_level, parallel,
    )  # fmt: skip


def _leave_out(module: mlir_ir.Module, names: tuple[str, ...]) -> dict[str, FunctionSignature]:
    """The signatures of the public functions `names`, which are then made private: compiled
    only where they are inlined, and for themselves later, when called (`deferred_functions`)."""
    from mlir import ir as mlir_ir

    from gradir.mlir_bridge import public_functions, symbol_name
    from gradir.mlir_bridge.host_execution import read_signatures

    if not names:
        return {}
    signatures = {name: signature for name, signature in read_signatures(module).items() if name in names}
    missing = sorted(set(names) - set(signatures))
    if missing:
        raise PipelineError(f"cpu-jit: no public function '{missing[0]}' to compile later")
    for function in public_functions(module):
        if symbol_name(function) in names:
            function.attributes["sym_visibility"] = mlir_ir.StringAttr.get("private")
    return signatures


_ALLOCATION_LIMIT = ctypes.c_int64(2**63 - 1)
"""Bytes one allocation of compiled code may ask for (`memory_check.available_memory`,
re-read at every compilation); shared by every module, read by their checked allocators."""


@functools.cache
def _allocation_key() -> ctypes.c_uint32:
    """The pthread key under which a guarded call keeps where to jump when an allocation
    fails (`checked_allocations`); one per process, never deleted."""
    key = ctypes.c_uint32(0)
    status = ctypes.CDLL(None).pthread_key_create(ctypes.byref(key), None)
    if status != 0:
        raise PipelineError(f"cpu-jit: pthread_key_create failed (error {status})")
    return key


DEFAULT_OPT_LEVEL = 2
"""LLVM's optimisation level for the JIT. The pipeline hands LLVM code already
tiled and vectorised where it matters, and -O2 runs the same loop and SLP
vectorisers as -O3: LeNet-5's gradient, bench/cpu.py's programs and the ADBench
GMM gradient ran as fast (same-process A/B runs), while compiling LeNet-5's
gradient took 11.5 CPU seconds instead of 16.5."""

def _in_order(signatures: dict[str, FunctionSignature], order: tuple[str, ...]) -> dict[str, FunctionSignature]:
    """`signatures` with the names `order` gives first, in its order, then the others."""
    in_order = dict.fromkeys((*(name for name in order if name in signatures), *signatures))
    return {name: signatures[name] for name in in_order}


def checked_opt_level(opt_level: object) -> int:
    """`opt_level`, `DEFAULT_OPT_LEVEL` for None, or the `ArgumentError` for anything but 0-3."""
    if opt_level is None:
        return DEFAULT_OPT_LEVEL
    if isinstance(opt_level, bool) or opt_level not in (0, 1, 2, 3):
        raise ArgumentError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    return opt_level


def checked_num_threads(num_threads: object) -> int:
    """`num_threads`, or `thread_runtime.thread_count()` for None (`GRADIR_NUM_THREADS`, else
    every core), or the `ArgumentError` for anything but a positive integer."""
    from gradir.cpu_backend.thread_runtime import checked_thread_count, thread_count

    return thread_count() if num_threads is None else checked_thread_count(num_threads)


CACHE_SIZE = 16
"""Compiled modules kept for reuse (least recently used dropped first): each
holds JIT-compiled machine code, so an unbounded cache grows without limit in
processes that compile many modules (test suites, gradcheck loops)."""


def _compiled(text: str, opt_level: int, threads: int, deferred: tuple[str, ...]) -> tuple[_CompiledModule, bool]:
    key = (hashlib.sha256(text.encode()).hexdigest(), opt_level, threads, deferred)
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE[key] = _CACHE.pop(key)  # most recently used last
            return _CACHE[key], True
        compiled = _compile(text, opt_level, threads, deferred)
        _CACHE[key] = compiled
        while len(_CACHE) > CACHE_SIZE:
            del _CACHE[next(iter(_CACHE))]
        return compiled, False


def clear_cache() -> None:
    """Forget every compiled module (their machine code is freed once unreferenced)."""
    with _CACHE_LOCK:
        _CACHE.clear()


class CpuExecutable(CompiledFunctions):
    """A linalg-on-tensors module compiled for this CPU; call its public functions.

    `source` is an xDSL ModuleOp or MLIR text. Each result of a public function `f` is a
    freshly allocated NumPy array per tensor, a NumPy scalar per scalar result:

    - `exe.f(*arguments)` is called like a Python function: with one result it returns the
      value itself (`loss = exe.loss(x)`), with several a tuple (`ga, gb = exe.df(a, b)`);
    - `exe.call("f", *arguments)` always returns a tuple, one value per result (a 1-tuple for
      one result): the uniform interface for code that handles any function.

    `opt_level` is LLVM's (`DEFAULT_OPT_LEVEL` unless given). `num_threads` is how many
    threads large loop nests run on (`thread_runtime.thread_count()` unless given:
    `GRADIR_NUM_THREADS`, else every core; 1 for serial code).

    `from_disk` says whether the machine code came from the persistent compilation cache
    (`gradir.compilation_cache`, through `gradir.compile`): then it was loaded as a shared
    library, and nothing was parsed, lowered or compiled in this process.

    `deferred` names public functions compiled at their first call instead of now
    (`deferred_functions`), each by `compile_deferred` (a tuple of names -> the executable of
    those functions): `gradir.compile` defers the ones the autodiff passes made.
    """

    from_disk = False
    _library: NativeLibrary | None = None

    def __init__(
        self,
        source: ModuleOp | str,
        opt_level: int | None = None,
        num_threads: int | None = None,
        deferred: tuple[str, ...] = (),
        compile_deferred: CompileFunctions | None = None,
    ):
        from gradir.mlir_bridge import generic_text, xdsl_verified_on_failure

        threads = checked_num_threads(num_threads)
        self.num_threads = threads
        with xdsl_verified_on_failure(source):  # MLIR verifies what gradir's passes made
            self._compiled, self.from_cache = _compiled(
                generic_text(source), checked_opt_level(opt_level), threads, tuple(sorted(deferred))
            )
        self._deferred = DeferredFunctions(self._compiled.deferred_signatures, compile_deferred)
        signatures = {**self._compiled.signatures, **self._deferred.signatures}
        self._signatures = _in_order(signatures, self._compiled.public_names)  # the module's order

    @classmethod
    def from_library(
        cls,
        library: NativeLibrary,
        num_threads: int,
        deferred_signatures: dict[str, FunctionSignature] | None = None,
        compile_deferred: CompileFunctions | None = None,
        order: tuple[str, ...] = (),
    ) -> CpuExecutable:
        """The executable whose machine code is `library`'s (a compilation cache entry,
        compiled for `num_threads` threads), and of the functions it left out, compiled at
        their first call by `compile_deferred`; `signatures` in `order` (the module's, as the
        compile that made the entry had them), then any function it does not name."""
        executable = cls.__new__(cls)
        executable._library = library
        executable._deferred = DeferredFunctions(deferred_signatures or {}, compile_deferred)
        executable._signatures = _in_order({**library.signatures, **executable._deferred.signatures}, order)
        executable.from_cache = executable.from_disk = True
        executable.num_threads = num_threads
        return executable

    @property
    def deferred_functions(self) -> tuple[str, ...]:
        """The public functions compiled at their first call rather than up front (by
        `gradir.compile`, the functions the autodiff passes made: `f_grad_0`, ...), compiled
        or not yet; `compile_deferred()` compiles the rest now."""
        return tuple(sorted(self._deferred.signatures))

    def compile_deferred(self) -> None:
        """Compile every deferred function not compiled yet, now and together, rather than
        each at its first call (a warm-up before timing, say)."""
        self._deferred.compile_all()

    @property
    def compile_seconds(self) -> float:
        """Seconds spent parsing, lowering and generating machine code, of the functions
        compiled up front (0 if from a cache) and of the deferred ones compiled so far."""
        up_front = 0.0 if self.from_cache else self._compiled.compile_seconds
        return up_front + self._deferred.compile_seconds

    @property
    def llvm_text(self) -> str:
        """The LLVM-dialect module that was JIT-compiled: of the functions compiled up
        front, not of the `deferred_functions`."""
        if self._library is not None:
            raise PipelineError(
                "cpu-jit: this executable's machine code came from the compilation cache, so there "
                "is no LLVM text; compile with GRADIR_CACHE=0 to see it"
            )
        return self._compiled.llvm_text

    def library_contents(self) -> LibraryContents:
        """The machine code as an object file and its description (`library_export`)."""
        if self._library is not None:
            raise PipelineError("cpu-jit: this executable was loaded from the compilation cache; "
                                "compile with GRADIR_CACHE=0 to export it")  # fmt: skip
        return self._compiled.library_contents()

    @reports_internal_errors
    def call(self, name: str, *arguments: object) -> tuple[np.ndarray | np.generic, ...]:
        """Run public function `name` on `arguments`: arrays for tensors, numbers (Python or
        NumPy scalars, 0-d arrays) for scalars and 0-d tensors. Returns a tuple with one value
        per result, whatever their number: an array per tensor, a NumPy scalar (`np.float64`,
        `np.int32`, `np.bool_`...) per scalar. (`exe.name(...)` returns a single result itself.)"""
        if isinstance(name, str) and name in self._deferred.signatures:  # (a list is unhashable)
            return self._deferred.call(name, arguments)
        if self._library is not None:
            return self._library.call(name, *arguments)
        signature = find_signature(self._signatures, name)
        compiled = self._compiled
        return call_guarded(
            compiled.entry_points, signature, arguments, compiled.check_failures, _ALLOCATION_LIMIT.value
        )
