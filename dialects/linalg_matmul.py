"""Contractions whose `indexing_maps` are part of the op: `linalg.matmul`,
`linalg.batch_matmul`, `linalg.batch_reduce_matmul` and `linalg.contract`,
printed and parsed as MLIR 22 does.

xDSL 0.74's `linalg.matmul` drops non-default `indexing_maps` when it prints
custom form (and cannot parse them), so a matmul reading A or B transposed came
out of `autodiff-opt` as a plain matmul with mismatched shapes: output that
neither xDSL nor MLIR accepts. gradir's matmul prints and parses MLIR's
spelling, `linalg.matmul indexing_maps = [...] {cast = ...} ins(...) outs(...)`
(maps only when not the default), and replaces xDSL's op in gradir's contexts
(`upstream_ops.use_gradir_ops`); `linalg.batch_matmul` (unknown to xDSL 0.74)
is the same with a batch loop, `linalg.batch_reduce_matmul` with the batch
summed too, and `linalg.contract` always prints its maps.

The verifiers accept the maps MLIR 22 accepts: a matmul operand read in either
order or broadcast along the contraction (`(d0, d1, d2) -> (d2)`), a batch
matmul operand also broadcast over the batch; a contract whose loops are each
either indexed by the output (parallel) or by both inputs and not the output
(contracted). Messages are MLIR's.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.linalg_structured import (
    NamedStructuredOp,
    TypeFnAttr,
    iterator_types,
    iterators_from_output_map,
    maps,
)


def _maps_attr(affine_maps: Sequence[AffineMap]) -> ArrayAttr[AffineMapAttr]:
    return ArrayAttr(AffineMapAttr(m) for m in affine_maps)


def _dims(map_: AffineMap) -> list[int | None]:
    """Each result's loop dimension (None for any other expression)."""
    return [expr.position if isinstance(expr, AffineDimExpr) else None for expr in map_.results]


def _is_projected_permutation(map_: AffineMap) -> bool:
    dims = _dims(map_)
    return None not in dims and len(set(dims)) == len(dims)


class IndexingMapsPrefix(NamedStructuredOp):
    """`indexing_maps = [...]` printed before the attributes, when not the default."""

    ALWAYS_PRINT_MAPS: ClassVar[bool] = False

    def _print_prefix(self, printer: Printer) -> None:
        maps_ = self.properties.get("indexing_maps")
        definition = type(self).get_irdl_definition().properties["indexing_maps"]
        default = getattr(definition, "default_value", None)
        if maps_ is not None and (self.ALWAYS_PRINT_MAPS or maps_ != default):
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(maps_)

    @classmethod
    def _parse_prefix(cls, parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_characters("indexing_maps") is None:
            return {}
        parser.parse_punctuation("=")
        return {"indexing_maps": parser.parse_attribute()}


def _verify_matmul_operand(map_: AffineMap, allowed: set[int]) -> None:
    """MLIR's check of a matmul operand map: two of the operand's loops in
    either order, or the broadcast (d2)."""
    dims = _dims(map_)
    if None in dims or len(set(dims)) != len(dims):
        raise VerifyException("expected indexing maps to be projected permutations")
    if len(dims) < 2:
        if dims != [2]:
            raise VerifyException("Invalid broadcast requested, should be (d2).")
        return
    if any(d not in allowed for d in dims):
        raise VerifyException("Unexpected dim expression in map result.")


_MATMUL_MAPS = maps((0, 2), (2, 1), (0, 1), loops=3)


class _MapsContraction(IndexingMapsPrefix):
    """A contraction whose maps are the `indexing_maps` property."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue] = (),
        res: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
        indexing_maps: ArrayAttr[AffineMapAttr] | None = None,
    ):
        properties = {"indexing_maps": indexing_maps} if indexing_maps is not None else None
        super().__init__(inputs, outputs, res, attributes, properties)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.indexing_maps.data)  # type: ignore[attr-defined]

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return self.indexing_maps  # type: ignore[attr-defined]


@irdl_op_definition
class MatmulOp(_MapsContraction):
    """`C(i, j) += A(i, k) * B(k, j)`; `indexing_maps` may read A and B
    transposed or broadcast along k (replaces xDSL's matmul, same constructor)."""

    name = "linalg.matmul"

    indexing_maps = prop_def(ArrayAttr[AffineMapAttr], default_value=_maps_attr(_MATMUL_MAPS))
    """Loops (i, j, k) -> the element of A, B and C each iteration reads."""
    cast = opt_prop_def(TypeFnAttr)
    """`cast_signed` (the default) or `cast_unsigned`: how inputs of another
    element type become the output's."""

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("ppr")

    def verify_(self) -> None:
        affine_maps = [m.data for m in self.indexing_maps.data]
        if len(affine_maps) == 3 and all(m.num_dims == 3 for m in affine_maps):
            _verify_matmul_operand(affine_maps[0], {0, 2})
            _verify_matmul_operand(affine_maps[1], {1, 2})
        super().verify_()


_BATCH_MATMUL_MAPS = maps((0, 1, 3), (0, 3, 2), (0, 1, 2), loops=4)


@irdl_op_definition
class BatchMatmulOp(_MapsContraction):
    """`C(b, i, j) += A(b, i, k) * B(b, k, j)`; `indexing_maps` may read A and B
    transposed, or broadcast over the batch or along k."""

    name = "linalg.batch_matmul"

    indexing_maps = prop_def(ArrayAttr[AffineMapAttr], default_value=_maps_attr(_BATCH_MATMUL_MAPS))
    """Loops (b, i, j, k) -> the element of A, B and C each iteration reads."""
    cast = opt_prop_def(TypeFnAttr)
    """`cast_signed` (the default) or `cast_unsigned`."""

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("pppr")

    def verify_(self) -> None:
        c = _verified_batch_output_map(self)
        if c is not None and _dims(c) != [0, 1, 2]:
            raise VerifyException("Invalid output map result dimension.")
        super().verify_()


def _verified_batch_output_map(
    op: _MapsContraction, unexpected: str = "Unexpected dim expression in map result."
) -> AffineMap | None:
    """The output map of a batch (reduce) matmul, once the maps of A and B are checked as
    MLIR 22 does; None when they are not three maps of the four loops (left to the
    structured-op verifier)."""
    affine_maps = [m.data for m in op.indexing_maps.data]
    if len(affine_maps) != 3 or any(m.num_dims != 4 for m in affine_maps):
        return None
    for map_ in affine_maps:
        if not _is_projected_permutation(map_):
            raise VerifyException("expected indexing maps to be projected permutations")
    a, b, c = affine_maps
    _verify_batch_operand(a, operand="lhs", unexpected=unexpected)
    _verify_batch_operand(b, operand="rhs", unexpected=unexpected)
    return c


def _verify_batch_operand(
    map_: AffineMap, operand: str, unexpected: str = "Unexpected dim expression in map result."
) -> None:
    """MLIR 22's batch matmul operand maps: (b, i|k, k|i) for A, (b, k|j, j|k)
    for B; without the batch: (i, k) or (k) for A, (k, j) or (k) for B."""
    dims = _dims(map_)
    row, column = (1, 3) if operand == "lhs" else (3, 2)
    if len(dims) == 3:
        if dims[0] != 0:
            raise VerifyException("Invalid batch dimension expression.")
        if sorted(dims[1:]) != sorted((row, column)):
            raise VerifyException(unexpected)
        return
    if dims in ([row, column], [3]):
        return
    raise VerifyException("Invalid broadcast requested.")


_BATCH_REDUCE_MATMUL_MAPS = maps((0, 1, 3), (0, 3, 2), (1, 2), loops=4)


@irdl_op_definition
class BatchReduceMatmulOp(_MapsContraction):
    """`C(i, j) += sum over b of A(b, i, k) * B(b, k, j)`: a batch matmul whose
    batch is reduced too; `indexing_maps` may read A and B transposed, or
    broadcast over the batch or along k, as for `batch_matmul`."""

    name = "linalg.batch_reduce_matmul"

    indexing_maps = prop_def(ArrayAttr[AffineMapAttr], default_value=_maps_attr(_BATCH_REDUCE_MATMUL_MAPS))
    """Loops (b, i, j, k) -> the element of A, B and C each iteration reads."""
    cast = opt_prop_def(TypeFnAttr)
    """`cast_signed` (the default) or `cast_unsigned`."""

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("rppr")

    def verify_(self) -> None:
        c = _verified_batch_output_map(
            self, "Unexpected result dim expression (outside the set of default result dims)."
        )
        if c is not None:
            if len(c.results) != 2:
                raise VerifyException(f"expects 2 dims, but got ({len(c.results)}).")
            if _dims(c) != [1, 2]:
                raise VerifyException("Invalid output map result dimension.")
        super().verify_()


@irdl_op_definition
class ContractOp(IndexingMapsPrefix):
    """`C += A * B` over any loops: each loop is indexed by the output (parallel)
    or by both inputs and not the output (contracted). MLIR 22's `linalg.contract`."""

    name = "linalg.contract"
    ALWAYS_PRINT_MAPS: ClassVar[bool] = True

    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    """Loops -> the element of A, B and C each iteration reads."""
    cast = opt_prop_def(TypeFnAttr)
    """`cast_signed` (the default) or `cast_unsigned`."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        indexing_maps: ArrayAttr[AffineMapAttr],
        result_types: Sequence[Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(inputs, outputs, result_types, attributes, {"indexing_maps": indexing_maps})

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.indexing_maps.data)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return self.indexing_maps

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterators_from_output_map([m.data for m in self.indexing_maps.data])

    def verify_(self) -> None:
        affine_maps = [m.data for m in self.indexing_maps.data]
        if len(affine_maps) == 3 and len({m.num_dims for m in affine_maps}) == 1:
            for map_ in affine_maps:
                if not _is_projected_permutation(map_):
                    raise VerifyException("provided affine_map is not a projected permutation")
            a, b, c = (set(_dims(m)) for m in affine_maps)
            contracted = (a & b) - c
            for dim in range(affine_maps[0].num_dims):
                if dim not in c and dim not in contracted:
                    raise VerifyException(
                        f"iteration space dim at index {dim} is neither a contracting dim nor of parallel iteration type"
                    )
            if not contracted:
                raise VerifyException("'indexing_maps' do not specify a contracting dimension")
        super().verify_()


MAPS_CONTRACTIONS = (MatmulOp, BatchMatmulOp, BatchReduceMatmulOp, ContractOp)
"""The contractions gradir defines whose maps are a property."""
