"""Windowed inputs sliced to the elements their windows reach, before unit loops are dropped.

A convolution or pooling whose output is one position wide reads its input at
`ow * s + kw` with `ow` always 0. MLIR 22's `linalg-fold-unit-extent-dims` drops the unit
loop and leaves the map `kw`, a plain dimension, so that the input's width becomes the
loop's extent: when the input is wider than the windows reach (a stride that leaves
columns unread, width 3 with a window of 2 and stride 2) the folded op does not verify
("inferred input/output operand #1 has shape's dimension #0 to be 3, but found 2") and a
valid program was refused. Slicing each windowed input to the extent its indices reach
first changes no value (the elements cut off are never read) and keeps the fold valid.
With a dynamic batch (torch-mlir's `tensor<?x3x3x4xf32>`) the folded op cannot be checked
when compiled and the run-time checks refused the call instead: only the windowed
dimensions need static loop extents, so the other dimensions are sliced whole, at their
`tensor.dim`.
"""

from __future__ import annotations

from gradir.mlir_bridge import walk_ops
from mlir import ir
from mlir.dialects import arith, tensor

DYNAMIC = ir.ShapedType.get_dynamic_size()


def _loop_extents(maps: list[ir.AffineMap], shapes: list[list[int]]) -> dict[int, int]:
    """Each loop's extent, read from an operand that walks it as a plain static dimension."""
    extents = {}
    for amap, shape in zip(maps, shapes):
        for expr, size in zip(amap.results, shape):
            if isinstance(expr, ir.AffineDimExpr) and size != DYNAMIC:
                extents[ir.AffineDimExpr(expr).position] = size
    return extents


def _reach(expr: ir.AffineExpr, extents: dict[int, int]) -> int | None:
    """The largest value `expr` takes over the loops, for sums of loops scaled by
    non-negative constants and of constants; None for any other expression."""
    if isinstance(expr, ir.AffineDimExpr):
        extent = extents.get(ir.AffineDimExpr(expr).position)
        return None if extent is None else extent - 1
    if isinstance(expr, ir.AffineConstantExpr):
        return ir.AffineConstantExpr(expr).value
    if isinstance(expr, ir.AffineAddExpr):
        add = ir.AffineAddExpr(expr)
        lhs, rhs = _reach(add.lhs, extents), _reach(add.rhs, extents)
        return None if lhs is None or rhs is None else lhs + rhs
    if isinstance(expr, ir.AffineMulExpr):
        mul = ir.AffineMulExpr(expr)
        for factor, scaled in ((mul.rhs, mul.lhs), (mul.lhs, mul.rhs)):
            if isinstance(factor, ir.AffineConstantExpr) and ir.AffineConstantExpr(factor).value >= 0:
                reach = _reach(scaled, extents)
                return None if reach is None else ir.AffineConstantExpr(factor).value * reach
    return None


def _tight_size(expr: ir.AffineExpr, size: int, extents: dict[int, int]) -> int:
    """The extent of an input dimension read at `expr` that its indices reach: `size` itself
    (static or `DYNAMIC`) for a plain loop dimension or an expression `_reach` cannot bound."""
    if isinstance(expr, ir.AffineDimExpr):
        return size
    reach = _reach(expr, extents)
    if reach is None:
        return size
    return reach + 1 if size == DYNAMIC else min(size, reach + 1)


def tighten_generic(generic: ir.Operation) -> bool:
    """Slice the windowed inputs of one generic on tensors; False when none is wider than its
    windows reach (or might be: a dynamic dimension read through a window is sliced to the
    window's reach)."""
    operands = list(generic.operands)
    if not all(isinstance(v.type, ir.RankedTensorType) for v in operands):
        return False
    maps = [ir.AffineMapAttr(a).value for a in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    shapes = [list(ir.RankedTensorType(v.type).shape) for v in operands]
    extents = _loop_extents(maps, shapes)
    changed = False
    for index in range(len(generic.opview.inputs)):
        shape = shapes[index]
        tight = [_tight_size(expr, size, extents) for expr, size in zip(maps[index].results, shape)]
        if tight == shape or any(size < 1 for size in tight if size != DYNAMIC):
            continue
        source = operands[index]
        element = ir.RankedTensorType(source.type).element_type
        with generic.context, generic.location, ir.InsertionPoint(generic):
            whole = [tensor.DimOp(source, arith.ConstantOp(ir.IndexType.get(), d)).result
                     for d, size in enumerate(tight) if size == DYNAMIC]  # fmt: skip
            sliced = tensor.ExtractSliceOp(
                ir.RankedTensorType.get(tight, element), source, [], whole, [],
                [0] * len(tight), tight, [1] * len(tight),
            )  # fmt: skip
        generic.operands[index] = sliced.result
        changed = True
    return changed


def tighten_windowed_inputs(module: ir.Module) -> int:
    """Windowed inputs sliced to what their windows reach (`tighten_generic`), so that dropping
    unit loops leaves ops that verify; returns how many generics changed."""
    return sum(tighten_generic(generic) for generic in walk_ops(module, {"linalg.generic"}))
