"""`gradir.vmap`, `gradir.jacobian`, `gradir.hessian`: compiled callables over a source.

Each adds to (a copy of) the source one wrapper function holding the op
(`autodiff.vmap`, `autodiff.jacobian`, `autodiff.hessian`), compiles the
module for the CPU and calls the wrapper; like `torch.func.vmap`,
`torch.autograd.functional.jacobian` and `hessian`. A `vmap`'s batch size is
read from its arguments, so it compiles once per (size, axes) it meets.
Argument mistakes are `ArgumentError`s raised before anything compiles.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region

from gradir.api_arguments import checked_choices, checked_indices, checked_integer, checked_name
from gradir.autodiff_pass.batched_functions import referenced_functions
from gradir.dialects.batching_ops import (
    HessianOp,
    JacobianOp,
    VmapOp,
    is_batchable_type,
    is_whole_derivative_type,
    joined_type,
    shape_of,
    with_batch_dim,
)
from gradir.dialects.type_checks import is_float_tensor
from gradir.errors import ArgumentError, GradirError, reports_internal_errors
from gradir.source import load_module

WRAPPER = "__gradir_batched_entry"
"""The wrapper function's name (a name no user writes)."""


def _function(module: ModuleOp, name: str) -> FuncOp:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name and op.body.blocks:
            return op
    raise ArgumentError(f"no function @{name} with a body in the source")


def _with_wrapper(
    module: ModuleOp,
    inputs: Sequence[Attribute],
    outputs: Sequence[Attribute],
    make_op: Callable[[list], Operation],
) -> ModuleOp:
    block = Block(arg_types=list(inputs))
    op = make_op(list(block.args))
    block.add_op(op)
    block.add_op(ReturnOp(*op.results))
    wrapper = FuncOp(WRAPPER, FunctionType.from_lists(list(inputs), list(outputs)), Region(block))
    module.body.block.add_op(wrapper)
    _keep_only_reachable(module, wrapper)
    return module


def _keep_only_reachable(module: ModuleOp, root: FuncOp) -> None:
    """Drop the functions the wrapper does not reach: only what it runs is compiled."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
    reached, pending = set(), [root.sym_name.data]
    while pending:
        name = pending.pop()
        if name in reached or name not in functions:
            continue
        reached.add(name)
        pending.extend(referenced_functions(functions[name]))
    for name, function in functions.items():
        if name not in reached:
            function.detach()
            function.erase()


def _unpack(results: tuple):
    return results[0] if len(results) == 1 else results


def _call(executable, what: str, arguments):
    """Call the wrapper; an error (a bad argument, a NaN that `check_numerics` stopped at)
    names `what`, not the wrapper."""
    try:
        return _unpack(executable.call(WRAPPER, *arguments))
    except GradirError as error:
        if WRAPPER not in error.message:
            raise
        message = error.message.replace(f"@{WRAPPER}", what).replace(WRAPPER, what)
        raise type(error)(message, error.location) from None


def _checked_wrt(function: FuncOp, wrt: object) -> list[int]:
    inputs = function.function_type.inputs.data
    indices = checked_indices("wrt", wrt)
    if indices is None:
        indices = tuple(i for i, t in enumerate(inputs) if is_float_tensor(t))
    for index in indices:
        if not 0 <= index < len(inputs) or not is_whole_derivative_type(inputs[index]):
            raise ArgumentError(
                f"wrt index {index} does not name a float-tensor or float-scalar argument of "
                f"@{function.sym_name.data} ({len(inputs)} arguments)"
            )
    if len(set(indices)) != len(indices):
        raise ArgumentError(f"wrt indices {list(indices)} repeat")
    if not indices:
        raise ArgumentError(
            f"@{function.sym_name.data} has no float-tensor argument to differentiate (name float scalars in wrt)"
        )
    return list(indices)


class BatchedFunction:
    """`gradir.vmap(source, name, in_axes, out_axes)`: call it on a batch."""

    def __init__(self, source, name: str, in_axes, out_axes, target: str = "cpu", options: dict | None = None):
        self._options = _checked_compile_options(target, dict(options or {}))
        self._source = load_module(source)
        self._name = checked_name("function", name)
        self._function = _function(self._source, name)
        self._inputs = list(self._function.function_type.inputs.data)
        self._outputs = list(self._function.function_type.outputs.data)
        self._in_axes = self._axes("in_axes", in_axes, len(self._inputs), allow_none=True)
        self._out_axes = self._axes("out_axes", out_axes, len(self._outputs), allow_none=False)
        for index, axis in enumerate(self._in_axes):
            if axis is not None and not is_batchable_type(self._inputs[index]):
                raise ArgumentError(
                    f"in_axes[{index}] batches argument {index} of type {self._inputs[index]}, "
                    "expected a tensor or a scalar of floats, integers or index (use None to pass it unbatched)"
                )
        for index, output in enumerate(self._outputs):
            if not is_batchable_type(output):
                raise ArgumentError(
                    f"result {index} of @{name} is {output}, expected a tensor or a scalar of floats, integers or index"
                )
        if all(axis is None for axis in self._in_axes):
            raise ArgumentError("in_axes batches no argument (at least one must be an int)")
        self._target = target
        self._compiled: dict[tuple, object] = {}

    @staticmethod
    def _axes(what: str, axes: object, count: int, allow_none: bool) -> list[int | None]:
        if axes is None or isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
            axes = [axes] * count
        if not isinstance(axes, (list, tuple)):
            raise ArgumentError(f"{what} must be an int, None or a tuple of them, got {axes!r}")
        if len(axes) != count:
            raise ArgumentError(f"{what} has {len(axes)} entries, the function has {count}")
        checked: list[int | None] = []
        for axis in axes:
            if axis is None and allow_none:
                checked.append(None)
            else:
                checked.append(checked_integer(f"{what} entry", axis))
        return checked

    def _normalized(self, what: str, axis: int, rank: int, index: int) -> int:
        """A Python axis (negative counts from the end) of a rank-`rank` value
        with its batch dimension, as a position in `0..rank-1`."""
        if not -rank <= axis < rank:
            raise ArgumentError(
                f"{what}[{index}] = {axis} is out of range for a batched value of rank {rank}"
            )
        return axis % rank

    @reports_internal_errors
    def __call__(self, *arguments):
        if len(arguments) != len(self._inputs):
            raise ArgumentError(
                f"@{self._name} takes {len(self._inputs)} arguments, got {len(arguments)}"
            )
        in_axes, size = [], None
        for index, (value, axis, type_) in enumerate(zip(arguments, self._in_axes, self._inputs)):
            if axis is None:
                in_axes.append(-1)
                continue
            shape = np.shape(value)
            position = self._normalized("in_axes", axis, len(shape), index) if shape else None
            if position is None or len(shape) != len(shape_of(type_)) + 1:
                raise ArgumentError(
                    f"argument {index} has shape {tuple(shape)}, expected {type_} with a batch "
                    f"dimension at axis {axis}"
                )
            if size is not None and shape[position] != size:
                raise ArgumentError(
                    f"argument {index} has batch size {shape[position]} at axis {axis}, "
                    f"the earlier batched arguments {size}"
                )
            size = shape[position]
            in_axes.append(position)
        assert size is not None
        out_axes = [
            self._normalized("out_axes", axis, len(shape_of(type_)) + 1, index)
            for index, (axis, type_) in enumerate(zip(self._out_axes, self._outputs))
        ]
        key = (size, tuple(in_axes), tuple(out_axes))
        if key not in self._compiled:
            self._compiled[key] = self._compile(size, in_axes, out_axes)
        return _call(self._compiled[key], f"vmap of @{self._name}", arguments)

    def _compile(self, size: int, in_axes: list[int], out_axes: list[int]):
        from gradir.compilation import compile

        inputs = [t if a < 0 else with_batch_dim(t, a, size) for a, t in zip(in_axes, self._inputs)]
        outputs = [with_batch_dim(t, a, size) for a, t in zip(out_axes, self._outputs)]
        module = _with_wrapper(
            self._source.clone(),
            inputs,
            outputs,
            lambda args: VmapOp(self._name, args, outputs, in_axes, out_axes, size),
        )
        return compile(module, target=self._target, functions=WRAPPER, **self._options)


@reports_internal_errors
def vmap(source, function: str, in_axes=0, out_axes=0, **options) -> BatchedFunction:
    """`function` of `source` mapped over a batch (like `torch.func.vmap`):
    `in_axes` per argument an axis (negative from the end) or None (not
    batched), or one for all; `out_axes` likewise per result. Returns a callable;
    one result comes back as the array itself, several as a tuple. `options` are
    `gradir.compile`'s for the CPU (`opt_level`, `num_threads`, `checkpoint_every`, ...)."""
    return BatchedFunction(source, function, in_axes, out_axes, options=options)


class _CompiledWrapper:
    """The compiled wrapper of a jacobian or hessian; call it with the function's arguments."""

    def __init__(self, executable, what: str):
        self._executable, self._what = executable, what

    @reports_internal_errors
    def __call__(self, *arguments):
        return _call(self._executable, self._what, arguments)


@reports_internal_errors
def jacobian(source, function: str, wrt: Sequence[int] | None = None, mode: str | None = None, **options):
    """The whole Jacobian of `function` (like `torch.autograd.functional.jacobian`):
    a callable returning, for each result `r` and `wrt` argument `a` (result-major),
    an array of shape `shape(r) + shape(a)`. `mode`: "rev" (vmap of vjp), "fwd"
    (vmap of jvp), or None (forward when the inputs have fewer elements). `options` are
    `gradir.compile`'s for the CPU (`opt_level`, `num_threads`, `checkpoint_every`, ...)."""
    from gradir.compilation import compile

    _checked_compile_options("cpu", options)

    if mode is not None:
        mode = checked_choices("mode", mode, ("rev", "fwd"))[0]
    module = load_module(source)
    callee = _function(module, checked_name("function", function))
    indices = _checked_wrt(callee, wrt)
    inputs = list(callee.function_type.inputs.data)
    outputs = list(callee.function_type.outputs.data)
    for index, output in enumerate(outputs):
        if not is_whole_derivative_type(output):
            raise ArgumentError(f"result {index} of @{function} is {output}, expected a float tensor or scalar")
    results = [joined_type(r, inputs[a]) for r in outputs for a in indices]
    module = _with_wrapper(
        module, inputs, results, lambda args: JacobianOp(function, args, results, indices, mode)
    )
    return _CompiledWrapper(compile(module, functions=WRAPPER, **options), f"jacobian of @{function}")


@reports_internal_errors
def hessian(source, function: str, wrt: Sequence[int] | None = None, **options):
    """The Hessian of a loss (`function` returns one 0-d float tensor), forward
    over reverse: a callable returning, for each pair (`a_i`, `a_j`) of `wrt`
    arguments (row-major), an array of shape `shape(a_i) + shape(a_j)`. `options` are
    `gradir.compile`'s for the CPU (`opt_level`, `num_threads`, `checkpoint_every`, ...)."""
    from gradir.compilation import compile

    _checked_compile_options("cpu", options)

    module = load_module(source)
    callee = _function(module, checked_name("function", function))
    indices = _checked_wrt(callee, wrt)
    inputs = list(callee.function_type.inputs.data)
    outputs = list(callee.function_type.outputs.data)
    if len(outputs) != 1 or not is_whole_derivative_type(outputs[0]) or shape_of(outputs[0]):
        raise ArgumentError(f"@{function} must return one 0-d float tensor or float scalar (a loss) for its Hessian")
    results = [joined_type(inputs[i], inputs[j]) for i in indices for j in indices]
    module = _with_wrapper(
        module, inputs, results, lambda args: HessianOp(function, args, results, indices)
    )
    return _CompiledWrapper(compile(module, functions=WRAPPER, **options), f"hessian of @{function}")


def _checked_compile_options(target: str, options: dict) -> dict:
    """`options` themselves, or the `ArgumentError` `gradir.compile` would raise for them, now:
    a vmap compiles at its first call, too late to say that the call that made it erred."""
    from gradir.compilation import checked_options

    keywords = {"checkpoint_every", "check_numerics"}
    checked_options(target, options.get("checkpoint_every", 0), {k: v for k, v in options.items() if k not in keywords})
    if target == "cpu" and "opt_level" in options:
        from gradir.cpu_backend.cpu_runtime import checked_opt_level

        checked_opt_level(options["opt_level"])
    return options

