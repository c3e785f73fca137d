"""Batching rules of the tensor ops that only rearrange or relabel elements,
which linalg programs put between named ops (a conv's output flattened for a
matmul):

- `reassociation` (`tensor.collapse_shape`, `expand_shape`): the batch
  dimension is one more group of its own, first; reshapes whose sizes are
  dynamic (`dynamic_output_shape`) have no rule;
- `cast`: the same cast to the batched type (a cast to a dynamic shape is
  refused: the batch is added through static shapes);
- `concat`: the concatenated `dim` shifts past the batch dimension (an
  unbatched operand broadcast).
"""
from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, i64

from gradir.autodiff_pass.batch_builder import unsupported


def _shifted_groups(reassociation: ArrayAttr) -> ArrayAttr:
    groups = [[0]] + [[d.value.data + 1 for d in group.data] for group in reassociation.data]
    return ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in group) for group in groups)


def batch_reassociation(builder, op, operands, batched):
    """The reshape of `[B, ...]` with `[0]` as its first group and every other
    group's dims one further; an expand's static output shape gains B first."""
    if len(operands) > 1:
        raise unsupported(op, "its output shape is dynamic")
    properties = dict(op.properties)
    properties["reassociation"] = _shifted_groups(op.properties["reassociation"])
    if isinstance(op, tensor.ExpandShapeOp):
        shape = [builder.size, *op.properties["static_output_shape"].get_values()]
        properties["static_output_shape"] = DenseArrayBase.from_list(i64, shape)
    reshaped = op.create(
        operands=list(operands),
        result_types=[builder.batched_type(op.results[0].type)],
        properties=properties,
        attributes=dict(op.attributes),
    )
    return [(builder.insert(reshaped).results[0], True)]


def batch_cast(builder, op, operands, batched):
    """`tensor.cast` to the batched result type."""
    cast = op.create(operands=list(operands), result_types=[builder.batched_type(op.results[0].type)])
    return [(builder.insert(cast).results[0], True)]


def batch_concat(builder, op, operands, batched):
    """`tensor.concat` along `dim + 1`, every operand batched."""
    values = [builder.materialize(v, b) for v, b in zip(operands, batched)]
    dim = op.properties["dim"]
    concat = op.create(
        operands=values,
        result_types=[builder.batched_type(op.results[0].type)],
        properties={"dim": IntegerAttr(dim.value.data + 1, dim.type)},
    )
    return [(builder.insert(concat).results[0], True)]


TENSOR_SHAPE_RULE_KINDS = {"reassociation": batch_reassociation, "cast": batch_cast, "concat": batch_concat}
"""Merged into `batching.RULE_KINDS`."""
