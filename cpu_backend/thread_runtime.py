"""The thread pool compiled code runs its parallel loops on, and how many threads it gets.

`parallel_loops` turns loop nests into OpenMP regions (`omp.parallel`); LLVM's
OpenMP lowering turns those into calls of the `__kmpc_*` entry points of an
OpenMP runtime. The runtime is LLVM's own `libomp` as Intel ships it on PyPI
(package `intel-openmp`, library `libiomp5.so`, a dependency of gradir): the
`__kmpc_*` interface is theirs, while GCC's `libgomp` (which PyTorch brings)
serves only `GOMP_*` calls.

The library is opened with `ctypes` (`RTLD_LOCAL`: its symbols do not become
global, so a `libgomp` loaded by PyTorch keeps serving PyTorch) and each
entry point the JIT needs is handed to the ExecutionEngine by address
(`runtime_symbols`). A library that fails to load inside the ExecutionEngine
aborts the process; loaded by ctypes first, a broken or missing one is a
`PipelineError` instead. `thread_runtime_library()` is the one place that
knows its path, for code that links it (shared-library export).

`GRADIR_NUM_THREADS` sets the threads of every compiled program (default: the
cores this process may run on, `os.sched_getaffinity`); `1` compiles the
serial code of old, with no OpenMP at all. The count is fixed in the code at
compile time (`omp.parallel num_threads(...)`), so it is part of what a compiled
module is cached under.
"""
from __future__ import annotations

import ctypes
import functools
import os
import sys
from pathlib import Path

from gradir.errors import ArgumentError, PipelineError

THREADS_VARIABLE = "GRADIR_NUM_THREADS"
RUNTIME_PACKAGE = "intel-openmp"
RUNTIME_FILE = "libiomp5.so"

RUNTIME_ENTRY_POINTS = (
    "__kmpc_fork_call",
    "__kmpc_fork_call_if",
    "__kmpc_global_thread_num",
    "__kmpc_push_num_threads",
    "__kmpc_serialized_parallel",
    "__kmpc_end_serialized_parallel",
    "__kmpc_for_static_init_4",
    "__kmpc_for_static_init_4u",
    "__kmpc_for_static_init_8",
    "__kmpc_for_static_init_8u",
    "__kmpc_for_static_fini",
    "__kmpc_barrier",
    "__kmpc_cancel_barrier",
    "__kmpc_dispatch_init_4",
    "__kmpc_dispatch_init_4u",
    "__kmpc_dispatch_init_8",
    "__kmpc_dispatch_init_8u",
    "__kmpc_dispatch_next_4",
    "__kmpc_dispatch_next_4u",
    "__kmpc_dispatch_next_8",
    "__kmpc_dispatch_next_8u",
    "__kmpc_dispatch_fini_4",
    "__kmpc_dispatch_fini_8",
    "__kmpc_dispatch_deinit",
    "omp_get_thread_num",
    "omp_get_num_threads",
)
"""What LLVM's OpenMP lowering of `omp.parallel` + `omp.wsloop` may call (static and
dynamic schedules), registered with the JIT by address."""


def thread_count() -> int:
    """Threads for compiled code: `GRADIR_NUM_THREADS`, else every core this process may use."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return checked_thread_count(text, THREADS_VARIABLE)


def checked_thread_count(value: object, what: str = "num_threads") -> int:
    """`value` as a thread count (a positive integer, also as text); else an `ArgumentError`."""
    if isinstance(value, str):
        try:
            value = int(value)
        except ValueError:
            raise ArgumentError(f"{what} must be a positive integer, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ArgumentError(f"{what} must be a positive integer, got {value!r}")
    return value


def _candidates() -> list[Path]:
    from importlib import metadata  # here: importing it was a third of a cached compile

    found = []
    try:
        distribution = metadata.distribution(RUNTIME_PACKAGE)
        found += [
            Path(distribution.locate_file(file)).resolve()
            for file in distribution.files or []
            if Path(str(file)).name == RUNTIME_FILE
        ]
    except metadata.PackageNotFoundError:
        pass
    found.append(Path(sys.prefix) / "lib" / RUNTIME_FILE)
    return found


@functools.lru_cache(maxsize=None)
def thread_runtime_library() -> str | None:
    """Path of the OpenMP runtime (`libiomp5.so` from `intel-openmp`) if it is installed and
    loads here (checked with ctypes), else None. Code that links compiled objects into a
    shared library links this one."""
    for candidate in _candidates():
        if not candidate.is_file():
            continue
        try:
            ctypes.CDLL(str(candidate))
        except OSError:
            continue
        return str(candidate)
    return None


@functools.lru_cache(maxsize=None)
def runtime_symbols() -> dict[str, int]:
    """Entry point name -> address in the OpenMP runtime, for the JIT to bind to.

    Raises PipelineError when the runtime is missing: compiled parallel code cannot run
    without it (`GRADIR_NUM_THREADS=1` compiles code that needs none)."""
    path = thread_runtime_library()
    if path is None:
        raise PipelineError(
            f"cpu-jit: the OpenMP runtime {RUNTIME_FILE} (pip package '{RUNTIME_PACKAGE}') is not "
            f"installed or does not load; install it, or set {THREADS_VARIABLE}=1 for serial code"
        )
    library = ctypes.CDLL(path)
    symbols = {}
    for name in RUNTIME_ENTRY_POINTS:
        try:
            symbols[name] = ctypes.cast(getattr(library, name), ctypes.c_void_p).value
        except AttributeError:
            continue  # an entry point this runtime version lacks; LLVM does not emit it then
    return symbols
