"""gradir's versions of upstream ops, replacing xDSL 0.74's in gradir's contexts.

Programs written for MLIR (and printed by it) use spellings xDSL 0.74 does not
accept. Where only an op's custom form differs, gradir subclasses the op,
changes its parsing or printing, and registers the subclass under the same
name (`use_gradir_ops`), so everything else (verification, isinstance checks,
passes) stays xDSL's:

- `arith.cmpf "olt", ...` / `arith.cmpi "slt", ...`: MLIR accepts the predicate
  as a keyword or a string; xDSL only as a keyword. MLIR compares tensors element by
  element into a tensor of `i1`; xDSL's result is always an `i1`.
- `linalg.matmul indexing_maps = [...]` (`linalg_matmul.MatmulOp`); MLIR's
  spellings of `linalg.transpose`, `broadcast` and `reduce` (`linalg_dst_style`).
- `linalg.generic #trait ins(...)`: the attribute dictionary given by an alias;
  `linalg.generic {...} {attr = ...} ins(...)`: an attribute dictionary after it.
- `linalg.index` inside a named op's body (`linalg.fill_rng_2d`), not only a generic.
- `tensor.pad` by amounts given as values, with a static result type (`PadOp`).
- `tensor.reshape` between shapes with dynamic sizes whose static sizes differ (`ReshapeOp`);
  `tensor.expand_shape`/`collapse_shape` between a 0-d tensor and one of sizes 1, with no groups.
- `memref.cast`'s custom form (`MemrefCastOp`): xDSL 0.74 has only the generic one.
- `arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>`, an elementwise select on a
  tensor of conditions (`SelectOp`): xDSL 0.74 takes only an `i1`.
- the convolution and pooling ops (`linalg_conv.WINDOW_OPS`): xDSL lacks most
  of them, and those it has differ from MLIR (required strides, a wrong max
  pooling body); `linalg.quantized_matmul` (`linalg_quantized`), whose body
  xDSL fixes to i8 inputs.

Ops (and attributes) of MLIR 22 that xDSL 0.74 lacks altogether are added to
their dialects the same way: the named linalg ops that front ends emit
(`linalg_structured`, `linalg_matmul`, `linalg_elementwise`,
`linalg_named_elementwise`, `linalg_dst_style`, `linalg_pack`, `linalg_quantized`)
and `math.erfc`, `arith.remf`, `tensor.gather`, ... (`mlir22_ops`).

The other spelling difference, a single unparenthesised result type after `->`
(`scf.for ... -> f64`, `scf.if %c -> tensor<4xf32>`), is a rule of MLIR's
grammar for every op, so the parser handles it (`gradir.source.LocatingParser`).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.context import Context
from typing import ClassVar, cast

from xdsl.dialects import affine, arith, memref, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, IntegerType, TensorType, i1
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import AffineMapAttr, DictionaryAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, Pure
from xdsl.utils.lexer import Span, Token
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from gradir.dialects.linalg_conv import WINDOW_OPS
from gradir.dialects.linalg_dst_style import DST_STYLE_OPS
from gradir.dialects.linalg_elementwise import ELEMENTWISE_OPS, ElementwiseKindAttr
from gradir.dialects.linalg_matmul import MAPS_CONTRACTIONS
from gradir.dialects.linalg_named_elementwise import NAMED_ELEMENTWISE_OPS
from gradir.dialects.linalg_pack import PACKING_OPS
from gradir.dialects.linalg_quantized import QUANTIZED_OPS
from gradir.dialects.linalg_structured import FIXED_MAPS_CONTRACTIONS, FillRng2DOp, IndexOp, TypeFnAttr
from gradir.dialects.mlir22_ops import ARITH_OPS, MATH_OPS, TENSOR_OPS
from gradir.dialects.scf_forall import GPU_ATTRIBUTES, SCF_OPS as FORALL_SCF_OPS, TENSOR_OPS as FORALL_TENSOR_OPS


def accept_quoted_keyword(parser: Parser) -> None:
    """If the next token is a string holding a bare identifier (`"olt"`), let
    the parser see the identifier (`olt`): its span is the string's inside."""
    token = parser._parser_state.current_token  # noqa: SLF001 (no public way to re-tokenise)
    if token.kind != MLIRTokenKind.STRING_LIT:
        return
    inside = Span(token.span.start + 1, token.span.end - 1, token.span.input)
    if inside.text.isidentifier():
        parser._parser_state.current_token = Token(MLIRTokenKind.BARE_IDENT, inside)  # noqa: SLF001


class _OnScalarConditions(RewritePattern):
    """One of xDSL's canonicalizations of `arith.cmpi`/`select`, applied only where the
    compared values or the condition are scalars: its folds build `i1` constants
    (`cmpi slt, %t, %t` became `false` for a tensor of conditions)."""

    def __init__(self, pattern: RewritePattern, scalar: Callable[[Operation], SSAValue]):
        self.pattern, self.scalar = pattern, scalar

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, (arith.CmpiOp, arith.SelectOp)) and not isinstance(self.scalar(op).type, TensorType):
            self.pattern.match_and_rewrite(op, rewriter)


class _CmpiCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        patterns = arith.CmpiHasCanonicalizationPatterns.get_canonicalization_patterns()
        return tuple(_OnScalarConditions(p, lambda op: op.lhs) for p in patterns)


class _SelectCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        patterns = arith.SelectHasCanonicalizationPatterns.get_canonicalization_patterns()
        return tuple(_OnScalarConditions(p, lambda op: op.cond) for p in patterns)


def comparison_type(operand: Attribute) -> Attribute:
    """What comparing two values of type `operand` gives: an `i1`, or a tensor of them of
    the operands' shape (MLIR compares tensors element by element)."""
    if isinstance(operand, TensorType):
        return TensorType(i1, operand.get_shape())
    return i1


class _TensorComparison:
    """`arith.cmpf`/`cmpi` whose predicate may also be written as a string (`"olt"`) and
    whose operands may be tensors, compared element by element into a tensor of `i1`
    (`arith.cmpf ogt, %a, %b : tensor<5xf64>`), as in MLIR. xDSL 0.74's result is
    always an `i1`, so such a comparison could not be used."""

    @classmethod
    def parse(cls, parser: Parser):
        accept_quoted_keyword(parser)
        return super().parse(parser)  # type: ignore[misc]

    def _build(self, operand1, operand2, arg: int | str, predicates: dict[str, int], **properties) -> None:
        """xDSL's constructor, with the result typed by `comparison_type`."""
        operand1, operand2 = SSAValue.get(operand1), SSAValue.get(operand2)
        self._validate_operand_types(operand1, operand2)  # type: ignore[attr-defined]
        if isinstance(arg, str):
            arg = self._get_comparison_predicate(arg, predicates)  # type: ignore[attr-defined]
        IRDLOperation.__init__(
            self,  # type: ignore[arg-type]
            operands=[operand1, operand2],
            result_types=[comparison_type(operand1.type)],
            properties={"predicate": IntegerAttr(arg, 64), **properties},
        )

    def verify_(self) -> None:
        wanted = comparison_type(self.lhs.type)  # type: ignore[attr-defined]
        if self.result.type != wanted:  # type: ignore[attr-defined]
            raise VerifyException(
                f"comparing {self.lhs.type} gives {wanted}, not {self.result.type}"  # type: ignore[attr-defined]
            )


@irdl_op_definition
class CmpfOp(_TensorComparison, arith.CmpfOp):
    name = "arith.cmpf"

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(arith.floatingPointLike)
    rhs = operand_def(arith.floatingPointLike)
    fastmath = prop_def(arith.FastMathFlagsAttr, default_value=arith.FastMathFlagsAttr("none"))
    result = result_def(base(IntegerType) | base(TensorType))
    traits = traits_def(Pure())
    assembly_format = None

    def __init__(self, operand1, operand2, arg: int | str, fastmath=arith.FastMathFlagsAttr("none")):
        self._build(operand1, operand2, arg, _PREDICATES_F, fastmath=fastmath)


@irdl_op_definition
class CmpiOp(_TensorComparison, arith.CmpiOp):
    name = "arith.cmpi"

    predicate = prop_def(IntegerAttr)
    lhs = operand_def(arith.signlessIntegerLike)
    rhs = operand_def(arith.signlessIntegerLike)
    result = result_def(base(IntegerType) | base(TensorType))
    traits = traits_def(_CmpiCanonicalization(), Pure())
    assembly_format = None

    def __init__(self, operand1, operand2, arg: int | str):
        self._build(operand1, operand2, arg, _PREDICATES_I)


def _replace_traits(op_class: type[IRDLOperation], *traits) -> None:
    """Give `op_class` exactly `traits`: xDSL adds a definition's parents' traits to its
    own, and the parent's canonicalizations are the ones being replaced."""
    replaced = traits_def(*traits)
    op_class.get_irdl_definition().traits = replaced
    op_class.traits = replaced  # type: ignore[misc]


_PREDICATES_F = {name: value for value, name in enumerate(arith.CMPF_COMPARISON_OPERATIONS)}
_PREDICATES_I = {name: value for value, name in enumerate(arith.CMPI_COMPARISON_OPERATIONS)}


@irdl_op_definition
class SelectOp(arith.SelectOp):
    """`arith.select` whose condition may also be a tensor of `i1` of the result's shape,
    choosing element by element, as MLIR allows (`arith.select %c, %a, %b : tensor<i1>,
    tensor<f32>`: the condition's type first). xDSL 0.74 took only an `i1`, so such
    programs (MLIR's own `convert-elementwise-to-linalg` test) could not be read. The
    fields are xDSL's, redeclared because a definition's fields cannot be inherited."""

    name = "arith.select"

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(base(IntegerType) | base(TensorType))
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)
    traits = traits_def(Pure(), _SelectCanonicalization())
    assembly_format = None

    def verify_(self) -> None:
        condition, result = self.cond.type, self.result.type
        if condition == i1:
            return
        if (
            isinstance(condition, TensorType)
            and condition.element_type == i1
            and isinstance(result, TensorType)
            and condition.get_shape() == result.get_shape()
        ):
            return
        raise VerifyException(
            f"the condition must be an i1, or a tensor of i1 of the result's shape ({result}); got {condition}"
        )

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        operands = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        position = parser.pos
        first = parser.parse_type()
        condition, value = (first, parser.parse_type()) if parser.parse_optional_punctuation(",") else (i1, first)
        op = cls(*parser.resolve_operands(operands, [condition, value, value], position))
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.cond.type != i1:
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)


_replace_traits(CmpiOp, _CmpiCanonicalization(), Pure())
_replace_traits(SelectOp, Pure(), _SelectCanonicalization())


class GenericOp(linalg.GenericOp):
    """`linalg.generic` whose attribute dictionary may be an alias (`#trait`), and
    may be followed by a dictionary of other attributes.

    MLIR parses the dictionary as any attribute, so a program may define
    `#trait = {indexing_maps = [...], iterator_types = [...]}` once and write
    `linalg.generic #trait ins(...)` (LAGrad's tests do); xDSL 0.74 wants the
    braces. MLIR also reads an optional attribute dictionary right after it
    (`{...} {__internal_linalg_transform__ = "x"} ins(...)`, IREE's tests), and
    keeps the trait's own other keys: both become discardable attributes, printed
    back as `attrs = {...}` (xDSL 0.74 refuses the first and drops the second).
    (Its other difference, `} -> (tensor<...>, tensor<...>)` with parentheses,
    is MLIR's result-type grammar: `gradir.source.LocatingParser`.)
    """

    name = "linalg.generic"

    TRAIT_KEYS: ClassVar[frozenset[str]] = frozenset({"indexing_maps", "iterator_types", "doc", "library_call"})
    """The trait's keys that xDSL's op makes properties of."""

    @classmethod
    def parse(cls, parser: Parser):
        start = parser.pos
        if parser._parser_state.current_token.kind is MLIRTokenKind.HASH_IDENT:  # noqa: SLF001
            trait = parser.parse_attribute()
            if not isinstance(trait, DictionaryAttr):
                parser.raise_error(
                    f"expected the attribute dictionary of linalg.generic, got {trait}", start, parser.pos
                )
            traits = dict(trait.data)
        else:
            # Not `parser.parse_optional_attr_dict`: an enclosing generic may have replaced it.
            traits = Parser.parse_optional_attr_dict(parser)
        extra = Parser.parse_optional_attr_dict(parser) if _attr_dict_follows(parser) else {}
        read_once = [dict(traits)]

        def parse_optional_attr_dict() -> dict[str, Attribute]:
            return read_once.pop() if read_once else Parser.parse_optional_attr_dict(parser)

        # A generic nested in this one's body (written with its own #trait) sets and removes
        # its own override: keep the outer one's for after it (the fuzzer found the inner
        # `del` left nothing for the outer, an AttributeError).
        outer = parser.__dict__.get("parse_optional_attr_dict")
        parser.parse_optional_attr_dict = parse_optional_attr_dict  # type: ignore[method-assign]
        try:
            op = super().parse(parser)
            kept = {k: v for k, v in traits.items() if k not in cls.TRAIT_KEYS}
            op.attributes = kept | extra | op.attributes
            return op
        finally:
            if outer is None:
                parser.__dict__.pop("parse_optional_attr_dict", None)
            else:
                parser.parse_optional_attr_dict = outer  # type: ignore[method-assign]

    def verify_(self) -> None:
        """xDSL's checks, and that every output's indexing map uses each "parallel" loop:
        otherwise several iterations write each element of that output, an accumulation
        (or a last write) that MLIR's verifier lets through but leaves undefined, since
        parallel iterations may run in any order. Differentiated as written (elementwise)
        its gradient was silently wrong, and the CPU backend crashed on it."""
        super().verify_()
        iterators = [iterator.data for iterator in self.iterator_types]
        maps = [attribute.data for attribute in self.indexing_maps]
        for number, output_map in enumerate(maps[len(maps) - len(self.outputs) :]):
            used = output_map.used_dims()
            for loop, iterator in enumerate(iterators):
                if iterator == linalg.IteratorType.PARALLEL and loop not in used:
                    raise VerifyException(
                        f'loop {loop} is "parallel" but the indexing map of output {number}, affine_map<{output_map}>, '
                        "does not use it: several of its iterations write each element of that output, "
                        'which MLIR leaves undefined; mark the loop "reduction" if the body accumulates'
                    )


def _ssa_ids_as_dims(op: Operation) -> Operation:
    """`op` (an `affine.load`/`store` xDSL 0.74 parsed) with its map's symbols made dims.

    MLIR reads `%m[%i + 1]` with each SSA id a dimension (`(d0) -> (d0 + 1)`; a symbol only
    when written `symbol(%n)`, which xDSL does not parse); xDSL makes each a symbol
    (`()[s0] -> (s0 + 1)`), and MLIR 22 then refuses the loop's induction variable in it:
    "'affine.load' op operand cannot be used as a symbol", for the most common affine
    access, `%m[%i]` in an `affine.for`. Every valid symbol is a valid dimension, so dims
    accept all that symbols did."""
    access = op.properties["map"].data  # type: ignore[union-attr]
    if access.num_symbols:
        count = access.num_dims + access.num_symbols
        dims = [AffineExpr.dimension(d) for d in range(access.num_dims)]
        symbols = [AffineExpr.dimension(access.num_dims + s) for s in range(access.num_symbols)]
        op.properties["map"] = AffineMapAttr(access.replace_dims_and_symbols(dims, symbols, count, 0))
    return op


class AffineLoadOp(affine.LoadOp):
    """`affine.load` whose indices are dimensions, as MLIR reads them (`_ssa_ids_as_dims`)."""

    @classmethod
    def parse(cls, parser: Parser):
        return _ssa_ids_as_dims(super().parse(parser))


class AffineStoreOp(affine.StoreOp):
    """`affine.store` whose indices are dimensions, as MLIR reads them (`_ssa_ids_as_dims`)."""

    @classmethod
    def parse(cls, parser: Parser):
        return _ssa_ids_as_dims(super().parse(parser))


def _attr_dict_follows(parser: Parser) -> bool:
    """Whether an attribute dictionary comes next, not a region: `{` then `}`, or a
    name followed by `=`, `,` or `}` (a region's `{` is followed by a block label,
    a result, or an op and its operands). The parser is left where it was."""
    if parser._parser_state.current_token.kind is not MLIRTokenKind.L_BRACE:  # noqa: SLF001
        return False
    start = parser.pos
    parser._consume_token()  # noqa: SLF001
    token = parser._consume_token().kind  # noqa: SLF001
    follows = token is MLIRTokenKind.R_BRACE
    if token in (MLIRTokenKind.BARE_IDENT, MLIRTokenKind.STRING_LIT):
        after = parser._parser_state.current_token.kind  # noqa: SLF001
        follows = after in (MLIRTokenKind.EQUAL, MLIRTokenKind.COMMA, MLIRTokenKind.R_BRACE)
    parser._resume_from(start)  # noqa: SLF001
    return follows


class MemrefCastOp(memref.CastOp):
    """`memref.cast %m : memref<4xf32> to memref<?xf32>`: MLIR's custom form, which xDSL
    0.74's op has none of (LAGrad's tests cast their buffers so)."""

    name = "memref.cast"

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        op = cls.build(operands=[parser.resolve_operand(source, source_type)], result_types=[result_type])
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.dest.type)


class PadOp(tensor.PadOp):
    """`tensor.pad` verified as MLIR verifies it: the result type need only be compatible
    with the one inferred. A pad by amounts given as SSA values (`low[%c0, %c2]`) may
    have a static result type; xDSL 0.74 asked for a dynamic size wherever an amount is
    a value (MLIR's Linalg integration test `test-padtensor` writes it so)."""

    name = "tensor.pad"

    def verify_(self):
        source_shape = cast(TensorType, self.source.type).get_shape()
        lows, highs = self.static_low.get_values(), self.static_high.get_values()
        if not len(lows) == len(highs) == len(source_shape) == len(self.region.block.args):
            raise VerifyException(
                f"a pad needs one low amount, one high amount and one region argument per dimension of its "
                f"source ({len(source_shape)}); got {len(lows)}, {len(highs)} and {len(self.region.block.args)}"
            )
        result_shape = cast(TensorType, self.result.type).get_shape()
        for dim, (size, low, high, result) in enumerate(zip(source_shape, lows, highs, result_shape, strict=True)):
            if DYNAMIC_INDEX in (size, low, high):
                continue  # known only at run time: any result size is compatible
            if result not in (DYNAMIC_INDEX, size + low + high):
                raise VerifyException(
                    f"result dimension {dim} is {result}, but the padded size is {size} + {low} + {high}"
                )


class ReshapeOp(tensor.ReshapeOp):
    """`tensor.reshape` verified as MLIR verifies it: the element counts must agree only
    where both shapes are static. xDSL 0.74 multiplied the sizes with the dynamic marker
    (-1) in them, so `tensor<?x6xf32>` to `tensor<?x3xf32>` (torch-mlir's `view` of a
    tensor of dynamic batch) was refused as -6 elements against -3."""

    name = "tensor.reshape"

    def verify_(self):
        source, shape, result = (cast(TensorType, v.type) for v in (self.source, self.shape, self.result))
        if source.element_type != result.element_type:
            raise VerifyException("element types of source and result tensor types should be the same")
        if shape.get_num_dims() != 1:
            raise VerifyException("shape tensor must have a rank one")
        static = [s for s in (*source.get_shape(), *result.get_shape()) if s == DYNAMIC_INDEX] == []
        if static and math.prod(source.get_shape()) != math.prod(result.get_shape()):
            raise VerifyException("source and result tensor should have the same number of elements")
        if shape.get_shape()[0] not in (DYNAMIC_INDEX, result.get_num_dims()):
            raise VerifyException("length of shape operand differs from the result's tensor rank")


def _is_unit_expansion_of_a_scalar(collapsed: TensorType, expanded: TensorType, reassociation) -> bool:
    """MLIR's one exception to the reassociation covering every expanded dimension: a
    rank-0 tensor reshaped to (or from) one whose every size is 1, with no groups."""
    return not collapsed.get_shape() and not reassociation.data and all(s == 1 for s in expanded.get_shape())


class ExpandShapeOp(tensor.ExpandShapeOp):
    """`tensor.expand_shape %x [] output_shape [1] : tensor<f32> into tensor<1xf32>` (torch-mlir
    writes it for a 0-d max expanded back, `log_softmax` along dim 0 of a vector), which MLIR
    verifies and xDSL 0.74 refused: its check wants the groups to cover every expanded dim."""

    name = "tensor.expand_shape"

    def verify_(self):
        if _is_unit_expansion_of_a_scalar(self.src.type, self.result.type, self.reassociation):
            return
        super().verify_()


class CollapseShapeOp(tensor.CollapseShapeOp):
    """The inverse of `ExpandShapeOp`'s exception: `tensor<1xf32>` collapsed to `tensor<f32>`
    with no groups (reverse mode writes it for the gradient of that expansion)."""

    name = "tensor.collapse_shape"

    def verify_(self):
        if _is_unit_expansion_of_a_scalar(self.result.type, self.src.type, self.reassociation):
            return
        super().verify_()


GRADIR_OPS: dict[str, tuple[type[Operation] | type[Attribute], ...]] = {
    "affine": (AffineLoadOp, AffineStoreOp),
    "arith": (CmpfOp, CmpiOp, SelectOp, *ARITH_OPS),
    "linalg": (
        GenericOp, IndexOp, *MAPS_CONTRACTIONS, *FIXED_MAPS_CONTRACTIONS, *ELEMENTWISE_OPS, *NAMED_ELEMENTWISE_OPS, *DST_STYLE_OPS,
        *WINDOW_OPS, *PACKING_OPS, *QUANTIZED_OPS, FillRng2DOp, ElementwiseKindAttr, TypeFnAttr,
    ),
    "gpu": GPU_ATTRIBUTES,
    "math": MATH_OPS,
    "memref": (MemrefCastOp,),
    "scf": FORALL_SCF_OPS,
    "tensor": (PadOp, ReshapeOp, ExpandShapeOp, CollapseShapeOp, *TENSOR_OPS, *FORALL_TENSOR_OPS),
}
"""Dialect name -> gradir's versions of some of its ops (and attributes), and
ops (and attributes) it lacks."""


def _with_replacements(factory: Callable[[], Dialect], replacements: tuple[type[Operation] | type[Attribute], ...]):
    def load() -> Dialect:
        dialect = factory()
        ops = {d.name: d for d in replacements if issubclass(d, Operation)}
        attributes = {d.name: d for d in replacements if not issubclass(d, Operation)}
        operations = [ops.pop(op.name, op) for op in dialect.operations]
        kept = [attributes.pop(attr.name, attr) for attr in dialect.attributes]
        return Dialect(dialect.name, [*operations, *ops.values()], [*kept, *attributes.values()])

    return load


def use_gradir_ops(ctx: Context) -> None:
    """Make `ctx` build gradir's versions of the ops in `GRADIR_OPS` (a dialect
    already loaded keeps what it has)."""
    loaded = {dialect.name for dialect in ctx.loaded_dialects}
    registered = ctx._registered_dialects  # noqa: SLF001 (no public override)
    for name, replacements in GRADIR_OPS.items():
        if name in loaded or name not in registered:
            continue
        registered[name] = _with_replacements(registered[name], replacements)
