"""Batched and whole-derivative entry ops (DESIGN.md section 3.4).

`autodiff.vmap` maps a `func.func` over a batch dimension of chosen
arguments; `autodiff.jacobian` and `autodiff.hessian` ask for whole
derivative matrices. `autodiff-jacobian` rewrites the last two into `vmap`s
of `vjp`/`jvp`, and `autodiff-vmap` replaces each `vmap` by a call to a
batched function (generated once per callee, axes and size).

They are not `EntryOp`s: their operands and results do not follow the
grad/vjp/jvp layout, and the derivative passes must not lower them.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.type_checks import (
    format_types,
    is_differentiable_tensor,
    is_float_scalar,
    is_float_tensor,
    is_integer_valued,
    shape_of,
    tensor_type,
    with_batch_dim,
)


def _callee_function(op: Operation, callee: SymbolRefAttr) -> FuncOp:
    found = SymbolTable.lookup_symbol(op, callee)
    if found is None:
        raise VerifyException(f"callee {callee} could not be found")
    if not isinstance(found, FuncOp):
        raise VerifyException(f"callee {callee} is a '{found.name}', expected a 'func.func'")
    return found


class BatchingEntryOpVerifier(SymbolUserOpInterface):
    """Checks the callee and the operand/result types the op implies for it."""

    def verify(self, op: Operation) -> None:
        """The callee exists and is a `func.func`, and the operand and result types
        are those the op implies for it (each op's `expected_signature`): vmap's
        `in_axes`/`out_axes` have one entry per argument/result, each -1 (arguments
        only) or in `0..rank` of a tensor of floats, integers or index (0 for such a
        scalar), and `size` is at least 1;
        jacobian's callee returns float tensors or float scalars and `mode` is "rev" or
        "fwd"; hessian's returns one 0-d float tensor or float scalar; `wrt` names
        float-tensor or float-scalar arguments, each once."""
        assert isinstance(op, (VmapOp, WholeDerivativeOp))
        callee = _callee_function(op, op.callee)
        operands, results = op.expected_signature(callee)
        actual_operands = tuple(v.type for v in op.operands)
        actual_results = tuple(r.type for r in op.results)
        if actual_operands != operands:
            raise VerifyException(
                f"operand types {format_types(actual_operands)} do not match the expected "
                f"{format_types(operands)} ({op.OPERAND_LAYOUT}) for callee {op.callee}"
            )
        if actual_results != results:
            raise VerifyException(
                f"result types {format_types(actual_results)} do not match the expected "
                f"{format_types(results)} ({op.RESULT_LAYOUT}) for callee {op.callee}"
            )


@irdl_op_definition
class VmapOp(IRDLOperation):
    """Maps `callee` over a batch: `%y = autodiff.vmap @f(%xs, %w) {in_axes =
    array<i64: 0, -1>, out_axes = array<i64: 0>, size = 8 : i64} : ...`.

    Argument `i` is batched when `in_axes[i] >= 0`: its operand has an extra
    dimension of `size` at that position (`-1`: passed to every example as
    is). Result `j` has the batch dimension at `out_axes[j]`."""

    name = "autodiff.vmap"

    args = var_operand_def()
    """The callee's arguments, the batched ones with their batch dimension."""
    callee = prop_def(FlatSymbolRefAttrConstr)
    """The mapped `func.func`."""
    in_axes = prop_def(DenseArrayBase.constr(i64))
    """Per argument: the position of its batch dimension, or -1 (not batched)."""
    out_axes = prop_def(DenseArrayBase.constr(i64))
    """Per result: the position of its batch dimension."""
    size = prop_def(IntegerAttr.constr(type=i64))
    """The batch size."""
    outs = var_result_def()
    """The callee's results, each with the batch dimension at its `out_axes` position."""

    traits = traits_def(BatchingEntryOpVerifier())
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $outs)"
    irdl_options = (ParsePropInAttrDict(),)

    OPERAND_LAYOUT: ClassVar[str] = "the callee's arguments, batched at in_axes"
    RESULT_LAYOUT: ClassVar[str] = "the callee's results, batched at out_axes"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        in_axes: Sequence[int],
        out_axes: Sequence[int],
        size: int,
    ):
        super().__init__(
            operands=[args],
            result_types=[result_types],
            properties={
                "callee": SymbolRefAttr(callee) if isinstance(callee, str) else callee,
                "in_axes": DenseArrayBase.from_list(i64, list(in_axes)),
                "out_axes": DenseArrayBase.from_list(i64, list(out_axes)),
                "size": IntegerAttr(size, i64),
            },
        )

    @property
    def batch_size(self) -> int:
        return self.size.value.data

    def input_axes(self) -> tuple[int, ...]:
        return tuple(self.in_axes.get_values())

    def output_axes(self) -> tuple[int, ...]:
        return tuple(self.out_axes.get_values())

    def expected_signature(
        self, callee: FuncOp
    ) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
        """(operand types, result types) for `callee`: `in_axes` has one entry
        per argument, each -1 or a position in `0..rank` of a tensor argument of floats,
        integers or index (0 of such a scalar); `out_axes` one per result, likewise;
        `size` is at least 1."""
        inputs = tuple(callee.function_type.inputs.data)
        outputs = tuple(callee.function_type.outputs.data)
        in_axes, out_axes, size = self.input_axes(), self.output_axes(), self.batch_size
        if size < 1:
            raise VerifyException(f"batch size must be at least 1, got {size}")
        if len(in_axes) != len(inputs):
            raise VerifyException(
                f"in_axes has {len(in_axes)} entries, callee {self.callee} "
                f"has {len(inputs)} arguments"
            )
        if len(out_axes) != len(outputs):
            raise VerifyException(
                f"out_axes has {len(out_axes)} entries, callee {self.callee} "
                f"has {len(outputs)} results"
            )
        operands = tuple(
            type_ if axis == -1 else with_batch_dim(type_, axis, size)
            for axis, type_ in (
                (_checked_axis(a, t, f"in_axes[{i}]", "argument", i, allow_unbatched=True), t)
                for i, (a, t) in enumerate(zip(in_axes, inputs))
            )
        )
        results = tuple(
            with_batch_dim(t, _checked_axis(a, t, f"out_axes[{i}]", "result", i), size)
            for i, (a, t) in enumerate(zip(out_axes, outputs))
        )
        return operands, results


def _checked_axis(
    axis: int, type_: Attribute, what: str, kind: str, index: int, allow_unbatched: bool = False
) -> int:
    if allow_unbatched and axis == -1:
        return axis
    if not is_batchable_type(type_):
        raise VerifyException(
            f"{what} = {axis} batches {kind} {index} of type {type_}, expected a tensor or a scalar of "
            "floats, integers or index"
        )
    rank = len(shape_of(type_))
    if not 0 <= axis <= rank:
        low = "-1 (not batched) or " if allow_unbatched else ""
        raise VerifyException(
            f"{what} = {axis} is out of range for {kind} {index} of type {type_} "
            f"(expected {low}0 <= axis <= {rank})"
        )
    return axis


def is_batchable_type(type_: Attribute) -> bool:
    """What a `vmap` batches, or returns batched (JAX's `vmap`): a ranked tensor of floats,
    integers or `index` (of static or dynamic shape), or such a scalar, whose batch is a
    `tensor<size x type_>`: per-example labels, indices and loop bounds as well as data."""
    return is_differentiable_tensor(type_) or is_float_scalar(type_) or is_integer_valued(type_)


def is_whole_derivative_type(type_: Attribute) -> bool:
    """What a `jacobian`/`hessian` differentiates, or differentiates with respect to: a float
    tensor of static shape (its basis has one vector per element) or a float scalar (of
    shape `()`, like a 0-d tensor: `torch.autograd.functional.jacobian`'s convention)."""
    return is_float_tensor(type_) or is_float_scalar(type_)


def joined_type(a: Attribute, b: Attribute) -> TensorType:
    """`tensor<shape(a) ++ shape(b)>` of `a`'s element type: the block of a whole derivative
    of `a` with respect to `b`; a float scalar counts as shape `()` (a 0-d block when both are
    scalars)."""
    element = a.element_type if isinstance(a, TensorType) else a
    return tensor_type(element, [*shape_of(a), *shape_of(b)])


class WholeDerivativeOp(IRDLOperation):
    """Base of `jacobian` and `hessian`: operands are the callee's arguments."""

    args = var_operand_def()
    """The callee's arguments."""
    callee = prop_def(FlatSymbolRefAttrConstr)
    """The differentiated `func.func`."""
    wrt = opt_prop_def(DenseArrayBase.constr(i64))
    """Argument indices to differentiate with respect to; default: every float tensor."""
    outs = var_result_def()
    """See each op."""

    traits = traits_def(BatchingEntryOpVerifier())
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $outs)"
    irdl_options = (ParsePropInAttrDict(),)

    OPERAND_LAYOUT: ClassVar[str] = "the callee's arguments"
    RESULT_LAYOUT: ClassVar[str] = ""

    def wrt_indices(self, inputs: Sequence[Attribute]) -> tuple[int, ...]:
        """The `wrt` indices, each naming a float-tensor or float-scalar argument once;
        default: every float-tensor argument (float scalars when `wrt` names them, as for
        `autodiff.grad`)."""
        if self.wrt is None:
            return tuple(i for i, t in enumerate(inputs) if is_float_tensor(t))
        wrt = tuple(self.wrt.get_values())
        for index in wrt:
            if not 0 <= index < len(inputs):
                raise VerifyException(
                    f"wrt index {index} is out of range: callee {self.callee} "
                    f"has {len(inputs)} arguments"
                )
            if not is_whole_derivative_type(inputs[index]):
                raise VerifyException(
                    f"wrt index {index} names argument of type {inputs[index]}, "
                    "expected a float tensor of static shape or a float scalar"
                )
        if len(set(wrt)) != len(wrt):
            raise VerifyException(f"wrt indices {list(wrt)} contain duplicates")
        return wrt

    def expected_signature(self, callee: FuncOp):
        raise NotImplementedError()


@irdl_op_definition
class JacobianOp(WholeDerivativeOp):
    """The whole Jacobian: for each callee result `r` and `wrt` argument `a`
    (result-major), `tensor<shape(r) ++ shape(a)>`. `mode = "rev"` computes
    it as a vmap of vjp over the output basis, `"fwd"` as a vmap of jvp over
    the input basis; without `mode`, forward when the `wrt` arguments have
    fewer elements than the results."""

    name = "autodiff.jacobian"

    mode = opt_prop_def(StringAttr)
    """"rev" or "fwd"; absent: chosen by shape."""

    RESULT_LAYOUT: ClassVar[str] = "one Jacobian per (result, wrt argument), result-major"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        wrt: Sequence[int] | None = None,
        mode: str | None = None,
    ):
        properties: dict[str, Attribute] = {
            "callee": SymbolRefAttr(callee) if isinstance(callee, str) else callee
        }
        if wrt is not None:
            properties["wrt"] = DenseArrayBase.from_list(i64, list(wrt))
        if mode is not None:
            properties["mode"] = StringAttr(mode)
        super().__init__(operands=[args], result_types=[result_types], properties=properties)

    def expected_signature(self, callee: FuncOp):
        """The callee's results are float tensors or scalars; `mode` is "rev" or "fwd"."""
        if self.mode is not None and self.mode.data not in ("rev", "fwd"):
            raise VerifyException(f'mode must be "rev" or "fwd", got "{self.mode.data}"')
        inputs = tuple(callee.function_type.inputs.data)
        outputs = tuple(callee.function_type.outputs.data)
        wrt = self.wrt_indices(inputs)
        for index, output in enumerate(outputs):
            if not is_whole_derivative_type(output):
                raise VerifyException(
                    f"callee {self.callee} result {index} has type {output}, "
                    "expected a float tensor of static shape or a float scalar"
                )
        return inputs, tuple(joined_type(r, inputs[a]) for r in outputs for a in wrt)


@irdl_op_definition
class HessianOp(WholeDerivativeOp):
    """The Hessian of a loss (forward over reverse): for each pair (`a_i`,
    `a_j`) of `wrt` arguments, row-major, `tensor<shape(a_i) ++ shape(a_j)>`."""

    name = "autodiff.hessian"

    RESULT_LAYOUT: ClassVar[str] = "one block per (wrt, wrt) pair, row-major"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        wrt: Sequence[int] | None = None,
    ):
        properties: dict[str, Attribute] = {
            "callee": SymbolRefAttr(callee) if isinstance(callee, str) else callee
        }
        if wrt is not None:
            properties["wrt"] = DenseArrayBase.from_list(i64, list(wrt))
        super().__init__(operands=[args], result_types=[result_types], properties=properties)

    def expected_signature(self, callee: FuncOp):
        """The callee returns one 0-d float tensor or float scalar."""
        inputs = tuple(callee.function_type.inputs.data)
        outputs = tuple(callee.function_type.outputs.data)
        if len(outputs) != 1 or not is_whole_derivative_type(outputs[0]) or shape_of(outputs[0]):
            raise VerifyException(
                f"callee {self.callee} must return exactly one 0-d float tensor or float "
                f"scalar (a loss), but returns {format_types(outputs)}"
            )
        wrt = self.wrt_indices(inputs)
        return inputs, tuple(joined_type(inputs[i], inputs[j]) for i in wrt for j in wrt)


BATCHING_OPS: tuple[type[IRDLOperation], ...] = (VmapOp, JacobianOp, HessianOp)
