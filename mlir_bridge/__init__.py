"""The hand-off from xDSL to upstream MLIR 22 (text in, `mlir.ir.Module` out), and what both
backends share on the MLIR side.

Both `gradir.cpu_backend` and `gradir.gpu_backend` build on this package, and neither imports
the other. This module is the bridge itself: parsing, running pass pipelines and transform
scripts with one-line errors (each a stage of `gradir.instrumentation`: timed, its IR printed
on request), walking ops. The submodules hold what both pipelines run:
`tensor_stage` (the named-op generalisation and elementwise fusion both start with),
`loop_states`, `distinct_results` and `destinations` (preparations for one-shot bufferization),
`forwarding_calls` (calls writing their results into the caller's out-parameters), and
`host_execution` (the host code's lowering to LLVM and the calling convention that runs a
lowered module on NumPy arrays).

xDSL and MLIR share the generic op syntax, so the bridge prints the xDSL module
in generic form (with its `loc(...)` source locations, so MLIR's diagnostics
still point into the user's file) and lets MLIR parse it. Everything MLIR
reports on the way (parse errors, verifier failures, failed passes) comes back
as one-line `gradir.errors.PipelineError`s instead of MLIR's multi-line dumps
on stderr.
"""
from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from mlir import ir, passmanager
from mlir.dialects.transform import interpreter
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from gradir.dialects.provenance import PROVENANCE_ATTRIBUTES
from gradir.errors import PipelineError
from gradir.instrumentation import ir_printing, stage

_Result = TypeVar("_Result")


def generic_text(source: ModuleOp | str) -> str:
    """MLIR text for `source`: an xDSL module is printed in generic form with locations."""
    if isinstance(source, str):
        return source
    if not isinstance(source, ModuleOp):
        raise TypeError(f"expected an xDSL ModuleOp or MLIR text, got {type(source).__name__}")
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True, print_debuginfo=True).print_op(source)
    return stream.getvalue()


def new_context() -> ir.Context:
    """A context with every upstream dialect and the LLVM IR translations registered."""
    context = ir.Context()
    context.allow_unregistered_dialects = False
    return context


def location_text(location: ir.Location) -> str | None:
    """`file:line:col` for a file location (also inside fused/named/callsite ones), else None."""
    if location.is_a_file():
        # MLIR names text parsed from a string "-".
        filename = "<input>" if location.filename == "-" else location.filename
        return f"{filename}:{location.start_line}:{location.start_col}"
    if location.is_a_fused():
        for inner in location.locations:
            found = location_text(inner)
            if found:
                return found
    if location.is_a_name():
        return location_text(location.child_loc)
    if location.is_a_callsite():
        return location_text(location.callee)
    return None


def _one_line(message: str) -> str:
    return " ".join(message.split())


def _first_line(message: str) -> str:
    """The message of a pass-pipeline syntax error, without the echoed pipeline and caret."""
    first = message.strip().splitlines()[0] if message.strip() else "unknown failure"
    return _one_line(first.split(" error: ", 1)[-1])


def diagnostic_error(diagnostic: ir.Diagnostic | ir.DiagnosticInfo, stage: str) -> PipelineError:
    """A PipelineError for one MLIR diagnostic, prefixed with the stage that reported it."""
    return PipelineError(f"{stage}: {_one_line(diagnostic.message)}", location_text(diagnostic.location))


@contextmanager
def captured_diagnostics(context: ir.Context) -> Iterator[list[ir.DiagnosticInfo]]:
    """Collect the error diagnostics MLIR emits in `context` instead of printing them.

    Parsing and pass failures already carry their diagnostics in `ir.MLIRError`;
    this catches the ones other APIs (ExecutionEngine, the transform
    interpreter) emit straight to the context.
    """
    collected: list[ir.DiagnosticInfo] = []

    def handle(diagnostic: ir.Diagnostic) -> bool:
        if diagnostic.severity == ir.DiagnosticSeverity.ERROR:
            collected.append(ir.DiagnosticInfo(diagnostic))
        return True

    handler = context.attach_diagnostic_handler(handle)
    try:
        yield collected
    finally:
        handler.detach()


def guarded(stage: str, context: ir.Context, action: Callable[[], _Result]) -> _Result:
    """Run `action`, turning any MLIR failure into a PipelineError naming `stage`."""
    with captured_diagnostics(context) as diagnostics:
        try:
            return action()
        except ir.MLIRError as error:
            if error.error_diagnostics:
                raise diagnostic_error(error.error_diagnostics[0], stage) from None
            raise PipelineError(f"{stage}: {_one_line(error.message)}") from None
        except (RuntimeError, ValueError) as error:
            if diagnostics:
                raise diagnostic_error(diagnostics[0], stage) from None
            raise PipelineError(f"{stage}: {_first_line(str(error))}") from None


def to_mlir_module(source: ModuleOp | str, context: ir.Context | None = None) -> ir.Module:
    """Parse `source` (an xDSL ModuleOp or MLIR text) into an MLIR 22 module.

    The module owns a reference to `context` (a fresh one when None), which
    stays alive as long as the module does. Parse and verifier errors raise
    PipelineError with the source location. For an xDSL module, xDSL's verifier runs first on
    such an error (`xdsl_verified_on_failure`).
    """
    with stage("to-mlir"):
        text = generic_text(source)
    context = context or new_context()
    with context, stage("mlir-parse"), xdsl_verified_on_failure(source):
        try:
            return guarded("mlir-parse", context, lambda: ir.Module.parse(text))
        except PipelineError as error:
            error.location = source_location_of_line(text, error.location)
            raise


@contextmanager
def xdsl_verified_on_failure(source: ModuleOp | str) -> Iterator[None]:
    """On a PipelineError in the block, verify `source` (an xDSL module) with xDSL and raise
    its error where it finds one: gradir's passes leave their result unverified for MLIR to
    verify (`runnable_linalg`), and xDSL's error names the op a pass broke, in the passes'
    terms, where MLIR's names what its own lowering made of it."""
    try:
        yield
    except PipelineError:
        if isinstance(source, ModuleOp):
            from gradir.verify import verify_result

            verify_result(source, "GRADIR_VERIFY_EACH=1")
        raise


_LOCATION = re.compile(r'loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)\)\s*$')


def source_location_of_line(text: str, location: str | None) -> str | None:
    """A parse error MLIR reports in gradir's generated text (`<input>:3:39`, an attribute
    xDSL accepted and MLIR does not) moved to the user's `file:line:col`: the location the
    op on that line carries (printed at its end), where it has one."""
    if location is None or not location.startswith("<input>:"):
        return location
    try:
        line = int(location.split(":")[1])
    except (IndexError, ValueError):
        return location
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return location
    match = _LOCATION.search(lines[line - 1])
    return f"{match[1]}:{match[2]}:{match[3]}" if match else location


def run_pipeline(module: ir.Module, pipeline: str, stage_name: str) -> ir.Module:
    """Run an MLIR textual pass pipeline on `module` in place and return it.

    `pipeline` is either a full `builtin.module(...)` anchor or a bare pass
    list, which is anchored on the module. An unknown pass or a failing one
    raises PipelineError naming `stage_name`.
    """
    if not pipeline.lstrip().startswith("builtin.module("):
        pipeline = f"builtin.module({pipeline})"
    context = module.context
    with context, stage(pass_names(pipeline)):

        def run() -> ir.Module:
            manager = passmanager.PassManager.parse(pipeline)
            before, after = ir_printing()
            if before or after:  # MLIR prints each of its passes itself, on stderr
                sys.stderr.flush()
                manager.enable_ir_printing(print_before_all=before, print_after_all=after)
            manager.run(module.operation)
            return module

        return guarded(stage_name, context, run)


def run_function_pipeline(function: ir.Operation, passes: str, stage_name: str) -> None:
    """Run function passes (`canonicalize, cse`) on one `func.func` in place, leaving the
    module's other functions as they are (`result_sizes`: canonicalizing the user's
    functions there folds reads that `check_tensor_indices` has yet to check)."""
    pipeline = f"func.func({passes})"
    context = function.context
    with context, stage(pass_names(pipeline)):

        def run() -> None:
            passmanager.PassManager.parse(pipeline).run(function.operation)

        guarded(stage_name, context, run)


def pass_names(pipeline: str, width: int = 72) -> str:
    """The passes of an MLIR textual pipeline, without anchors and options, for reports:
    `builtin.module(func.func(convert-linalg-to-loops), lower-affine{x=1})` ->
    `convert-linalg-to-loops, lower-affine`."""
    text = " ".join(pipeline.split())
    while True:
        shorter = re.sub(r"\{[^{}]*\}", "", text)
        if shorter == text:
            break
        text = shorter
    text = re.sub(r"(?:builtin\.module|func\.func|gpu\.module|gpu\.func)\(", "", text)
    names = [name.strip(" ()") for name in text.split(",")]
    summary = ", ".join(name for name in names if name)
    return summary if len(summary) <= width else summary[: width - 3].rstrip(", ") + "..."


def apply_schedule(module: ir.Module, schedule_text: str, stage_name: str) -> None:
    """Run the `@__transform_main` of the transform script `schedule_text` on `module`, in
    place (the transform-dialect twin of `run_pipeline`); PipelineError naming `stage_name`."""
    context = module.context

    def apply() -> None:
        schedule = ir.Module.parse(schedule_text)
        entry = next(op for op in schedule.body.operations if op.name == "transform.named_sequence")
        interpreter.apply_named_sequence(module.operation, entry, schedule)

    with context, ir.Location.unknown(), stage("transform schedule", lambda: str(module)):
        guarded(stage_name, context, apply)


def symbol_name(op: ir.Operation) -> str:
    """The `sym_name` of a function (or any symbol)."""
    return ir.StringAttr(op.attributes["sym_name"]).value


def walk_ops(root: ir.Module | ir.Operation, names: set[str]) -> list[ir.Operation]:
    """Every op whose name is in `names` under `root` (a module, or one op such as a function,
    itself included), in pre-order."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in names:
            found.append(op)
        return ir.WalkResult.ADVANCE

    operation = root.operation
    with operation.context:
        operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def top_level_ops(module: ir.Module, names: set[str]) -> list[ir.Operation]:
    """The ops directly in `module`'s body whose name is in `names`, in order: `walk_ops` for
    what only the top level holds (functions, globals). On the lowered MLP gradient (17k LLVM
    ops) `walk_ops(module, {"llvm.func"})` took 12 ms, a Python call per op; this, 20 us."""
    return [op.operation for op in module.body.operations if op.operation.name in names]


def defined_functions(module: ir.Module) -> list[ir.Operation]:
    """The `func.func` definitions at the top level of `module` (declarations excluded), in
    order, private ones included."""
    return [
        op.operation
        for op in module.body.operations
        if op.operation.name == "func.func" and len(op.regions[0].blocks) > 0
    ]


def public_functions(module: ir.Module) -> list[ir.Operation]:
    """The public `func.func` definitions of `module` (declarations excluded), in order."""
    functions = []
    for function in walk_ops(module, {"func.func"}):
        attributes = function.attributes
        visibility = (
            ir.StringAttr(attributes["sym_visibility"]).value
            if "sym_visibility" in attributes
            else "public"
        )
        if visibility == "public" and len(function.regions[0].blocks) > 0:
            functions.append(function)
    return functions


def drop_provenance(module: ir.Module) -> None:
    """Drop `PROVENANCE_ATTRIBUTES` from the top-level functions. Their `of = @f` is not a
    call, but `symbol-dce` counts it as a use: a derivative's private original, inlined
    everywhere, would otherwise be kept and compiled for itself (the CPU pipeline then made
    machine code for every `f` whose `f_grad_0` was called)."""
    for function in top_level_ops(module, {"func.func"}):
        for provenance in PROVENANCE_ATTRIBUTES:
            if provenance in function.attributes:
                del function.attributes[provenance]
