"""`linalg.map`, `linalg.reduce`, `linalg.transpose` and `linalg.broadcast` as MLIR 22
defines, prints and parses them.

xDSL 0.74 has no `linalg.map`, its `linalg.reduce` takes one input and one init
and neither parses nor prints the short form, and its transpose and broadcast
print `ins(%x:T)`. MLIR 22's spellings:

    %m = linalg.map { arith.mulf } ins(%a, %b : T, T) outs(%init : T)
    %m = linalg.map ins(%a : T) outs(%init : T)
      (%in: f32, %init: f32) {
        ...
        linalg.yield %v : f32
      }
    %r = linalg.reduce { arith.addf } ins(%x : T) outs(%init : U) dimensions = [1] 
    %t = linalg.transpose ins(%x : T) outs(%init : U) permutation = [1, 0] 

The short form `{ op }` is printed when the body is one op applied to the
block's arguments in order (for `map`: the inputs; for `reduce`: the init then
the input) whose results are yielded. Note the space MLIR prints after the
`dimensions`/`permutation` list. A map's body takes one argument per input and
one for the init (MLIR 22).
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyTensorType,
    ArrayAttr,
    DenseArrayBase,
    MemRefType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import BroadcastOp as XdslBroadcastOp
from xdsl.dialects.linalg.ops import TransposeOp as XdslTransposeOp
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.linalg_structured import element_type, iterator_types

_SHAPED = base(MemRefType) | base(AnyTensorType)

# ----------------------------------------------------------------------------
# Shared printing and parsing
# ----------------------------------------------------------------------------


def _print_operands(printer: Printer, keyword: str, values: Sequence[SSAValue]) -> None:
    if not values:
        return
    printer.print_string(f" {keyword}(")
    printer.print_list(values, printer.print_ssa_value)
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")


def _parse_operands(parser: Parser, keyword: str) -> list[SSAValue]:
    if parser.parse_optional_characters(keyword) is None:
        return []
    position = parser.pos
    parser.parse_punctuation("(")
    unresolved: list[UnresolvedOperand] = parser.parse_comma_separated_list(
        parser.Delimiter.NONE, parser.parse_unresolved_operand
    )
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return list(parser.resolve_operands(unresolved, types, position))


def _print_i64_list(printer: Printer, name: str, values: DenseArrayBase) -> None:
    # MLIR's printDenseI64ArrayAttr ends with a space.
    printer.print_string(f" {name} = [{', '.join(str(int(v)) for v in values.get_values())}] ")


def _parse_i64_list(parser: Parser, name: str) -> DenseArrayBase:
    parser.parse_characters(name)
    parser.parse_punctuation("=")
    values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
    return DenseArrayBase.from_list(i64, values)


def _tensor_results(values: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in values if isinstance(v.type, TensorType)]


def payload_op(block: Block, operands: Sequence[SSAValue]) -> Operation | None:
    """The body's only op when it is applied to exactly `operands` and its
    results are yielded: what MLIR prints as `{ op }`."""
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[1], YieldOp):
        return None
    payload = ops[0]
    if not payload.operands or list(payload.operands) != list(operands) or payload.regions:
        return None
    return payload if list(ops[1].operands) == list(payload.results) else None


def _print_short_form(printer: Printer, payload: Operation) -> None:
    printer.print_string(f" {{ {payload.name}")
    shown = {**payload.properties, **payload.attributes}
    for name, value in list(shown.items()):
        if isinstance(value, FastMathFlagsAttr) and not value.data:
            del shown[name]  # MLIR elides `fastmath = none`
            break
    printer.print_op_attributes(shown)
    printer.print_string(" }")


def _parse_short_form(parser: Parser) -> tuple[type[Operation], dict[str, Attribute]] | None:
    """`{ dialect.op {attrs} }`: the payload op's class and its attributes."""
    if parser.parse_optional_punctuation("{") is None:
        return None
    position = parser.pos
    name = parser.parse_identifier("payload operation name")
    op_type = parser.ctx.get_optional_op(name)
    if op_type is None:
        parser.raise_error(f"unknown payload operation {name}", position, parser.pos)
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation("}")
    return op_type, attributes


def _body_with_payload(
    op_type: type[Operation], attributes: dict[str, Attribute], arg_types: Sequence[Attribute], init_first: bool
) -> Region:
    """MLIR's `addBodyWithPayloadOp`: one op on the inputs (`init_first`: the
    init, then the inputs) yielding the init's element type."""
    block = Block(arg_types=arg_types)
    args = list(block.args)
    operands = [args[-1], *args[:-1]] if init_first else args[:-1]
    property_names = op_type.get_irdl_definition().properties if hasattr(op_type, "get_irdl_definition") else {}
    properties = {k: v for k, v in attributes.items() if k in property_names}
    others = {k: v for k, v in attributes.items() if k not in property_names}
    payload = op_type.create(operands=operands, result_types=[arg_types[-1]], properties=properties, attributes=others)
    block.add_op(payload)
    block.add_op(YieldOp(*payload.results))
    return Region(block)


def _print_body(printer: Printer, region: Region) -> None:
    """The region on a new, indented line, after its arguments (MLIR's long form)."""
    with printer.indented():
        printer.print_string("\n(")
        printer.print_list(region.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(region, print_entry_block_args=False)


def _parse_body(parser: Parser) -> Region:
    arguments = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)
    return parser.parse_region(arguments)


# ----------------------------------------------------------------------------
# map
# ----------------------------------------------------------------------------


@irdl_op_definition
class MapOp(IRDLOperation):
    """`init[i] = body(ins...[i], init[i])` for every index: the body is scalar
    code over one element of each input and of the init (MLIR 22's `linalg.map`)."""

    name = "linalg.map"

    inputs = var_operand_def(_SHAPED)
    """The tensors read, all of the init's shape."""
    init = operand_def(_SHAPED)
    """The destination (its elements are the body's last argument)."""
    result = var_result_def(AnyTensorType)
    """The mapped tensor (none on buffers)."""
    mapper = region_def("single_block")
    """Arguments: one element per input, then the init's; yields the new element."""

    def __init__(self, inputs: Sequence[SSAValue], init: SSAValue, mapper: Region):
        super().__init__(operands=[inputs, init], result_types=[_tensor_results([init])], regions=[mapper])

    @property
    def outputs(self) -> tuple[SSAValue, ...]:
        return (self.init,)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = len(self.init.type.get_shape())  # type: ignore[union-attr]
        return ArrayAttr([AffineMapAttr(AffineMap.identity(rank))] * len(self.operands))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("p" * len(self.init.type.get_shape()))  # type: ignore[union-attr]

    def verify_(self) -> None:
        block = self.mapper.block
        if len(self.operands) != len(block.args):
            raise VerifyException(
                "expects number of operands to match the arity of mapper, "
                f"but got: {len(self.operands)} and {len(block.args)}"
            )
        for value, argument in zip(self.operands, block.args):
            expected = element_type(value.type)
            if argument.type != expected:
                raise VerifyException(f"expected element type of input {expected} to match bbArg type {argument.type}")
        shape = self.init.type.get_shape()  # type: ignore[union-attr]
        for value in self.inputs:
            if value.type.get_shape() != shape:  # type: ignore[union-attr]
                raise VerifyException(
                    f"expected shape of input ({'x'.join(map(str, value.type.get_shape()))}) to match "  # type: ignore[union-attr]
                    f"shape of output ({'x'.join(map(str, shape))})"
                )
        if len(self.result) != (1 if isinstance(self.init.type, TensorType) else 0):
            raise VerifyException("expects one result on tensors and none on buffers")
        terminator = block.last_op
        if not isinstance(terminator, YieldOp) or len(terminator.operands) != 1:
            raise VerifyException("expects the body to end with one linalg.yield of one value")
        if terminator.operands[0].type != element_type(self.init.type):
            raise VerifyException(
                f"expects the body to yield the init's element type {element_type(self.init.type)}, "
                f"got {terminator.operands[0].type}"
            )

    def print(self, printer: Printer) -> None:
        block = self.mapper.block
        payload = payload_op(block, list(block.args)[: len(self.inputs)]) if self.inputs else None
        if payload is not None:
            _print_short_form(printer, payload)
        _print_operands(printer, "ins", self.inputs)
        _print_operands(printer, "outs", [self.init])
        printer.print_op_attributes(self.attributes)
        if payload is None:
            _print_body(printer, self.mapper)

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        short = _parse_short_form(parser)
        inputs = _parse_operands(parser, "ins")
        outputs = _parse_operands(parser, "outs")
        if len(outputs) != 1:
            parser.raise_error("linalg.map expects one init in outs(...)")
        attributes = parser.parse_optional_attr_dict()
        if short is not None:
            region = _body_with_payload(*short, [element_type(v.type) for v in (*inputs, *outputs)], init_first=False)
        else:
            region = _parse_body(parser)
        op = cls(inputs, outputs[0], region)
        op.attributes.update(attributes)
        return op


# ----------------------------------------------------------------------------
# reduce
# ----------------------------------------------------------------------------


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Each init combined with every element of the inputs along `dimensions`:
    the body takes one element per input, then the inits' accumulators, and
    yields the new accumulators (MLIR's `linalg.reduce`, any number of inputs)."""

    name = "linalg.reduce"

    inputs = var_operand_def(_SHAPED)
    """The tensors reduced, all of one shape."""
    inits = var_operand_def(_SHAPED)
    """The initial accumulators, of the inputs' shape without `dimensions`."""
    result = var_result_def(AnyTensorType)
    """The reduced tensors (none on buffers)."""
    combiner = region_def("single_block")
    """Arguments: one element per input, then one accumulator per init."""
    dimensions = prop_def(DenseArrayBase.constr(i64))
    """The input dimensions reduced."""

    irdl_options = (SameVariadicOperandSize(),)

    def __init__(
        self, inputs: Sequence[SSAValue], inits: Sequence[SSAValue], dimensions: Sequence[int], combiner: Region
    ):
        super().__init__(
            operands=[inputs, inits],
            result_types=[_tensor_results(inits)],
            regions=[combiner],
            properties={"dimensions": DenseArrayBase.from_list(i64, list(dimensions))},
        )

    @property
    def outputs(self) -> tuple[SSAValue, ...]:
        return tuple(self.inits)

    @property
    def input(self) -> SSAValue:
        """The first input (xDSL's single-input reduce had `input`)."""
        return self.inputs[0]

    @property
    def init(self) -> SSAValue:
        """The first init (xDSL's single-input reduce had `init`)."""
        return self.inits[0]

    @property
    def region(self) -> Region:
        return self.combiner

    def reduced_dimensions(self) -> list[int]:
        return [int(v) for v in self.dimensions.get_values()]

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = len(self.inputs[0].type.get_shape())  # type: ignore[union-attr]
        reduced = set(self.reduced_dimensions())
        kept = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d not in reduced))
        identity = AffineMapAttr(AffineMap.identity(rank))
        return ArrayAttr([identity] * len(self.inputs) + [AffineMapAttr(kept)] * len(self.inits))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        reduced = set(self.reduced_dimensions())
        rank = len(self.inputs[0].type.get_shape())  # type: ignore[union-attr]
        return iterator_types("".join("r" if d in reduced else "p" for d in range(rank)))

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("expects at least one input")
        first_input = self.inputs[0].type.get_shape()  # type: ignore[union-attr]
        for index, value in enumerate(self.inputs):
            if value.type.get_shape() != first_input:  # type: ignore[union-attr]
                raise VerifyException(
                    f"expects all inputs to have the same shapes. Shape at input-index {index} "
                    "is not equal to the shape at input-index 0."
                )
        first_init = self.inits[0].type.get_shape()  # type: ignore[union-attr]
        for index, value in enumerate(self.inits):
            if value.type.get_shape() != first_init:  # type: ignore[union-attr]
                raise VerifyException(
                    f"expects all outputs to have the same shapes. Shape at output-index {index} "
                    "is not equal to the shape at output-index 0."
                )
        rank = len(first_input)
        dimensions = self.reduced_dimensions()
        for dimension in dimensions:
            if not 0 <= dimension < rank:
                raise VerifyException(f"dimensions for reduction should be in the range [0, {rank - 1}].")
        kept = [size for d, size in enumerate(first_input) if d not in dimensions]
        if len(kept) != len(first_init):
            raise VerifyException(
                f"number of dimensions after reduction {len(kept)} doesn't match the init rank {len(first_init)}"
            )
        if list(kept) != list(first_init):
            raise VerifyException(
                f"init dimensions [{', '.join(map(str, first_init))}] doesn't match input dimensions after "
                f"reduction [{', '.join(map(str, kept))}]"
            )
        block = self.combiner.block
        if len(block.args) != len(self.operands):
            raise VerifyException("mismatching number of operands and block arguments")
        for value, argument in zip(self.inputs, block.args):
            if element_type(value.type) != argument.type:
                raise VerifyException(
                    f"input element type {element_type(value.type)} does not match corresponding block "
                    f"argument type {argument.type}"
                )
        for value, argument in zip(self.inits, block.args[len(self.inputs) :]):
            if element_type(value.type) != argument.type:
                raise VerifyException(
                    f"output element type {element_type(value.type)} does not match corresponding block "
                    f"argument type {argument.type}"
                )
        if len(self.result) != len(_tensor_results(self.inits)):
            raise VerifyException("expects one result per init on tensors")

    def print(self, printer: Printer) -> None:
        block = self.combiner.block
        args = list(block.args)
        payload = payload_op(block, [args[1], args[0]]) if len(args) == 2 else None
        if payload is not None:
            _print_short_form(printer, payload)
        _print_operands(printer, "ins", self.inputs)
        _print_operands(printer, "outs", self.inits)
        _print_i64_list(printer, "dimensions", self.dimensions)
        printer.print_op_attributes(self.attributes)
        if payload is None:
            _print_body(printer, self.combiner)

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        short = _parse_short_form(parser)
        inputs = _parse_operands(parser, "ins")
        inits = _parse_operands(parser, "outs")
        dimensions = _parse_i64_list(parser, "dimensions")
        attributes = parser.parse_optional_attr_dict()
        if short is not None:
            if len(inputs) != 1 or len(inits) != 1:
                parser.raise_error("the short form of linalg.reduce takes one input and one init")
            region = _body_with_payload(*short, [element_type(v.type) for v in (*inputs, *inits)], init_first=True)
        else:
            region = _parse_body(parser)
        op = cls(inputs, inits, [int(v) for v in dimensions.get_values()], region)
        op.attributes.update(attributes)
        return op


# ----------------------------------------------------------------------------
# transpose and broadcast: xDSL's ops, MLIR's spelling
# ----------------------------------------------------------------------------


class TransposeOp(XdslTransposeOp):
    """xDSL's `linalg.transpose`, printed as MLIR prints it; a permutation that
    is not one is a verifier error (xDSL's verifier indexes with it)."""

    name = "linalg.transpose"

    def verify_(self) -> None:
        permutation = [int(v) for v in self.permutation.get_values()]
        if sorted(permutation) != list(range(len(permutation))):
            raise VerifyException("permutation is not valid")
        super().verify_()

    def print(self, printer: Printer) -> None:
        _print_operands(printer, "ins", self.inputs)
        _print_operands(printer, "outs", self.outputs)
        _print_i64_list(printer, "permutation", self.permutation)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        inputs = _parse_operands(parser, "ins")
        outputs = _parse_operands(parser, "outs")
        permutation = _parse_i64_list(parser, "permutation")
        attributes = parser.parse_optional_attr_dict()
        if len(inputs) != 1 or len(outputs) != 1:
            parser.raise_error("linalg.transpose expects one input and one init")
        op = cls(inputs[0], outputs[0], permutation)
        op.attributes.update(attributes)
        return op


class BroadcastOp(XdslBroadcastOp):
    """xDSL's `linalg.broadcast`, printed as MLIR prints it."""

    name = "linalg.broadcast"

    @property
    def outputs(self) -> tuple[SSAValue, ...]:
        """The init, as other structured ops name it (the generic view reads it)."""
        return (self.init,)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = len(self.init.type.get_shape())  # type: ignore[union-attr]
        added = {int(v) for v in self.dimensions.get_values()}
        kept = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d not in added))
        return ArrayAttr([AffineMapAttr(kept), AffineMapAttr(AffineMap.identity(rank))])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("p" * len(self.init.type.get_shape()))  # type: ignore[union-attr]

    def print(self, printer: Printer) -> None:
        _print_operands(printer, "ins", [self.input])
        _print_operands(printer, "outs", [self.init])
        _print_i64_list(printer, "dimensions", self.dimensions)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> BroadcastOp:
        inputs = _parse_operands(parser, "ins")
        outputs = _parse_operands(parser, "outs")
        dimensions = _parse_i64_list(parser, "dimensions")
        attributes = parser.parse_optional_attr_dict()
        if len(inputs) != 1 or len(outputs) != 1:
            parser.raise_error("linalg.broadcast expects one input and one init")
        op = cls(inputs[0], outputs[0], dimensions)
        op.attributes.update(attributes)
        return op


DST_STYLE_OPS = (MapOp, ReduceOp, TransposeOp, BroadcastOp)
"""MLIR's destination-style linalg ops with a short or long body, as gradir defines them."""

