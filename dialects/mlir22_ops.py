"""Ops of MLIR 22's `math`, `arith` and `tensor` dialects that xDSL 0.74 lacks.

Each is defined as MLIR 22 defines it (operand, result and property names, so
the generic form handed to MLIR is MLIR's own) with MLIR's custom form, and
added to its dialect in gradir's contexts by `upstream_ops.GRADIR_OPS`. Those
gradir differentiates have rules (`autodiff_pass/rules/`); the others parse so
that a program using them off the active path still compiles, and the op table
(`scripts/op_table.py`) says why they have no derivative.

Not defined: `arith.scaling_extf`/`scaling_truncf` (block-scaled fp8/fp4
conversions) and `tensor.parallel_insert_slice` (only inside `scf.forall`,
which xDSL 0.74 lacks).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.arith import FastMathFlagsAttr, FloatingPointLikeBinaryOperation
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerType,
    TensorType,
    UnitAttr,
    VectorType,
    container_of,
    i1,
    i64,
)
from xdsl.dialects.math import FloatingPointLikeUnaryMathOperation
from xdsl.dialects.tensor import YieldOp as TensorYieldOp
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SameOperandsAndResultType, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

_FLOAT_LIKE = container_of(AnyFloat)

# ----------------------------------------------------------------------------
# math
# ----------------------------------------------------------------------------


@irdl_op_definition
class ErfcOp(FloatingPointLikeUnaryMathOperation):
    """The complementary error function, `1 - erf(x)`, elementwise."""

    name = "math.erfc"

    traits = traits_def(Pure(), SameOperandsAndResultType())


@irdl_op_definition
class ClampFOp(IRDLOperation):
    """`math.clampf %value to [%min, %max]`: `maximumf(minimumf(value, max), min)`."""

    name = "math.clampf"

    T: ClassVar = VarConstraint("T", _FLOAT_LIKE)

    value = operand_def(T)
    """The value to clamp."""
    min = operand_def(T)
    """The lower bound."""
    max = operand_def(T)
    """The upper bound."""
    result = result_def(T)
    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))

    traits = traits_def(Pure(), SameOperandsAndResultType())
    assembly_format = (
        "$value `to` ` ` `[` $min `,` $max `]` (`fastmath` `` $fastmath^)? attr-dict `:` type($result)"
    )

    def __init__(self, value: SSAValue, min: SSAValue, max: SSAValue):
        super().__init__(operands=[value, min, max], result_types=[SSAValue.get(value).type])


@irdl_op_definition
class SincosOp(IRDLOperation):
    """`%s, %c = math.sincos %x`: the sine and the cosine of `x`, elementwise."""

    name = "math.sincos"

    T: ClassVar = VarConstraint("T", _FLOAT_LIKE)

    operand = operand_def(T)
    sin = result_def(T)
    """The sine."""
    cos = result_def(T)
    """The cosine."""
    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))

    traits = traits_def(Pure())
    assembly_format = "$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($operand)"

    def __init__(self, operand: SSAValue):
        type_ = SSAValue.get(operand).type
        super().__init__(operands=[operand], result_types=[type_, type_])


def _i1_like(type_: Attribute) -> Attribute:
    """i1 of the shape of a float, a tensor or a vector of floats."""
    if isinstance(type_, TensorType):
        return TensorType(i1, type_.get_shape())
    if isinstance(type_, VectorType):
        return VectorType(i1, type_.get_shape())
    return i1


class _FloatClassification(IRDLOperation):
    """A test of each element of a float (`math.isnan %x : f32`), giving i1s."""

    operand = operand_def(_FLOAT_LIKE)
    result = result_def(container_of(base(IntegerType)))
    fastmath = prop_def(FastMathFlagsAttr, default_value=FastMathFlagsAttr("none"))

    traits = traits_def(Pure())

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[_i1_like(SSAValue.get(operand).type)])

    def verify_(self) -> None:
        if self.result.type != _i1_like(self.operand.type):
            raise VerifyException(f"'{self.name}' must give i1 of the shape of its operand")

    @classmethod
    def parse(cls, parser: Parser):
        operand = parser.parse_unresolved_operand()
        fastmath = None
        if parser.parse_optional_keyword("fastmath") is not None:
            fastmath = FastMathFlagsAttr.parse_parameter(parser)  # `<none>`
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        op = cls(parser.resolve_operand(operand, type_))
        if fastmath is not None:
            op.properties["fastmath"] = FastMathFlagsAttr(fastmath)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        if self.fastmath != FastMathFlagsAttr("none"):
            printer.print_string(" fastmath")
            self.fastmath.print_parameter(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)


@irdl_op_definition
class IsNaNOp(_FloatClassification):
    """Whether each element is a NaN."""

    name = "math.isnan"


@irdl_op_definition
class IsInfOp(_FloatClassification):
    """Whether each element is an infinity."""

    name = "math.isinf"


@irdl_op_definition
class IsFiniteOp(_FloatClassification):
    """Whether each element is finite."""

    name = "math.isfinite"


@irdl_op_definition
class IsNormalOp(_FloatClassification):
    """Whether each element is a normal number."""

    name = "math.isnormal"


# ----------------------------------------------------------------------------
# arith
# ----------------------------------------------------------------------------


@irdl_op_definition
class RemFOp(FloatingPointLikeBinaryOperation):
    """The remainder of `lhs / rhs` rounded toward zero (C's `fmod`): the sign of `lhs`."""

    name = "arith.remf"

    traits = traits_def(Pure())


@irdl_op_definition
class IndexCastUIOp(IRDLOperation):
    """`arith.index_castui`: index <-> integer, the integer taken as unsigned."""

    name = "arith.index_castui"

    input = operand_def(container_of(base(IntegerType) | base(IndexType)))
    result = result_def(container_of(base(IntegerType) | base(IndexType)))

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"


# ----------------------------------------------------------------------------
# tensor
# ----------------------------------------------------------------------------


def _parse_dims(parser: Parser, keyword: str) -> DenseArrayBase:
    """`gather_dims([0, 2])` -> array<i64: 0, 2>."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("(")
    dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
    parser.parse_punctuation(")")
    return DenseArrayBase.from_list(i64, dims)


def _print_dims(printer: Printer, keyword: str, dims: DenseArrayBase) -> None:
    printer.print_string(f" {keyword}([{', '.join(str(d) for d in dims.get_values())}])")


def _verify_coordinate_dims(
    op: Operation, keyword: str, dims: DenseArrayBase, indexed: SSAValue
) -> None:
    """As MLIR 22 verifies `gather_dims`/`scatter_dims`: increasing dims of the indexed
    tensor, one per coordinate in the indices' last dim."""
    values = list(dims.get_values())
    rank = len(indexed.type.get_shape()) if isinstance(indexed.type, TensorType) else 0
    if any(d < 0 or d >= rank for d in values):
        raise VerifyException(
            f"'{op.name}' {keyword} {values} must be dims of a rank-{rank} tensor (0 to {rank - 1})"
        )
    if any(b <= a for a, b in zip(values, values[1:])):
        raise VerifyException(f"'{op.name}' {keyword} {values} must be strictly increasing")
    indices = op.operands[-1].type
    coordinates = indices.get_shape()[-1] if isinstance(indices, TensorType) and indices.get_shape() else -1
    if coordinates not in (-1, len(values)):
        raise VerifyException(
            f"'{op.name}' {keyword} has {len(values)} dims but the indices' last dim holds "
            f"{coordinates} coordinates"
        )


def _verify_slice_type(op: Operation, keyword: str, dims: DenseArrayBase, indexed: SSAValue, slices: Attribute, what: str) -> None:
    """As MLIR 22 infers it: the gathered (scattered) slices are the indices' leading dims,
    then the indexed tensor's shape with `dims` of size 1, kept or dropped (rank-reduced).
    Unchecked, a wrong result type passed parsing and broke the gradient's generics after
    `autodiff-reverse`, with no location (fuzz, seed 11251)."""
    indices = op.operands[-1].type
    if not all(isinstance(t, TensorType) for t in (indexed.type, indices, slices)):
        return
    leading = list(indices.get_shape())[:-1]
    source = list(indexed.type.get_shape())
    chosen = set(dims.get_values())
    kept = leading + [1 if d in chosen else size for d, size in enumerate(source)]
    reduced = leading + [size for d, size in enumerate(source) if d not in chosen]
    shape = list(slices.get_shape())

    def matches(expected: list[int]) -> bool:
        return len(expected) == len(shape) and all(a == b or -1 in (a, b) for a, b in zip(expected, shape))

    if not (matches(kept) or matches(reduced)):
        def spelled(dims_: list[int]) -> str:
            return "x".join("?" if d == -1 else str(d) for d in dims_)

        raise VerifyException(
            f"'{op.name}' {what} has shape {spelled(shape)}; its {keyword} make it "
            f"{spelled(kept)} (or {spelled(reduced)} rank-reduced)"
        )


def _print_functional_type(printer: Printer, op: Operation) -> None:
    printer.print_string(" : (")
    printer.print_list([operand.type for operand in op.operands], printer.print_attribute)
    printer.print_string(") -> ")
    printer.print_attribute(op.results[0].type)


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`tensor.gather %source[%indices] gather_dims([d...])`: for each position
    `b` of the indices' leading dims, the slice of `source` starting at
    `indices[b]` along `gather_dims` (size 1 there: kept as 1, or dropped in
    the rank-reduced form), whole along the other dims."""

    name = "tensor.gather"

    source = operand_def(TensorType)
    """The tensor gathered from."""
    indices = operand_def(TensorType)
    """Integer or index tensor; its last dim holds one coordinate per gathered dim."""
    result = result_def(TensorType)
    gather_dims = prop_def(DenseArrayBase.constr(i64))
    """The dims of `source` the coordinates index, increasing."""
    unique = opt_prop_def(UnitAttr)
    """The coordinates are known to be pairwise distinct."""

    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_coordinate_dims(self, "gather_dims", self.gather_dims, self.source)
        _verify_slice_type(self, "gather_dims", self.gather_dims, self.source, self.results[0].type, "result")

    def __init__(
        self,
        source: SSAValue,
        indices: SSAValue,
        gather_dims: Sequence[int],
        result_type: Attribute,
        unique: bool = False,
    ):
        super().__init__(
            operands=[source, indices],
            result_types=[result_type],
            properties={
                "gather_dims": DenseArrayBase.from_list(i64, gather_dims),
                "unique": UnitAttr() if unique else None,
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        dims = _parse_dims(parser, "gather_dims")
        unique = parser.parse_optional_keyword("unique") is not None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        function_type = parser.parse_function_type()
        source_value, indices_value = parser.resolve_operands(
            [source, indices], function_type.inputs.data, parser.pos
        )
        op = cls(source_value, indices_value, dims.get_values(), function_type.outputs.data[0], unique)
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string("[")
        printer.print_operand(self.indices)
        printer.print_string("]")
        _print_dims(printer, "gather_dims", self.gather_dims)
        if self.unique is not None:
            printer.print_string(" unique")
        printer.print_op_attributes(self.attributes)
        _print_functional_type(printer, self)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`tensor.scatter %source into %dest[%indices] scatter_dims([d...]) unique`:
    `dest` with the slice `source[b]` written at `indices[b]` along
    `scatter_dims`, for each position `b` of the indices' leading dims (the
    inverse of `tensor.gather`; MLIR requires `unique`)."""

    name = "tensor.scatter"

    source = operand_def(TensorType)
    """The slices written, shaped as `tensor.gather` would give them."""
    dest = operand_def(TensorType)
    """The tensor written into."""
    indices = operand_def(TensorType)
    """Integer or index tensor; its last dim holds one coordinate per scattered dim."""
    result = result_def(TensorType)
    scatter_dims = prop_def(DenseArrayBase.constr(i64))
    """The dims of `dest` the coordinates index, increasing."""
    unique = opt_prop_def(UnitAttr)
    """The coordinates are pairwise distinct (required)."""

    traits = traits_def(Pure())

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        indices: SSAValue,
        scatter_dims: Sequence[int],
        result_type: Attribute,
        unique: bool = True,
    ):
        super().__init__(
            operands=[source, dest, indices],
            result_types=[result_type],
            properties={
                "scatter_dims": DenseArrayBase.from_list(i64, scatter_dims),
                "unique": UnitAttr() if unique else None,
            },
        )

    def verify_(self) -> None:
        if self.unique is None:
            raise VerifyException("'tensor.scatter' needs the 'unique' attribute (as in MLIR 22)")
        _verify_coordinate_dims(self, "scatter_dims", self.scatter_dims, self.dest)
        _verify_slice_type(self, "scatter_dims", self.scatter_dims, self.dest, self.source.type, "source")

    @classmethod
    def parse(cls, parser: Parser) -> ScatterOp:
        source = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        dims = _parse_dims(parser, "scatter_dims")
        unique = parser.parse_optional_keyword("unique") is not None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        function_type = parser.parse_function_type()
        source_value, dest_value, indices_value = parser.resolve_operands(
            [source, dest, indices], function_type.inputs.data, parser.pos
        )
        op = cls(
            source_value, dest_value, indices_value, dims.get_values(),
            function_type.outputs.data[0], unique,
        )  # fmt: skip
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" into ")
        printer.print_operand(self.dest)
        printer.print_string("[")
        printer.print_operand(self.indices)
        printer.print_string("]")
        _print_dims(printer, "scatter_dims", self.scatter_dims)
        if self.unique is not None:
            printer.print_string(" unique")
        printer.print_op_attributes(self.attributes)
        _print_functional_type(printer, self)


@irdl_op_definition
class GenerateOp(IRDLOperation):
    """`tensor.generate %dynamic_extents { ^bb0(%i: index, ...): ... tensor.yield %e }`:
    a tensor whose element at each position is what the body yields for it."""

    name = "tensor.generate"

    dynamicExtents = var_operand_def(IndexType)
    """One size per dynamic dim of the result."""
    body = region_def("single_block")
    """One index argument per dim; yields the element."""
    result = result_def(TensorType)

    traits = traits_def(Pure(), SingleBlockImplicitTerminator(TensorYieldOp))
    assembly_format = "$dynamicExtents $body attr-dict `:` type($result)"

    def __init__(self, dynamic_extents: Sequence[SSAValue], body: Region, result_type: Attribute):
        super().__init__(operands=[dynamic_extents], regions=[body], result_types=[result_type])

    def verify_(self) -> None:
        assert isinstance(self.result.type, TensorType)
        rank = self.result.type.get_num_dims()
        block = self.body.block
        if len(block.args) != rank or not all(isinstance(a.type, IndexType) for a in block.args):
            raise VerifyException(f"'tensor.generate' body must take {rank} index arguments")
        terminator = block.last_op
        if not isinstance(terminator, TensorYieldOp) or len(terminator.operands) != 1:
            raise VerifyException("'tensor.generate' body must end with tensor.yield of one element")
        if terminator.operands[0].type != self.result.type.element_type:
            raise VerifyException("'tensor.generate' body must yield the result's element type")


@irdl_op_definition
class RankOp(IRDLOperation):
    """`tensor.rank %t : tensor<...>`: the rank, as an index."""

    name = "tensor.rank"

    tensor = operand_def(TensorType)
    rank = result_def(IndexType)

    traits = traits_def(Pure())
    assembly_format = "$tensor attr-dict `:` type($tensor)"


@irdl_op_definition
class BitcastOp(IRDLOperation):
    """`tensor.bitcast %t : tensor<4xf32> to tensor<4xi32>`: the same bits, another element type."""

    name = "tensor.bitcast"

    source = operand_def(TensorType)
    dest = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `to` type($dest)"


MATH_OPS = (ErfcOp, ClampFOp, SincosOp, IsNaNOp, IsInfOp, IsFiniteOp, IsNormalOp)
ARITH_OPS = (RemFOp, IndexCastUIOp)
TENSOR_OPS = (GatherOp, ScatterOp, GenerateOp, RankOp, BitcastOp)
