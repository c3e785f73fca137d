"""What a batching rule builds with: the batch size, shape helpers, and the walk.

Inside a batched function every batched value carries its batch dimension
first (`[B, ...]`); an unbatched value is the same for every example and keeps
its type. A batched scalar (an element read from a batched tensor, a loop
condition computed from one) is the tensor `tensor<B x type>`: one value per
example, the same layout as a batched rank-0 tensor. A rule (`rules/batching.py`) gets the op, its operands as they are
in the batched function and one flag per operand (batched or not), inserts
ops with the builder, and returns one (value, batched) pair per result.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    AffineMapAttr, AnyFloat, ArrayAttr, DenseArrayBase, IndexType, IntegerType, TensorType, i64,
)
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IteratorTypeAttr, YieldOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from gradir.autodiff_pass import ir_building
from gradir.dialects.ad_ops import AutogradZeroOp
from gradir.dialects.forward_ops import BroadcastToOp, ReshapeOp, TransposeOp
from gradir.dialects.linalg_dst_style import BroadcastOp
from gradir.dialects.linalg_dst_style import TransposeOp as LinalgTransposeOp
from gradir.dialects.type_checks import is_float_tensor, tensor_type
from gradir.errors import DifferentiationError, GradirError, error_at

def is_scalar_type(type_: Attribute) -> bool:
    """A float, integer or index type: what a batched scalar holds per example."""
    return isinstance(type_, (AnyFloat, IntegerType, IndexType))


def value_shape(value: SSAValue) -> list[int]:
    """The static sizes of a tensor value, as a list the batching rules extend."""
    assert isinstance(value.type, TensorType)
    return list(value.type.get_shape())


Batched = tuple[SSAValue, bool]
"""A value of the batched function and whether it has the batch dimension first."""


class VmapError(DifferentiationError):
    """An op `autodiff-vmap` cannot batch, or a malformed `autodiff.vmap`."""


def unsupported(op: Operation, why: str = "") -> GradirError:
    """The one error for an op without a batching rule (or a case its rule refuses)."""
    from gradir.autodiff_pass.derivative_functions import display_name

    suffix = f" ({why})" if why else ""
    return error_at(VmapError, op, f"vmap of '{display_name(op)}' is not supported{suffix}")


class BatchBuilder:
    """Inserts the batched function's ops; `size` is the batch size."""

    def __init__(
        self,
        size: int,
        block: Block,
        batch_block: Callable[[Block, Sequence[Batched]], list[Batched]],
        batched_callee: Callable[[Operation, Sequence[bool]], FuncOp],
    ):
        self.size = size
        self.block = block
        """Where ops are appended (a rule with regions may point it elsewhere)."""
        self.current: Operation | None = None
        """The op being batched: inserted ops take its location."""
        self._batch_block = batch_block
        self._batched_callee = batched_callee
        self.value_map: dict[SSAValue, SSAValue] = {}
        """The callee's values -> theirs in the batched function (set by the
        function's batcher): what a region copied into it must read instead."""
        self.kept_lanes: SSAValue | None = None
        """While batching code that runs on every lane though only some keep its result
        (a branch on a batched condition, a loop body past some lanes' end):
        `tensor<B x i1>`, true on the lanes that keep it
        (`batching_control_flow.keeping_only`). Reads and writes at per-lane indices move
        the other lanes' indices to 0, so that they stay in bounds."""

    def insert(self, op: Operation) -> Operation:
        if self.current is not None:
            op.location = self.current.location
        self.block.add_op(op)
        return op

    def batched_type(self, type_: Attribute) -> TensorType:
        """`type_` with the batch dimension first (a scalar: `tensor<B x type_>`)."""
        if is_scalar_type(type_):
            return TensorType(type_, [self.size])
        if not isinstance(type_, TensorType):
            assert self.current is not None
            raise unsupported(self.current, f"a batched value of type {type_} is not a tensor")
        return tensor_type(type_.element_type, [self.size, *type_.get_shape()])

    # -- shape helpers ---------------------------------------------------------

    def reshape(self, value: SSAValue, shape: Sequence[int]) -> SSAValue:
        type_ = value.type
        assert isinstance(type_, TensorType)
        if tuple(type_.get_shape()) == tuple(shape):
            return value
        self._expect_float(value, "reshape")
        return self.insert(ReshapeOp(value, tensor_type(type_.element_type, shape))).results[0]

    def transpose(self, value: SSAValue, permutation: Sequence[int]) -> SSAValue:
        if list(permutation) == sorted(permutation):
            return value
        type_ = value.type
        if isinstance(type_, TensorType) and not (type_.has_static_shape() and is_float_tensor(type_)):
            # Sizes known only at run time, or integers (`autodiff.transpose` takes float
            # tensors of static shape): a `linalg.transpose` into a tensor of the permuted sizes.
            sizes = ir_building.extents(self, value)  # type: ignore[arg-type]
            permuted = tensor_type(type_.element_type, [type_.get_shape()[p] for p in permutation])
            init = ir_building.empty_of(self, permuted, [sizes[p] for p in permutation])  # type: ignore[arg-type]
            if not isinstance(type_.element_type, AnyFloat):
                inverse = [list(permutation).index(d) for d in range(len(permutation))]
                read = AffineMap(len(permutation), 0, tuple(AffineExpr.dimension(k) for k in inverse))
                return self._copying_generic(value, init, read)
            order = DenseArrayBase.from_list(i64, list(permutation))
            return self.insert(LinalgTransposeOp(value, init, order)).results[0]
        self._expect_float(value, "transpose")
        return self.insert(TransposeOp(value, permutation)).results[0]

    def _copying_generic(self, value: SSAValue, init: SSAValue, read: AffineMap) -> SSAValue:
        """`init` filled by a `linalg.generic` that copies the element of `value` at `read`
        (of `init`'s indices): a transpose or a broadcast of a tensor of `index` (xDSL's
        `linalg.transpose` and `linalg.broadcast` build float and integer bodies only) or of
        integers (`autodiff.transpose` takes floats)."""
        rank = init.type.get_num_dims()  # type: ignore[union-attr]
        body = Block(arg_types=[value.type.element_type, init.type.element_type])  # type: ignore[union-attr]
        body.add_op(YieldOp(body.args[0]))
        maps = ArrayAttr([AffineMapAttr(read), AffineMapAttr(AffineMap.identity(rank))])
        generic = GenericOp([value], [init], Region(body), maps, ArrayAttr([IteratorTypeAttr.parallel()] * rank),
                            [init.type])  # fmt: skip
        return self.insert(generic).results[0]

    def _broadcast_copies(self, value: SSAValue, init: SSAValue) -> SSAValue:
        """`value` copied into each example of `init` (the batch dimension first)."""
        if isinstance(value.type.element_type, IndexType):  # type: ignore[union-attr]
            rank = init.type.get_num_dims()  # type: ignore[union-attr]
            read = AffineMap(rank, 0, tuple(AffineExpr.dimension(d) for d in range(1, rank)))
            return self._copying_generic(value, init, read)
        return self.insert(BroadcastOp(value, init, DenseArrayBase.from_list(i64, [0]))).results[0]

    def move_axis(self, value: SSAValue, source: int, destination: int) -> SSAValue:
        """`value` with its dimension `source` moved to position `destination`."""
        assert isinstance(value.type, TensorType)
        order = [d for d in range(value.type.get_num_dims()) if d != source]
        order.insert(destination, source)
        return self.transpose(value, order)

    def materialize(self, value: SSAValue, batched: bool) -> SSAValue:
        """`value` with the batch dimension first: an unbatched value is
        broadcast (the same for every example)."""
        if batched:
            return value
        target = self.batched_type(value.type)
        if not target.has_static_shape():
            return self._materialize_dynamic(value, target)
        # Nothing to copy: an uninitialised tensor, a symbolic zero.
        if isinstance(value.owner, tensor.EmptyOp) and not value.owner.operands:
            return self.insert(tensor.EmptyOp([], target)).results[0]
        if isinstance(value.owner, AutogradZeroOp):
            return self.insert(AutogradZeroOp(target)).results[0]
        if not isinstance(value.type, TensorType):  # a scalar: one copy per example
            empty = self.insert(tensor.EmptyOp([], target)).results[0]
            if isinstance(value.type, IndexType):  # linalg.fill takes no index in xDSL
                body = Block(arg_types=[value.type])
                body.add_op(YieldOp(value))
                lanes = AffineMapAttr(AffineMap.identity(1))
                return self.insert(GenericOp(
                    [], [empty], Region(body), ArrayAttr([lanes]),
                    ArrayAttr([IteratorTypeAttr.parallel()]), [target],
                )).results[0]
            return self.insert(FillOp([value], [empty], [target])).results[0]
        if isinstance(value.owner, FillOp) and isinstance(value.owner.outputs[0].owner, tensor.EmptyOp):
            # A constant init (a matmul's zeros): filled again at the batched shape.
            init = self.insert(tensor.EmptyOp([], target)).results[0]
            return self.insert(FillOp(list(value.owner.inputs), [init], [target])).results[0]
        if is_float_tensor(value.type):
            return self.insert(BroadcastToOp(value, target)).results[0]
        init = self.insert(tensor.EmptyOp([], target)).results[0]
        return self._broadcast_copies(value, init)

    def _materialize_dynamic(self, value: SSAValue, target: TensorType) -> SSAValue:
        """`materialize` of a tensor of run-time sizes (a loop's tape, `tensor.empty(%n)`):
        the batched tensor takes its sizes from `tensor.dim` of the value (from the empty's
        own sizes when it is one), then each example gets a copy (`linalg.broadcast`)."""
        assert isinstance(value.type, TensorType)
        if isinstance(value.owner, tensor.EmptyOp):
            return self.insert(tensor.EmptyOp(list(value.owner.operands), target)).results[0]
        init = self.insert(tensor.EmptyOp(self.dynamic_sizes(value), target)).results[0]
        return self._broadcast_copies(value, init)

    def dynamic_sizes(self, value: SSAValue) -> list[SSAValue]:
        """The sizes of `value`'s dynamic dims, read with `tensor.dim` (a `tensor.empty`
        of its shape needs them)."""
        assert isinstance(value.type, TensorType)
        return ir_building.dynamic_sizes(self, value)  # type: ignore[arg-type]  (inserts as a Builder does)

    def expand_to_rank(self, value: SSAValue, batched: bool, rank: int) -> SSAValue:
        """A batched `value` of logical rank < `rank` reshaped to `[B, 1.., shape]`,
        so that NumPy broadcasting (aligned right) still pairs its dims with the
        others' and the batch dimensions line up; unbatched values stay."""
        assert isinstance(value.type, TensorType)
        if not batched:
            return value
        shape = list(value.type.get_shape())
        missing = rank + 1 - len(shape)
        return self.reshape(value, [shape[0], *([1] * missing), *shape[1:]])

    def clone_region(self, region: Region) -> Region:
        """A copy of `region` whose ops read the batched function's values for the
        callee's values it captures (a plain clone would still read the callee's)."""
        copy = Region()
        region.clone_into(copy, value_mapper=dict(self.value_map))
        return copy

    def _expect_float(self, value: SSAValue, what: str) -> None:
        if not is_float_tensor(value.type):
            assert self.current is not None
            raise unsupported(
                self.current, f"cannot {what} a batched value of type {value.type}"
            )

    # -- recursion -----------------------------------------------------------

    def batch_block(self, block: Block, arguments: Sequence[Batched]) -> list[Batched]:
        """Batch the ops of `block` (its arguments bound to `arguments`) into the
        current insertion block; return its terminator's operands, batched."""
        saved = self.current
        try:
            return self._batch_block(block, arguments)
        finally:
            self.current = saved

    def batched_callee(self, call: Operation, batched: Sequence[bool]) -> FuncOp:
        """The batched version of `call`'s callee (batched arguments first-dim
        batched, every result batched first)."""
        return self._batched_callee(call, batched)
