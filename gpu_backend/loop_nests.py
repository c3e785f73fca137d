"""A bufferized `linalg.generic` as a loop nest, and the IR builders every mapping strategy uses.

`nest_of_generic` reads a generic on memrefs into a `Nest` (static ranges, reduction dims,
operands and indexing maps); `clone_body` makes its region a `Payload` that emits one point's
computation, with `fastmath<contract>` on float arithmetic so LLVM emits FMA. The builders read
and write elements through `memref.subview`s straight into the whole buffer (kernels take plain
static memrefs, the bare-pointer convention, and the offsets as scalar arguments), nest `scf.for`
loops carrying values, and emit the 1-D `gpu.launch` most strategies use (`emit_launch`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import affine, arith, gpu, memref, scf

from gradir.errors import PipelineError
from gradir.gpu_backend.tile_policy import TilePolicy
from gradir.mlir_bridge import location_text

Payload = Callable[[list[ir.Value], list[ir.Value]], list[ir.Value]]
"""Emits one point's computation: (values of the body's block arguments, loop indices) -> yields."""

CONTRACTABLE_OPS = {"arith.addf", "arith.subf", "arith.mulf", "arith.negf"}


@dataclass
class Nest:
    """A perfectly nested loop, read from a `linalg.generic` on memrefs."""

    ranges: list[int]
    """Per loop dim its extent; negative (MLIR's dynamic size) when known only at run time
    (`run_time_mapping`; every other strategy needs them all)."""
    reduction_dims: list[int]
    operands: list[ir.Value]
    maps: list[ir.AffineMap]
    num_inputs: int
    body: ir.Block | None
    """The generic's region; None for copies and fills built without one."""
    location: ir.Location
    initial_values: dict[int, ir.Value] = field(default_factory=dict)
    """Output index -> value the accumulator starts from (a folded fill); else the output is read."""
    epilogue: Callable[[Sequence[ir.Value], list], None] | None = None
    """Stores the outputs at a point in place of `store_outputs`' plain stores (a fused
    elementwise consumer, `epilogue_fusion`)."""

    def reads_output(self, output: int) -> bool:
        if self.body is None:
            return False
        return len(list(self.body.arguments[self.num_inputs + output].uses)) > 0

    @property
    def outputs(self) -> list[ir.Value]:
        return self.operands[self.num_inputs :]

    @property
    def parallel_dims(self) -> list[int]:
        """Parallel dims, outermost first, ordered by the first output's layout (coalescing);
        in loop order for a generic with no output (one left only to check its inputs:
        torch-mlir's gathers `cf.assert` each index)."""
        if len(self.maps) == self.num_inputs:
            return [d for d in range(len(self.ranges)) if d not in self.reduction_dims]
        out_map = self.maps[self.num_inputs]
        ordered = [e.position for e in out_map.results if isinstance(e, ir.AffineDimExpr)]
        ordered = [d for d in ordered if d not in self.reduction_dims]
        rest = [
            d for d in range(len(self.ranges)) if d not in ordered and d not in self.reduction_dims
        ]
        return rest + ordered

    @property
    def run_time(self) -> bool:
        return any(r < 0 for r in self.ranges)

    def size(self, dims: Sequence[int]) -> int:
        return math.prod(self.ranges[d] for d in dims)


def nest_of_generic(op: ir.OpView) -> Nest:
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    iterators = [str(a) for a in op.attributes["iterator_types"]]
    operands = list(op.inputs) + list(op.outputs)
    ranges: list[int | None] = [None] * len(iterators)
    for value, amap in zip(operands, maps):
        if not isinstance(value.type, ir.MemRefType):
            continue
        shape = ir.MemRefType(value.type).shape
        for extent, expr in zip(shape, amap.results):
            if isinstance(expr, ir.AffineDimExpr):
                dim = ir.AffineDimExpr(expr).position
                if ranges[dim] is None or ranges[dim] < 0:  # a static extent wins
                    ranges[dim] = extent
    if any(r is None for r in ranges):
        raise PipelineError(
            "gpu-map: cannot map a linalg.generic with a loop dimension no operand indexes onto "
            "the GPU",
            location_text(op.location),
        )
    # A loop marked "reduction" that every output indexes (IREE's transposes write one) visits
    # each output element once: a parallel loop, which the reduction mappings must not see.
    output_maps = maps[len(op.inputs):]
    indexed = [
        {ir.AffineDimExpr(e).position for e in m.results if isinstance(e, ir.AffineDimExpr)} for m in output_maps
    ]
    return Nest(
        ranges=list(ranges),
        reduction_dims=[d for d, it in enumerate(iterators) if "reduction" in it and not all(d in i for i in indexed)],
        operands=operands,
        maps=maps,
        num_inputs=len(op.inputs),
        body=op.regions[0].blocks[0],
        location=op.location,
    )


VIEW_OPS = {
    "memref.expand_shape",
    "memref.collapse_shape",
    "memref.subview",
    "memref.cast",
    "memref.reinterpret_cast",
    "memref.reshape",
    "memref.view",
    "memref.extract_strided_metadata",  # its first result: the base of the same buffer
}
"""Ops that only make a new descriptor for existing memory: fine on the host."""


def buffer_root(value: ir.Value) -> ir.Value:
    """The buffer a (possibly viewed) memref value lives in. A loop's state is updated in
    place (`loop_states`), so an `scf.for` or `scf.while` result is the buffer the loop
    started from."""
    while not isinstance(value.owner, ir.Block):
        owner = value.owner
        if owner.name in VIEW_OPS:
            value = owner.operands[0]
        elif owner.name == "scf.for":
            value = owner.operands[3 + ir.OpResult(value).result_number]
        elif owner.name == "scf.while":
            value = owner.operands[ir.OpResult(value).result_number]
        else:
            break
    return value


# ---------------------------------------------------------------- small IR builders


def index(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), value).result


def delinearize(linear: ir.Value, sizes: Sequence[int | ir.Value]) -> list[ir.Value]:
    """Split a linear index into coordinates, the last size varying fastest (sizes: ints or
    run-time index values)."""
    coords: list[ir.Value] = []
    rest = linear
    for i, size in reversed(list(enumerate(sizes))):
        if i == 0:
            coords.append(rest)
        else:
            coords.append(arith.remui(rest, _as_index(size)))
            rest = arith.divui(rest, _as_index(size))
    return list(reversed(coords))


def apply_map(amap: ir.AffineMap, dims: Sequence[ir.Value]) -> list[ir.Value]:
    indices = []
    for expr in amap.results:
        if isinstance(expr, ir.AffineDimExpr):
            indices.append(dims[ir.AffineDimExpr(expr).position])
        elif isinstance(expr, ir.AffineConstantExpr):
            indices.append(index(ir.AffineConstantExpr(expr).value))
        else:
            single = ir.AffineMap.get(amap.n_dims, 0, [expr])
            indices.append(affine.AffineApplyOp(single, list(dims)).result)
    return indices


def dims_of(expr: ir.AffineExpr) -> set[int]:
    """The loop dims an affine expression reads."""
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position}
    if isinstance(expr, ir.AffineBinaryExpr):
        return dims_of(expr.lhs) | dims_of(expr.rhs)
    return set()


def through_views(value: ir.Value, indices: list[ir.Value]) -> tuple[ir.Value, list[ir.Value]]:
    """The buffer under a chain of `memref.subview`s and static reshapes of `value`, and
    the indices there of element `indices` of `value`. Kernels then take the whole buffer
    (a plain static memref, as the bare-pointer convention needs) and the offsets (host
    integers, such as a loop's slice position) as scalar arguments. A reshape of a slice at
    a loop's position (a state row `tensor<4xf64>` seen as `tensor<1x4xf64>`) has a dynamic
    offset too, which the bare-pointer convention cannot pass."""
    while not isinstance(value.owner, ir.Block):
        view = value.owner
        if view.name == "memref.subview":
            value, indices = view.operands[0], _through_subview(view, ir.MemRefType(value.type).shape, indices)
        elif view.name in _RESHAPES and _static(view):
            value, indices = _through_reshape(view, indices)
        else:
            break
    return value, indices


def _through_subview(view: ir.Operation, shape: list[int], indices: list[ir.Value]) -> list[ir.Value]:
    """The indices in a subview's source of element `indices` of the subview (of `shape`)."""
    offsets = _view_parameters(view, "static_offsets", "offsets")
    strides = _view_parameters(view, "static_strides", "strides")
    sizes = list(ir.DenseI64ArrayAttr(view.attributes["static_sizes"]))
    kept = _kept_dims(sizes, shape)
    source_indices: list[ir.Value] = []
    position = 0
    for dim, (offset, stride) in enumerate(zip(offsets, strides)):
        if dim in kept:
            scaled = indices[position] if stride == 1 else arith.muli(indices[position], _as_index(stride))
            source_indices.append(arith.addi(_as_index(offset), scaled) if offset != 0 else scaled)
            position += 1
        else:
            source_indices.append(_as_index(offset))
    return source_indices


_RESHAPES = {"memref.expand_shape", "memref.collapse_shape"}


def _static(reshape: ir.Operation) -> bool:
    return all(ir.MemRefType(v.type).has_static_shape for v in (reshape.operands[0], reshape.results[0]))


def _through_reshape(reshape: ir.Operation, indices: list[ir.Value]) -> tuple[ir.Value, list[ir.Value]]:
    """The source of an expand or collapse of static shape, and the indices there of element
    `indices` of its result: each group of expanded dims is one collapsed dim, row-major."""
    source = reshape.operands[0]
    groups = [[ir.IntegerAttr(d).value for d in group] for group in ir.ArrayAttr(reshape.attributes["reassociation"])]
    if reshape.name == "memref.expand_shape":
        shape = ir.MemRefType(reshape.results[0].type).shape
        return source, [_linearize([indices[d] for d in group], [shape[d] for d in group]) for group in groups]
    shape = ir.MemRefType(source.type).shape
    if not groups:  # all of a 1x...x1 source collapsed to 0-d: no group, one index 0 per dim
        return source, [index(0) for _ in shape]
    source_indices: list[ir.Value] = []
    for group, collapsed in zip(groups, indices):
        source_indices.extend(delinearize(collapsed, [shape[d] for d in group]))
    return source, source_indices


def _linearize(coordinates: list[ir.Value], sizes: list[int]) -> ir.Value:
    """The row-major linear index of `coordinates` in a box of `sizes`."""
    linear = coordinates[0]
    for coordinate, size in zip(coordinates[1:], sizes[1:]):
        linear = arith.addi(arith.muli(linear, index(size)), coordinate)
    return linear


def _view_parameters(view: ir.Operation, static: str, dynamic: str) -> list:
    """Static ints, or the dynamic operand where the static entry is the dynamic marker."""
    values = list(ir.DenseI64ArrayAttr(view.attributes[static]))
    operands = iter(getattr(view.opview, dynamic))
    dynamic_marker = ir.ShapedType.get_dynamic_stride_or_offset()
    return [next(operands) if v == dynamic_marker else v for v in values]


def _kept_dims(sizes: list[int], result_shape: list[int]) -> set[int]:
    """Which source dims a (rank-reducing) subview keeps: matched greedily, dropped dims are 1."""
    if len(sizes) == len(result_shape):
        return set(range(len(sizes)))
    kept, position = set(), 0
    for dim, size in enumerate(sizes):
        if position < len(result_shape) and size == result_shape[position] and (
            len(sizes) - dim > len(result_shape) - position or size != 1
        ):
            kept.add(dim)
            position += 1
    return kept


def _as_index(value) -> ir.Value:
    return index(value) if isinstance(value, int) else value


def load_element(value: ir.Value, indices: list[ir.Value]) -> ir.Value:
    buffer, indices = through_views(value, indices)
    return memref.load(buffer, indices)


def store_element(element: ir.Value, value: ir.Value, indices: list[ir.Value]) -> None:
    buffer, indices = through_views(value, indices)
    memref.store(element, buffer, indices)


def load_operand(value: ir.Value, amap: ir.AffineMap, dims: Sequence[ir.Value]) -> ir.Value:
    if not isinstance(value.type, ir.MemRefType):
        return value  # a scalar operand (e.g. the value of linalg.fill)
    return load_element(value, apply_map(amap, dims))


def loop_nest(
    ranges: Sequence[tuple[int | ir.Value, int | ir.Value, int | ir.Value]],
    carried: list[ir.Value],
    body: Callable[[list[ir.Value], list[ir.Value]], list[ir.Value]],
) -> list[ir.Value]:
    """Nested `scf.for` over (lower, upper, step) ranges (ints or index values) carrying
    `carried` through iter_args."""
    if not ranges:
        return body([], carried)
    (lower, upper, step), inner = ranges[0], ranges[1:]
    loop = scf.ForOp(_as_index(lower), _as_index(upper), _as_index(step), carried)
    with ir.InsertionPoint(loop.body):
        iv = loop.induction_variable
        results = loop_nest(inner, list(loop.inner_iter_args), lambda ivs, c: body([iv, *ivs], c))
        scf.YieldOp(results)
    return list(loop.results)


def clone_body(nest: Nest) -> Payload:
    """The generic's region as a payload: its ops cloned at the insertion point, per call.

    An op with regions (an `scf.if` choosing between two elements) is cloned whole; inside
    it too, the body's values become the point's and `linalg.index` the point's indices.
    Element reads and writes of buffers the body captures (a `tensor.extract` of a tensor
    that is not an operand) go through views to the whole buffer (`reroute_through_views`)."""
    ops = list(nest.body.operations)

    def emit(arguments: list[ir.Value], dims: list[ir.Value]) -> list[ir.Value]:
        mapping = dict(zip(nest.body.arguments, arguments))
        for op in ops:
            if op.name == "linalg.yield":
                return [mapping.get(v, v) for v in op.operands]
            if op.name == "linalg.index":
                mapping[op.result] = dims[ir.IntegerAttr(op.attributes["dim"]).value]
                continue
            new = op.clone()
            for inner in ops_within(new):
                for i, operand in enumerate(inner.operands):
                    if operand in mapping:
                        inner.operands[i] = mapping[operand]
                if inner.name in CONTRACTABLE_OPS:
                    inner.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<contract>")
            for inner in ops_within(new)[1:]:
                if inner.name == "linalg.index":
                    inner.results[0].replace_all_uses_with(dims[ir.IntegerAttr(inner.attributes["dim"]).value])
                    inner.erase()
                else:
                    reroute_through_views(inner)
            for old_result, new_result in zip(op.results, reroute_through_views(new)):
                mapping[old_result] = new_result
        raise PipelineError("gpu-map: linalg body without a terminator", location_text(nest.location))

    return emit


def ops_within(op: ir.Operation) -> list[ir.Operation]:
    """`op` and every op nested in its regions, in pre-order."""
    found: list[ir.Operation] = []

    def visit(inner: ir.Operation) -> ir.WalkResult:
        found.append(inner)
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def captured_buffers(op: ir.Operation) -> list[ir.Value]:
    """The buffers the ops nested in `op`'s regions use that are defined outside `op` (a
    `linalg.generic` body's `memref.load` of a buffer that is not an operand): reads and
    writes the operand lists do not show."""
    captured: list[ir.Value] = []
    for inner in ops_within(op)[1:]:
        for value in inner.operands:
            if not isinstance(value.type, ir.MemRefType) or any(value == c for c in captured):
                continue
            if not defined_in(value, op):
                captured.append(value)
    return captured


def defined_in(value: ir.Value, op: ir.Operation) -> bool:
    """Whether `value` is defined inside `op` (by an op or as a block argument there)."""
    owner = value.owner
    return nested_in(owner.owner if isinstance(owner, ir.Block) else owner, op)


def nested_in(op: ir.Operation | None, ancestor: ir.Operation) -> bool:
    """Whether `op` is `ancestor` or nested in it."""
    ancestor = ancestor.operation
    while op is not None:
        if op.operation == ancestor:
            return True
        op = op.operation.parent
    return False


def reroute_through_views(access: ir.Operation) -> list[ir.Value]:
    """A `memref.load` or `memref.store` of a view rewritten to the buffer under it
    (`through_views`): a kernel takes whole buffers, never a view's descriptor. Other ops,
    and accesses of whole buffers, are left as they are. Returns what now stands for the
    op's results."""
    if access.name not in ("memref.load", "memref.store"):
        return list(access.results)
    position = 0 if access.name == "memref.load" else 1
    view = access.operands[position]
    if isinstance(view.owner, ir.Block) or view.owner.name not in VIEW_OPS:
        return list(access.results)
    indices = list(access.operands[position + 1 :])
    with ir.InsertionPoint(access), access.location:
        if access.name == "memref.load":
            results = [load_element(view, indices)]
            access.results[0].replace_all_uses_with(results[0])
        else:
            store_element(access.operands[0], view, indices)
            results = []
    access.erase()
    return results


# ---------------------------------------------------------------- launches


def emit_launch(
    total_threads: int,
    policy: TilePolicy,
    strategy: str,
    thread_body: Callable[[ir.Value], None],
) -> gpu.LaunchOp:
    """A 1-D launch of `total_threads` threads; `thread_body(linear_id)` emits one thread's work."""
    block = policy.block_size(total_threads)
    grid = -(-total_threads // block)
    launch = gpu.LaunchOp((index(grid), index(1), index(1)), (index(block), index(1), index(1)))
    launch.attributes["gradir.strategy"] = ir.StringAttr.get(strategy)
    region_block = launch.regions[0].blocks[0]
    with ir.InsertionPoint(region_block):
        block_id, thread_id = region_block.arguments[0], region_block.arguments[3]
        linear = arith.addi(arith.muli(block_id, index(block)), thread_id)
        if grid * block == total_threads:
            thread_body(linear)
        else:
            in_range = arith.cmpi(arith.CmpIPredicate.ult, linear, index(total_threads))
            guard = scf.IfOp(in_range)
            with ir.InsertionPoint(guard.then_block):
                thread_body(linear)
                scf.YieldOp([])
        gpu.TerminatorOp()
    return launch


def point_arguments(nest: Nest, dims: list[ir.Value], accumulators: list[ir.Value]) -> list:
    """The body's block arguments at point `dims`: the inputs loaded, then `accumulators`."""
    inputs = [
        load_operand(v, m, dims)
        for v, m in zip(nest.operands[: nest.num_inputs], nest.maps[: nest.num_inputs])
    ]
    return inputs + accumulators


def output_initial(nest: Nest, output: int, dims: list[ir.Value]) -> ir.Value:
    """Where output `output`'s accumulator starts at point `dims`: a folded fill's value, else
    the output element loaded."""
    if output in nest.initial_values:
        return nest.initial_values[output]
    position = nest.num_inputs + output
    return load_element(nest.operands[position], apply_map(nest.maps[position], dims))


def store_outputs(nest: Nest, values: Sequence[ir.Value], dims: list[ir.Value]) -> None:
    """Store one value per output at point `dims` (or hand them to the nest's epilogue)."""
    if nest.epilogue is not None:
        nest.epilogue(values, dims)
        return
    for output, value in enumerate(values):
        position = nest.num_inputs + output
        store_element(value, nest.operands[position], apply_map(nest.maps[position], dims))
