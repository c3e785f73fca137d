"""`gradir.compile`: an autodiff program to something you can call.

The module runs the `linalg` pipeline's xDSL passes (derivatives generated,
lowered to linalg on tensors), then goes to MLIR 22 for the chosen target.
`gradir.export` does the same and writes the CPU's machine code as a shared library.

For the CPU, the persistent compilation cache (`gradir.compilation_cache`) is asked first,
before anything is parsed: xDSL and MLIR are imported only when there is something to
compile, so a cached compile loads neither.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gradir.api_arguments import checked_flag, checked_function_names, checked_integer
from gradir.errors import ArgumentError, PipelineError, reports_internal_errors
from gradir.instrumentation import stage

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

TARGETS = ("cpu", "cuda")
TARGET_OPTIONS = {"cpu": ("opt_level", "num_threads"), "cuda": ("chip", "features", "policy", "opt_level")}
"""The keyword options each target's compiled program takes (`CpuExecutable`, `CudaProgram`)."""


def available_passes() -> dict:
    """xDSL's passes plus gradir's, by CLI name."""
    from xdsl.transforms import get_all_passes

    from gradir.pass_table import gradir_passes

    return get_all_passes() | gradir_passes()


def lower_to_linalg(
    source,
    ctx: Context | None = None,
    checkpoint_every: int = 0,
    check_numerics: bool = False,
    functions: tuple[str, ...] | None = None,
    verify_output: bool = True,
) -> ModuleOp:
    """Parse/clone `source`, verify it, and run the `linalg` pipeline's passes on
    it (`checkpoint_every`: the `autodiff-reverse` option, for loops; `check_numerics`:
    with `autodiff-check-numerics` after the derivative passes; `functions`: the only
    public functions of the result, see `keep_public_only`). `verify_output=False` leaves
    the result unverified, for a caller that hands it to MLIR, whose parser verifies it
    (`mlir_bridge.xdsl_verified_on_failure` verifies it with xDSL only when MLIR refuses it)."""
    from gradir.pipelines import LINALG_PASSES, run_xdsl_passes, with_numerics_checks
    from gradir.source import load_module, make_context
    from gradir.verify import verify_after_pass, verify_each_from_environment, verify_module, verify_result

    ctx = ctx or make_context()
    with stage("parse"):
        module = load_module(source, ctx)
    with stage("verify"):
        verify_module(module)

    # Between passes only with GRADIR_VERIFY_EACH=1 (autodiff-opt's --verify-each): on
    # large programs verifying after every pass cost more than the passes.
    each = verify_each_from_environment()
    options = {"autodiff-reverse": {"checkpoint_every": checkpoint_every}}
    passes = with_numerics_checks(LINALG_PASSES) if check_numerics else LINALG_PASSES
    run_xdsl_passes(ctx, module, passes, available_passes(), verify_after_pass if each else None, options)
    if verify_output and not each:
        with stage("verify"):
            verify_result(module, "GRADIR_VERIFY_EACH=1")
    if functions is not None:
        keep_public_only(module, functions)
    return module


def _defined_functions(module: ModuleOp) -> dict:
    """The top-level functions with a body, by name."""
    from xdsl.dialects.func import FuncOp

    return {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp) and op.body.blocks}


def _is_public(function) -> bool:
    from xdsl.dialects.builtin import StringAttr

    return function.sym_visibility in (None, StringAttr("public"))


def keep_public_only(module: ModuleOp, functions: tuple[str, ...], what: str = "functions") -> None:
    """Make `functions` public and every other function with a body private, the user's and
    the ones the autodiff passes made (`f_vjp_0_1`, public by the contract): MLIR's
    `inline` and `symbol-dce` then drop a private function once inlined into its callers
    instead of compiling it a second time for itself. The Hessian of a two-layer MLP
    (`gradir.hessian`) made 5x less LLVM code so (0.56 MB instead of 2.9 MB: its gradient,
    jvp and vmap helpers had each been compiled on their own too)."""
    from xdsl.dialects.builtin import StringAttr

    defined = _defined_functions(module)
    missing = [name for name in functions if name not in defined]
    if missing:
        public = sorted(name for name, op in defined.items() if _is_public(op))
        listed = ", ".join(f"@{name}" for name in public[:8]) + (", ..." if len(public) > 8 else "")
        raise ArgumentError(
            f"{what}: no function @{missing[0]} in the module" + (f" (its public functions: {listed})" if public else ""),
            parameter=what,
        )
    for name, op in defined.items():
        op.sym_visibility = None if name in functions else StringAttr("private")


def derived_functions(module: ModuleOp) -> tuple[str, ...]:
    """The public functions the autodiff passes made (`dialects.provenance`), which the CPU
    compiles at their first call (`cpu_backend.deferred_functions`); none when the module has
    no public function of the user's, which then is what there is to compile."""
    from gradir.dialects.provenance import PROVENANCE_ATTRIBUTES

    public = [op for op in _defined_functions(module).values() if _is_public(op)]
    derived = tuple(sorted(op.sym_name.data for op in public if any(a in op.attributes for a in PROVENANCE_ATTRIBUTES)))
    return derived if len(derived) < len(public) else ()


def frozen_source(source):
    """`source` as it is now, for a compile that may compile more of it later: a path's text
    read once (`SourceText`, named after the path, which its locations give), a module
    cloned; the deferred functions then compile what the first compile did, even if the file
    or the module changes since. Anything else as it is (an unreadable path: the compile says so)."""
    from gradir.compilation_cache import SourceText, source_text

    if type(source).__name__ == "ModuleOp":
        return source.clone()
    if isinstance(source, (str, os.PathLike)):
        try:
            return SourceText(*source_text(source))
        except OSError:
            pass
    return source


def checked_options(target: str, checkpoint_every: int, options: dict) -> tuple[str, int]:
    """The target's canonical name and `checkpoint_every`, or the error for a bad one."""
    if target == "gpu":
        target = "cuda"  # the CLI's name (`--pipeline gpu`) for the same target
    if not isinstance(target, str) or target not in TARGETS:
        raise PipelineError(f"unknown target {target!r} (valid targets: {', '.join(TARGETS)})")
    checkpoint_every = checked_integer("checkpoint_every", checkpoint_every, minimum=0)
    unknown = sorted(set(options) - set(TARGET_OPTIONS[target]))
    if unknown:
        raise ArgumentError(
            f"unknown option {unknown[0]!r} for target '{target}' "
            f"(valid: {', '.join(TARGET_OPTIONS[target])})"
        )
    return target, checkpoint_every


def runnable_linalg(
    source, checkpoint_every: int = 0, check_numerics: bool = False, functions: tuple[str, ...] | None = None
) -> ModuleOp:
    """`lower_to_linalg`, then the checks that refuse what no target can run. The result goes
    to MLIR, whose parser verifies it: verifying it with xDSL too was a tenth of a gradcheck's
    compile (the corpus's programs), so xDSL verifies it only when MLIR refuses it."""
    from gradir.verify import (
        refuse_external_calls,
        refuse_recursion,
        refuse_unrunnable_ops,
        refuse_writes_to_read_only_memory,
    )

    module = lower_to_linalg(
        source, checkpoint_every=checkpoint_every, check_numerics=check_numerics, functions=functions,
        verify_output=False,
    )  # fmt: skip
    with stage("verify"):
        refuse_recursion(module)  # calls keep the user's locations; the first cycle is the user's
        refuse_external_calls(module)
        refuse_unrunnable_ops(module)
        refuse_writes_to_read_only_memory(module)
    return module


def _cpu_cache_key(
    source,
    checkpoint_every: int,
    opt_level: int,
    check_numerics: bool,
    num_threads: int,
    functions: tuple[str, ...] | None = None,
) -> str | None:
    """The compilation cache's key for compiling `source` for the CPU; None when `source` is
    something the compile itself will refuse (an unreadable file)."""
    from gradir import compilation_cache

    if not isinstance(source, (str, os.PathLike, compilation_cache.SourceText)) and type(source).__name__ != "ModuleOp":
        return None
    try:
        name, text = compilation_cache.source_text(source)
    except OSError:
        return None
    options = {
        "target": "cpu",
        "checkpoint_every": checkpoint_every,
        "opt_level": opt_level,
        "check_numerics": check_numerics,
        "num_threads": num_threads,  # compiled into the code
    }
    if functions is not None:
        options["functions"] = list(functions)
    return compilation_cache.cache_key(name, text, options)


@reports_internal_errors
def compile(
    source, target: str = "cpu", checkpoint_every: int = 0, check_numerics: bool = False, functions=None, **options
):
    """Compile an autodiff program for `target` ("cpu", or "cuda", also spelled "gpu" as
    in the CLI's `--pipeline gpu`).

    `checkpoint_every=k` makes reverse-mode `scf.for` loops save their state
    every k iterations and recompute in between instead of caching every
    iteration (see `autodiff-reverse{checkpoint-every=k}`).

    `check_numerics=True` (CPU) makes every call stop at the first op, of the forward or
    of a backward, whose result holds a NaN or an Inf, and at a float argument that holds
    one, with a `RunTimeCheckError` naming the op and its location (`autodiff-check-numerics`,
    like `torch.autograd.detect_anomaly`); off, nothing is checked and NaNs come back as
    results.

    `functions` (a name or a sequence of names) are the functions to call: only they are
    compiled for themselves, every other function being compiled only where it is inlined
    into them, which can take most of the compile time away from a module of many functions
    (its derivatives' helpers are functions too). A name may be a function the autodiff
    passes make (`f_grad_0`). By default (CPU) the user's public functions are compiled now
    and the ones the autodiff passes made at their first call (`exe.deferred_functions`);
    for CUDA, every public function now.

    `cpu` returns a `CpuExecutable` (`exe.name(*arrays)`: one result itself, several as a
    tuple; `.call(name, *arrays)`: always a tuple), from the persistent compilation cache
    when it has the program (`exe.from_disk`; `GRADIR_CACHE_DIR`, `GRADIR_CACHE=0`);
    `cuda` returns a `CudaProgram` (`.ptx`, `.host_module`, `.launch_configs`,
    `.call`, which needs a CUDA driver)."""
    target, checkpoint_every = checked_options(target, checkpoint_every, options)
    check_numerics = checked_flag("check_numerics", check_numerics)
    functions = checked_function_names("functions", functions)
    if check_numerics and target != "cpu":
        raise ArgumentError(
            f"check_numerics is supported on the 'cpu' target only, not '{target}' "
            "(check on the CPU, where the same program computes the same values)"
        )
    if target == "cpu":
        return _compile_cpu(source, checkpoint_every, check_numerics, options, functions)
    from gradir.gpu_backend.cuda_program import CudaProgram

    return CudaProgram(runnable_linalg(source, checkpoint_every, functions=functions), **options)


def _compile_cpu(
    source, checkpoint_every: int, check_numerics: bool, options: dict, functions: tuple[str, ...] | None = None
):
    """`compile` for the CPU (`functions`: see `keep_public_only`). Without `functions`, the
    functions the autodiff passes made are compiled at their first call (`derived_functions`),
    each by a compile of this one with `functions=(name,)`, from the same text."""
    from gradir import compilation_cache
    from gradir.cpu_backend.cpu_runtime import CpuExecutable, checked_num_threads, checked_opt_level

    opt_level = checked_opt_level(options.get("opt_level"))  # before the key, which holds it
    num_threads = checked_num_threads(options.get("num_threads"))
    options = {**options, "opt_level": opt_level, "num_threads": num_threads}
    compile_deferred = None
    if functions is None:
        source = frozen_source(source)

        def compile_deferred(names: tuple[str, ...]) -> CpuExecutable:
            return _compile_cpu(source, checkpoint_every, check_numerics, options, names)

    key = None
    if compilation_cache.cache_directory() is not None:  # off: no stage in the reports
        with stage("cache-lookup"):
            key = _cpu_cache_key(source, checkpoint_every, opt_level, check_numerics, num_threads, functions)
            cached = compilation_cache.lookup(key, num_threads, compile_deferred) if key is not None else None
        if cached is not None:
            return cached
    linalg = runnable_linalg(source, checkpoint_every, check_numerics, functions)
    deferred = derived_functions(linalg) if functions is None else ()
    executable = CpuExecutable(linalg, **options, deferred=deferred, compile_deferred=compile_deferred)
    if key is not None:
        compilation_cache.store(key, executable)
    return executable


@reports_internal_errors
def export(
    source, target: str = "cpu", path: str | os.PathLike = "", checkpoint_every: int = 0, functions=None, **options
):
    """Compile `source` as `compile` does and write its machine code as a self-contained
    shared library at `path` (`libf.so`), with a C header (`libf.h`) and a JSON manifest of
    its functions' signatures (`libf.json`) beside it; `gradir.load(path)` calls it with
    NumPy alone. Linking needs a C compiler (`$CC`, `cc`, `gcc` or `clang`). Returns the
    library's path. `functions`: as `compile` takes it, the only functions the library
    exports (and its header and manifest declare).

    For "cuda" (or "gpu") the library holds the host code, each kernel's cubin (assembled by
    `ptxas` when it is on the PATH) and PTX, and a runtime over the CUDA driver, which it
    opens on the first call: `gradir.load` runs it where only NumPy and a driver are."""
    target, checkpoint_every = checked_options(target, checkpoint_every, options)
    functions = checked_function_names("functions", functions)
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ArgumentError(f"export: path is where to write the library (libf.so), got {path!r}")
    from gradir.cpu_backend.library_export import checked_library_path, write_library_files

    checked_library_path(path)
    if target == "cuda":
        from gradir.gpu_backend.cuda_library_export import write_cuda_library
        from gradir.gpu_backend.cuda_program import CudaProgram

        program = CudaProgram(runnable_linalg(source, checkpoint_every, functions=functions), **options)
        with stage("export"):
            return write_cuda_library(program, path)
    from gradir.cpu_backend.cpu_runtime import CpuExecutable

    executable = CpuExecutable(runnable_linalg(source, checkpoint_every, functions=functions), **options)
    with stage("export"):
        return write_library_files(executable.library_contents(), path)
