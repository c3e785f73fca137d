"""Parsing `.mlir` text into xDSL with a source location on every op.

xDSL only keeps locations written as `loc(...)`; gradir's diagnostics must name
`file:line:col` for any op, so the parser records where each op starts.
"""
from __future__ import annotations

import bisect
import math
import re

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    ShapedType,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import TypeAttribute
from xdsl.ir import Operation
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr
from xdsl.parser import Parser
from xdsl.parser.affine_parser import AffineParser
from xdsl.parser.core import UnresolvedOperand
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Input, Location, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from gradir.errors import SourceError


class LinearTimeLexer(MLIRLexer):
    """xDSL 0.74's lexer with a string-literal pattern that cannot backtrack.

    xDSL's pattern `"(?:[^"\\]+|\\...)*"` backtracks exponentially when a
    string is not closed on its line: `@f"%a, %b) : (tensor<4xf32>) -> ...`
    took minutes. Matching one character per repetition accepts the same
    strings in linear time."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )

    _common_token = re.compile(
        r"[ \t\n\r\f\v]*(?:([A-Za-z_][A-Za-z0-9_$.]*)|(%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))|([:,()<>=}\[\]]))"
    )
    """Whitespace, then the tokens most of a program is made of (bare and `%` identifiers,
    one-character punctuation), spelled as xDSL's lexer reads them."""

    _punctuation = {
        ":": MLIRTokenKind.COLON, ",": MLIRTokenKind.COMMA, "(": MLIRTokenKind.L_PAREN,
        ")": MLIRTokenKind.R_PAREN, "<": MLIRTokenKind.LESS, ">": MLIRTokenKind.GREATER,
        "=": MLIRTokenKind.EQUAL, "}": MLIRTokenKind.R_BRACE, "[": MLIRTokenKind.L_SQUARE,
        "]": MLIRTokenKind.R_SQUARE,
    }  # fmt: skip

    def lex(self):
        """The next token: the common ones with one regular expression match, the rest
        (comments, numbers, strings, `->`, ...) by xDSL's lexer. xDSL's reads every token
        through several method calls and regular expressions, a third of the time to
        parse a large program."""
        found = self._common_token.match(self.input.content, self.pos)
        if found is None:
            return super().lex()
        self.pos = end = found.end()
        if found.lastindex == 1:
            kind = MLIRTokenKind.BARE_IDENT
        elif found.lastindex == 2:
            kind = MLIRTokenKind.PERCENT_IDENT
        else:
            kind = self._punctuation[found[3]]
        return Token(kind, Span(found.start(found.lastindex), end, self.input))


class LineTable:
    """The start offset of every line of a text, built once; positions to locations."""

    def __init__(self, text: str, name: str):
        self.name = name
        starts = [0]
        position = text.find("\n")
        while position != -1:
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        self.starts = starts

    def location(self, position: int) -> Location:
        """xDSL's `Location` (1-based line and column) of offset `position`."""
        line = bisect.bisect_right(self.starts, position)
        return Location(self.name, line, position - self.starts[line - 1] + 1)


SIMPLE_TYPE = re.compile(r"(?:tensor|memref|vector)<(?:[0-9?]+x)*(?:[fi][0-9]+|bf16|index)>")
"""How a shaped builtin type with a plain element type and nothing else is spelled
(`tensor<16x?xf32>`, `memref<i1>`): the types a large program repeats on every op."""


class LocatingParser(Parser):
    """A parser that stamps each op without an explicit `loc(...)` with its start position,
    and reads a type it has read once before from a table instead of token by token."""

    def __init__(self, ctx: Context, text: str, name: str = "<unknown>"):
        # Start on empty input, then lex the real text with the linear-time lexer
        # (the first token would otherwise go through xDSL's own).
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(LinearTimeLexer(Input(text, name)))
        self._text = text
        self._previous_kind: MLIRTokenKind | None = None
        """The kind of the last token consumed (to recognise `->`)."""
        self._previous_end = 0
        """Where the last token consumed ends."""
        self.known_types: dict[str, TypeAttribute] = {}
        """The types spelled as `SIMPLE_TYPE`s read so far, by spelling. xDSL reads
        `tensor<16xf32>` as six tokens and a shape, about 40 us; with two or three types
        on every op that was half of the time to parse a large program."""
        self.open_operations: list = []
        """Start positions of the ops being parsed, innermost last."""
        self.lines = LineTable(text, name)
        """Where each line starts: an op's `file:line:col` in O(log n). xDSL's
        `Span.get_location` counts the newlines from the start of the text for every
        call, which made stamping every op quadratic (439 s for 100k ops)."""

    def _consume_token(self, expected_kind=None):
        token = self._current_token
        self._previous_kind = token.kind
        self._previous_end = token.span.end
        return super()._consume_token(expected_kind)

    def parse_optional_type(self) -> TypeAttribute | None:
        """As xDSL's; a `SIMPLE_TYPE` read before is taken from `known_types` (the
        same immutable attribute) and the lexer moves past its spelling at once."""
        token = self._current_token
        if token.kind is not MLIRTokenKind.BARE_IDENT:
            return super().parse_optional_type()
        spelled = SIMPLE_TYPE.match(self._text, token.span.start)
        if spelled is None:
            return super().parse_optional_type()
        known = self.known_types.get(spelled[0])
        if known is None:
            known = super().parse_optional_type()
            if known is not None and self._previous_end == spelled.end():
                self.known_types[spelled[0]] = known
            return known
        self._previous_kind, self._previous_end = MLIRTokenKind.GREATER, spelled.end()
        self._resume_from(spelled.end())
        return known

    def parse_comma_separated_list(self, delimiter, parse, context_msg: str = ""):
        """MLIR's `function-result-type`: after `->`, a result list is either
        parenthesised or one bare type (`scf.for ... -> f64`, as MLIR prints
        it); xDSL 0.74's scf ops insist on the parentheses, its linalg ops on
        none."""
        after_arrow = self._previous_kind is MLIRTokenKind.ARROW
        if (
            delimiter is self.Delimiter.PAREN
            and after_arrow
            and self._current_token.kind is not MLIRTokenKind.L_PAREN
        ):
            return [parse()]
        if delimiter is self.Delimiter.NONE and after_arrow and self._current_token.kind is MLIRTokenKind.L_PAREN:
            # The other way round: `linalg.generic ... } -> (tensor<..>, tensor<..>)`,
            # as MLIR prints several results; xDSL 0.74 reads the list bare.
            delimiter = self.Delimiter.PAREN
        return super().parse_comma_separated_list(delimiter, parse, context_msg)

    def _parse_tensor_literal_element(self):
        """MLIR reads a hexadecimal element of a float `dense<...>` literal as
        the float's bits (`dense<0xFF800000> : tensor<f32>` is -inf, how MLIR
        prints non-finite floats); xDSL 0.74 converts the integer's value
        (4.29e9). Such an element keeps its bits here."""
        hexadecimal = self._current_token.text[:2] in ("0x", "0X")
        element = super()._parse_tensor_literal_element()
        if hexadecimal and isinstance(element.value, int) and not isinstance(element.value, bool):
            return _HexadecimalElement(element.is_negative, element.value, element.span)
        return element

    def _parse_optional_builtin_parametrized_attr(self):
        """MLIR's `sparse<indices, values> : tensor<...>` (LAGrad's hand tracking
        writes an identity matrix so), which xDSL 0.74 lacks, read as the
        equivalent dense literal: gradir computes on dense tensors anyway."""
        if self._current_token.kind is not MLIRTokenKind.BARE_IDENT or self._current_token.text != "sparse":
            return super()._parse_optional_builtin_parametrized_attr()
        start = self.pos
        self._consume_token(MLIRTokenKind.BARE_IDENT)
        self.parse_punctuation("<")
        indices = self._parse_nested_list(self.parse_integer)
        self.parse_punctuation(",")
        values = self._parse_nested_list(self.parse_number)
        self.parse_punctuation(">")
        self.parse_punctuation(":")
        type_ = self.parse_type()
        return dense_from_sparse(self, type_, indices, values, start)

    def _parse_nested_list(self, parse_leaf):
        if self._current_token.kind is MLIRTokenKind.L_SQUARE:
            return self.parse_comma_separated_list(
                self.Delimiter.SQUARE, lambda: self._parse_nested_list(parse_leaf)
            )
        return parse_leaf()

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """As xDSL's, but a file with no op (empty, or only comments) is an empty module,
        as for mlir-opt; xDSL 0.74 calls it `Could not parse entire input!`."""
        if allow_implicit_module and self._current_token.kind is MLIRTokenKind.EOF:
            return ModuleOp([])
        return super().parse_module(allow_implicit_module)

    def parse_operation(self) -> Operation:
        start = self.lines.location(self._current_token.span.start)
        self.open_operations.append(start)
        op = super().parse_operation()
        self.open_operations.pop()
        if isinstance(op.location, UnknownLoc):
            op.location = FileLineColLoc(
                StringAttr(start.file), IntAttr(start.line), IntAttr(start.col)
            )
        return op

    def parse_affine_map(self):
        """As xDSL's, semi-affine expressions included (`SemiAffineParser`); so the two below."""
        return SemiAffineParser(self._parser_state).parse_affine_map()

    def parse_affine_set(self):
        return SemiAffineParser(self._parser_state).parse_affine_set()

    def parse_affine_map_of_ssa_ids(self):
        affine_map, spans = SemiAffineParser(self._parser_state).parse_affine_map_of_ssa_ids()
        operands = [self.resolve_operand(UnresolvedOperand(span, 0), IndexType()) for span in spans]
        return affine_map, operands


class SemiAffineParser(AffineParser):
    """MLIR's semi-affine expressions: `*`, `floordiv`, `ceildiv` and `mod` by a symbolic
    operand (`(d1 - d0) ceildiv s0`, MLIR's one-shot-bufferize integration test). xDSL 0.74's
    `AffineExpr` operators refuse a right operand that is not a constant, though its
    `AffineBinaryOpExpr` holds one and prints it; MLIR 22 lowers them (`lower-affine`)."""

    _SEMI_AFFINE = {"*": AffineBinaryOpKind.Mul, "floordiv": AffineBinaryOpKind.FloorDiv,
                    "ceildiv": AffineBinaryOpKind.CeilDiv, "mod": AffineBinaryOpKind.Mod}  # fmt: skip

    def _create_binop_expr(self, lhs: AffineExpr, rhs: AffineExpr, binop) -> AffineExpr:
        kind = self._SEMI_AFFINE.get(binop.text)
        if kind is None or isinstance(rhs, AffineConstantExpr) or (
            kind is AffineBinaryOpKind.Mul and isinstance(lhs, AffineConstantExpr)
        ):
            return super()._create_binop_expr(lhs, rhs, binop)
        if any(isinstance(node, AffineDimExpr) for node in rhs.dfs()):
            if kind is AffineBinaryOpKind.Mul and not any(isinstance(node, AffineDimExpr) for node in lhs.dfs()):
                return AffineBinaryOpExpr(kind, rhs, lhs)  # `s0 * d0`: the symbolic factor on the right
            self.raise_error(
                f"non-affine expression: the right operand of `{binop.text}` must be a constant or symbolic",
                binop.span.start, binop.span.end,
            )
        return AffineBinaryOpExpr(kind, lhs, rhs)


class _HexadecimalElement(Parser._TensorLiteralElement):
    """A `0x...` element of a dense literal: for a float type, its bits."""

    def to_type(self, parser, type):
        if isinstance(type, AnyFloat):
            raw = self.value.to_bytes(type.compile_time_size, "little")
            return next(type.iter_unpack(raw))
        return super().to_type(parser, type)


def dense_from_sparse(parser: Parser, type_, indices, values, start: int) -> DenseIntOrFPElementsAttr:
    """The dense elements attribute of `sparse<indices, values> : type_` (zeros elsewhere)."""
    if not isinstance(type_, TensorType) or not type_.has_static_shape():
        parser.raise_error("a sparse literal needs a statically shaped tensor type", start, parser.pos)
    shape = type_.get_shape()
    if isinstance(indices, int):  # a splat, as MLIR prints `sparse<3, 2.5> : tensor<4xf32>`
        indices = [[indices] * len(shape)]
    rows = indices if indices and isinstance(indices[0], list) else [indices] if indices else []
    if not isinstance(values, list):
        values = [values] * len(rows)  # one value for every index, as MLIR reads a splat
    if len(values) != len(rows) or any(len(row) != len(shape) for row in rows):
        parser.raise_error(
            f"a sparse literal of {type_} needs one value per index and {len(shape)} coordinates per index",
            start, parser.pos,
        )
    elements = [0.0 if isinstance(type_.element_type, AnyFloat) else 0] * math.prod(shape)
    for row, value in zip(rows, values):
        if any(not 0 <= c < n for c, n in zip(row, shape)):
            parser.raise_error(f"sparse index {row} is outside {type_}", start, parser.pos)
        flat = 0
        for c, n in zip(row, shape):
            flat = flat * n + c
        elements[flat] = value
    return DenseIntOrFPElementsAttr.from_list(type_, elements)


def parse_error_message(error: ParseError) -> str:
    """One line `file:line:col: error: message` for an xDSL parse error."""
    where = error.span.get_location()
    message = " ".join(error.msg.split())
    return f"{where.file}:{where.line}:{where.col}: error: {message}"


def _unregistered_op_location(text: str, error: ParseError) -> str | None:
    """Where the name of an op xDSL does not know begins (`%0 = autodiff.frobnicate %a`:
    at `autodiff.frobnicate`, as mlir-opt reports it); xDSL points past it, at the token
    it was about to read. None for other errors."""
    unknown = re.match(r"Operation (\S+) is not registered", error.msg)
    if unknown is None:
        return None
    start = text.rfind(unknown[1], 0, error.span.start + 1)
    if start < 0:
        return None
    line = text.count("\n", 0, start) + 1
    column = start - (text.rfind("\n", 0, start) + 1) + 1
    if text[start - 1 : start] == '"':  # the generic form quotes it
        column -= 1
    where = error.span.get_location()
    return f"{where.file}:{line}:{column}"


CONSTRUCTION_ERRORS = (
    VerifyException, ValueError, IndexError, KeyError, TypeError, AssertionError, NotImplementedError
)
"""What xDSL 0.74 can raise, instead of a ParseError, while building an op or
attribute from well-formed tokens with the wrong contents (an i64 where a
tensor type belongs, an unknown iterator type, an integer out of range, a unit
`indexing_maps` where linalg.generic asserts an array, `array<i65: ...>`, which
it cannot pack)."""


MAX_OP_NESTING = 100
"""How deep ops may nest (an op in a region of an op in a region ...). xDSL's parser,
verifier, printer and gradir's passes recurse once or more per level, so a deeper
program would reach Python's recursion limit somewhere later; it is refused where it
is parsed instead, located at the first op too deep."""

MAX_BYTES = 2**63 - 1
"""The largest size in bytes a tensor, memref or vector type may have: MLIR computes
sizes and strides in int64 (a larger one fails an assertion that ends the process)."""


def parse_module(ctx: Context, text: str, filename: str = "<input>") -> ModuleOp:
    """Parse `text`; raises `SourceError` with the location on malformed IR, on ops
    nested deeper than `MAX_OP_NESTING`, and on a shaped type too large for MLIR."""
    parser = None
    try:
        parser = LocatingParser(ctx, text, filename)  # lexes the first token
        module = parser.parse_module()
    except RecursionError:
        where = _innermost_location(parser, filename)
        raise SourceError(
            "nesting too deep to parse (Python's recursion limit was reached: ops, "
            "attributes or types nested hundreds of levels deep)",
            where,
        ) from None
    except ParseError as error:
        where = error.span.get_location()
        location = _unregistered_op_location(text, error) or f"{where.file}:{where.line}:{where.col}"
        raise SourceError(" ".join(error.msg.split()), location) from error
    except CONSTRUCTION_ERRORS as error:
        # Located at the start of the innermost op being parsed.
        if parser is None:
            raise SourceError(" ".join(str(error).split()), f"{filename}:1:1") from error
        if parser.open_operations:
            where = parser.open_operations[-1]
        else:
            where = parser._current_token.span.get_location()  # pyright: ignore[reportPrivateUsage]
        message = " ".join(str(error).split()) or f"malformed op ({type(error).__name__} in xDSL's parser)"
        raise SourceError(message, f"{where.file}:{where.line}:{where.col}") from error
    check_nesting_and_sizes(module)
    return module


def _innermost_location(parser, filename: str) -> str:
    """Where the parser stood (its current token: inside the deepest op, attribute or type)."""
    if parser is None:
        return f"{filename}:1:1"
    where = parser._current_token.span.get_location()  # pyright: ignore[reportPrivateUsage]
    return f"{where.file}:{where.line}:{where.col}"


def check_nesting_and_sizes(module: ModuleOp) -> None:
    """Refuse ops nested deeper than `MAX_OP_NESTING` and values whose shaped type holds
    more than `MAX_BYTES` (one iterative walk: it must not recurse itself)."""
    from gradir.errors import location_of

    checked_types: set = set()
    pending = [(op, 1) for op in module.ops]
    while pending:
        op, depth = pending.pop()
        if depth > MAX_OP_NESTING:
            raise SourceError(
                f"'{op.name}' is nested {depth} ops deep; gradir handles at most "
                f"{MAX_OP_NESTING} levels (its passes recurse once per level)",
                location_of(op),
            )
        for attribute in (*op.properties.values(), *op.attributes.values()):
            if isinstance(attribute, IntegerAttr) and isinstance(attribute.type, IndexType):
                _check_index(attribute.value.data, op)
            if isinstance(attribute, AffineMapAttr):
                _check_affine_constants(attribute, op)
        if "static_output_shape" in op.properties:
            _check_output_shape(op)
        values = list(op.results)
        for region in op.regions:
            for block in region.blocks:
                values += block.args
                pending += [(inner, depth + 1) for inner in block.ops]
        for value in values:
            if value.type not in checked_types:
                checked_types.add(value.type)
                _check_size(value.type, op)


def _check_output_shape(op: Operation) -> None:
    """`expand_shape`'s static `output_shape` must be its result's shape, as MLIR verifies;
    xDSL 0.74 does not, and reads 2^63 as the dynamic marker, which its printer then fails on."""
    from gradir.errors import location_of

    static = op.properties["static_output_shape"]
    result = op.results[0].type if op.results else None
    if not isinstance(static, DenseArrayBase) or not isinstance(result, ShapedType):
        return
    dims = [int(d) for d in result.get_shape()]
    values = [int(v) for v in static.get_values()]
    if len(values) != len(dims) or any(d >= 0 and v != d for v, d in zip(values, dims)):
        raise SourceError(
            f"'{op.name}' output_shape {values} does not match its result type {result} "
            f"(an entry of 2^63 or more wraps around in xDSL's 64-bit list)",
            location_of(op),
        )


def _check_affine_constants(attribute: AffineMapAttr, op: Operation) -> None:
    """An affine map's constants are index values: an `affine.for` from 2^63 printed a
    bound MLIR (and gradir, reading its own output) refuses (fuzz, seed 11251)."""
    from xdsl.ir.affine import AffineConstantExpr

    for result in attribute.data.results:
        for expression in result.dfs():
            if isinstance(expression, AffineConstantExpr):
                _check_index(expression.value, op)


def _check_index(value: int, op: Operation) -> None:
    """xDSL 0.74 takes any integer as an `index` constant; MLIR's index is 64 bits and
    its parser refuses the rest (at a line of gradir's generated text, not the user's)."""
    from gradir.errors import location_of

    if not -(2**63) <= value < 2**63:
        raise SourceError(
            f"Integer value {value} is out of range for type index which supports values in "
            f"the range [{-(2**63)}, {2**63 - 1}]",
            location_of(op),
        )


def _check_size(type_, op: Operation) -> None:
    from gradir.errors import location_of

    shape = getattr(type_, "get_shape", None)
    element = getattr(type_, "get_element_type", None)
    if shape is None or element is None:
        return
    try:
        dims = [d for d in shape() if d >= 0]  # dynamic sizes (-1) are known only at run time
        width = getattr(element(), "bitwidth", None) or getattr(element(), "width", None)
    except Exception:  # noqa: BLE001 -- a type that is not what it looks like: nothing to check
        return
    bits = width.data if hasattr(width, "data") else width if isinstance(width, int) else 8
    size = math.prod(dims) * max(1, bits) // 8
    if size > MAX_BYTES:
        raise SourceError(
            f"{type_} is too large: {math.prod(dims)} elements, {size} bytes, and MLIR counts "
            "sizes in 64-bit integers (at most 2^63 - 1 bytes)",
            location_of(op),
        )


def ensure_autodiff_dialect(ctx: Context) -> None:
    """Load the autodiff dialect unless the installed entry point already did
    (registering it twice would raise), and gradir's versions of some upstream
    ops (`dialects/upstream_ops.py`)."""
    from gradir.dialects.upstream_ops import use_gradir_ops

    use_gradir_ops(ctx)
    if "autodiff" not in ctx.registered_dialect_names:
        from gradir.dialects.autodiff import Autodiff

        ctx.load_dialect(Autodiff)


def make_context() -> Context:
    """A context with every dialect xDSL knows plus the autodiff dialect.

    xDSL's own table (`xdsl.dialects.get_all_dialects`), not the multiverse of every
    installed `xdsl.universe` entry point: finding those imports `importlib.metadata` and
    reads the metadata of every installed distribution, 0.09-0.12 s of each cold compile
    (a tenth of it), to add only gradir's own dialect, which is added here anyway."""
    from xdsl.dialects import get_all_dialects

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    ensure_autodiff_dialect(ctx)
    return ctx


def load_module(source, ctx: Context | None = None) -> ModuleOp:
    """A fresh `ModuleOp` from `.mlir` text, a path to a `.mlir` file, a `ModuleOp`
    (cloned, so callers' modules are never modified) or a file's text already read
    (`compilation_cache.SourceText`)."""
    import os

    from gradir.compilation_cache import SourceText

    if isinstance(source, ModuleOp):
        return source.clone()
    if isinstance(source, SourceText):
        return parse_module(ctx or make_context(), source.text, source.name)
    if isinstance(source, os.PathLike) or (
        isinstance(source, str) and "\n" not in source and source.strip().endswith(".mlir")
    ):
        path = os.fspath(source)
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError as error:
            raise SourceError(f"cannot read {path}: {error.strerror}") from error
        # As autodiff-opt reads files: a byte that is not UTF-8 (in a comment, say) is
        # replaced rather than failing the whole file; MLIR's syntax itself is ASCII.
        return parse_module(ctx or make_context(), data.decode("utf-8", errors="replace"), path)
    if isinstance(source, str):
        return parse_module(ctx or make_context(), source, "<string>")
    raise SourceError(
        f"expected .mlir text, a path or an xDSL ModuleOp, got {type(source).__name__}"
    )

