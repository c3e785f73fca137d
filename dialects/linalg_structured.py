"""Named linalg contractions xDSL 0.74 does not know, printed and parsed as MLIR 22 does.

MLIR's OpDSL ops `linalg.dot`, `linalg.matvec`, `linalg.vecmat`,
`linalg.batch_matvec`, `linalg.batch_vecmat`, `linalg.mmt4d` and
`linalg.batch_mmt4d` have fixed indexing maps and a hidden
body: each input cast to the output's element type, multiplied, and added to
the accumulator (`C += cast(A) * cast(B)`). Their custom form is
`linalg.dot {attrs} ins(%a, %b : T, T) outs(%c : T) -> T`; the generic form
carries the same body as a region (and MLIR adds its discardable
`linalg.memoized_indexing_maps`, accepted and never printed in custom form).

`NamedStructuredOp` is that printing and parsing, shared with gradir's
matmul family (`linalg_matmul`) and `linalg.elementwise`
(`linalg_elementwise`), which print a prefix (`indexing_maps = [...]`,
`kind=...`) before the attributes.
"""
from __future__ import annotations

from abc import ABC
from dataclasses import replace
from collections.abc import Mapping, Sequence
from enum import auto
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ShapedType,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import IndexOp as XdslIndexOp
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import OpDef, irdl_attr_definition, irdl_op_definition, traits_def
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class TypeFn(StrEnum):
    """How a contraction casts its inputs to the output's element type."""

    CAST_SIGNED = auto()
    CAST_UNSIGNED = auto()


@irdl_attr_definition
class TypeFnAttr(EnumAttribute[TypeFn]):
    """`#linalg.type_fn<cast_signed>`: the `cast` of matmul and contract."""

    name = "linalg.type_fn"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> TypeFn:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


# ----------------------------------------------------------------------------
# Bodies
# ----------------------------------------------------------------------------


def element_type(type_: Attribute) -> Attribute:
    """The element type of a shaped type, or the type itself (a scalar operand)."""
    return type_.get_element_type() if isinstance(type_, ShapedType) else type_


def cast_to(builder: Builder, value: SSAValue, target: Attribute, unsigned: bool = False) -> SSAValue:
    """`value` converted to `target` as MLIR's OpDSL `cast` does (a no-op when equal)."""
    source = value.type
    if source == target:
        return value
    if isinstance(source, AnyFloat) and isinstance(target, AnyFloat):
        wider = target.bitwidth > source.bitwidth
        return builder.insert(arith.ExtFOp(value, target) if wider else arith.TruncFOp(value, target)).result
    if isinstance(source, IntegerType) and isinstance(target, AnyFloat):
        op = arith.UIToFPOp if unsigned else arith.SIToFPOp
        return builder.insert(op(value, target)).result
    if isinstance(source, AnyFloat) and isinstance(target, IntegerType):
        op = arith.FPToUIOp if unsigned else arith.FPToSIOp
        return builder.insert(op(value, target)).result
    if isinstance(source, IntegerType) and isinstance(target, IntegerType):
        if target.bitwidth < source.bitwidth:
            return builder.insert(arith.TruncIOp(value, target)).result
        return builder.insert((arith.ExtUIOp if unsigned else arith.ExtSIOp)(value, target)).result
    raise ValueError(f"cannot cast {source} to {target}")


def contraction_body(input_types: Sequence[Attribute], output_type: Attribute, unsigned: bool = False) -> Region:
    """The body of a contraction, as MLIR builds it: `acc + cast(a) * cast(b)`
    in the output's element type."""
    block = Block(arg_types=[element_type(t) for t in (*input_types, output_type)])
    at = Builder(InsertPoint.at_end(block))
    a, b, accumulator = block.args
    result = accumulator.type
    a, b = (cast_to(at, value, result, unsigned) for value in (a, b))
    floating = isinstance(result, AnyFloat)
    product = at.insert(arith.MulfOp(a, b) if floating else arith.MuliOp(a, b)).result
    total = at.insert(arith.AddfOp(accumulator, product) if floating else arith.AddiOp(accumulator, product))
    at.insert(YieldOp(total.result))
    return Region(block)


def maps(*results_per_operand: Sequence[int], loops: int) -> tuple[AffineMap, ...]:
    """Projected-permutation maps over `loops` dimensions, one per operand."""
    return tuple(AffineMap(loops, 0, tuple(AffineDimExpr(d) for d in results)) for results in results_per_operand)


def iterator_types(kinds: str) -> ArrayAttr[IteratorTypeAttr]:
    """`"ppr"` -> [parallel, parallel, reduction]."""
    return ArrayAttr(IteratorTypeAttr.parallel() if kind == "p" else IteratorTypeAttr.reduction() for kind in kinds)


def iterators_from_output_map(indexing_maps: Sequence[AffineMap]) -> ArrayAttr[IteratorTypeAttr]:
    """A loop the output indexes is parallel, any other a reduction (linalg.contract's rule)."""
    output = {expr.position for expr in indexing_maps[-1].results if isinstance(expr, AffineDimExpr)}
    loops = indexing_maps[-1].num_dims
    return iterator_types("".join("p" if d in output else "r" for d in range(loops)))


# ----------------------------------------------------------------------------
# Printing and parsing as MLIR's named structured ops
# ----------------------------------------------------------------------------


class NamedStructuredOp(NamedOperation, ABC):
    """A named linalg op whose custom form is MLIR's `printNamedStructuredOp`:
    an optional prefix (`_print_prefix`), the attribute dictionary (properties
    not shown in the prefix included), `ins(...)`, `outs(...)`, `-> types`.
    The body is hidden and rebuilt from the types when parsing (`body_region`)."""

    ELIDED: ClassVar[frozenset[str]] = frozenset(
        {"operandSegmentSizes", "linalg.memoized_indexing_maps", "indexing_maps"}
    )
    """Never printed in the attribute dictionary."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        properties: Mapping[str, Attribute] | None = None,
    ):
        """Results: the tensor outputs' types unless given; body: `get_hidden_region`'s."""
        if result_types is None:
            result_types = [v.type for v in outputs if isinstance(v.type, TensorType)]
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=[list(result_types)],
            properties=properties,
            attributes=attributes,
            hidden_region=self.get_hidden_region(inputs, outputs),
        )

    @classmethod
    def body_region(
        cls, input_types: Sequence[Attribute], output_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> Region:
        """The hidden body, from the operand types and the properties."""
        unsigned = properties.get("cast") == TypeFnAttr(TypeFn.CAST_UNSIGNED)
        return contraction_body(input_types, output_types[0], unsigned)

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        return cls.body_region([v.type for v in inputs], [v.type for v in outputs], {})

    def _print_prefix(self, printer: Printer) -> None:
        """What MLIR prints before the attribute dictionary (nothing by default)."""

    @classmethod
    def _parse_prefix(cls, parser: Parser) -> dict[str, Attribute]:
        """Parse what `_print_prefix` prints; returns properties."""
        return {}

    def print(self, printer: Printer) -> None:
        self._print_prefix(printer)
        shown = {**self.properties, **self.attributes}
        printer.print_op_attributes(shown, reserved_attr_names=self.ELIDED)
        if self.inputs:
            printer.print_string(" ins(")
            printer.print_list(self.inputs, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(self.inputs.types, printer.print_attribute)
            printer.print_string(")")
        if self.outputs:
            printer.print_string(" outs(")
            printer.print_list(self.outputs, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(self.outputs.types, printer.print_attribute)
            printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            if len(self.res) == 1:
                printer.print_attribute(self.res[0].type)
            else:
                with printer.in_parens():
                    printer.print_list(self.res.types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser):
        properties = cls._parse_prefix(parser)
        attributes = dict(parser.parse_optional_attr_dict())
        inputs = cls._parse_operands(parser, "ins")
        outputs = cls._parse_operands(parser, "outs")
        attributes.update(parser.parse_optional_attr_dict())  # MLIR accepts them here too
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            parsed = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            result_types = list(parsed) if parsed is not None else [parser.parse_type()]
        names = cls.get_irdl_definition().properties
        for name in [name for name in attributes if name in names]:
            properties[name] = attributes.pop(name)
        region = cls.body_region([v.type for v in inputs], [v.type for v in outputs], properties)
        return cls.build(
            operands=(inputs, outputs),
            result_types=(result_types,),
            properties=properties,
            attributes=attributes,
            regions=(region,),
        )

    @staticmethod
    def _parse_operands(parser: Parser, keyword: str) -> list[SSAValue]:
        if parser.parse_optional_characters(keyword) is None:
            return []
        position = parser.pos
        parser.parse_punctuation("(")
        unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return list(parser.resolve_operands(unresolved, types, position))


class FixedMapsContractionOp(NamedStructuredOp, ABC):
    """An OpDSL contraction: fixed indexing maps and iterator types, `C += A * B`."""

    MAPS: ClassVar[tuple[AffineMap, ...]]
    ITERATORS: ClassVar[str]
    """One letter per loop: `p`arallel or `r`eduction."""

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return self.MAPS

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types(self.ITERATORS)


@irdl_op_definition
class DotOp(FixedMapsContractionOp):
    """`C() += A(k) * B(k)`: the inner product of two vectors into a 0-d tensor."""

    name = "linalg.dot"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0,), (0,), (), loops=1)
    ITERATORS: ClassVar[str] = "r"


@irdl_op_definition
class MatvecOp(FixedMapsContractionOp):
    """`y(i) += A(i, k) * x(k)`."""

    name = "linalg.matvec"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 1), (1,), (0,), loops=2)
    ITERATORS: ClassVar[str] = "pr"


@irdl_op_definition
class VecmatOp(FixedMapsContractionOp):
    """`y(j) += x(k) * A(k, j)`."""

    name = "linalg.vecmat"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((1,), (1, 0), (0,), loops=2)
    ITERATORS: ClassVar[str] = "pr"


@irdl_op_definition
class BatchMatvecOp(FixedMapsContractionOp):
    """`y(b, i) += A(b, i, k) * x(b, k)`."""

    name = "linalg.batch_matvec"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 1, 2), (0, 2), (0, 1), loops=3)
    ITERATORS: ClassVar[str] = "ppr"


@irdl_op_definition
class Mmt4dOp(FixedMapsContractionOp):
    """`C(m, n, m0, n0) += A(m, k, m0, k0) * B(n, k, n0, k0)`: a matmul of
    tiled (4-d) operands, B transposed (`linalg.mmt4d`)."""

    name = "linalg.mmt4d"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 2, 3, 5), (1, 2, 4, 5), (0, 1, 3, 4), loops=6)
    ITERATORS: ClassVar[str] = "pprppr"


@irdl_op_definition
class BatchVecmatOp(FixedMapsContractionOp):
    """`y(b, j) += x(b, k) * A(b, k, j)`."""

    name = "linalg.batch_vecmat"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 2), (0, 2, 1), (0, 1), loops=3)
    ITERATORS: ClassVar[str] = "ppr"


@irdl_op_definition
class BatchMmt4dOp(FixedMapsContractionOp):
    """`mmt4d` with a leading batch dimension on all three operands."""

    name = "linalg.batch_mmt4d"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 1, 3, 4, 6), (0, 2, 3, 5, 6), (0, 1, 2, 4, 5), loops=7)
    ITERATORS: ClassVar[str] = "ppprppr"


FIXED_MAPS_CONTRACTIONS = (DotOp, MatvecOp, VecmatOp, BatchMatvecOp, BatchVecmatOp, Mmt4dOp, BatchMmt4dOp)
"""The OpDSL contractions gradir defines (xDSL 0.74 knows none of them)."""


# ----------------------------------------------------------------------------
# fill_rng_2d
# ----------------------------------------------------------------------------


class InLinalgOp(OpTrait):
    """The op sits in the body of a linalg op (MLIR: a parent with the LinalgOp interface)."""

    def verify(self, op: Operation) -> None:
        parent = op.parent_op()
        if parent is None or not parent.name.startswith("linalg.") or not parent.regions:
            raise VerifyException("expected parent op with LinalgOp interface")


class IndexOp(XdslIndexOp):
    """`linalg.index` inside any linalg op with a body, as MLIR allows (xDSL 0.74's
    only inside `linalg.generic`): `linalg.fill_rng_2d`'s body reads its indices.
    A subclass, so that rules matching xDSL's `IndexOp` still see it."""

    name = "linalg.index"
    traits = traits_def(InLinalgOp())

    @classmethod
    def get_irdl_definition(cls) -> OpDef:
        return _INDEX_DEFINITION

    def verify_(self) -> None:
        _INDEX_DEFINITION.verify(self)  # xDSL's verify_ checks its own definition's traits


_INDEX_DEFINITION = replace(XdslIndexOp.get_irdl_definition(), traits=IndexOp.traits)


def _rng_body(output_type: Attribute) -> Region:
    """MLIR's body of `fill_rng_2d`, op for op: two steps of the LCG
    `x * 1103515245 + 12345` on the seed and the indices (i32), then
    `(x + 2147483647) * (max - min) * 2.3283064e-10 + min` in f64."""
    f64, i32, i64 = Float64Type(), IntegerType(32), IntegerType(64)
    block = Block(arg_types=[f64, f64, i32, element_type(output_type)])
    at = Builder(InsertPoint.at_end(block))
    low, high, seed, _ = block.args

    def integer(value: int) -> SSAValue:
        wide = at.insert(arith.ConstantOp(IntegerAttr(value, i64))).result
        return at.insert(arith.TruncIOp(wide, i32)).result

    offset = at.insert(arith.SIToFPOp(at.insert(arith.ConstantOp(IntegerAttr(2147483647, i64))).result, f64)).result
    column = at.insert(arith.IndexCastOp(at.insert(IndexOp(1)).result, i32)).result
    row = at.insert(arith.IndexCastOp(at.insert(IndexOp(0)).result, i32)).result
    state = at.insert(arith.AddiOp(row, seed)).result
    state = at.insert(arith.MuliOp(state, integer(1103515245))).result
    state = at.insert(arith.AddiOp(state, integer(12345))).result
    state = at.insert(arith.AddiOp(column, state)).result
    state = at.insert(arith.MuliOp(state, integer(1103515245))).result
    state = at.insert(arith.AddiOp(state, integer(12345))).result
    shifted = at.insert(arith.AddfOp(offset, at.insert(arith.SIToFPOp(state, f64)).result)).result
    scale = at.insert(arith.ConstantOp(FloatAttr(2.3283063999999999e-10, f64))).result
    span = at.insert(arith.MulfOp(at.insert(arith.SubfOp(high, low)).result, scale)).result
    value = at.insert(arith.AddfOp(at.insert(arith.MulfOp(shifted, span)).result, low)).result
    at.insert(YieldOp(cast_to(at, value, block.args[-1].type)))
    return Region(block)


_CONSTANTS = frozenset({"arith.constant", "arith.trunci"})
"""The ops of `fill_rng_2d`'s body that only make constants."""


@irdl_op_definition
class FillRng2DOp(NamedStructuredOp):
    """`out(i, j) = min + (max - min) * u(seed, i, j)`, `u` a linear congruential
    generator's value scaled to about [0, 1): pseudo-random numbers, linear in
    `min` and `max` (f64 scalars; the seed is an i32)."""

    name = "linalg.fill_rng_2d"

    @classmethod
    def body_region(
        cls, input_types: Sequence[Attribute], output_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> Region:
        if len(input_types) != 3 or len(output_types) != 1:  # left for the verifier to name
            return Region(Block(arg_types=[element_type(t) for t in (*input_types, *output_types)]))
        return _rng_body(output_types[0])

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return (*maps((), (), (), loops=2), AffineMap.identity(2))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("pp")

    def verify_(self) -> None:
        if len(self.inputs) != 3 or len(self.outputs) != 1:
            raise VerifyException(f"expects 3 inputs (min, max, seed) and 1 output, got {len(self.inputs)} and {len(self.outputs)}")
        expected = (Float64Type(), Float64Type(), IntegerType(32))
        if tuple(v.type for v in self.inputs) != expected:
            raise VerifyException(f"expects min, max and seed of types f64, f64, i32, got {', '.join(str(v.type) for v in self.inputs)}")
        # Constants aside: CSE merges the body's repeated ones.
        found = [op.name for op in self.body.block.ops if op.name not in _CONSTANTS]
        if found != [op.name for op in _rng_body(self.outputs[0].type).block.ops if op.name not in _CONSTANTS]:
            raise VerifyException(f"its body must compute what '{self.name}' denotes, got {', '.join(found)}")
        super().verify_()


def indexing_maps_of(op) -> list[AffineMapAttr]:
    """The indexing maps of any named structured op, as attributes."""
    return list(op.get_indexing_maps().data)
