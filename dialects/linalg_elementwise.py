"""MLIR 22's `linalg.elementwise` and `linalg.softmax`, which xDSL 0.74 does not know.

`linalg.elementwise kind=#linalg.elementwise_kind<exp> [indexing_maps = [...]]
{attrs} ins(...) outs(...) -> T` applies one scalar function (`kind`) to its
inputs element by element; its maps (identities by default, printed only when
not) may broadcast or transpose an input. The body is hidden and built from
the kind, as MLIR builds it (`square` is `mulf(x, x)`, `reciprocal` is
`divf(1, x)`, ...).

`linalg.softmax dimension(d) ins(%x : T) outs(%init : T) -> T` is an
aggregate op without a body; MLIR decomposes it into generics.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    ShapedType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from gradir.dialects.linalg_structured import NamedStructuredOp, element_type, iterator_types


class ElementwiseKind(StrEnum):
    """The scalar functions of `linalg.elementwise` (MLIR 22's `ElementwiseKind`)."""

    EXP = "exp"
    LOG = "log"
    ABS = "abs"
    CEIL = "ceil"
    FLOOR = "floor"
    NEGF = "negf"
    RECIPROCAL = "reciprocal"
    ROUND = "round"
    SQRT = "sqrt"
    RSQRT = "rsqrt"
    SQUARE = "square"
    TANH = "tanh"
    ERF = "erf"
    ADD = "add"
    SUB = "sub"
    MUL = "mul"
    DIV = "div"
    DIV_UNSIGNED = "div_unsigned"
    MAX_SIGNED = "max_signed"
    MIN_SIGNED = "min_signed"
    MAX_UNSIGNED = "max_unsigned"
    MIN_UNSIGNED = "min_unsigned"
    POWF = "powf"
    SELECT = "select"


@irdl_attr_definition
class ElementwiseKindAttr(EnumAttribute[ElementwiseKind]):
    """`#linalg.elementwise_kind<exp>`."""

    name = "linalg.elementwise_kind"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> ElementwiseKind:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


_Emit = Callable[[Builder, list[SSAValue]], SSAValue]


def _one(op: type) -> _Emit:
    return lambda at, args: at.insert(op(*args)).results[0]


def _reciprocal(at: Builder, args: list[SSAValue]) -> SSAValue:
    (x,) = args
    one = at.insert(arith.ConstantOp(FloatAttr(1.0, x.type))).result  # type: ignore[arg-type]
    return at.insert(arith.DivfOp(one, x)).result


FLOAT_KINDS: dict[ElementwiseKind, tuple[int, _Emit]] = {
    ElementwiseKind.EXP: (1, _one(math.ExpOp)),
    ElementwiseKind.LOG: (1, _one(math.LogOp)),
    ElementwiseKind.ABS: (1, _one(math.AbsFOp)),
    ElementwiseKind.CEIL: (1, _one(math.CeilOp)),
    ElementwiseKind.FLOOR: (1, _one(math.FloorOp)),
    ElementwiseKind.NEGF: (1, _one(arith.NegfOp)),
    ElementwiseKind.RECIPROCAL: (1, _reciprocal),
    ElementwiseKind.ROUND: (1, _one(math.RoundOp)),
    ElementwiseKind.SQRT: (1, _one(math.SqrtOp)),
    ElementwiseKind.RSQRT: (1, _one(math.RsqrtOp)),
    ElementwiseKind.SQUARE: (1, lambda at, args: at.insert(arith.MulfOp(args[0], args[0])).result),
    ElementwiseKind.TANH: (1, _one(math.TanhOp)),
    ElementwiseKind.ERF: (1, _one(math.ErfOp)),
    ElementwiseKind.ADD: (2, _one(arith.AddfOp)),
    ElementwiseKind.SUB: (2, _one(arith.SubfOp)),
    ElementwiseKind.MUL: (2, _one(arith.MulfOp)),
    ElementwiseKind.DIV: (2, _one(arith.DivfOp)),
    ElementwiseKind.MAX_SIGNED: (2, _one(arith.MaximumfOp)),
    ElementwiseKind.MIN_SIGNED: (2, _one(arith.MinimumfOp)),
    ElementwiseKind.POWF: (2, _one(math.PowFOp)),
    ElementwiseKind.SELECT: (3, _one(arith.SelectOp)),
}
"""Kind -> (number of inputs, the body's scalar op) on floats, as MLIR builds it."""

INTEGER_KINDS: dict[ElementwiseKind, tuple[int, _Emit]] = {
    ElementwiseKind.ADD: (2, _one(arith.AddiOp)),
    ElementwiseKind.SUB: (2, _one(arith.SubiOp)),
    ElementwiseKind.MUL: (2, _one(arith.MuliOp)),
    ElementwiseKind.DIV: (2, _one(arith.DivSIOp)),
    ElementwiseKind.DIV_UNSIGNED: (2, _one(arith.DivUIOp)),
    ElementwiseKind.MAX_SIGNED: (2, _one(arith.MaxSIOp)),
    ElementwiseKind.MIN_SIGNED: (2, _one(arith.MinSIOp)),
    ElementwiseKind.MAX_UNSIGNED: (2, _one(arith.MaxUIOp)),
    ElementwiseKind.MIN_UNSIGNED: (2, _one(arith.MinUIOp)),
    ElementwiseKind.ABS: (1, _one(math.AbsIOp)),
    ElementwiseKind.SELECT: (3, _one(arith.SelectOp)),
}
"""The kinds that apply to integers."""

ARITY = {kind: arity for kind, (arity, _) in {**INTEGER_KINDS, **FLOAT_KINDS}.items()}


def _identity_maps(outputs: Sequence[SSAValue], count: int) -> ArrayAttr[AffineMapAttr]:
    """Identity maps over the init's dimensions: `linalg.elementwise`'s default."""
    rank = len(outputs[0].type.get_shape()) if outputs and isinstance(outputs[0].type, ShapedType) else 0
    return ArrayAttr([AffineMapAttr(AffineMap.identity(rank))] * count)


def _kind_table(output_element: Attribute) -> dict[ElementwiseKind, tuple[int, _Emit]]:
    return FLOAT_KINDS if isinstance(output_element, AnyFloat) else INTEGER_KINDS


@irdl_op_definition
class ElementwiseOp(NamedStructuredOp):
    """`out = kind(ins...)` element by element, each operand read through its
    indexing map (identities by default). MLIR 22's `linalg.elementwise`."""

    name = "linalg.elementwise"

    kind = prop_def(ElementwiseKindAttr)
    """The scalar function applied."""
    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    """Loops -> the element of each operand; identities when absent."""

    def __init__(
        self,
        kind: ElementwiseKind,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        indexing_maps: ArrayAttr[AffineMapAttr] | None = None,
        result_types: Sequence[Attribute] | None = None,
    ):
        if result_types is None:
            result_types = [v.type for v in outputs if isinstance(v.type, TensorType)]
        properties: dict[str, Attribute] = {"kind": ElementwiseKindAttr(kind)}
        if indexing_maps is None:
            indexing_maps = _identity_maps(outputs, len(inputs) + len(outputs))
        properties["indexing_maps"] = indexing_maps
        # Not NamedStructuredOp's constructor: this body depends on the `kind` property,
        # which `get_hidden_region` does not see.
        NamedOperation.__init__(
            self,
            ins=inputs,
            outs=outputs,
            result_types=[list(result_types)],
            properties=properties,
            hidden_region=self.body_region([v.type for v in inputs], [v.type for v in outputs], properties),
        )

    @classmethod
    def body_region(
        cls, input_types: Sequence[Attribute], output_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> Region:
        kind = properties["kind"]
        assert isinstance(kind, ElementwiseKindAttr)
        block = Block(arg_types=[element_type(t) for t in (*input_types, *output_types)])
        at = Builder(InsertPoint.at_end(block))
        arity, emit = _kind_table(block.args[-1].type).get(kind.data, (None, None))
        if emit is not None and arity == len(input_types):
            at.insert(YieldOp(emit(at, list(block.args[: len(input_types)]))))
        else:
            # Left for the verifier to name (a kind that does not take these inputs).
            at.insert(YieldOp(block.args[-1]))
        return Region(block)

    def _default_maps(self) -> ArrayAttr[AffineMapAttr]:
        return _identity_maps(self.outputs, len(self.operands))

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseOp:
        op = super().parse(parser)
        if op.indexing_maps is None:  # MLIR always holds them (its generic form needs them)
            op.properties["indexing_maps"] = op._default_maps()
        return op

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.get_indexing_maps().data)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return self.indexing_maps if self.indexing_maps is not None else self._default_maps()

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        loops = self.get_indexing_maps().data[0].data.num_dims if self.operands else 0
        return iterator_types("p" * loops)

    def _print_prefix(self, printer: Printer) -> None:
        printer.print_string(" kind=")
        printer.print_attribute(self.kind)
        if self.indexing_maps is not None and self.indexing_maps != self._default_maps():
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(self.indexing_maps)

    ELIDED: ClassVar[frozenset[str]] = NamedStructuredOp.ELIDED | {"kind"}

    @classmethod
    def _parse_prefix(cls, parser: Parser) -> dict[str, Attribute]:
        parser.parse_characters("kind")
        parser.parse_punctuation("=")
        properties = {"kind": parser.parse_attribute()}
        if parser.parse_optional_characters("indexing_maps") is not None:
            parser.parse_punctuation("=")
            properties["indexing_maps"] = parser.parse_attribute()
        return properties

    def verify_(self) -> None:
        if len(self.outputs) != 1:
            raise VerifyException(f"expects one init, got {len(self.outputs)}")
        output = element_type(self.outputs[0].type)
        arity, _ = _kind_table(output).get(self.kind.data, (None, None))
        if arity is None:
            raise VerifyException(f"kind '{self.kind.data}' does not apply to {output}")
        if arity != len(self.inputs):
            raise VerifyException(f"kind '{self.kind.data}' takes {arity} inputs, got {len(self.inputs)}")
        for index, value in enumerate(self.inputs):
            expected = output if not (self.kind.data is ElementwiseKind.SELECT and index == 0) else None
            if expected is not None and element_type(value.type) != expected:
                raise VerifyException(
                    f"input #{index} has element type {element_type(value.type)}, expected the init's {output}"
                )
        super().verify_()


@irdl_op_definition
class SoftmaxOp(IRDLOperation):
    """`exp(x - max) / sum(exp(x - max))` along `dimension`; MLIR's `linalg.softmax`."""

    name = "linalg.softmax"

    input = operand_def(TensorType)
    """The logits."""
    output = operand_def(TensorType)
    """The destination (only its shape matters on tensors)."""
    result = var_result_def(TensorType)
    """The probabilities (none on buffers)."""
    dimension = prop_def(IntegerAttr[i64])
    """The dimension normalised."""

    traits = traits_def(Pure())

    def __init__(self, input: SSAValue, output: SSAValue, dimension: int):
        super().__init__(
            operands=[input, output],
            result_types=[[output.type]],
            properties={"dimension": IntegerAttr(dimension, i64)},
        )

    def verify_(self) -> None:
        input_type, output_type = self.input.type, self.output.type
        assert isinstance(input_type, TensorType) and isinstance(output_type, TensorType)
        if input_type.get_element_type() != output_type.get_element_type():
            raise VerifyException("failed to verify that input and output have same element type")
        if input_type.get_shape() != output_type.get_shape():
            raise VerifyException("incompatible output shape")
        if not 0 <= self.dimension.value.data < len(input_type.get_shape()):
            raise VerifyException("incorrect dimension specified")
        if len(self.result) != 1 or self.result[0].type != output_type:
            raise VerifyException("expects one result of the output's type")

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" dimension({self.dimension.value.data})")
        printer.print_string(" ins(")
        printer.print_ssa_value(self.input)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(") outs(")
        printer.print_ssa_value(self.output)
        printer.print_string(" : ")
        printer.print_attribute(self.output.type)
        printer.print_string(")")
        if self.result:
            printer.print_string(" -> ")
            printer.print_attribute(self.result[0].type)

    @classmethod
    def parse(cls, parser: Parser) -> SoftmaxOp:
        attributes = parser.parse_optional_attr_dict()
        parser.parse_characters("dimension")
        parser.parse_punctuation("(")
        dimension = parser.parse_integer()
        parser.parse_punctuation(")")
        operands = []
        for keyword in ("ins", "outs"):
            parser.parse_characters(keyword)
            parser.parse_punctuation("(")
            unresolved = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            operands.append(parser.resolve_operand(unresolved, parser.parse_type()))
            parser.parse_punctuation(")")
        result_types = []
        if parser.parse_optional_punctuation("->") is not None:
            result_types = [parser.parse_type()]
        op = cls.build(
            operands=operands,
            result_types=[result_types],
            properties={"dimension": IntegerAttr(dimension, i64)},
            attributes=attributes,
        )
        return op


ELEMENTWISE_OPS = (ElementwiseOp, SoftmaxOp)
"""MLIR 22's elementwise-like linalg ops gradir defines."""
