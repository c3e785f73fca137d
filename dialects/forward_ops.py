"""The autodiff dialect's forward ops: pure tensor ops with derivative rules.

Every op is statically shaped over f16/bf16/f32/f64 tensors and verifies its
result type from its operands (NumPy broadcasting, reductions, matmul, ...).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.shape_rules import (
    broadcast_shapes,
    broadcasts_to,
    element_count,
    format_shape,
    matmul_shape,
    reduced_shape,
)
from gradir.dialects.type_checks import (
    tensor_type,
    expect_bool_tensor,
    expect_float_tensor,
    expect_same_element_type,
    shape_of,
)


def _expect_result_shape(expected: Sequence[int], result: TensorType, why: str) -> None:
    actual = shape_of(result)
    if tuple(actual) != tuple(expected):
        raise VerifyException(
            f"result shape {format_shape(actual)} does not match {why} "
            f"{format_shape(expected)}"
        )


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


# ----------------------------------------------------------------------------
# Unary elementwise ops
# ----------------------------------------------------------------------------


class UnaryElementwiseOp(IRDLOperation):
    """Base of the unary elementwise ops: `%y = autodiff.exp %x : tensor<4xf32>`."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    x = operand_def(T)
    """The input tensor."""
    result = result_def(T)
    """Same type as `x`."""

    traits = traits_def(Pure())
    assembly_format = "$x attr-dict `:` type($x)"

    def __init__(self, x: SSAValue):
        super().__init__(operands=[x], result_types=[x.type])

    def verify_(self) -> None:
        """`x` is a statically shaped tensor of f16, bf16, f32 or f64; the result
        has its type (`T`)."""
        expect_float_tensor(self.x.type, "operand")


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    """`-x`."""

    name = "autodiff.neg"


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    """`e^x`."""

    name = "autodiff.exp"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    """Natural logarithm."""

    name = "autodiff.log"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    """Square root."""

    name = "autodiff.sqrt"


@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    """`1 / sqrt(x)`."""

    name = "autodiff.rsqrt"


@irdl_op_definition
class SinOp(UnaryElementwiseOp):
    """Sine."""

    name = "autodiff.sin"


@irdl_op_definition
class CosOp(UnaryElementwiseOp):
    """Cosine."""

    name = "autodiff.cos"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    """Hyperbolic tangent."""

    name = "autodiff.tanh"


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    """`1 / (1 + e^-x)`."""

    name = "autodiff.sigmoid"


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    """`max(x, 0)`; its derivative at 0 is 0 (PyTorch's convention)."""

    name = "autodiff.relu"


@irdl_op_definition
class AbsOp(UnaryElementwiseOp):
    """`|x|`; its derivative at 0 is 0."""

    name = "autodiff.abs"


@irdl_op_definition
class StopGradientOp(UnaryElementwiseOp):
    """`x` itself, through which no derivative flows (JAX's `stop_gradient`, PyTorch's
    `detach`): its gradient and its tangent are zero. For terms a loss should see as
    constants (a target computed from the parameters, a baseline)."""

    name = "autodiff.stop_gradient"


# ----------------------------------------------------------------------------
# Binary elementwise ops (NumPy broadcasting)
# ----------------------------------------------------------------------------


class BinaryElementwiseOp(IRDLOperation):
    """Base of the broadcasting binary ops:
    `%z = autodiff.mul %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>`."""

    x = operand_def(TensorType)
    """Left operand."""
    y = operand_def(TensorType)
    """Right operand."""
    result = result_def(TensorType)
    """The NumPy broadcast of the two operand shapes."""

    traits = traits_def(Pure())
    assembly_format = (
        "$x `,` $y attr-dict `:` `(` type($x) `,` type($y) `)` `->` type($result)"
    )

    def __init__(self, x: SSAValue, y: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            assert isinstance(x.type, TensorType) and isinstance(y.type, TensorType)
            shape = broadcast_shapes(x.type.get_shape(), y.type.get_shape())
            assert shape is not None, "operands do not broadcast"
            result_type = tensor_type(x.type.element_type, shape)
        super().__init__(operands=[x, y], result_types=[result_type])

    def verify_(self) -> None:
        """`x`, `y` and the result are statically shaped float tensors of one
        element type; the shapes of `x` and `y` broadcast (NumPy rules) and the
        result has their broadcast shape."""
        types = {
            "lhs": expect_float_tensor(self.x.type, "lhs"),
            "rhs": expect_float_tensor(self.y.type, "rhs"),
            "result": expect_float_tensor(self.result.type, "result"),
        }
        expect_same_element_type(types)
        lhs, rhs = shape_of(types["lhs"]), shape_of(types["rhs"])
        shape = broadcast_shapes(lhs, rhs)
        if shape is None:
            raise VerifyException(
                f"operand shapes {format_shape(lhs)} and {format_shape(rhs)} "
                "are not broadcast-compatible"
            )
        _expect_result_shape(shape, types["result"], "the broadcast shape")


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """`x + y`."""

    name = "autodiff.add"


@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    """`x - y`."""

    name = "autodiff.sub"


@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    """`x * y`."""

    name = "autodiff.mul"


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    """`x / y`."""

    name = "autodiff.div"


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    """`x ** y`."""

    name = "autodiff.pow"


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """Elementwise maximum; at a tie each side gets half the gradient."""

    name = "autodiff.maximum"


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """Elementwise minimum; at a tie each side gets half the gradient."""

    name = "autodiff.minimum"


# ----------------------------------------------------------------------------
# Linear algebra and shape ops
# ----------------------------------------------------------------------------


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """Matrix product `[M,K]x[K,N] -> [M,N]`, or batched `[B,M,K]x[B,K,N] -> [B,M,N]`."""

    name = "autodiff.matmul"

    a = operand_def(TensorType)
    """Left matrix (or batch of matrices)."""
    b = operand_def(TensorType)
    """Right matrix (or batch of matrices)."""
    result = result_def(TensorType)
    """The product."""

    traits = traits_def(Pure())
    assembly_format = (
        "$a `,` $b attr-dict `:` `(` type($a) `,` type($b) `)` `->` type($result)"
    )

    def __init__(self, a: SSAValue, b: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            assert isinstance(a.type, TensorType) and isinstance(b.type, TensorType)
            shape = matmul_shape(a.type.get_shape(), b.type.get_shape())
            assert shape is not None, "operands do not multiply"
            result_type = tensor_type(a.type.element_type, shape)
        super().__init__(operands=[a, b], result_types=[result_type])

    def verify_(self) -> None:
        """`a`, `b` and the result are statically shaped float tensors of one
        element type; `a` and `b` are both rank 2 (`[M,K]x[K,N]`) or both rank 3
        with one batch size (`[B,M,K]x[B,K,N]`), with equal K; the result shape
        is `[M,N]` (`[B,M,N]`)."""
        types = {
            "lhs": expect_float_tensor(self.a.type, "lhs"),
            "rhs": expect_float_tensor(self.b.type, "rhs"),
            "result": expect_float_tensor(self.result.type, "result"),
        }
        expect_same_element_type(types)
        lhs, rhs = shape_of(types["lhs"]), shape_of(types["rhs"])
        if len(lhs) not in (2, 3) or len(lhs) != len(rhs):
            raise VerifyException(
                "operands must both be rank 2 ([M,K]x[K,N]) or both rank 3 "
                f"([B,M,K]x[B,K,N]), got ranks {len(lhs)} and {len(rhs)}"
            )
        if lhs[-1] != rhs[-2]:
            raise VerifyException(
                f"contraction dimensions do not match: lhs {format_shape(lhs)} "
                f"has K={lhs[-1]}, rhs {format_shape(rhs)} has K={rhs[-2]}"
            )
        if lhs[:-2] != rhs[:-2]:
            raise VerifyException(
                f"batch dimensions do not match: {lhs[0]} and {rhs[0]}"
            )
        shape = matmul_shape(lhs, rhs)
        assert shape is not None
        _expect_result_shape(shape, types["result"], "the product shape")


class ShapeOp(IRDLOperation):
    """Base of ops with one tensor operand and an explicitly typed result."""

    x = operand_def(TensorType)
    """The input tensor."""
    result = result_def(TensorType)
    """The explicitly typed result."""

    traits = traits_def(Pure())
    assembly_format = "$x attr-dict `:` type($x) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)

    def _checked_types(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Check that `x` and the result are statically shaped float tensors of
        one element type; return their shapes."""
        operand = expect_float_tensor(self.x.type, "operand")
        result = expect_float_tensor(self.result.type, "result")
        expect_same_element_type({"operand": operand, "result": result})
        return shape_of(operand), shape_of(result)


@irdl_op_definition
class TransposeOp(ShapeOp):
    """Permutes dimensions: result dim `i` is operand dim `permutation[i]`."""

    name = "autodiff.transpose"

    permutation = prop_def(DenseArrayBase.constr(i64))
    """A permutation of `0..rank-1`."""

    def __init__(self, x: SSAValue, permutation: Sequence[int]):
        assert isinstance(x.type, TensorType)
        shape = x.type.get_shape()
        result_type = tensor_type(x.type.element_type, [shape[p] for p in permutation])
        super().__init__(
            operands=[x],
            result_types=[result_type],
            properties={"permutation": _i64_array(permutation)},
        )

    def verify_(self) -> None:
        """`x` and the result are statically shaped float tensors of one element
        type; `permutation` is a permutation of `0..rank-1` and result dimension
        `i` has the size of `x`'s dimension `permutation[i]`."""
        operand, result = self._checked_types()
        permutation = tuple(self.permutation.get_values())
        if sorted(permutation) != list(range(len(operand))):
            raise VerifyException(
                f"permutation {list(permutation)} is not a permutation of "
                f"0..{len(operand) - 1} for a rank-{len(operand)} operand"
            )
        _expect_result_shape(
            [operand[p] for p in permutation], self.result.type, "the permuted shape"
        )


@irdl_op_definition
class ReshapeOp(ShapeOp):
    """Reinterprets the elements (row-major) with the result type's shape."""

    name = "autodiff.reshape"

    def __init__(self, x: SSAValue, result_type: Attribute):
        super().__init__(operands=[x], result_types=[result_type])

    def verify_(self) -> None:
        """`x` and the result are statically shaped float tensors of one element
        type, with the same number of elements."""
        operand, result = self._checked_types()
        if element_count(operand) != element_count(result):
            raise VerifyException(
                f"cannot reshape {format_shape(operand)} ({element_count(operand)} "
                f"elements) to {format_shape(result)} ({element_count(result)} elements)"
            )


@irdl_op_definition
class BroadcastToOp(ShapeOp):
    """Broadcasts the operand to the result type's shape (NumPy rules)."""

    name = "autodiff.broadcast_to"

    def __init__(self, x: SSAValue, result_type: Attribute):
        super().__init__(operands=[x], result_types=[result_type])

    def verify_(self) -> None:
        """`x` and the result are statically shaped float tensors of one element
        type; `x`'s shape broadcasts to the result's (NumPy rules: no higher
        rank, each trailing dimension 1 or equal)."""
        operand, result = self._checked_types()
        if not broadcasts_to(operand, result):
            raise VerifyException(
                f"operand shape {format_shape(operand)} does not broadcast to "
                f"result shape {format_shape(result)}"
            )


@irdl_op_definition
class SumToSizeOp(ShapeOp):
    """Sums the operand down to the result shape, which must broadcast to the
    operand's: the gradient of `broadcast_to`."""

    name = "autodiff.sum_to_size"

    def __init__(self, x: SSAValue, result_type: Attribute):
        super().__init__(operands=[x], result_types=[result_type])

    def verify_(self) -> None:
        """`x` and the result are statically shaped float tensors of one element
        type; the result's shape broadcasts to `x`'s (NumPy rules)."""
        operand, result = self._checked_types()
        if not broadcasts_to(result, operand):
            raise VerifyException(
                f"result shape {format_shape(result)} does not broadcast to "
                f"operand shape {format_shape(operand)}"
            )


# ----------------------------------------------------------------------------
# Reductions and softmax
# ----------------------------------------------------------------------------


def _check_dims(dims: Sequence[int], rank: int, what: str = "dim") -> None:
    for dim in dims:
        if not 0 <= dim < rank:
            raise VerifyException(
                f"{what} {dim} is out of range for a rank-{rank} operand "
                f"(expected 0 <= {what} < {rank})"
            )
    if len(set(dims)) != len(dims):
        raise VerifyException(f"dims {list(dims)} contain duplicates")


class ReductionOp(ShapeOp):
    """Base of `sum`, `mean`, `max`: reduce over `dims` (all dims when absent;
    none when empty), keeping them as size 1 when `keepdim`."""

    dims = opt_prop_def(DenseArrayBase.constr(i64))
    """The reduced dimensions; absent means every dimension."""
    keepdim = prop_def(BoolAttr, default_value=BoolAttr.from_bool(False))
    """Keep reduced dimensions as size 1."""

    def __init__(
        self,
        x: SSAValue,
        dims: Sequence[int] | None = None,
        keepdim: bool = False,
        result_type: Attribute | None = None,
    ):
        assert isinstance(x.type, TensorType)
        shape = x.type.get_shape()
        reduce_dims = tuple(range(len(shape))) if dims is None else tuple(dims)
        if result_type is None:
            result_type = tensor_type(x.type.element_type, reduced_shape(shape, reduce_dims, keepdim))
        properties: dict[str, Attribute] = {"keepdim": BoolAttr.from_bool(keepdim)}
        if dims is not None:
            properties["dims"] = _i64_array(dims)
        super().__init__(operands=[x], result_types=[result_type], properties=properties)

    @property
    def keeps_dims(self) -> bool:
        return bool(self.keepdim.value.data)

    def reduced_dims(self) -> tuple[int, ...]:
        """The reduced dimensions, sorted; every dimension when `dims` is absent."""
        if self.dims is None:
            assert isinstance(self.x.type, TensorType)
            return tuple(range(self.x.type.get_num_dims()))
        return tuple(sorted(self.dims.get_values()))

    def verify_(self) -> None:
        """`x` and the result are statically shaped float tensors of one element
        type; each of `dims` is in `0..rank-1`, none twice; the result has the
        reduced shape: the reduced dimensions (every one when `dims` is absent)
        dropped, or kept as size 1 when `keepdim`."""
        operand, _ = self._checked_types()
        if self.dims is not None:
            _check_dims(tuple(self.dims.get_values()), len(operand))
        expected = reduced_shape(operand, self.reduced_dims(), self.keeps_dims)
        _expect_result_shape(
            expected,
            self.result.type,
            f"the reduced shape (keepdim = {'true' if self.keeps_dims else 'false'})",
        )


@irdl_op_definition
class SumOp(ReductionOp):
    """Sum over `dims`."""

    name = "autodiff.sum"


@irdl_op_definition
class MeanOp(ReductionOp):
    """Mean over `dims`."""

    name = "autodiff.mean"


@irdl_op_definition
class MaxOp(ReductionOp):
    """Maximum over `dims` (like `amax`); tied maxima share the gradient evenly."""

    name = "autodiff.max"


class SoftmaxFamilyOp(IRDLOperation):
    """Base of `softmax` and `log_softmax` along one dimension."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    x = operand_def(T)
    """The logits."""
    result = result_def(T)
    """Same type as `x`."""
    dim = prop_def(IntegerAttr.constr(type=IntegerType(64)))
    """The normalised dimension."""

    traits = traits_def(Pure())
    assembly_format = "$x attr-dict `:` type($x)"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, x: SSAValue, dim: int):
        super().__init__(
            operands=[x],
            result_types=[x.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    @property
    def axis(self) -> int:
        return self.dim.value.data

    def verify_(self) -> None:
        """`x` is a statically shaped tensor of f16, bf16, f32 or f64 (the result
        has its type, `T`) and `dim` is in `0..rank-1`."""
        operand = expect_float_tensor(self.x.type, "operand")
        _check_dims([self.axis], operand.get_num_dims())


@irdl_op_definition
class SoftmaxOp(SoftmaxFamilyOp):
    """`exp(x) / sum(exp(x), dim)`, computed stably."""

    name = "autodiff.softmax"


@irdl_op_definition
class LogSoftmaxOp(SoftmaxFamilyOp):
    """`x - log(sum(exp(x), dim))`, computed stably."""

    name = "autodiff.log_softmax"


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`cond ? a : b` elementwise, broadcasting all three operands."""

    name = "autodiff.select"

    cond = operand_def(TensorType)
    """An i1 tensor."""
    a = operand_def(TensorType)
    """Taken where `cond` is true."""
    b = operand_def(TensorType)
    """Taken where `cond` is false."""
    result = result_def(TensorType)
    """The broadcast of the three shapes."""

    traits = traits_def(Pure())
    assembly_format = (
        "$cond `,` $a `,` $b attr-dict `:` "
        "`(` type($cond) `,` type($a) `,` type($b) `)` `->` type($result)"
    )

    def __init__(
        self, cond: SSAValue, a: SSAValue, b: SSAValue, result_type: Attribute | None = None
    ):
        if result_type is None:
            shapes = [v.type.get_shape() for v in (cond, a, b)]  # type: ignore[union-attr]
            shape = broadcast_shapes(*shapes)
            assert shape is not None and isinstance(a.type, TensorType)
            result_type = tensor_type(a.type.element_type, shape)
        super().__init__(operands=[cond, a, b], result_types=[result_type])

    def verify_(self) -> None:
        """`cond` is a statically shaped i1 tensor; `a`, `b` and the result are
        statically shaped float tensors of one element type; the three operand
        shapes broadcast together (NumPy rules) and the result has their
        broadcast shape."""
        cond = expect_bool_tensor(self.cond.type, "condition")
        types = {
            "true value": expect_float_tensor(self.a.type, "true value"),
            "false value": expect_float_tensor(self.b.type, "false value"),
            "result": expect_float_tensor(self.result.type, "result"),
        }
        expect_same_element_type(types)
        shapes = [shape_of(cond), shape_of(types["true value"]), shape_of(types["false value"])]
        shape = broadcast_shapes(*shapes)
        if shape is None:
            raise VerifyException(
                "operand shapes "
                + ", ".join(format_shape(s) for s in shapes)
                + " are not broadcast-compatible"
            )
        _expect_result_shape(shape, types["result"], "the broadcast shape")


FORWARD_OPS: tuple[type[IRDLOperation], ...] = (
    NegOp, ExpOp, LogOp, SqrtOp, RsqrtOp, SinOp, CosOp, TanhOp, SigmoidOp, ReluOp, AbsOp, StopGradientOp,
    AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp,
    MatmulOp, TransposeOp, ReshapeOp, BroadcastToOp, SumToSizeOp,
    SumOp, MeanOp, MaxOp, SoftmaxOp, LogSoftmaxOp, SelectOp,
)  # fmt: skip
