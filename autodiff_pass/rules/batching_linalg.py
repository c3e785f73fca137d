"""Batching rules of linalg named ops (the shape helpers `batching.yaml` names
for them; `batching.py` holds those of the autodiff ops and the shared table).

Every named structured op *is* a `linalg.generic` (`linalg_structured.generic_view`),
and `batch_generic` gives a generic a leading parallel dimension that only
the batched operands' maps read: `structured_generic` batches any named op
that way, and is what the other helpers fall back to. They keep the named op
where its shape allows it, since a named op is what MLIR's CPU and GPU
pipelines tile and vectorise best (a generic matmul reading one operand
transposed is left to loops; see `rules/linalg.py`):

- `linalg_matmul`: a batched lhs alone is one `[B*M,K]x[K,N]` matmul (the
  batch folded into the rows by `tensor.collapse_shape`, the rhs read
  transposed or not); a batched rhs alone is one `[M,K]x[K,B*N]` matmul
  (the batch folded into its columns); both batched are a
  `linalg.batch_matmul`; never a loop over the batch.
- `linalg_batch_matmul`: both batch dimensions folded into one `[B*C,M,K]`.
- `linalg_window` (convolutions, pooling): an unbatched filter lets the batch
  fold into the image's `N` dimension (`[B*N, H, W, C]`), one convolution for
  the whole batch; a batched filter (or an op without `N`) is the generic
  with the extra parallel dimension.
- `linalg_elementwise`, `linalg_transpose`, `linalg_broadcast`,
  `linalg_reduce`, `linalg_softmax`: the same op on `[B, ...]` operands, its
  dimension properties shifted past the batch dimension.
- `linalg_fill`: a fill overwrites its init, so its result never depends on
  the batch.
- `linalg_pack` (`pack`, `unpack`): the batch is one more untiled outer
  dimension, first.

Ops that overwrite their init (the elementwise ops and `map`, `transpose`,
`broadcast`, `softmax`, `fill`) give an unbatched result when no input is
batched: the op is copied onto an unbatched `tensor.empty`. A body reading a
batched value from outside it always goes to the generic view, whose
`batch_generic` refuses it at the op.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from gradir.autodiff_pass.batch_builder import Batched, BatchBuilder, VmapError, unsupported, value_shape
from gradir.autodiff_pass.rules.batching_generic import batch_generic
from gradir.autodiff_pass.rules.linalg_structured import generic_view
from gradir.dialects.linalg_dst_style import BroadcastOp
from gradir.dialects.linalg_matmul import BatchMatmulOp
from gradir.dialects.type_checks import tensor_type


def _input_count(op: Operation) -> int:
    """The ins of a destination-style op on tensors: one init per result follows them."""
    return len(op.operands) - len(op.results)


def _rebuilt(
    builder: BatchBuilder,
    op: Operation,
    operands: Sequence[SSAValue],
    result_types: Sequence,
    **properties,
) -> Operation:
    """`op` again on `operands` with `result_types`, its regions copied and
    `properties` replaced (op classes differ in constructors; `create` does not)."""
    return builder.insert(
        type(op).create(
            operands=list(operands),
            result_types=list(result_types),
            properties={**op.properties, **properties},
            attributes=dict(op.attributes),
            regions=[builder.clone_region(region) for region in op.regions],
        )
    )


def _batched_results(builder: BatchBuilder, op: Operation, operands: Sequence[SSAValue], **properties):
    """`op` on operands that all carry the batch dimension: every result batched."""
    types = [builder.batched_type(r.type) for r in op.results]
    return [(r, True) for r in _rebuilt(builder, op, operands, types, **properties).results]


def _materialized(builder: BatchBuilder, operands, batched) -> list[SSAValue]:
    return [
        builder.materialize(v, b) if isinstance(v.type, TensorType) else v
        for v, b in zip(operands, batched)
    ]


def _unbatched_overwrite(builder: BatchBuilder, op: Operation, operands, batched) -> list[Batched] | None:
    """For an op that overwrites its init: when no input is batched, the op on a
    fresh unbatched init (the result is the same for every example); else None."""
    count = _input_count(op)
    if any(batched[:count]) or _reads_batched_capture(builder, op):
        return None
    # A dynamic size is the init's (its batch dimension, if it has one, is static).
    inits = [
        builder.insert(tensor.EmptyOp(builder.dynamic_sizes(init), r.type)).results[0]
        for r, init in zip(op.results, operands[count:])
    ]
    copy = _rebuilt(builder, op, [*operands[:count], *inits], [r.type for r in op.results])
    return [(r, False) for r in copy.results]


def _reads_batched_capture(builder: BatchBuilder, op: Operation) -> bool:
    return any(
        builder.is_batched_capture(value)  # type: ignore[attr-defined]
        for region in op.regions
        for nested in region.walk()
        for value in nested.operands
    )


def _dense(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


# -- folding the batch into a dimension ---------------------------------------------------


def merge_leading(builder: BatchBuilder, value: SSAValue) -> SSAValue:
    """`[B, N, ...]` -> `[B*N, ...]` (a view after bufferization)."""
    shape = value_shape(value)
    groups = [[0, 1], *([d] for d in range(2, len(shape)))]
    result = tensor_type(value.type.get_element_type(), [shape[0] * shape[1], *shape[2:]])  # type: ignore[attr-defined]
    op = tensor.CollapseShapeOp.build(
        operands=[value], result_types=[result], properties={"reassociation": _groups(groups)}
    )
    return builder.insert(op).results[0]


def split_leading(builder: BatchBuilder, value: SSAValue) -> SSAValue:
    """`[B*N, ...]` -> `[B, N, ...]`, B the batch size."""
    shape = value_shape(value)
    size = builder.size
    target = [size, shape[0] // size, *shape[1:]]
    groups = [[0, 1], *([d + 1] for d in range(1, len(shape)))]
    result = tensor_type(value.type.get_element_type(), target)  # type: ignore[attr-defined]
    return builder.insert(tensor.ExpandShapeOp(value, [], _groups(groups), _dense(target), result)).results[0]


def _groups(groups) -> ArrayAttr:
    return ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in group) for group in groups)


def _folded(builder: BatchBuilder, op: Operation, operands, batched, fold: Sequence[bool]):
    """`op` with the batch folded into the leading dimension of the operands
    `fold` marks (the others must be unbatched); results split again."""
    values = []
    for value, is_batched, folded in zip(operands, batched, fold):
        if folded:
            value = merge_leading(builder, builder.materialize(value, is_batched))
        values.append(value)
    types = []
    for result in op.results:
        shape = value_shape(result)
        types.append(tensor_type(result.type.get_element_type(), [builder.size * shape[0], *shape[1:]]))  # type: ignore[attr-defined]
    new = _rebuilt(builder, op, values, types)
    return [(split_leading(builder, r), True) for r in new.results]


# -- the rules ----------------------------------------------------------------------------


def structured_generic(builder, op, operands, batched):
    """Any named structured op: its generic view with a leading parallel
    dimension (the batched operands' maps read it, the others' ignore it)."""

    view = generic_view(op)
    try:
        # The view copies the op's body: captured values are mapped by batch_generic.
        return batch_generic(builder, view, operands, batched)
    except VmapError as error:  # name the op the user wrote
        error.message = error.message.replace("'linalg.generic'", f"'{op.name}' (as a linalg.generic)", 1)
        raise
    finally:
        view.erase()


def batch_linalg_matmul(builder, op, operands, batched):
    """`C + A B`: a batched A (C batched or not) with an unbatched B is one
    matmul over `[B*M, K]` rows, whatever B's map (B read transposed stays
    so); a batched B with an unbatched A one matmul over `[K, B*N]` columns;
    both batched a `linalg.batch_matmul`; C alone batched, or other indexing
    maps: `structured_generic`."""
    a_batched, b_batched = batched[:2]
    a_map, _, c_map = (m.data for m in op.get_indexing_maps().data)
    rows = a_map.results[0] == AffineExpr.dimension(0) and c_map == _MATMUL_OUTPUT_MAP
    static = _static_shapes(op)
    if a_batched and not b_batched and rows and static and len(value_shape(operands[0])) == 3:
        return _folded(builder, op, operands, batched, [True, False, True])
    b_map = op.get_indexing_maps().data[1].data
    if b_batched and not a_batched and static and b_map == _MATMUL_RHS_MAP and c_map == _MATMUL_OUTPUT_MAP:
        return _folded_into_columns(builder, op, operands, batched)
    if not _has_default_maps(op) or not (a_batched or b_batched):
        return structured_generic(builder, op, operands, batched)
    values = _materialized(builder, operands, batched)
    types = [builder.batched_type(op.results[0].type)]
    product = builder.insert(BatchMatmulOp(values[:2], values[2:], types))
    if "cast" in op.properties:
        product.properties["cast"] = op.properties["cast"]
    return [(product.results[0], True)]


_MATMUL_OUTPUT_MAP = AffineMap(3, 0, (AffineExpr.dimension(0), AffineExpr.dimension(1)))
"""`(i, j, k) -> (i, j)`: C's rows are the loop A's rows are read by."""
_MATMUL_RHS_MAP = AffineMap(3, 0, (AffineExpr.dimension(2), AffineExpr.dimension(1)))
"""`(i, j, k) -> (k, j)`: B's columns are C's."""


def _folded_into_columns(builder: BatchBuilder, op: Operation, operands, batched):
    """`A [M,K]` times a batched `B [Bt,K,N]`: one matmul `[M,K]x[K,Bt*N]` (B's
    batch moved next to its columns and folded into them, C likewise), the
    result split and its batch moved first again: the same real matmul as the
    rows fold, as fast as a batch_matmul of A broadcast (bench/vmap_linalg.py's
    ensemble, 8 x 64x784x256) without copying A once per example."""
    a, b, c = operands
    size = builder.size
    k, n = value_shape(b)[1:]
    m = value_shape(c)[-2]
    columns = builder.reshape(builder.move_axis(b, 0, 1), [k, size * n])
    c_columns = _columns_init(builder, c, batched[2], m, n)
    product = _rebuilt(builder, op, [a, columns, c_columns], [c_columns.type]).results[0]
    return [(builder.move_axis(builder.reshape(product, [m, size, n]), 1, 0), True)]


def _columns_init(builder: BatchBuilder, c: SSAValue, is_batched: bool, m: int, n: int) -> SSAValue:
    """The init `[M, Bt*N]` of `_folded_into_columns`: a constant fill filled
    again at that shape, anything else broadcast (or moved) and folded."""
    size = builder.size
    target = tensor_type(c.type.get_element_type(), [m, size * n])  # type: ignore[attr-defined]
    owner = c.owner
    if not is_batched and isinstance(owner, FillOp) and isinstance(owner.outputs[0].owner, tensor.EmptyOp):
        empty = builder.insert(tensor.EmptyOp([], target)).results[0]
        return builder.insert(FillOp(list(owner.inputs), [empty], [target])).results[0]
    return builder.reshape(builder.move_axis(builder.materialize(c, is_batched), 0, 1), [m, size * n])


def batch_linalg_batch_matmul(builder, op, operands, batched):
    """`[B, C, M, K] x [B, C, K, N]`: both batch dimensions folded into one
    (an unbatched operand broadcast first), one batch matmul."""
    if not _has_default_maps(op) or not (batched[0] or batched[1]) or not _static_shapes(op):
        return structured_generic(builder, op, operands, batched)
    return _folded(builder, op, operands, batched, [True, True, True])


def batch_linalg_window(builder, op, operands, batched):
    """Convolutions and pooling: with the filter (and any zero points)
    unbatched and an `N` dimension leading the image and the output, the
    batch folds into `N`; otherwise `structured_generic`."""
    spec = op.SPEC
    has_n = spec.input_entries[0] == "n" and spec.output.split()[0] == "n"
    count = _input_count(op)
    if not has_n or any(batched[1:count]) or not _static_shapes(op):
        return structured_generic(builder, op, operands, batched)
    fold = [i == 0 or i >= count for i in range(len(operands))]
    return _folded(builder, op, operands, batched, fold)


def batch_linalg_elementwise(builder, op, operands, batched):
    """Named elementwise ops (`linalg.add`, `exp`, `copy`, `map`, ...): every tensor
    input batched -> the same op on `[B, ...]`; some input unbatched ->
    `structured_generic` (its map ignores the batch: nothing is broadcast)."""
    if (unbatched := _unbatched_overwrite(builder, op, operands, batched)) is not None:
        return unbatched
    count = _input_count(op)
    tensors = [i for i in range(count) if isinstance(operands[i].type, TensorType)]
    if len(tensors) != count or not all(batched[i] for i in tensors) or _reads_batched_capture(builder, op):
        # (a body reading a batched value from outside: the generic view's located refusal)
        return structured_generic(builder, op, operands, batched)
    return _batched_results(builder, op, _materialized(builder, operands, batched))


def batch_linalg_transpose(builder, op, operands, batched):
    """`permutation` gains the batch dimension first."""
    if (unbatched := _unbatched_overwrite(builder, op, operands, batched)) is not None:
        return unbatched
    permutation = [0, *(p + 1 for p in op.properties["permutation"].get_values())]
    return _batched_results(builder, op, _materialized(builder, operands, batched), permutation=_dense(permutation))


def batch_linalg_broadcast(builder, op, operands, batched):
    """The added `dimensions` shift by one past the batch dimension."""
    if (unbatched := _unbatched_overwrite(builder, op, operands, batched)) is not None:
        return unbatched
    dimensions = [d + 1 for d in op.properties["dimensions"].get_values()]
    return _batched_results(builder, op, _materialized(builder, operands, batched), dimensions=_dense(dimensions))


def batch_linalg_reduce(builder, op, operands, batched):
    """The reduced `dimensions` shift by one; an unbatched init is broadcast
    (it is the start of every example's reduction). Only the init batched:
    `structured_generic` (the input is not copied per example)."""
    count = _input_count(op)
    if not all(batched[:count]):
        return structured_generic(builder, op, operands, batched)
    dimensions = [d + 1 for d in op.properties["dimensions"].get_values()]
    return _batched_results(builder, op, _materialized(builder, operands, batched), dimensions=_dense(dimensions))


def batch_linalg_softmax(builder, op, operands, batched):
    """`dimension` shifts by one past the batch dimension."""
    if (unbatched := _unbatched_overwrite(builder, op, operands, batched)) is not None:
        return unbatched
    dimension = op.properties["dimension"]
    shifted = IntegerAttr(dimension.value.data + 1, dimension.type)
    return _batched_results(builder, op, _materialized(builder, operands, batched), dimension=shifted)


def batch_linalg_fill(builder, op, operands, batched):
    """A fill overwrites its init: only the scalar matters. A scalar that depends on
    the batch is a `[B]` tensor (a batched 0-d tensor's element: StableHLO's
    select_and_scatter fills with one), broadcast along the fill's dims."""
    unbatched = _unbatched_overwrite(builder, op, operands, batched)
    if unbatched is not None:
        return unbatched
    target = builder.batched_type(op.results[0].type)
    if any(batched[1:]):
        raise unsupported(op, "its fill value depends on the batch")
    init = builder.insert(tensor.EmptyOp(builder.dynamic_sizes(operands[1]), target)).results[0]
    added = DenseArrayBase.from_list(i64, list(range(1, len(target.get_shape()))))
    return [(builder.insert(BroadcastOp(operands[0], init, added)).results[0], True)]


def batch_linalg_pack(builder, op, operands, batched):
    """`linalg.pack` / `unpack` of `[B, ...]` into `[B, ...]`: the batch is one
    more untiled outer dimension, first (`inner_dims_pos` and any
    `outer_dims_perm` shift by one); the padding value and tiles are shared."""
    if any(batched[2:]):
        raise unsupported(op, "its padding value depends on the batch")
    values = [builder.materialize(v, b) for v, b in zip(operands[:2], batched[:2])] + list(operands[2:])
    properties = {"inner_dims_pos": _dense([d + 1 for d in op.properties["inner_dims_pos"].get_values()])}
    if (permutation := op.properties.get("outer_dims_perm")) is not None:
        properties["outer_dims_perm"] = _dense([0, *(d + 1 for d in permutation.get_values())])
    return _batched_results(builder, op, values, **properties)


def _has_default_maps(op: Operation) -> bool:
    """Whether a matmul-family op reads its operands the plain way (no
    transposed or broadcast operand)."""
    maps = op.properties.get("indexing_maps")
    default = type(op).get_irdl_definition().properties["indexing_maps"].default_value
    return maps is None or maps == default


def _static_shapes(op: Operation) -> bool:
    """Whether every tensor `op` reads or writes has a static shape: folding the batch into
    a dimension (`_folded`, `_folded_into_columns`) multiplies static sizes."""
    return all(
        not isinstance(v.type, TensorType) or v.type.has_static_shape() for v in (*op.operands, *op.results)
    )


LINALG_RULE_KINDS = {
    "structured_generic": structured_generic,
    "linalg_matmul": batch_linalg_matmul,
    "linalg_batch_matmul": batch_linalg_batch_matmul,
    "linalg_window": batch_linalg_window,
    "linalg_elementwise": batch_linalg_elementwise,
    "linalg_transpose": batch_linalg_transpose,
    "linalg_broadcast": batch_linalg_broadcast,
    "linalg_reduce": batch_linalg_reduce,
    "linalg_softmax": batch_linalg_softmax,
    "linalg_fill": batch_linalg_fill,
    "linalg_pack": batch_linalg_pack,
}
"""The shape helpers of linalg named ops, merged into `batching.RULE_KINDS`."""


def linalg_op_names() -> set[str]:
    """The linalg ops with a derivative rule: the ones `batching.yaml` may name."""
    from gradir.autodiff_pass.rules.registry import _all_rules

    return {name for name in _all_rules() if name.startswith("linalg.")}
