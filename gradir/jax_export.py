"""From JAX to gradir: a JAX function and example arguments become one public
`func.func` in linalg on tensors, as MLIR 22 (and so gradir) reads it.

    text = gradir.from_jax(loss, w, x, name="loss")   # MLIR text
    exe = gradir.compile(text + wrapper)              # wrapper: an autodiff.grad entry

JAX is used only here, and only when called (`pip install 'gradir[jax]'`): it is
an exporter, never a run-time dependency of gradir. The steps:

1. `jax.jit(function).lower(*example_args)`: the StableHLO module JAX would compile.
2. jaxlib's own MLIR runs StableHLO's `chlo-legalize-to-stablehlo` and
   `stablehlo-legalize-to-linalg`, then `canonicalize` and `cse`
   (`jaxlib.mlir._mlir_libs._stablehlo.register_stablehlo_passes()` registers them).
3. The module crosses to MLIR 22 in generic form (jaxlib's MLIR is a different
   LLVM revision; generic syntax is what both read the same). jaxlib's
   legalization converts the ops inside control flow but not the control flow
   itself (jaxlib 0.10.2 registers no `stablehlo-legalize-control-flow` or
   `-to-scf` pass), so it is done here, on MLIR 22's side, with the regions'
   ops moved over: `stablehlo.while` (`lax.scan`, `fori_loop`, `while_loop`)
   becomes `scf.while`, its condition's `stablehlo.return %p : tensor<i1>` an
   `scf.condition(tensor.extract %p[])` forwarding the loop state;
   `stablehlo.case` (`lax.cond`, `lax.switch`) becomes a chain of `scf.if`s
   on its index; `stablehlo.scatter` and `stablehlo.sort`, which the legalization
   leaves too, and the LAPACK calls for Cholesky and triangular solves, the loops
   they mean (`jax_scatter.py`, `jax_sort.py`, `jax_linalg.py`).
4. JAX's attributes (`mhlo.*`, `jax.*`) go, `@main` is renamed and stays public,
   the helpers JAX outlines (`@log_softmax`, `@closed_call`, ...) are inlined,
   then `canonicalize` and `cse` once more.

StableHLO has no `stop_gradient` (JAX drops it when lowering, and gradir would
differentiate through it: a wrong gradient, silently), so `from_jax` lowers each
`jax.lax.stop_gradient` of the function's jaxpr as an `optimization_barrier` tagged by an
extra constant operand, which step 4 turns into `autodiff.stop_gradient` (every other
barrier, the program's own or JAX's around a checkpointed function, is an identity). `from_stablehlo` cannot: StableHLO text
has lost them already.

Any op that is still StableHLO or CHLO afterwards (an op the legalization does
not cover: a `custom_call` such as another LAPACK routine) is a
`gradir.SourceError` naming it, located at the Python line it came from.
"""
from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any

from gradir.errors import ArgumentError, SourceError, reports_internal_errors
from gradir.jax_linalg import lapack_calls_to_loops
from gradir.jax_scatter import scatters_to_loops
from gradir.jax_sort import sorts_to_loops
from gradir.jax_special_functions import WRITTEN_AS_CODE, reparameterized_gamma

JAXLIB_PIPELINE = (
    "builtin.module(func.func(chlo-legalize-to-stablehlo),"
    "stablehlo-legalize-to-linalg,canonicalize,cse)"
)
"""What jaxlib's MLIR runs on the lowered StableHLO (step 2)."""

MLIR22_PIPELINE = "builtin.module(inline,symbol-dce,reconcile-unrealized-casts,canonicalize,cse)"
"""What MLIR 22 runs once the module crossed over (step 4)."""

_FOREIGN_DIALECTS = ("stablehlo.", "chlo.", "mhlo.", "sdy.")


@reports_internal_errors
def from_jax(
    function: Callable[..., Any], *example_args: Any, name: str | None = None, custom_derivatives: str = "error"
) -> str:
    """MLIR text holding `function` as one public `func.func @name` (default: the
    function's `__name__`) in linalg on tensors, for shapes and dtypes of
    `example_args` (arrays or `jax.ShapeDtypeStruct`s; pytrees are flattened into
    one argument per leaf, in JAX's order).

    A derivative rule the program defines itself (`jax.custom_vjp`, `jax.custom_jvp`
    outside JAX's own library) is lost in StableHLO, and gradir would differentiate the
    primal code instead (a straight-through estimator's gradient becomes 0): a
    SourceError at the function, unless `custom_derivatives="primal"` accepts that.
    `jax.random.gamma` (and `beta`, `dirichlet`) gets JAX's implicit reparameterization
    (`jax_special_functions.reparameterized_gamma`); inside a loop or branch, where it
    cannot, it is a SourceError too unless `custom_derivatives="primal"`."""
    try:
        import jax
    except ImportError as error:
        raise SourceError("gradir.from_jax needs JAX: pip install 'gradir[jax]'") from error
    name = name or getattr(function, "__name__", None) or "f"
    if custom_derivatives not in ("error", "primal"):
        raise ArgumentError(f"from_jax: custom_derivatives must be 'error' or 'primal', got {custom_derivatives!r}")
    try:
        closed, results_shape = jax.make_jaxpr(function, return_shape=True)(*example_args)  # traced once, for both
    except Exception as error:  # the function's own error (or JAX's about it), met while JAX traced it
        raise SourceError(
            f"JAX could not trace {name}: {type(error).__name__}: {_first_line(str(error))}", _raising_line(error)
        ) from error
    if custom_derivatives == "error":
        _refuse_own_derivative_rules(closed.jaxpr)
    function = _rewritten_for_gradir(function, closed, results_shape, custom_derivatives == "primal")
    stablehlo = jax.jit(function).lower(*example_args).compiler_ir("stablehlo")
    return from_stablehlo(stablehlo, name)


# ---------------------------------------------------------------- stop_gradient, erf_inv

_STOP_GRADIENT_MARK = "stablehlo.optimization_barrier"
"""What each `jax.lax.stop_gradient` is lowered as, to survive StableHLO (which has no
such op: JAX drops it, and gradir then differentiated through it, a wrong gradient
without an error); it becomes `autodiff.stop_gradient` in step 4."""

_STOP_GRADIENT_TAG = 0x67726164
"""The int32 a stop_gradient's barrier carries as its last operand. Barriers come from
elsewhere too: the program's own `lax.optimization_barrier`, and the ones JAX puts around a
`jax.checkpoint`ed function that is differentiated in the program (none of them in the
jaxpr). Each is an identity, and taking one for a stop_gradient cut the gradient to zero,
silently; step 4 tells them apart by this operand."""

_REWRITTEN = ("stop_gradient", "random_gamma", *WRITTEN_AS_CODE)
"""Primitives whose StableHLO gradir would differentiate wrongly, rewritten in the jaxpr."""

_NAMES = {"random_gamma": "jax.random.gamma"}
_WHY_REWRITTEN = {
    "stop_gradient": "StableHLO drops it, and gradir would differentiate through it",
    "random_gamma": "StableHLO keeps only its rejection sampler, whose derivative for a fixed key is not JAX's "
    "implicit reparameterization, a few percent off",
}
"""Why a primitive of `_REWRITTEN` cannot be left as StableHLO has it (default: its expansion's NaN gradient)."""

_INLINED_CALLS = ("pjit", "jit", "closed_call", "core_call", "remat", "checkpoint", "custom_jvp_call", "custom_vjp_call")
"""Primitives whose inner jaxpr is evaluated in place when it holds one of `_REWRITTEN`
(a custom derivative rule is not kept by StableHLO either: gradir differentiates the
primal code)."""


def _rewritten_for_gradir(
    function: Callable[..., Any], closed, results_shape, primal_gamma_accepted: bool = False
) -> Callable[..., Any]:
    """`function`, unless its jaxpr (`closed`, whose results have the pytree structure of
    `results_shape`) has a primitive of `_REWRITTEN`: then a function that computes the
    same with each `stop_gradient` as an `optimization_barrier` tagged by
    `_STOP_GRADIENT_TAG`, each primitive of `WRITTEN_AS_CODE` as its code, and each
    `random_gamma` as its sample with implicit derivatives. One of them inside `lax.cond`,
    `while_loop` or `scan` is a SourceError at that line: gradir would lose it (a
    `random_gamma` there is left as it is where `primal_gamma_accepted`)."""
    import jax
    import numpy as np
    from jax.extend import core

    if not any(_holds(closed.jaxpr, primitive) for primitive in _REWRITTEN):
        return function

    def kept_stop_gradient(value):
        return jax.lax.optimization_barrier((value, np.int32(_STOP_GRADIENT_TAG)))[0]

    refused_inside = [p for p in _REWRITTEN if not (primal_gamma_accepted and p == "random_gamma")]

    def rewritten_inside(jaxpr) -> str | None:
        return next((primitive for primitive in refused_inside if _holds(jaxpr, primitive)), None)

    def evaluate(jaxpr, constants, *arguments):
        values = dict(zip(jaxpr.constvars, constants))
        values.update(zip(jaxpr.invars, arguments))

        def read(atom):
            return atom.val if isinstance(atom, core.Literal) else values[atom]

        for equation in jaxpr.eqns:
            inputs = [read(atom) for atom in equation.invars]
            with _at_users_line(equation):  # what this binds keeps the user's line, not this one
                outputs = evaluate_equation(equation, inputs)
            values.update(zip(equation.outvars, outputs))
        return [read(atom) for atom in jaxpr.outvars]

    def evaluate_equation(equation, inputs):
        primitive = equation.primitive.name
        inner = _inner_jaxpr(equation)
        if primitive == "stop_gradient":
            return [kept_stop_gradient(inputs[0])]
        if primitive == "random_gamma":
            sample = equation.primitive.bind(*inputs, **equation.params)
            return [reparameterized_gamma(inputs[1], sample, equation.params["log_space"], kept_stop_gradient)]
        if primitive in WRITTEN_AS_CODE:
            return [WRITTEN_AS_CODE[primitive](*inputs)]
        if inner is not None and primitive in _INLINED_CALLS and rewritten_inside(_open(inner)):
            return evaluate(_open(inner), getattr(inner, "consts", ()), *inputs)
        if found := next(filter(None, map(rewritten_inside, core.jaxprs_in_params(equation.params))), None):
            raise SourceError(
                f"from_jax: {_NAMES.get(found, 'jax.lax.' + found)} inside {primitive} is not supported ("
                + _WHY_REWRITTEN.get(found, "gradir would differentiate jaxlib's expansion of it, whose gradient is NaN")
                + "); move it out of the loop or branch"
                + (', or pass custom_derivatives="primal" to accept that' if found == "random_gamma" else ""),
                _equation_location(equation),
            )  # fmt: skip
        # As jax.core.eval_jaxpr binds: a call primitive (custom_jvp_call, pjit, ...)
        # takes its parameters in another form than its equation keeps them.
        parameters = equation.primitive.get_bind_params(equation.params)
        outputs = equation.primitive.bind(*inputs, **parameters)
        return outputs if equation.primitive.multiple_results else [outputs]

    _, results_tree = jax.tree_util.tree_flatten(results_shape)

    def marked(*arguments):
        flat, _ = jax.tree_util.tree_flatten(arguments)
        results = evaluate(closed.jaxpr, closed.consts, *flat)
        return jax.tree_util.tree_unflatten(results_tree, results)

    return marked


def _at_users_line(equation):
    """A context in which JAX records `equation`'s own source line for what is traced: the
    re-evaluation happens here, and an error located by it pointed into gradir."""
    try:
        from jax._src import source_info_util
    except ImportError:
        return contextlib.nullcontext()
    return source_info_util.user_context(equation.source_info.traceback)


_CUSTOM_DERIVATIVES = ("custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr")


def _refuse_own_derivative_rules(jaxpr) -> None:
    """A SourceError at the first function of `jaxpr` (nested ones included) that has a
    derivative rule of the program's own. JAX's library functions with such rules
    (`jax.nn.relu`, ...) define the derivative their primal code has, and pass."""

    from jax.extend import core

    pending = [(_open(jaxpr), None)]  # a jaxpr, and where the user's code made it
    while pending:
        current, outer = pending.pop()
        for equation in current.eqns:
            location = _equation_location(equation) or outer  # JAX's own inner code has none
            if equation.primitive.name in _CUSTOM_DERIVATIVES:
                inner = _inner_jaxpr(equation)
                info = getattr(_open(inner), "debug_info", None) if inner is not None else None
                source = getattr(info, "func_src_info", None) or ""
                where = re.fullmatch(r"(.*) at (.*):(\d+)", source)
                if where and ("/jax/" in where[2] or "/jaxlib/" in where[2]):
                    continue
                kind = "jax.custom_jvp" if equation.primitive.name == "custom_jvp_call" else "jax.custom_vjp"
                what = f"@{where[1]}" if where else "a function"
                raise SourceError(
                    f"from_jax: {what} defines its own derivative ({kind}), which StableHLO does not keep: "
                    "gradir would differentiate its primal code instead; pass custom_derivatives=\"primal\" "
                    "to accept that",
                    f"{where[2]}:{where[3]}:1" if where else None,
                )
            pending.extend((_open(sub), location) for sub in core.jaxprs_in_params(equation.params))


def _equation_location(equation) -> str | None:
    """`file:line:1` of the user's code that made `equation`, if JAX recorded it."""
    try:
        from jax._src import source_info_util

        frame = source_info_util.user_frame(equation.source_info.traceback)
    except (ImportError, AttributeError):
        return None
    return None if frame is None else f"{frame.file_name}:{frame.start_line}:1"


def _open(jaxpr):
    """The `Jaxpr` of a `Jaxpr` or `ClosedJaxpr`."""
    return getattr(jaxpr, "jaxpr", jaxpr)


def _inner_jaxpr(equation):
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        if key in equation.params:
            return equation.params[key]
    return None


def _holds(jaxpr, primitive: str) -> bool:
    """Whether `jaxpr` or any jaxpr nested in it has an equation of `primitive`."""
    from jax.extend import core

    pending = [_open(jaxpr)]
    while pending:
        current = pending.pop()
        for equation in current.eqns:
            if equation.primitive.name == primitive:
                return True
        pending.extend(_open(sub) for sub in core.subjaxprs(current))
    return False


@reports_internal_errors
def from_stablehlo(stablehlo: Any, name: str = "main") -> str:
    """Steps 2-4 on a StableHLO module: a `jaxlib.mlir.ir.Module` (what
    `jax.jit(f).lower(...).compiler_ir("stablehlo")` returns) or its text, as
    `jax.jit(f).lower(...).as_text()` or `jax.export.export(...)(...).mlir_module()`
    give it. Its public function `@main` (or its only public function) becomes
    `@name`."""
    generic = _legalize_with_jaxlib(stablehlo)
    return _normalise_with_mlir22(generic, name)


# ---------------------------------------------------------------- step 2: jaxlib


def _legalize_with_jaxlib(stablehlo: Any) -> str:
    try:
        from jaxlib.mlir import ir as jax_ir
        from jaxlib.mlir import passmanager as jax_passmanager
        from jaxlib.mlir._mlir_libs import _stablehlo
    except ImportError as error:
        raise SourceError("converting StableHLO needs jaxlib: pip install 'gradir[jax]'") from error
    _stablehlo.register_stablehlo_passes()
    if isinstance(stablehlo, str):
        from jax.interpreters import mlir as jax_mlir  # JAX's context: every dialect JAX emits

        module = jax_ir.Module.parse(stablehlo, jax_mlir.make_ir_context())
    else:
        # A module may be JAX's cached lowering: legalize a copy.
        module = jax_ir.Module.parse(stablehlo.operation.get_asm(enable_debug_info=True), stablehlo.context)
    with module.context:
        _concatenations_as_tensor_concat(module, jax_ir)
        try:
            jax_passmanager.PassManager.parse(JAXLIB_PIPELINE).run(module.operation)
        except Exception as error:  # jaxlib's MLIRError: its first diagnostic, at the Python line
            diagnostics = getattr(error, "error_diagnostics", None) or []
            if not diagnostics:
                raise SourceError(f"StableHLO to linalg failed in jaxlib: {_first_line(str(error))}") from error
            first = diagnostics[0]
            # jaxlib's locations are its own MLIR's: read the first file position of the text.
            where = re.search(r'"([^"]+)":(\d+):(\d+)', str(first.location))
            raise SourceError(
                f"StableHLO to linalg failed in jaxlib: {' '.join(first.message.split())}",
                f"{where[1]}:{where[2]}:{where[3]}" if where else None,
            ) from error
    # With JAX's locations (the Python lines), for errors about what is left.
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)


def _concatenations_as_tensor_concat(module, jax_ir) -> None:
    """Each `stablehlo.concatenate` becomes a `tensor.concat` (which the legalization leaves
    as it is). Legalized, a concatenation is a generic whose body picks an operand with
    `scf.if` and reads it with `tensor.extract` at a shifted index: a gather gradir
    differentiates only one element at a time, and `jnp.concatenate`, `jnp.stack` and
    arrays of traced scalars are in most models; `tensor.concat`'s derivative is slices."""
    for op in _ops_named(module.operation, "stablehlo.concatenate"):
        with jax_ir.InsertionPoint(op), op.location:
            dimension = jax_ir.IntegerAttr(op.attributes["dimension"]).value
            concat = jax_ir.Operation.create(
                "tensor.concat",
                results=[op.results[0].type],
                operands=list(op.operands),
                attributes={"dim": jax_ir.IntegerAttr.get(jax_ir.IntegerType.get_signless(64), dimension)},
            )
        op.results[0].replace_all_uses_with(concat.results[0])
        op.erase()


# ---------------------------------------------------------------- steps 3-4: MLIR 22


def _normalise_with_mlir22(generic: str, name: str) -> str:
    from mlir import ir, passmanager

    context = ir.Context()
    context.allow_unregistered_dialects = True  # stablehlo.while until step 3 replaced it
    with context, ir.Location.unknown():
        module = ir.Module.parse(generic)
        for loop in _ops_named(module.operation, "stablehlo.while"):
            _while_to_scf(loop)
        for case in _ops_named(module.operation, "stablehlo.case"):
            _case_to_scf(case)
        _signless_integers(module)
        scatters_to_loops(module, _walk, lambda op: _python_location(module, op))
        sorts_to_loops(module, _walk, lambda op: _python_location(module, op))
        lapack_calls_to_loops(module, _walk, lambda op: _python_location(module, op))
        _reductions_over_nothing_as_identities(module)
        stops = _marks_to_stop_gradients(module)
        _reject_foreign_ops(module)
        _strip_and_rename(module, name)
        context.allow_unregistered_dialects = stops > 0  # autodiff.stop_gradient is gradir's, not MLIR's
        try:
            passmanager.PassManager.parse(MLIR22_PIPELINE).run(module.operation)
        except Exception as error:
            raise SourceError(f"the exported module does not verify in MLIR 22: {_first_line(str(error))}") from error
        text = module.operation.get_asm(enable_debug_info=False)
    return _without_module_wrapper(text)


def _signless_integers(module) -> None:
    """Give every value of an unsigned or signed integer type (or a tensor of one) the
    signless type of its width. jaxlib legalizes the ops on `uint32` (jax.random's
    threefry rounds, a loop over `jnp.uint32` values) into signless arith ops that say
    how they treat the sign (`shrui`, `cmpi ult`), but a `stablehlo.while`'s state keeps
    `ui32`, joined to them by `unrealized_conversion_cast`s that no pipeline runs; with
    one type on both sides the casts are identities, and `reconcile-unrealized-casts`
    removes them."""
    from mlir import ir

    def signless(kind):
        if isinstance(kind, ir.RankedTensorType):
            tensor = ir.RankedTensorType(kind)
            element = signless(tensor.element_type)
            return None if element is None else ir.RankedTensorType.get(tensor.shape, element, tensor.encoding)
        if isinstance(kind, ir.IntegerType) and not ir.IntegerType(kind).is_signless:
            return ir.IntegerType.get_signless(ir.IntegerType(kind).width)
        return None

    for operation in [module.operation, *_walk(module.operation)]:
        for region in operation.regions:
            for block in region.blocks:
                for argument in block.arguments:
                    if (kind := signless(argument.type)) is not None:
                        argument.set_type(kind)
        for result in operation.results:
            if (kind := signless(result.type)) is not None:
                result.set_type(kind)
        if operation.name == "func.func":
            function_type = ir.FunctionType(ir.TypeAttr(operation.attributes["function_type"]).value)
            inputs, results = ([signless(kind) or kind for kind in kinds] for kinds in (function_type.inputs, function_type.results))
            operation.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))


def _reductions_over_nothing_as_identities(module) -> None:
    """A `stablehlo.reduce` over no dimensions (`jnp.sum` of a 0-d value) is its inputs, which
    is what XLA computes (the init value is not applied: `lax.reduce(2.0, 5.0, lax.add, ())` is
    2.0); jaxlib's legalization leaves it."""
    for reduce in _ops_named(module.operation, "stablehlo.reduce"):
        dimensions = str(reduce.attributes["dimensions"]) if "dimensions" in reduce.attributes else ""
        if re.fullmatch(r"array<i64>", dimensions.strip()):
            inputs = list(reduce.operands)[: len(reduce.results)]
            for result, value in zip(reduce.results, inputs):
                result.replace_all_uses_with(value)
            reduce.erase()


def _marks_to_stop_gradients(module) -> int:
    """Replace each `_STOP_GRADIENT_MARK` tagged as a stop_gradient by an
    `autodiff.stop_gradient` per float operand (its other operands pass through: they carry
    no derivative), and every other barrier by its operands (an identity); how many
    stop_gradients there were."""
    from mlir import ir

    tag = f"dense<{_STOP_GRADIENT_TAG}> : tensor<i32>"
    stops = 0
    for mark in _ops_named(module.operation, _STOP_GRADIENT_MARK):
        operands = list(mark.operands)
        last = operands[-1].owner if operands else None
        tagged = (
            isinstance(last, ir.Operation | ir.OpView) and last.name in ("arith.constant", "stablehlo.constant")
            and str(last.attributes["value"]) == tag
        )  # fmt: skip
        if not tagged:
            for operand, result in zip(operands, mark.results):
                result.replace_all_uses_with(operand)
            mark.erase()
            continue
        stops += 1
        with ir.InsertionPoint(mark), mark.location:
            for operand, result in zip(operands[:-1], mark.results):
                kind = operand.type
                floating = isinstance(kind, ir.RankedTensorType) and isinstance(
                    ir.RankedTensorType(kind).element_type, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)
                )
                if floating:
                    stopped = ir.Operation.create("autodiff.stop_gradient", results=[kind], operands=[operand])
                    result.replace_all_uses_with(stopped.results[0])
                else:
                    result.replace_all_uses_with(operand)
        mark.erase()
    return stops


def _reject_foreign_ops(module) -> None:
    """A located error for the first op that is still StableHLO/CHLO (their
    region terminators aside), naming every such op."""
    leftover = [op for op in _walk(module.operation)
                if op.name.startswith(_FOREIGN_DIALECTS) and op.name != "stablehlo.return"]  # fmt: skip
    if leftover:
        names = ", ".join(sorted({op.name for op in leftover}))
        raise SourceError(
            f"no conversion to linalg for {names} (jaxlib's stablehlo-legalize-to-linalg leaves it; "
            "gradir reads linalg on tensors)",
            _python_location(module, leftover[0]),
        )


def _python_location(module, op) -> str | None:
    """`file:line:col` of the Python line `op` came from; for an op in a helper
    function JAX outlined (`@sort`, `@_where`), the line that calls it."""
    from gradir.mlir_bridge import location_text

    seen = set()
    while op is not None:
        found = location_text(op.location)
        if found:
            return found
        function = op
        while function is not None and function.name != "func.func":
            function = function.parent
        if function is None or function.attributes["sym_name"].value in seen:
            return None
        seen.add(function.attributes["sym_name"].value)
        callee = function.attributes["sym_name"].value
        op = next((call for call in _walk(module.operation)
                   if call.name == "func.call" and call.attributes["callee"].value == callee), None)  # fmt: skip
    return None


def _walk(operation):
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op.operation
                yield from _walk(op.operation)


def _ops_named(operation, op_name: str) -> list:
    return [op for op in _walk(operation) if op.name == op_name]


def _while_to_scf(loop) -> None:
    """Replace a `stablehlo.while` (tensor state; cond region returns a
    `tensor<i1>`) by the `scf.while` it means, moving both regions' ops."""
    from mlir import ir

    state_types = [value.type for value in loop.operands]
    with ir.InsertionPoint(loop):
        replacement = ir.Operation.create(
            "scf.while", results=[r.type for r in loop.results], operands=list(loop.operands), regions=2,
            loc=loop.location,
        )  # fmt: skip
    for index, (old_region, new_region) in enumerate(zip(loop.regions, replacement.regions)):
        old_block = old_region.blocks[0]
        new_block = new_region.blocks.append(*state_types)
        for old_argument, new_argument in zip(old_block.arguments, new_block.arguments):
            old_argument.replace_all_uses_with(new_argument)
        *body, old_return = list(old_block.operations)
        with ir.InsertionPoint(new_block):
            if index == 0:  # cond: the predicate, forwarding the state to the body
                (predicate,) = old_return.operands
                flag = ir.Operation.create(
                    "tensor.extract", results=[ir.IntegerType.get_signless(1)], operands=[predicate],
                    loc=old_return.location,
                )  # fmt: skip
                terminator = ir.Operation.create(
                    "scf.condition", operands=[flag.result, *new_block.arguments], loc=old_return.location
                )
                first = flag
            else:
                terminator = ir.Operation.create("scf.yield", operands=list(old_return.operands), loc=old_return.location)
                first = terminator
        for op in body:
            op.operation.move_before(first)
        old_return.operation.erase()
    for old, new in zip(loop.results, replacement.results):
        old.replace_all_uses_with(new)
    loop.erase()


def _move_region(source_region, target_block, terminator_name: str) -> None:
    """Move the ops of `source_region`'s one block (no arguments) to the end of
    `target_block`, its `stablehlo.return` becoming `terminator_name`."""
    from mlir import ir

    *body, old_return = list(source_region.blocks[0].operations)
    with ir.InsertionPoint(target_block):
        terminator = ir.Operation.create(terminator_name, operands=list(old_return.operands), loc=old_return.location)
    for op in body:
        op.operation.move_before(terminator)
    old_return.operation.erase()


def _case_to_scf(case) -> None:
    """Replace a `stablehlo.case` (what `lax.cond` and `lax.switch` lower to)
    by `scf.if`s on its `tensor<i32>` index: branch k when the index is k,
    the last branch otherwise (StableHLO's rule for an index out of range)."""
    from mlir import ir

    result_types = [r.type for r in case.results]
    (index_tensor,) = case.operands
    i32 = ir.IntegerType.get_signless(32)
    with ir.InsertionPoint(case), case.location:
        index = ir.Operation.create("tensor.extract", results=[i32], operands=[index_tensor]).result
        ifs, block = [], None
        branches = list(case.regions)
        for number, branch in enumerate(branches[:-1]):
            point = ir.InsertionPoint(block) if block is not None else ir.InsertionPoint(case)
            with point:
                constant = ir.Operation.create(
                    "arith.constant", results=[i32], attributes={"value": ir.IntegerAttr.get(i32, number)}
                ).result
                is_this = ir.Operation.create(
                    "arith.cmpi", results=[ir.IntegerType.get_signless(1)], operands=[index, constant],
                    attributes={"predicate": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)},  # eq
                ).result
                branch_if = ir.Operation.create("scf.if", results=result_types, operands=[is_this], regions=2)
            if block is not None:  # the previous else branch yields this if's results
                with ir.InsertionPoint(block):
                    ir.Operation.create("scf.yield", operands=list(branch_if.results))
            then_block = branch_if.regions[0].blocks.append()
            _move_region(branch, then_block, "scf.yield")
            block = branch_if.regions[1].blocks.append()
            ifs.append(branch_if)
    if not ifs:  # one branch: its ops in place of the case
        (branch,) = branches
        *body, old_return = list(branch.blocks[0].operations)
        for op in body:
            op.operation.move_before(case)
        replacements = list(old_return.operands)
    else:
        _move_region(branches[-1], block, "scf.yield")
        replacements = list(ifs[0].results)
    for old, new in zip(case.results, replacements):
        old.replace_all_uses_with(new)
    case.erase()


def _strip_and_rename(module, name: str) -> None:
    """Drop JAX's attributes, rename the public entry to `name`."""
    from mlir import ir

    for attribute in list(module.operation.attributes):
        del module.operation.attributes[attribute]
    functions = [op for op in module.body.operations if op.operation.name == "func.func"]
    public = [f for f in functions if "sym_visibility" not in f.attributes or f.attributes["sym_visibility"].value == "public"]
    entry = next((f for f in public if f.attributes["sym_name"].value == "main"), public[0] if len(public) == 1 else None)
    if entry is None:
        raise SourceError(f"the StableHLO module has {len(public)} public functions and none is @main")
    for function in functions:
        for attribute in ("arg_attrs", "res_attrs"):
            if attribute in function.attributes:
                del function.attributes[attribute]
    for function in functions:
        if function.attributes["sym_name"].value == name and function is not entry:
            raise SourceError(f"the StableHLO module already has a function named @{name}")
    old_name = entry.attributes["sym_name"].value
    entry.attributes["sym_name"] = ir.StringAttr.get(name)
    if "sym_visibility" in entry.attributes:
        del entry.attributes["sym_visibility"]
    for op in _walk(module.operation):  # calls of the entry itself (recursion is rare but legal)
        if op.name == "func.call" and op.attributes["callee"].value == old_name:
            op.attributes["callee"] = ir.FlatSymbolRefAttr.get(name)
    for op in _walk(module.operation):
        for attribute in list(op.attributes):
            if attribute.startswith(("jax.", "mhlo.", "sdy.")):
                del op.attributes[attribute]


def _without_module_wrapper(text: str) -> str:
    """The functions of `module { ... }` at top level (affine map aliases
    first), so that a gradir entry can follow them in the same file."""
    lines = text.rstrip().split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("module"))
    assert lines[start].rstrip() == "module {" and lines[-1] == "}", lines[start]
    body = [line[2:] if line.startswith("  ") else line for line in lines[start + 1 : -1]]
    return "\n".join(lines[:start] + body) + "\n"


def _raising_line(error: BaseException) -> str | None:
    """`file:line:1` of the innermost frame of `error`'s traceback outside JAX and gradir:
    the user's line that raised, or that called into JAX when JAX raised."""
    import traceback

    ours = (str(Path(__file__).resolve().parent), f"{os.sep}jax{os.sep}", f"{os.sep}jaxlib{os.sep}")
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if not any(p in frame.filename for p in ours)]
    return f"{frames[-1].filename}:{frames[-1].lineno}:1" if frames else None


def _first_line(message: str) -> str:
    for line in message.splitlines():
        if line.strip():
            return " ".join(line.split())
    return "unknown failure"
