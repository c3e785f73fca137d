"""MLIR 22's data-layout ops `linalg.pack` and `linalg.unpack`, which xDSL 0.74 lacks.

`pack` tiles some dimensions of a tensor: each dimension `inner_dims_pos[j]`
is cut into tiles of `inner_tiles[j]` elements, the packed tensor holding the
outer dimensions (the tile counts, `ceil(size / tile)`, the others whole),
permuted by `outer_dims_perm`, followed by one dimension per tile. A partial
last tile is filled with `padding_value` (required then). `unpack` is the
inverse: it reads the tiles back into the unpacked shape, dropping the
padding.

    %p = linalg.pack %x padding_value(%zero : f32) outer_dims_perm = [1, 0]
           inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %dest : tensor<3x5xf32> -> tensor<3x2x2x2xf32>
    %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1]
           inner_tiles = [2, 2] into %x0 : tensor<3x2x2x2xf32> -> tensor<3x5xf32>

A tiled dimension may be dynamic (`tensor<?xf32> -> tensor<?x2xf32>`): its
tile count is then dynamic too, and a static size on one side matches a dynamic
one on the other, as in MLIR. Only static tiles: a tile given as an SSA value
(`inner_tiles = [%t]`) is a located parse error. Verifier messages are MLIR's.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


def packed_shape(
    shape: Sequence[int], inner_dims_pos: Sequence[int], tiles: Sequence[int], outer_dims_perm: Sequence[int]
) -> list[int]:
    """The packed shape of an unpacked `shape`: tile counts, permuted, then the tiles. The
    count of a dynamic dimension, or of a dynamic tile, is dynamic (not the sentinel divided)."""
    outer = list(shape)
    for dim, tile in zip(inner_dims_pos, tiles):
        dynamic = DYNAMIC_INDEX in (shape[dim], tile)
        outer[dim] = DYNAMIC_INDEX if dynamic else -(-shape[dim] // tile)
    if outer_dims_perm:
        outer = [outer[d] for d in outer_dims_perm]
    return outer + list(tiles)


def shapes_match(expected: Sequence[int], actual: Sequence[int]) -> bool:
    """MLIR's check of a packed shape against the one inferred: a dynamic size on either side
    matches any size (MLIR's `areAllInBound`; static ones must be equal, no extra tiles)."""
    return len(expected) == len(actual) and all(
        DYNAMIC_INDEX in (e, a) or e == a for e, a in zip(expected, actual)
    )


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


class PackingOperation(IRDLOperation):
    """What `pack` and `unpack` share: the tiling properties, custom form and checks."""

    HAS_PADDING: ClassVar[bool]
    # Operands (declared by each op, in MLIR's order): `source`, the tensor read
    # (unpacked for `pack`, packed for `unpack`); `dest`, whose shape only matters
    # (every element is written); `inner_tiles`, tile sizes given as values, always
    # empty in gradir (static tiles only).

    result = result_def(TensorType)

    inner_dims_pos = prop_def(DenseArrayBase.constr(i64))
    """The unpacked dimensions that are tiled, one per tile."""
    outer_dims_perm = opt_prop_def(DenseArrayBase.constr(i64))
    """The order of the packed tensor's outer dimensions (identity when absent)."""
    static_inner_tiles = prop_def(DenseArrayBase.constr(i64))
    """The tile sizes."""

    traits = traits_def(Pure())

    # -- what the rules read ------------------------------------------------------

    @property
    def tiled_dims(self) -> list[int]:
        return [int(v) for v in self.inner_dims_pos.get_values()]

    @property
    def tiles(self) -> list[int]:
        return [int(v) for v in self.static_inner_tiles.get_values()]

    @property
    def permutation(self) -> list[int]:
        return [] if self.outer_dims_perm is None else [int(v) for v in self.outer_dims_perm.get_values()]

    def tiling(self) -> dict[str, DenseArrayBase]:
        """The properties that say how this op tiles (shared by its adjoint)."""
        properties = {"inner_dims_pos": self.inner_dims_pos, "static_inner_tiles": self.static_inner_tiles}
        if self.outer_dims_perm is not None:
            properties["outer_dims_perm"] = self.outer_dims_perm
        return properties

    def unpacked_type(self) -> TensorType:
        raise NotImplementedError

    def packed_type(self) -> TensorType:
        raise NotImplementedError

    # -- custom form ----------------------------------------------------------------

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.source)
        padding = getattr(self, "padding_value", None)
        if padding is not None:
            printer.print_string(" padding_value(")
            printer.print_ssa_value(padding)
            printer.print_string(" : ")
            printer.print_attribute(padding.type)
            printer.print_string(")")
        if self.outer_dims_perm is not None:
            printer.print_string(f" outer_dims_perm = {self.permutation}")
        printer.print_string(f" inner_dims_pos = {self.tiled_dims} inner_tiles = {self.tiles} into ")
        printer.print_ssa_value(self.dest)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dest.type)

    @classmethod
    def parse(cls, parser: Parser):
        source = parser.parse_unresolved_operand()
        padding = None
        if cls.HAS_PADDING and parser.parse_optional_characters("padding_value") is not None:
            parser.parse_punctuation("(")
            unresolved = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            padding = parser.resolve_operand(unresolved, parser.parse_type())
            parser.parse_punctuation(")")
        properties: dict[str, Attribute] = {}
        if parser.parse_optional_characters("outer_dims_perm") is not None:
            parser.parse_punctuation("=")
            properties["outer_dims_perm"] = _i64_array(
                parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            )
        parser.parse_characters("inner_dims_pos")
        parser.parse_punctuation("=")
        properties["inner_dims_pos"] = _i64_array(
            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        )
        parser.parse_characters("inner_tiles")
        parser.parse_punctuation("=")

        def tile() -> int:
            if parser.parse_optional_unresolved_operand() is not None:
                parser.raise_error(
                    f"'{cls.name}' with a tile size given as a value is not supported: "
                    "it makes the packed shape dynamic, and gradir's tensors are statically shaped"
                )
            return parser.parse_integer()

        properties["static_inner_tiles"] = _i64_array(
            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, tile)
        )
        parser.parse_characters("into")
        dest = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        dest_type = parser.parse_type()
        operands: list = [parser.resolve_operand(source, source_type), parser.resolve_operand(dest, dest_type)]
        if cls.HAS_PADDING:
            operands.append([padding] if padding is not None else [])
        operands.append([])
        return cls.build(operands=operands, result_types=[dest_type], properties=properties, attributes=attributes)

    # -- verification ---------------------------------------------------------------

    def verify_(self) -> None:
        if self.inner_tiles:
            raise VerifyException("tile sizes given as values are not supported")
        unpacked, packed = self.unpacked_type(), self.packed_type()
        rank = len(unpacked.get_shape())
        dims, tiles, permutation = self.tiled_dims, self.tiles, self.permutation
        if len(dims) != len(tiles):
            raise VerifyException("length of inner_dims_pos must match inner_tiles")
        if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
            raise VerifyException("invalid inner_dims_pos vector")
        if permutation and sorted(permutation) != list(range(rank)):
            raise VerifyException("invalid outer_dims_perm vector")
        if any(t <= 0 for t in tiles):
            raise VerifyException("tile sizes must be positive")
        if unpacked.get_element_type() != packed.get_element_type():
            raise VerifyException("expected the source and the destination to have the same element type")
        expected = TensorType(unpacked.get_element_type(), packed_shape(unpacked.get_shape(), dims, tiles, permutation))
        packed_shape_ = packed.get_shape()
        # MLIR checks the tile dimensions first: a `?` there is refused, never matched.
        if len(packed_shape_) == rank + len(tiles) and list(packed_shape_[rank:]) != tiles:
            raise VerifyException(
                "mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type"
            )
        if not shapes_match(expected.get_shape(), packed_shape_):
            raise VerifyException(f"expected '{expected}' for the packed domain value, got '{packed}'")
        if self.result.type != self.dest.type:
            raise VerifyException("expected the result to have the destination's type")

    def has_partial_tiles(self) -> bool:
        """Whether some tile surely runs past the unpacked tensor (padding); a dynamic
        dimension's tiles may or may not, and MLIR's verifier asks no padding value of it."""
        shape = self.unpacked_type().get_shape()
        return any(shape[d] != DYNAMIC_INDEX and shape[d] % t for d, t in zip(self.tiled_dims, self.tiles))

    def may_have_partial_tiles(self) -> bool:
        """Whether some tile may run past the unpacked tensor: a partial one, or a dynamic
        tiled dimension (a pack built for it must be given a padding value)."""
        shape = self.unpacked_type().get_shape()
        return self.has_partial_tiles() or any(shape[d] == DYNAMIC_INDEX for d in self.tiled_dims)


@irdl_op_definition
class PackOp(PackingOperation):
    """`dest = pack(source)`: `source` cut into tiles (see the module docstring)."""

    name = "linalg.pack"
    HAS_PADDING: ClassVar[bool] = True

    source = operand_def(TensorType)
    """The unpacked tensor."""
    dest = operand_def(TensorType)
    """The packed destination."""
    padding_value = opt_operand_def(AnyFloat | IntegerType)
    """Fills the part of a partial tile past the source's end."""
    inner_tiles = var_operand_def(IndexType)
    """Tile sizes given as values (never, in gradir)."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        source: SSAValue,
        dest: SSAValue,
        tiling: dict[str, DenseArrayBase],
        padding_value: SSAValue | None = None,
    ):
        super().__init__(
            operands=[source, dest, [padding_value] if padding_value is not None else [], []],
            result_types=[dest.type],
            properties=tiling,
        )

    def unpacked_type(self) -> TensorType:
        return self.source.type  # type: ignore[return-value]

    def packed_type(self) -> TensorType:
        return self.dest.type  # type: ignore[return-value]

    def verify_(self) -> None:
        super().verify_()
        if self.padding_value is None and self.has_partial_tiles():
            raise VerifyException(
                "invalid tile factor or output size provided. "
                "Only full tiles are supported when padding_value is not set"
            )
        if self.padding_value is not None and self.padding_value.type != self.unpacked_type().get_element_type():
            raise VerifyException("expected padding_value to have the source's element type")


@irdl_op_definition
class UnpackOp(PackingOperation):
    """`dest = unpack(source)`: the tiles of `source` put back in place, padding dropped."""

    name = "linalg.unpack"
    HAS_PADDING: ClassVar[bool] = False

    source = operand_def(TensorType)
    """The packed tensor."""
    dest = operand_def(TensorType)
    """The unpacked destination."""
    inner_tiles = var_operand_def(IndexType)
    """Tile sizes given as values (never, in gradir)."""

    def __init__(self, source: SSAValue, dest: SSAValue, tiling: dict[str, DenseArrayBase]):
        super().__init__(operands=[source, dest, []], result_types=[dest.type], properties=tiling)

    def unpacked_type(self) -> TensorType:
        return self.dest.type  # type: ignore[return-value]

    def packed_type(self) -> TensorType:
        return self.source.type  # type: ignore[return-value]


PACKING_OPS = (PackOp, UnpackOp)
"""MLIR 22's data-layout ops gradir defines."""
