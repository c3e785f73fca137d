"""Merge the loops of a `linalg.generic` that every operand walks contiguously.

After fusion a generic often keeps the shape of its autodiff origin: summing a
1000 x 50 x 20 tensor over its first dimension is a loop nest whose innermost
loop is only 20 long, so LLVM's vectoriser spends most of its time in loop
control and remainders (the GMM gradient's column sum moved 2.2 GB/s). When
two neighbouring loops have the same iterator type and appear next to each
other, in the same order, in every operand's indexing map (or in none), they
can be one loop over the product of their extents: each operand is collapsed
with `tensor.collapse_shape` (free for the row-major tensors here), the
generic runs on the collapsed operands, and its results are expanded back.
Unit loops are dropped first (`linalg-fold-unit-extent-dims`). MLIR 22 has this
rewrite (`collapseOpIterationDims`) but exposes it neither as a pass nor as a
transform op.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from gradir.mlir_bridge import walk_ops


def _dim_positions(amap: ir.AffineMap) -> list[int] | None:
    """The loop dimension of each result of a projected-permutation map, else None."""
    positions = []
    for expr in amap.results:
        if not isinstance(expr, ir.AffineDimExpr):
            return None
        positions.append(ir.AffineDimExpr(expr).position)
    return positions


def mergeable_groups(maps: list[ir.AffineMap], kinds: list[str]) -> list[list[int]]:
    """Runs of consecutive loops that every map reads contiguously and in order."""
    positions = [_dim_positions(amap) for amap in maps]
    if any(p is None for p in positions):
        return [[d] for d in range(len(kinds))]
    groups = [[0]]
    for dim in range(1, len(kinds)):
        previous = groups[-1][-1]
        joinable = kinds[dim] == kinds[previous] and all(
            (previous in p) == (dim in p) and (previous not in p or p.index(dim) == p.index(previous) + 1)
            for p in positions
        )
        if joinable:
            groups[-1].append(dim)
        else:
            groups.append([dim])
    return groups


def _reassociation(positions: list[int], new_dim: dict[int, int]) -> list[list[int]]:
    """How an operand's dimensions (in its own order) group after merging: neighbours
    that walk loops of one merged group become one dimension."""
    reassociation: list[list[int]] = []
    for index, dim in enumerate(positions):
        if reassociation and new_dim[positions[index - 1]] == new_dim[dim]:
            reassociation[-1].append(index)
        else:
            reassociation.append([index])
    return reassociation


def _collapsed_type(value_type: ir.RankedTensorType, reassociation: list[list[int]]) -> ir.RankedTensorType:
    shape = [1] * len(reassociation)
    for position, group in enumerate(reassociation):
        for dim in group:
            shape[position] *= value_type.shape[dim]
    return ir.RankedTensorType.get(shape, value_type.element_type)


def _reassociation_attr(reassociation: list[list[int]]) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in group]) for group in reassociation]
    )


def _collapse(value: ir.Value, reassociation: list[list[int]]) -> ir.Value:
    value_type = ir.RankedTensorType(value.type)
    if len(reassociation) == value_type.rank:
        return value
    return tensor.CollapseShapeOp(_collapsed_type(value_type, reassociation), value, _reassociation_attr(reassociation)).result


def _expand(value: ir.Value, result_type: ir.RankedTensorType, reassociation: list[list[int]]) -> ir.Value:
    if len(reassociation) == result_type.rank:
        return value
    return tensor.ExpandShapeOp(
        result_type, value, _reassociation_attr(reassociation), [], list(result_type.shape)
    ).result


def collapse_generic(generic: ir.Operation) -> bool:
    """Rewrite one generic on static tensors with merged loops; False when nothing merges."""
    if any(op.name == "linalg.index" for op in generic.regions[0].blocks[0].operations):
        return False
    operands = list(generic.operands)
    if not all(isinstance(v.type, ir.RankedTensorType) and ir.RankedTensorType(v.type).has_static_shape for v in operands):
        return False
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    kinds = ["reduction" if "reduction" in str(k) else "parallel" for k in ir.ArrayAttr(generic.attributes["iterator_types"])]
    if len(kinds) < 2:
        return False
    groups = mergeable_groups(maps, kinds)
    if len(groups) == len(kinds):
        return False
    new_dim = {d: g for g, group in enumerate(groups) for d in group}
    inputs = len(generic.opview.inputs)
    with generic.context, generic.location, ir.InsertionPoint(generic):
        reassociations = [_reassociation(_dim_positions(m), new_dim) for m in maps]
        collapsed = [_collapse(v, r) for v, r in zip(operands, reassociations)]
        new_maps = []
        for amap in maps:
            kept = []
            for d in _dim_positions(amap):
                if not kept or new_dim[d] != kept[-1]:
                    kept.append(new_dim[d])
            new_maps.append(ir.AffineMap.get(len(groups), 0, [ir.AffineDimExpr.get(d) for d in kept]))
        iterator_types = ir.ArrayAttr.get(
            [ir.Attribute.parse(f"#linalg.iterator_type<{kinds[group[0]]}>") for group in groups]
        )
        result_types = [v.type for v in collapsed[inputs:]]
        new = linalg.GenericOp(
            result_types, collapsed[:inputs], collapsed[inputs:],
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in new_maps]), iterator_types,
        )
        new.regions[0].blocks.append(*[a.type for a in generic.regions[0].blocks[0].arguments])
        body = new.regions[0].blocks[0]
        old_body = generic.regions[0].blocks[0]
        for old, fresh in zip(old_body.arguments, body.arguments):
            old.replace_all_uses_with(fresh)
        for op in [o.operation for o in old_body.operations]:
            body.append(op)
        for old, value, reassociation in zip(generic.results, new.results, reassociations[inputs:]):
            old.replace_all_uses_with(_expand(value, ir.RankedTensorType(old.type), reassociation))
    generic.erase()
    return True


def collapse_contiguous_loops(module: ir.Module) -> None:
    """`collapse_generic` on every generic of `module` (after unit loops are dropped)."""
    for generic in walk_ops(module, {"linalg.generic"}):
        collapse_generic(generic)
