"""Batching rules of `autodiff-vmap`: the shape helpers, the table, registration.

Which op batches how is data (`batching.yaml`: one entry per helper, listing
its ops); the helpers here are the few shapes of rule (JAX's `defvectorized`,
`defbroadcasting`, ...): elementwise, broadcasting, matmul, dimension
properties shifted past the batch dimension, explicit result types, the
`linalg.generic` parallel dimension, calls and inlined regions.

A rule is `rule(builder, op, operands, batched) -> [(value, batched), ...]`:
`operands` are `op`'s operands in the batched function, `batched[i]` says
whether operand `i` has the batch dimension first; it returns one pair per
result of `op`. `register_batching_rule` adds or replaces one (custom ops).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import yaml
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.dialects import scf, tensor
from xdsl.dialects.func import CallOp
from xdsl.ir import Block, Operation, SSAValue

from gradir import compilation_cache
from gradir.autodiff_pass.batch_builder import Batched, BatchBuilder, unsupported, value_shape
from gradir.autodiff_pass.rules.batching_linalg import LINALG_RULE_KINDS, linalg_op_names
from gradir.autodiff_pass.rules.yaml_loader import compose_yaml
from gradir.autodiff_pass.rules.batching_control_flow import OP_NAMES as CONTROL_FLOW_OP_NAMES
from gradir.autodiff_pass.rules.batching_control_flow import RULE_KINDS as CONTROL_FLOW_RULE_KINDS
from gradir.autodiff_pass.rules.batching_control_flow import batch_for_per_lane, batch_if_per_lane, batched_for_loop
from gradir.autodiff_pass.rules.batching_generic import batch_generic
from gradir.autodiff_pass.rules.batching_tensor import (
    INDEX_ARITHMETIC_OPS, batch_extract_slice_per_lane, batch_insert_slice_per_lane,
)
from gradir.autodiff_pass.rules.batching_tensor import OP_NAMES as TENSOR_OP_NAMES
from gradir.autodiff_pass.rules.batching_tensor import RULE_KINDS as TENSOR_RULE_KINDS
from gradir.dialects.forward_ops import (
    FORWARD_OPS,
    BroadcastToOp,
    MatmulOp,
    MulOp,
    ReductionOp,
    SoftmaxFamilyOp,
    SumToSizeOp,
    TransposeOp,
)
from gradir.dialects.type_checks import tensor_type
from gradir.errors import RuleError, reports_internal_errors

BatchingRule = Callable[[BatchBuilder, Operation, list[SSAValue], list[bool]], Sequence[Batched]]

BATCHING_FILE = Path(__file__).with_name("batching.yaml")


def _same_op(builder: BatchBuilder, op: Operation, operands: Sequence[SSAValue]) -> Operation:
    """`op` again on `operands`, every result batched first."""
    return builder.insert(
        type(op).create(
            operands=list(operands),
            result_types=[builder.batched_type(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
    )


def batch_elementwise(builder, op, operands, batched):
    """Operands and results of one shape: unbatched operands broadcast to [B, ...]."""
    values = [builder.materialize(v, b) for v, b in zip(operands, batched)]
    return [(r, True) for r in _same_op(builder, op, values).results]


def batch_broadcasting(builder, op, operands, batched):
    """NumPy-broadcasting ops: batched operands of lower rank get size-1 dims
    after the batch dimension, so their dims align right as before."""
    rank = op.results[0].type.get_num_dims()
    values = [builder.expand_to_rank(v, b, rank) for v, b in zip(operands, batched)]
    return [(r, True) for r in _same_op(builder, op, values).results]


def batch_matmul(builder, op, operands, batched):
    """A batched lhs against an unbatched rank-2 rhs is one `[B*M,K]x[K,N]`
    product; with K = 1 a broadcasting multiply (an outer product); anything
    else a batched product `[B*C,M,K]x[B*C,K,N]` (C: the op's own batch, if
    any), the unbatched side broadcast."""
    (a, b), (a_batched, b_batched) = operands, batched
    size = builder.size
    result = value_shape(op.results[0])
    if a_batched and not b_batched and len(value_shape(b)) == 2:
        a_shape = value_shape(a)
        flat = builder.reshape(a, [size * a_shape[1], a_shape[2]])
        product = builder.insert(MatmulOp(flat, b)).results[0]
        return [(builder.reshape(product, [size, *result]), True)]
    if value_shape(a)[-1] == 1:
        # K = 1 (a per-example weight gradient, x^T g): an outer product, one broadcasting
        # multiply that writes the [B, M, N] result once (a product would zero it first).
        rank = len(result)
        a_full, b_full = (builder.expand_to_rank(v, f, rank) for v, f in ((a, a_batched), (b, b_batched)))
        return [(builder.insert(MulOp(a_full, b_full)).results[0], True)]
    a_full, b_full = builder.materialize(a, a_batched), builder.materialize(b, b_batched)
    a_shape, b_shape = value_shape(a_full), value_shape(b_full)
    if len(a_shape) == 4:  # the op was batched already: fold both batch dims into one
        a_full = builder.reshape(a_full, [size * a_shape[1], *a_shape[2:]])
        b_full = builder.reshape(b_full, [size * b_shape[1], *b_shape[2:]])
    product = builder.insert(MatmulOp(a_full, b_full)).results[0]
    return [(builder.reshape(product, [size, *result]), True)]


def batch_transpose(builder, op, operands, batched):
    assert isinstance(op, TransposeOp)
    permutation = [0, *(p + 1 for p in op.permutation.get_values())]
    return [(builder.insert(TransposeOp(operands[0], permutation)).results[0], True)]


def batch_reduction(builder, op, operands, batched):
    """Reduced dims shift by one; "every dim" becomes every dim but the batch's."""
    assert isinstance(op, ReductionOp)
    dims = [d + 1 for d in op.reduced_dims()]
    reduced = type(op)(operands[0], dims, op.keeps_dims)
    return [(builder.insert(reduced).results[0], True)]


def batch_softmax(builder, op, operands, batched):
    assert isinstance(op, SoftmaxFamilyOp)
    return [(builder.insert(type(op)(operands[0], op.axis + 1)).results[0], True)]


def batch_reshape(builder, op, operands, batched):
    """Explicit result type: the same op to `[B, result shape]`."""
    return [(r, True) for r in _same_op(builder, op, operands).results]


def batch_broadcast_to(builder, op, operands, batched):
    """`[B, xs]` to `[B, target]`: size-1 dims first make the ranks agree."""
    target = value_shape(op.results[0])
    x = builder.expand_to_rank(operands[0], True, len(target))
    result_type = builder.batched_type(op.results[0].type)
    return [(builder.insert(BroadcastToOp(x, result_type)).results[0], True)]


def batch_sum_to_size(builder, op, operands, batched):
    """`[B, xs]` summed to `[B, 1.., target]`, then reshaped to `[B, target]`."""
    x = operands[0]
    target = value_shape(op.results[0])
    leading = len(value_shape(x)) - 1 - len(target)
    element = op.results[0].type.element_type
    summed_type = tensor_type(element, [builder.size, *([1] * leading), *target])
    summed = builder.insert(SumToSizeOp(x, summed_type)).results[0]
    return [(builder.reshape(summed, [builder.size, *target]), True)]


def batch_call(builder, op, operands, batched):
    """A call batches its callee: batched arguments first-dim, results batched."""
    assert isinstance(op, CallOp)
    callee = builder.batched_callee(op, batched)
    call = CallOp(
        callee.sym_name.data, list(operands), list(callee.function_type.outputs.data)
    )
    return [(r, True) for r in builder.insert(call).results]


def batch_inline_region(builder, op, operands, batched):
    """`grad_of`: its body, with the block arguments bound to the operands."""
    return builder.batch_block(op.regions[0].block, list(zip(operands, batched)))


def batch_slice(builder, op, operands, batched):
    """`tensor.extract_slice` / `insert_slice` (reverse mode's loop caches): the
    whole batch dimension is prepended to the slice (offset 0, size B, stride
    1); offsets that depend on the batch: one row per lane, gathered or scattered
    (`batch_extract_slice_per_lane`, `batch_insert_slice_per_lane`)."""
    tensors = 1 if isinstance(op, tensor.ExtractSliceOp) else 2
    if any(batched[tensors:]) and isinstance(op, tensor.ExtractSliceOp):
        return batch_extract_slice_per_lane(builder, op, operands, batched)
    if any(batched[tensors:]):
        return batch_insert_slice_per_lane(builder, op, operands, batched)
    values = [builder.materialize(v, b) for v, b in zip(operands[:tensors], batched)]
    properties = dict(op.properties)
    for name, first in (("static_offsets", 0), ("static_sizes", builder.size), ("static_strides", 1)):
        properties[name] = DenseArrayBase.from_list(i64, [first, *op.properties[name].get_values()])
    sliced = op.create(
        operands=values + list(operands[tensors:]),
        result_types=[builder.batched_type(op.results[0].type)],
        properties=properties,
        attributes=dict(op.attributes),
    )
    return [(builder.insert(sliced).results[0], True)]


def batch_for(builder, op, operands, batched):
    """`scf.for` with unbatched bounds: see `batched_for_loop`; an upper bound
    that depends on the batch: `batch_for_per_lane`."""
    assert isinstance(op, scf.ForOp)
    if any(batched[:3]):
        return batch_for_per_lane(builder, op, operands, batched)
    return batched_for_loop(builder, op.body.block, operands[:3], operands[3:], batched[3:])


def batch_if(builder, op, operands, batched):
    """`scf.if` on an unbatched condition: both branches batched; a result is
    batched when either branch yields a batched value (the other broadcasts).
    On a batched condition: `batch_if_per_lane` (a per-lane select)."""
    assert isinstance(op, scf.IfOp)
    if batched[0]:
        return batch_if_per_lane(builder, op, operands, batched)
    outer = builder.block
    branches = []
    for region in (op.true_region, op.false_region):
        block = Block()
        builder.block = block
        try:
            yielded = builder.batch_block(region.block, []) if region.blocks else []
        finally:
            builder.block = outer
        branches.append((block, yielded))
    flags = [any(y[i][1] for _, y in branches) for i in range(len(op.results))]
    for block, yielded in branches:
        builder.block = block
        try:
            block.add_op(scf.YieldOp(*(builder.materialize(v, b) if f else v
                                       for (v, b), f in zip(yielded, flags))))
        finally:
            builder.block = outer
    types = [builder.batched_type(r.type) if f else r.type for r, f in zip(op.results, flags)]
    new = builder.insert(scf.IfOp(operands[0], types, [branches[0][0]], [branches[1][0]]))
    return list(zip(new.results, flags))


RULE_KINDS: dict[str, BatchingRule] = {
    "elementwise": batch_elementwise,
    "broadcasting": batch_broadcasting,
    "matmul": batch_matmul,
    "transpose": batch_transpose,
    "reduction": batch_reduction,
    "softmax": batch_softmax,
    "reshape": batch_reshape,
    "broadcast_to": batch_broadcast_to,
    "sum_to_size": batch_sum_to_size,
    "generic": batch_generic,
    "call": batch_call,
    "inline_region": batch_inline_region,
    "slice": batch_slice,
    "for": batch_for,
    "if": batch_if,
    **LINALG_RULE_KINDS,
}
RULE_KINDS |= TENSOR_RULE_KINDS | CONTROL_FLOW_RULE_KINDS
"""The shape helpers `batching.yaml` names."""


def _known_op_names() -> set[str]:
    from gradir.autodiff_pass.rules.yaml_loader import STANDARD_OPS
    from gradir.dialects.autodiff import AD_OPS

    names = {op.name for op in (*FORWARD_OPS, *STANDARD_OPS, *AD_OPS)}
    names |= linalg_op_names()
    return names | {"arith.cmpf", "linalg.generic", "func.call", "scf.for", "scf.if",
                     "tensor.extract_slice", "tensor.insert_slice"} | (
        TENSOR_OP_NAMES | CONTROL_FLOW_OP_NAMES | INDEX_ARITHMETIC_OPS)


def load_batching_rules(path: str | Path = BATCHING_FILE) -> dict[str, BatchingRule]:
    """Load and validate a batching table; a RuleError names the file and line."""
    path = str(path)
    try:
        document = compose_yaml(Path(path).read_text())
    except OSError as error:
        raise RuleError(f"cannot read batching rules: {error.strerror}", path) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        raise RuleError(f"malformed YAML: {getattr(error, 'problem', error)}", where) from None

    def fail(node: yaml.Node, message: str) -> RuleError:
        return RuleError(message, f"{path}:{node.start_mark.line + 1}:{node.start_mark.column + 1}")

    if not isinstance(document, yaml.SequenceNode):
        raise RuleError("the batching file must be a list of entries", path)
    known = _known_op_names()
    rules: dict[str, BatchingRule] = {}
    for entry in document.value:
        if not isinstance(entry, yaml.MappingNode):
            raise fail(entry, "each entry must be a mapping with 'rule' and 'ops'")
        keys = {key.value: value for key, value in entry.value}
        if set(keys) != {"rule", "ops"}:
            raise fail(entry, f"an entry has exactly the keys 'rule' and 'ops', got {sorted(keys)}")
        kind = keys["rule"]
        if not isinstance(kind, yaml.ScalarNode) or kind.value not in RULE_KINDS:
            raise fail(
                kind, f"unknown batching rule {getattr(kind, 'value', kind)!r} "
                f"(known: {', '.join(RULE_KINDS)})"
            )
        ops = keys["ops"]
        if not isinstance(ops, yaml.SequenceNode):
            raise fail(ops, "'ops' must be a list of op names")
        for item in ops.value:
            name = item.value if "." in item.value else f"autodiff.{item.value}"
            if name not in known:
                raise fail(item, f"unknown op '{name}'")
            if name in rules:
                raise fail(item, f"'{name}' is listed twice")
            rules[name] = RULE_KINDS[kind.value]
    missing = sorted(op.name for op in FORWARD_OPS if op.name not in rules)
    if missing:
        raise RuleError(f"forward ops without a batching rule: {', '.join(missing)}", path)
    return rules


_rules: dict[str, BatchingRule] | None = None


def _all_rules() -> dict[str, BatchingRule]:
    global _rules
    if _rules is None:
        _rules = load_batching_rules()
    return _rules


def get_batching_rule(op_name: str) -> BatchingRule | None:
    """The batching rule of `op_name`, or None when it has none."""
    return _all_rules().get(op_name)


@reports_internal_errors
def register_batching_rule(op_name: str, rule: BatchingRule) -> None:
    """Register (or replace) the batching rule of `op_name`, of any dialect.

    `rule(builder, op, operands, batched)` inserts ops with `builder.insert`
    (helpers: `builder.size`, `batched_type`, `materialize`, `reshape`,
    `move_axis`) and returns one `(value, is_batched)` pair per result of `op`;
    batched values carry the batch dimension first."""
    from gradir.autodiff_pass.rules.registry import _check_registration

    _check_registration("register_batching_rule", op_name, rule)
    compilation_cache.note_custom_rule()
    _all_rules()[op_name] = rule
