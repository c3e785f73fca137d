"""`arith` and `math` ops on tensors of dynamic shape, and `tensor.splat` to one, become
`linalg.generic`s before differentiation.

The derivative rules of elementwise ops on tensors (derivatives.yaml's formulas) build
their constants and broadcasts from static shapes, so `math.exp %x : tensor<?xf64>` was
refused ("not supported yet: give it static shapes"), while the same computation written as
a `linalg.generic` (what torch-mlir and the StableHLO lowering emit) was differentiated:
the generic rules take dynamic shapes. So, in the derivative function's copy of the primal
(as `hoist_branch_gathers` does; the user's function stays as written), each such op
becomes the generic it means: its operands as inputs, one `tensor.empty` per result of the
operands' run-time sizes (`tensor.dim` of the first operand) as outputs, and a body
applying the same op, with its attributes, to the elements. A `tensor.splat` of a scalar
to a dynamic shape becomes a generic with no input whose body yields the scalar (captured,
as the generic rules take). Ops on static shapes keep the rules they have.
"""

from __future__ import annotations

from gradir.autodiff_pass.ir_building import dynamic_sizes
from gradir.dialects.type_checks import dynamic_dims
from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import AffineMapAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import Block, Operation, Region
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

_DIALECTS = ("arith.", "math.")


def _is_dynamic_elementwise(op: Operation) -> bool:
    """An `arith`/`math` op whose results and tensor operands are tensors of one dynamic
    shape (other operands are scalars: `arith.select`'s condition)."""
    if not op.name.startswith(_DIALECTS) or not op.results or op.regions:
        return False
    tensors = [v for v in op.operands if isinstance(v.type, TensorType)]
    values = [*tensors, *op.results]
    if not tensors or not all(isinstance(v.type, TensorType) for v in values):
        return False
    shapes = {tuple(v.type.get_shape()) for v in values}
    return len(shapes) == 1 and bool(dynamic_dims(op.results[0].type))


def elementwise_ops_as_generics(block: Block) -> None:
    """Rewrite each `arith`/`math` op on dynamically shaped tensors in `block` and in its
    nested regions (not in generic bodies, whose ops are on scalars), and each splat to a
    dynamic shape, as a `linalg.generic`."""
    for op in list(block.walk()):
        if _is_dynamic_elementwise(op):
            _as_generic(op)
        elif isinstance(op, tensor.SplatOp) and dynamic_dims(op.result.type):
            _splat_as_generic(op)


def _splat_as_generic(op: tensor.SplatOp) -> None:
    at = Builder(InsertPoint.before(op))
    result_type = op.result.type
    assert isinstance(result_type, TensorType)
    init = at.insert(tensor.EmptyOp(list(op.dynamicSizes), result_type)).tensor
    body = Block(arg_types=[result_type.get_element_type()])
    body.add_op(YieldOp(op.input))
    rank = len(result_type.get_shape())
    generic = GenericOp(
        [], [init], Region(body), [AffineMapAttr(AffineMap.identity(rank))],
        [IteratorTypeAttr.parallel()] * rank, [result_type],
    )  # fmt: skip
    at.insert(generic)
    Rewriter.replace_op(op, [], generic.results)


def _as_generic(op: Operation) -> None:
    at = Builder(InsertPoint.before(op))
    inputs = [v for v in op.operands if isinstance(v.type, TensorType)]
    shape_type = op.results[0].type
    assert isinstance(shape_type, TensorType)
    sizes = dynamic_sizes(at, inputs[0])  # every tensor operand and result has its shape
    results = [r.type for r in op.results]
    inits = [at.insert(tensor.EmptyOp(sizes, result_type)).tensor for result_type in results]
    body = Block(arg_types=[v.type.get_element_type() for v in (*inputs, *op.results)])
    elements = iter(body.args)
    # A tensor operand is read element by element; a scalar one is captured as it is.
    operands = [next(elements) if isinstance(v.type, TensorType) else v for v in op.operands]
    scalar = type(op).create(
        operands=operands,
        result_types=[t.get_element_type() for t in results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    body.add_ops([scalar, YieldOp(*scalar.results)])
    rank = len(shape_type.get_shape())
    identity = AffineMapAttr(AffineMap.identity(rank))
    generic = GenericOp(
        inputs, inits, Region(body), [identity] * (len(inputs) + len(results)),
        [IteratorTypeAttr.parallel()] * rank, results,
    )  # fmt: skip
    at.insert(generic)
    Rewriter.replace_op(op, [], generic.results)
