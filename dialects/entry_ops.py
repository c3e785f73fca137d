"""Entry ops: how a program asks for derivatives of a `func.func`.

`autodiff.grad`, `autodiff.vjp` and `autodiff.jvp` name a callee and the
arguments to differentiate with respect to (`wrt`); `autodiff-reverse` and
`autodiff-forward` replace them by calls to generated functions.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FlatSymbolRefAttrConstr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
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
    is_integer_valued,
    is_differentiable_type,
    is_float_scalar,
    is_float_tensor,
    with_batch_dim,
)


class EntryOpVerifier(SymbolUserOpInterface):
    """Checks the callee and the operand/result signature implied by it and `wrt`."""

    def verify(self, op: Operation) -> None:
        """The callee exists and is a `func.func`; each `wrt` index names an
        argument that is a float tensor or float scalar, at most once (without
        `wrt`: every float-tensor argument); the operand and result types are
        those the op implies for the callee and `wrt` (see each op: `grad`'s
        callee returns one loss, `vjp`'s and `jvp`'s callees return only float
        tensors or float scalars)."""
        assert isinstance(op, EntryOp)
        callee = op.callee_function()
        inputs = tuple(callee.function_type.inputs.data)
        outputs = tuple(callee.function_type.outputs.data)
        wrt = op.wrt_indices(inputs)
        operands, results = op.expected_signature(inputs, outputs, wrt)
        actual_operands = tuple(v.type for v in op.args)
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


class EntryOp(IRDLOperation):
    """Base of `grad`, `vjp` and `jvp`."""

    args = var_operand_def()
    """The callee's arguments, followed by the op's extra inputs (cotangents or tangents)."""
    callee = prop_def(FlatSymbolRefAttrConstr)
    """The differentiated `func.func`."""
    wrt = opt_prop_def(DenseArrayBase.constr(i64))
    """Argument indices to differentiate with respect to; default: every float tensor."""
    outs = var_result_def()
    """See each op."""

    traits = traits_def(EntryOpVerifier())
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $outs)"
    irdl_options = (ParsePropInAttrDict(),)

    OPERAND_LAYOUT: ClassVar[str] = ""
    RESULT_LAYOUT: ClassVar[str] = ""

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

    def callee_function(self) -> FuncOp:
        """The callee, checked to exist and to be a `func.func`."""
        found = SymbolTable.lookup_symbol(self, self.callee)
        if found is None:
            raise VerifyException(f"callee {self.callee} could not be found")
        if not isinstance(found, FuncOp):
            raise VerifyException(
                f"callee {self.callee} is a '{found.name}', expected a 'func.func'"
            )
        return found

    def wrt_indices(self, inputs: Sequence[Attribute] | None = None) -> tuple[int, ...]:
        """The `wrt` indices, checked; default: every float-tensor argument
        (float scalars are differentiated when `wrt` names them)."""
        if inputs is None:
            inputs = tuple(self.callee_function().function_type.inputs.data)
        if self.wrt is None:
            return tuple(i for i, t in enumerate(inputs) if is_differentiable_tensor(t))
        wrt = tuple(self.wrt.get_values())
        for index in wrt:
            if not 0 <= index < len(inputs):
                raise VerifyException(
                    f"wrt index {index} is out of range: callee {self.callee} "
                    f"has {len(inputs)} arguments"
                )
            if not is_differentiable_type(inputs[index]):
                raise VerifyException(
                    f"wrt index {index} names argument of type {inputs[index]}, "
                    "expected a float tensor or float scalar"
                )
        if len(set(wrt)) != len(wrt):
            raise VerifyException(f"wrt indices {list(wrt)} contain duplicates")
        return wrt

    def expected_signature(
        self,
        inputs: tuple[Attribute, ...],
        outputs: tuple[Attribute, ...],
        wrt: tuple[int, ...],
    ) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
        """(operand types, result types) this op must have for the callee."""
        raise NotImplementedError()

    def expect_differentiable_results(self, outputs: tuple[Attribute, ...]) -> None:
        """Every callee result must be a float tensor or scalar, or an integer one (vjp and
        jvp take or give one cotangent or tangent per result, of the result's type; an
        integer result's cotangent is ignored and its tangent is zero, as JAX's `float0`)."""
        for index, output in enumerate(outputs):
            if not (is_differentiable_type(output) or is_integer_valued(output)):
                raise VerifyException(
                    f"callee {self.callee} result {index} has type {output}, "
                    "expected a float or integer tensor or scalar"
                )

    def callee_arguments(self) -> tuple[SSAValue, ...]:
        """The operands passed to the callee (the rest are cotangents/tangents)."""
        count = len(self.callee_function().function_type.inputs.data)
        return tuple(self.args[:count])

    def extra_inputs(self) -> tuple[SSAValue, ...]:
        """The cotangents (vjp) or tangents (jvp) following the callee's arguments."""
        count = len(self.callee_function().function_type.inputs.data)
        return tuple(self.args[count:])


def is_loss_type(type_: Attribute) -> bool:
    """A 0-d float tensor or a float scalar."""
    return is_float_scalar(type_) or (is_float_tensor(type_) and type_.get_num_dims() == 0)  # type: ignore[union-attr]


@irdl_op_definition
class GradOp(EntryOp):
    """Gradient of a scalar loss: `%ga, %gb = autodiff.grad @f(%a, %b) : ...`.

    The callee must return one 0-d float tensor or one float scalar (a loss);
    the seed is 1. Results: one gradient per `wrt` argument, of that
    argument's type."""

    name = "autodiff.grad"
    OPERAND_LAYOUT: ClassVar[str] = "the callee's arguments"
    RESULT_LAYOUT: ClassVar[str] = "one gradient per wrt argument"

    def expected_signature(self, inputs, outputs, wrt):
        if len(outputs) != 1 or not is_loss_type(outputs[0]):
            raise VerifyException(
                f"callee {self.callee} must return exactly one 0-d float tensor "
                f"or float scalar (a loss), but returns {format_types(outputs)}"
            )
        return inputs, tuple(inputs[i] for i in wrt)


@irdl_op_definition
class VjpOp(EntryOp):
    """Vector-Jacobian product: operands are the callee's arguments then one
    cotangent per callee result; results are the callee's results then one
    gradient per `wrt` argument. An integer result's cotangent is ignored.

    With `is_grads_batched` (PyTorch's name), each cotangent has a leading
    batch dimension (one size for all) and so has each gradient: a batch of
    vjps, lowered by `autodiff-vmap` as a vmap of the vjp over the cotangents."""

    name = "autodiff.vjp"
    is_grads_batched = opt_prop_def(UnitAttr)
    """Cotangents and gradients carry a leading batch dimension."""
    OPERAND_LAYOUT: ClassVar[str] = "the callee's arguments, then one cotangent per result"
    RESULT_LAYOUT: ClassVar[str] = "the callee's results, then one gradient per wrt argument"

    def expected_signature(self, inputs, outputs, wrt):
        self.expect_differentiable_results(outputs)
        gradients = tuple(inputs[i] for i in wrt)
        if self.is_grads_batched is None:
            return inputs + outputs, outputs + gradients
        size = self.cotangent_batch_size(inputs, outputs)
        return (
            inputs + tuple(with_batch_dim(t, 0, size) for t in outputs),
            outputs + tuple(with_batch_dim(t, 0, size) for t in gradients),
        )

    def cotangent_batch_size(self, inputs, outputs) -> int:
        """With `is_grads_batched`: the leading dimension of the first cotangent;
        every result must be a float tensor of static shape or a float scalar."""
        for index, output in enumerate(outputs):
            if not (is_float_tensor(output) or is_float_scalar(output)):
                raise VerifyException(
                    f"is_grads_batched: callee {self.callee} result {index} has type "
                    f"{output}, expected a float tensor or float scalar"
                )
        first = self.args[len(inputs)].type if len(self.args) > len(inputs) else None
        if not isinstance(first, TensorType) or not first.get_shape():
            raise VerifyException(
                "is_grads_batched: the first cotangent must be a tensor with a leading batch dimension"
            )
        return first.get_shape()[0]


@irdl_op_definition
class JvpOp(EntryOp):
    """Jacobian-vector product: operands are the callee's arguments then one
    tangent per `wrt` argument; results are the callee's results then one
    tangent per callee result (zero for an integer result)."""

    name = "autodiff.jvp"
    OPERAND_LAYOUT: ClassVar[str] = "the callee's arguments, then one tangent per wrt argument"
    RESULT_LAYOUT: ClassVar[str] = "the callee's results, then one tangent per result"

    def expected_signature(self, inputs, outputs, wrt):
        self.expect_differentiable_results(outputs)
        return inputs + tuple(inputs[i] for i in wrt), outputs + outputs


ENTRY_OPS: tuple[type[IRDLOperation], ...] = (GradOp, VjpOp, JvpOp)
