"""Map every bufferized `linalg.generic` of a host function onto the GPU, one `gpu.launch` each.

MLIR's own route (`convert-linalg-to-parallel-loops` + `gpu-map-parallel-loops`) leaves loops
without a parallel dimension on the host, puts rows on `threadIdx.x` and keeps reduction
accumulators in memory. Here each op gets a launch chosen from its shape instead:

- *elementwise* (no reduction dims): one thread per point, the parallel dims linearised with the
  output's innermost dimension fastest, so neighbouring threads touch neighbouring addresses;
- *reduce* (reduction dims, enough outputs): one thread per output point, accumulators in
  registers (`scf.for` iter_args); when some input does not depend on one of the two innermost
  output dims (a contraction), each thread computes a TM x TN register tile so every load feeds
  several FMAs;
- *shared* (a contraction: one reduction dim k and inputs that ignore one of the two innermost
  output dims m, n, as in a matmul): a block computes a BM x BN output tile, each thread a TM x TN
  register tile of it (2-D thread block); the k loop runs in chunks of BK, and for each chunk the
  block first copies the slices of the inputs it needs into workgroup (shared) memory, one
  coalesced element per thread at a time, `gpu.barrier`, then every thread folds the chunk from
  shared memory into its accumulators, `gpu.barrier`. Each input element then leaves DRAM once per
  block instead of once per thread;
- *split-reduce* (few outputs, a long reduction, a recognised combiner such as `addf` or
  `maximumf`): a first launch gives C threads per output, each folding a strided chunk from the
  combiner's identity into a partial buffer (`gpu.alloc`), and a second launch folds the partials
  into the output. Full reductions to a 0-d tensor take this path, so they run on the device too.

A fill of the output that the reduction reads first is folded into the reduction's initial value.
Float `mulf/addf/subf/...` in kernel bodies get `fastmath<contract>` so LLVM emits FMA.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import affine, arith, gpu, memref, scf

from gradir.errors import PipelineError
from gradir.mlir_bridge import location_text

Payload = Callable[[list[ir.Value], list[ir.Value]], list[ir.Value]]
"""Emits one point's computation: (values of the body's block arguments, loop indices) -> yields."""

CONTRACTABLE_OPS = {"arith.addf", "arith.subf", "arith.mulf", "arith.negf"}

# The identity of each reduction combiner a split reduction may start from.
COMBINER_IDENTITIES: dict[str, Callable[[ir.Type], ir.Attribute]] = {
    "arith.addf": lambda t: ir.FloatAttr.get(t, 0.0),
    "arith.mulf": lambda t: ir.FloatAttr.get(t, 1.0),
    "arith.maximumf": lambda t: ir.FloatAttr.get(t, float("-inf")),
    "arith.maxnumf": lambda t: ir.FloatAttr.get(t, float("-inf")),
    "arith.minimumf": lambda t: ir.FloatAttr.get(t, float("inf")),
    "arith.minnumf": lambda t: ir.FloatAttr.get(t, float("inf")),
    "arith.addi": lambda t: ir.IntegerAttr.get(t, 0),
    "arith.ori": lambda t: ir.IntegerAttr.get(t, 0),
    "arith.xori": lambda t: ir.IntegerAttr.get(t, 0),
    "arith.muli": lambda t: ir.IntegerAttr.get(t, 1),
    "arith.andi": lambda t: ir.IntegerAttr.get(t, -1),
}


def shared_tile_candidates(
    block_threads: Sequence[int] = (256, 128),
) -> tuple[tuple[int, int, int, int], ...]:
    """(BM, BN, TM, TN) with BM/TM x BN/TN threads per block, largest thread tiles first."""
    candidates = [
        (bm, bn, tm, tn)
        for tm in (4, 2, 1)
        for tn in (4, 2, 1)
        for bm in (128, 64, 32, 16)
        for bn in (128, 64, 32, 16)
        if bm % tm == 0 and bn % tn == 0 and (bm // tm) * (bn // tn) in block_threads
    ]
    return tuple(sorted(candidates, key=lambda c: (-c[2] * c[3], -c[0] * c[1], abs(c[0] - c[1]), -c[1])))


@dataclass(frozen=True)
class TilePolicy:
    """How ops are cut into threads. The defaults aim at one H100/A100-class device."""

    block_threads: int = 256
    """Threads per block for large launches."""
    min_block_threads: int = 128
    """Threads per block never go below this, even for tiny ops (a block is scheduled whole)."""
    target_threads: int = 16384
    """Threads a launch should offer; reductions with fewer outputs are split."""
    register_tiles: tuple[tuple[int, int], ...] = ((4, 4), (4, 2), (2, 4), (2, 2), (2, 1), (1, 2))
    """Candidate TM x TN output tiles per thread for contractions, largest first."""
    min_tile_threads: int = 2048
    """A register tile is only taken while the launch keeps at least this many threads."""
    shared_tiles: tuple[tuple[int, int, int, int], ...] = field(
        default_factory=lambda: shared_tile_candidates()
    )
    """Candidate (BM, BN, TM, TN) block and thread tiles for contractions staged through shared
    memory, best first; empty turns the strategy off."""
    shared_depth: int = 16
    """Most k elements staged per chunk (BK is the largest divisor of the k extent up to this)."""
    shared_bytes: int = 48 * 1024
    """Workgroup memory one block may use (the static limit of every CUDA device)."""
    max_split: int = 1024
    """Most partial results per output of a split reduction."""
    min_chunk: int = 8
    """Fewest reduction elements one thread folds in a split reduction."""

    def block_size(self, total_threads: int) -> int:
        rounded = -(-total_threads // 32) * 32
        return min(self.block_threads, max(self.min_block_threads, rounded))


@dataclass
class Nest:
    """A perfectly nested loop over static ranges, read from a `linalg.generic` on memrefs."""

    ranges: list[int]
    reduction_dims: list[int]
    operands: list[ir.Value]
    maps: list[ir.AffineMap]
    num_inputs: int
    body: ir.Block | None
    """The generic's region; None for copies and fills built without one."""
    location: ir.Location
    initial_values: dict[int, ir.Value] = field(default_factory=dict)
    """Output index -> value the accumulator starts from (a folded fill); else the output is read."""

    def reads_output(self, output: int) -> bool:
        if self.body is None:
            return False
        return len(list(self.body.arguments[self.num_inputs + output].uses)) > 0

    @property
    def outputs(self) -> list[ir.Value]:
        return self.operands[self.num_inputs :]

    @property
    def parallel_dims(self) -> list[int]:
        """Parallel dims, outermost first, ordered by the first output's layout (coalescing)."""
        out_map = self.maps[self.num_inputs]
        ordered = [e.position for e in out_map.results if isinstance(e, ir.AffineDimExpr)]
        ordered = [d for d in ordered if d not in self.reduction_dims]
        rest = [
            d for d in range(len(self.ranges)) if d not in ordered and d not in self.reduction_dims
        ]
        return rest + ordered

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
                ranges[ir.AffineDimExpr(expr).position] = extent
    if any(r is None or r < 0 for r in ranges):
        raise PipelineError(
            "gpu-map: cannot map a linalg.generic with dynamic or unknown loop ranges onto the "
            "GPU (static shapes only)",
            location_text(op.location),
        )
    return Nest(
        ranges=list(ranges),
        reduction_dims=[d for d, it in enumerate(iterators) if "reduction" in it],
        operands=operands,
        maps=maps,
        num_inputs=len(op.inputs),
        body=op.regions[0].blocks[0],
        location=op.location,
    )


# ---------------------------------------------------------------- small IR builders


def index(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), value).result


def delinearize(linear: ir.Value, sizes: Sequence[int]) -> list[ir.Value]:
    """Split a linear index into coordinates, the last size varying fastest."""
    coords: list[ir.Value] = []
    rest = linear
    for i, size in reversed(list(enumerate(sizes))):
        if i == 0:
            coords.append(rest)
        else:
            coords.append(arith.remui(rest, index(size)))
            rest = arith.divui(rest, index(size))
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
    """The buffer under a chain of `memref.subview`s of `value`, and the indices
    there of element `indices` of `value`. Kernels then take the whole buffer (a
    plain static memref, as the bare-pointer convention needs) and the offsets
    (host integers, such as a loop's slice position) as scalar arguments."""
    while not isinstance(value.owner, ir.Block) and value.owner.name == "memref.subview":
        view = value.owner
        source = view.operands[0]
        offsets = _view_parameters(view, "static_offsets", "offsets")
        strides = _view_parameters(view, "static_strides", "strides")
        sizes = list(ir.DenseI64ArrayAttr(view.attributes["static_sizes"]))
        kept = _kept_dims(sizes, ir.MemRefType(value.type).shape)
        source_indices: list[ir.Value] = []
        position = 0
        for dim, (offset, stride) in enumerate(zip(offsets, strides)):
            if dim in kept:
                scaled = indices[position] if stride == 1 else arith.muli(indices[position], _as_index(stride))
                source_indices.append(arith.addi(_as_index(offset), scaled) if offset != 0 else scaled)
                position += 1
            else:
                source_indices.append(_as_index(offset))
        value, indices = source, source_indices
    return value, indices


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
    ranges: Sequence[tuple[int, int, int]],
    carried: list[ir.Value],
    body: Callable[[list[ir.Value], list[ir.Value]], list[ir.Value]],
) -> list[ir.Value]:
    """Nested `scf.for` over (lower, upper, step) ranges carrying `carried` through iter_args."""
    if not ranges:
        return body([], carried)
    (lower, upper, step), inner = ranges[0], ranges[1:]
    loop = scf.ForOp(index(lower), index(upper), index(step), carried)
    with ir.InsertionPoint(loop.body):
        iv = loop.induction_variable
        results = loop_nest(inner, list(loop.inner_iter_args), lambda ivs, c: body([iv, *ivs], c))
        scf.YieldOp(results)
    return list(loop.results)


def clone_body(nest: Nest) -> Payload:
    """The generic's region as a payload: its ops cloned at the insertion point, per call."""
    ops = list(nest.body.operations)
    for op in ops:
        if op.regions and len(op.regions) > 0:
            raise PipelineError(
                f"gpu-map: cannot map a linalg body op with regions ('{op.name}') onto the GPU",
                location_text(op.location),
            )

    def emit(arguments: list[ir.Value], dims: list[ir.Value]) -> list[ir.Value]:
        mapping = dict(zip(nest.body.arguments, arguments))
        for op in ops:
            if op.name == "linalg.yield":
                return [mapping.get(v, v) for v in op.operands]
            if op.name == "linalg.index":
                mapping[op.result] = dims[ir.IntegerAttr(op.attributes["dim"]).value]
                continue
            new = op.clone()
            for i, operand in enumerate(new.operands):
                if operand in mapping:
                    new.operands[i] = mapping[operand]
            if new.name in CONTRACTABLE_OPS:
                new.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<contract>")
            for old_result, new_result in zip(op.results, new.results):
                mapping[old_result] = new_result
        raise PipelineError("gpu-map: linalg body without a terminator", location_text(nest.location))

    return emit


@dataclass
class Combiner:
    """The op folding an element into output `index`'s accumulator, e.g. `%s = addf %x, %acc`."""

    op: ir.Operation
    accumulator_position: int

    def identity(self, element_type: ir.Type) -> ir.Value:
        attr = COMBINER_IDENTITIES[self.op.name](element_type)
        return arith.ConstantOp(element_type, attr).result

    def combine(self, element: ir.Value, accumulator: ir.Value) -> ir.Value:
        new = self.op.clone()
        new.operands[self.accumulator_position] = accumulator
        new.operands[1 - self.accumulator_position] = element
        return new.results[0]


def find_combiners(nest: Nest) -> list[Combiner] | None:
    """One combiner per output when every yield is `combiner(f(inputs), acc)`, else None."""
    accumulators = list(nest.body.arguments)[nest.num_inputs :]
    body_ops = list(nest.body.operations)
    yielded = list(body_ops[-1].operands)

    def depends_on_accumulator(value: ir.Value, seen: set) -> bool:
        if value in accumulators:
            return True
        if isinstance(value.owner, ir.Block) or value in seen:
            return False
        seen.add(value)
        owner = value.owner.operation
        if owner.block != nest.body:
            return False
        return any(depends_on_accumulator(v, seen) for v in owner.operands)

    combiners = []
    for accumulator, value in zip(accumulators, yielded):
        owner = value.owner
        if isinstance(owner, ir.Block) or owner.name not in COMBINER_IDENTITIES:
            return None
        operands = list(owner.operands)
        if len(operands) != 2 or accumulator not in operands:
            return None
        position = operands.index(accumulator)
        if depends_on_accumulator(operands[1 - position], set()):
            return None
        if len(list(accumulator.uses)) != 1:
            return None
        combiners.append(Combiner(owner.operation, position))
    return combiners


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


def _point_arguments(nest: Nest, dims: list[ir.Value], accumulators: list[ir.Value]) -> list:
    inputs = [
        load_operand(v, m, dims)
        for v, m in zip(nest.operands[: nest.num_inputs], nest.maps[: nest.num_inputs])
    ]
    return inputs + accumulators


def _output_initial(nest: Nest, output: int, dims: list[ir.Value]) -> ir.Value:
    if output in nest.initial_values:
        return nest.initial_values[output]
    position = nest.num_inputs + output
    return load_element(nest.operands[position], apply_map(nest.maps[position], dims))


def _store_outputs(nest: Nest, values: Sequence[ir.Value], dims: list[ir.Value]) -> None:
    for output, value in enumerate(values):
        position = nest.num_inputs + output
        store_element(value, nest.operands[position], apply_map(nest.maps[position], dims))


def map_elementwise(nest: Nest, payload: Payload, policy: TilePolicy) -> None:
    parallel = nest.parallel_dims

    def thread(linear: ir.Value) -> None:
        dims: list = [None] * len(nest.ranges)
        for d, coord in zip(parallel, delinearize(linear, [nest.ranges[d] for d in parallel])):
            dims[d] = coord
        outputs = [
            _output_initial(nest, o, dims) if nest.reads_output(o) else None
            for o in range(len(nest.outputs))
        ]
        _store_outputs(nest, payload(_point_arguments(nest, dims, outputs), dims), dims)

    emit_launch(nest.size(parallel), policy, "elementwise", thread)


def _register_tile(nest: Nest, policy: TilePolicy) -> tuple[int, int]:
    """TM x TN for the two innermost output dims m, n.

    TM rows per thread pay off when some input does not depend on m (its loads are shared by
    the rows), TN columns when some input does not depend on n.
    """
    parallel = nest.parallel_dims
    if len(parallel) < 2:
        return 1, 1
    m, n = parallel[-2], parallel[-1]
    input_maps = nest.maps[: nest.num_inputs]

    def some_input_ignores(dim: int) -> bool:
        return any(
            not any(dim in dims_of(e) for e in amap.results) for amap in input_maps if amap.results
        )

    for tm, tn in policy.register_tiles:
        if tm > 1 and not some_input_ignores(m):
            continue
        if tn > 1 and not some_input_ignores(n):
            continue
        if nest.ranges[m] % tm or nest.ranges[n] % tn:
            continue
        if nest.size(parallel) // (tm * tn) >= policy.min_tile_threads:
            return tm, tn
    return 1, 1


def map_reduction(nest: Nest, payload: Payload, policy: TilePolicy) -> None:
    """One thread per output point (or per TM x TN tile), accumulating in registers."""
    parallel, reduction = nest.parallel_dims, nest.reduction_dims
    tm, tn = _register_tile(nest, policy)
    tiled = {d: 1 for d in parallel}
    if tm * tn > 1:
        tiled[parallel[-2]], tiled[parallel[-1]] = tm, tn
    tile_counts = [nest.ranges[d] // tiled[d] for d in parallel]
    num_outputs = len(nest.outputs)

    def thread(linear: ir.Value) -> None:
        base = dict(zip(parallel, delinearize(linear, tile_counts)))
        points = []
        for i in range(tm):
            for j in range(tn):
                offsets = {}
                if tm * tn > 1:
                    offsets = {parallel[-2]: i, parallel[-1]: j}
                dims: list = [None] * len(nest.ranges)
                for d in parallel:
                    k = offsets.get(d, 0)
                    stride = nest.ranges[d] // tiled[d]
                    dims[d] = base[d] if k == 0 else arith.addi(base[d], index(k * stride))
                points.append(dims)
        initial = [_output_initial(nest, o, p) for p in points for o in range(num_outputs)]

        def step(ivs: list[ir.Value], accs: list[ir.Value]) -> list[ir.Value]:
            results = []
            for p, dims in enumerate(points):
                full = list(dims)
                for d, iv in zip(reduction, ivs):
                    full[d] = iv
                mine = accs[p * num_outputs : (p + 1) * num_outputs]
                results += payload(_point_arguments(nest, full, mine), full)
            return results

        final = loop_nest([(0, nest.ranges[d], 1) for d in reduction], initial, step)
        for p, dims in enumerate(points):
            _store_outputs(nest, final[p * num_outputs : (p + 1) * num_outputs], dims)

    strategy = "reduce" if tm * tn == 1 else f"reduce-tile{tm}x{tn}"
    emit_launch(math.prod(tile_counts), policy, strategy, thread)


@dataclass(frozen=True)
class SharedTile:
    """How a contraction is cut for the *shared* strategy (see the module docstring)."""

    m: int
    n: int
    k: int
    """Loop dims: the two innermost parallel dims and the reduction dim."""
    block_m: int
    block_n: int
    thread_m: int
    thread_n: int
    depth: int
    """BK: k elements staged per chunk."""
    staged: dict[int, list[int]]
    """Input position -> the loop dims of its staged tile, in the order of its map's results."""

    def extent(self, dim: int) -> int:
        return {self.m: self.block_m, self.n: self.block_n, self.k: self.depth}[dim]

    def tile_shape(self, position: int) -> list[int]:
        return [self.extent(d) for d in self.staged[position]]


def _element_bytes(value: ir.Value) -> int:
    element = ir.MemRefType(value.type).element_type
    return max(element.width // 8, 1) if hasattr(element, "width") else 8


def shared_tile(nest: Nest, policy: TilePolicy) -> SharedTile | None:
    """The first candidate tile that fits `nest`, when it is a contraction; else None.

    Inputs that read k and only one of m, n are staged (A and B of a matmul); inputs reading
    both m and n, or not k, are read from global memory as in the other strategies.
    """
    parallel = nest.parallel_dims
    if not policy.shared_tiles or len(nest.reduction_dims) != 1 or len(parallel) < 2:
        return None
    m, n, k = parallel[-2], parallel[-1], nest.reduction_dims[0]
    staged: dict[int, list[int]] = {}
    for position in range(nest.num_inputs):
        value, amap = nest.operands[position], nest.maps[position]
        if not isinstance(value.type, ir.MemRefType) or not all(
            isinstance(e, ir.AffineDimExpr) for e in amap.results
        ):
            continue
        dims = [ir.AffineDimExpr(e).position for e in amap.results]
        if k in dims and (m in dims) != (n in dims):
            staged[position] = [d for d in dims if d in (m, n, k)]
    if not any(m not in d for d in staged.values()) or not any(n not in d for d in staged.values()):
        return None
    length = nest.ranges[k]
    depth = max(d for d in range(1, policy.shared_depth + 1) if length % d == 0)
    for bm, bn, tm, tn in policy.shared_tiles:
        if nest.ranges[m] % bm or nest.ranges[n] % bn:
            continue
        if nest.size(parallel) // (tm * tn) < policy.min_tile_threads:
            continue
        tile = SharedTile(m, n, k, bm, bn, tm, tn, depth, staged)
        used = sum(
            math.prod(tile.tile_shape(p)) * _element_bytes(nest.operands[p]) for p in staged
        )
        if used <= policy.shared_bytes:
            return tile
    return None


WORKGROUP = "#gpu.address_space<workgroup>"


def map_shared_contraction(nest: Nest, payload: Payload, tile: SharedTile) -> None:
    """Block tiles staged through workgroup memory, 2-D thread tiles in registers (see above)."""
    parallel = nest.parallel_dims
    m, n, k = tile.m, tile.n, tile.k
    outer = parallel[:-2]
    rows, columns = tile.block_m // tile.thread_m, tile.block_n // tile.thread_n
    threads = rows * columns
    block_counts = [nest.ranges[d] for d in outer]
    block_counts += [nest.ranges[m] // tile.block_m, nest.ranges[n] // tile.block_n]
    launch = gpu.LaunchOp(
        (index(math.prod(block_counts)), index(1), index(1)),
        (index(columns), index(rows), index(1)),
    )
    launch.attributes["gradir.strategy"] = ir.StringAttr.get(
        f"shared-tile{tile.thread_m}x{tile.thread_n}"
    )
    region_block = launch.regions[0].blocks[0]
    space = ir.Attribute.parse(WORKGROUP)
    shared = {
        p: region_block.add_argument(
            ir.MemRefType.get(
                tile.tile_shape(p), ir.MemRefType(nest.operands[p].type).element_type,
                memory_space=space,
            ),
            nest.location,
        )
        for p in tile.staged
    }
    launch.attributes["workgroup_attributions"] = ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64), len(shared)
    )
    with ir.InsertionPoint(region_block):
        block_id, tx, ty = region_block.arguments[0], region_block.arguments[3], region_block.arguments[4]
        coords = delinearize(block_id, block_counts)
        corner = {d: c for d, c in zip(outer, coords)}
        corner[m] = arith.muli(coords[-2], index(tile.block_m))
        corner[n] = arith.muli(coords[-1], index(tile.block_n))
        thread = arith.addi(arith.muli(ty, index(columns)), tx)
        # thread (ty, tx) owns rows ty + i*rows and columns tx + j*columns of the block tile:
        # neighbouring threads store neighbouring columns and read neighbouring shared words
        local_m = [ty if i == 0 else arith.addi(ty, index(i * rows)) for i in range(tile.thread_m)]
        local_n = [tx if j == 0 else arith.addi(tx, index(j * columns)) for j in range(tile.thread_n)]
        points = []
        for i in range(tile.thread_m):
            for j in range(tile.thread_n):
                dims: list = [None] * len(nest.ranges)
                for d in outer:
                    dims[d] = corner[d]
                dims[m] = arith.addi(corner[m], local_m[i])
                dims[n] = arith.addi(corner[n], local_n[j])
                points.append((i, j, dims))
        num_outputs = len(nest.outputs)
        initial = [_output_initial(nest, o, p) for _, _, p in points for o in range(num_outputs)]

        def stage_element(position: int, element: ir.Value, chunk_start: ir.Value) -> None:
            """Copy element `element` (row-major) of input `position`'s tile to shared memory."""
            local = delinearize(element, tile.tile_shape(position))
            full: list = [None] * len(nest.ranges)
            for d in outer:
                full[d] = corner[d]
            for d, coordinate in zip(tile.staged[position], local):
                start = chunk_start if d == k else corner[d]
                full[d] = arith.addi(start, coordinate)
            value = load_operand(nest.operands[position], nest.maps[position], full)
            memref.store(value, shared[position], local)

        def stage(position: int, chunk_start: ir.Value) -> None:
            """The block copies input `position`'s tile of this chunk, a thread per element."""
            shape = tile.tile_shape(position)
            elements = math.prod(shape)
            for first in range(0, elements, threads):
                element = arith.addi(thread, index(first)) if first else thread
                if first + threads > elements:
                    inside = arith.cmpi(arith.CmpIPredicate.ult, element, index(elements))
                    guard = scf.IfOp(inside)
                    with ir.InsertionPoint(guard.then_block):
                        stage_element(position, element, chunk_start)
                        scf.YieldOp([])
                else:
                    stage_element(position, element, chunk_start)

        def chunk(ivs: list[ir.Value], accumulators: list[ir.Value]) -> list[ir.Value]:
            for position in tile.staged:
                stage(position, ivs[0])
            gpu.barrier()

            def step(inner: list[ir.Value], accs: list[ir.Value]) -> list[ir.Value]:
                kk = inner[0]
                k_index = arith.addi(ivs[0], kk)
                cached: dict[tuple[int, int, int], ir.Value] = {}
                results = []
                for p, (i, j, dims) in enumerate(points):
                    full = list(dims)
                    full[k] = k_index
                    arguments = []
                    for position in range(nest.num_inputs):
                        if position not in tile.staged:
                            value, amap = nest.operands[position], nest.maps[position]
                            arguments.append(load_operand(value, amap, full))
                            continue
                        tile_dims = tile.staged[position]
                        key = (position, i if m in tile_dims else -1, j if n in tile_dims else -1)
                        if key not in cached:
                            local = {m: local_m[i], n: local_n[j], k: kk}
                            cached[key] = memref.load(shared[position], [local[d] for d in tile_dims])
                        arguments.append(cached[key])
                    mine = accs[p * num_outputs : (p + 1) * num_outputs]
                    results += payload(arguments + mine, full)
                return results

            folded = loop_nest([(0, tile.depth, 1)], accumulators, step)
            gpu.barrier()
            return folded

        final = loop_nest([(0, nest.ranges[k], tile.depth)], initial, chunk)
        for p, (_, _, dims) in enumerate(points):
            _store_outputs(nest, final[p * num_outputs : (p + 1) * num_outputs], dims)
        gpu.TerminatorOp()


def split_factor(nest: Nest, policy: TilePolicy) -> int:
    """Partials per output for a split reduction (a divisor of the reduction size), or 1."""
    outputs, length = nest.size(nest.parallel_dims), nest.size(nest.reduction_dims)
    if outputs >= policy.target_threads or length < 2 * policy.min_chunk:
        return 1
    wanted = min(policy.max_split, -(-policy.target_threads // outputs), length // policy.min_chunk)
    return max(c for c in range(1, wanted + 1) if length % c == 0)


def map_split_reduction(
    nest: Nest, payload: Payload, combiners: list[Combiner], chunks: int, policy: TilePolicy
) -> None:
    """Two launches: C strided partial folds per output into a buffer, then one fold per output.

    The partials buffer is a `memref.alloc`; `map_to_gpu` moves it to the device and frees it.
    """
    parallel, reduction = nest.parallel_dims, nest.reduction_dims
    num_points, length = nest.size(parallel), nest.size(reduction)
    element_types = [ir.MemRefType(v.type).element_type for v in nest.outputs]
    partials = [
        memref.alloc(ir.MemRefType.get([chunks * num_points], t), [], []) for t in element_types
    ]

    def partial_thread(linear: ir.Value) -> None:
        # threads of one output are neighbours, so a warp reads consecutive reduction elements
        point, chunk = delinearize(linear, [num_points, chunks])
        dims: list = [None] * len(nest.ranges)
        for d, coord in zip(parallel, delinearize(point, [nest.ranges[d] for d in parallel])):
            dims[d] = coord
        initial = [c.identity(t) for c, t in zip(combiners, element_types)]

        def step(ivs: list[ir.Value], accs: list[ir.Value]) -> list[ir.Value]:
            flat = arith.addi(arith.muli(ivs[0], index(chunks)), chunk)
            full = list(dims)
            for d, coord in zip(reduction, delinearize(flat, [nest.ranges[d] for d in reduction])):
                full[d] = coord
            return payload(_point_arguments(nest, full, accs), full)

        final = loop_nest([(0, length // chunks, 1)], initial, step)
        slot = arith.addi(arith.muli(chunk, index(num_points)), point)
        for buffer, value in zip(partials, final):
            memref.store(value, buffer, [slot])

    def combine_thread(linear: ir.Value) -> None:
        dims: list = [None] * len(nest.ranges)
        for d, coord in zip(parallel, delinearize(linear, [nest.ranges[d] for d in parallel])):
            dims[d] = coord
        initial = [_output_initial(nest, o, dims) for o in range(len(combiners))]

        def step(ivs: list[ir.Value], accs: list[ir.Value]) -> list[ir.Value]:
            slot = arith.addi(arith.muli(ivs[0], index(num_points)), linear)
            return [
                c.combine(memref.load(buffer, [slot]), acc)
                for c, buffer, acc in zip(combiners, partials, accs)
            ]

        _store_outputs(nest, loop_nest([(0, chunks, 1)], initial, step), dims)

    emit_launch(num_points * chunks, policy, f"split-reduce{chunks}", partial_thread)
    emit_launch(num_points, policy, "split-combine", combine_thread)


def map_nest(nest: Nest, payload: Payload, policy: TilePolicy) -> None:
    """Emit the launches for one loop nest at the current insertion point."""
    if not nest.reduction_dims:
        map_elementwise(nest, payload, policy)
        return
    tile = shared_tile(nest, policy)
    if tile is not None:
        map_shared_contraction(nest, payload, tile)
        return
    chunks = split_factor(nest, policy)
    combiners = find_combiners(nest) if chunks > 1 else None
    if combiners:
        map_split_reduction(nest, payload, combiners, chunks, policy)
    else:
        map_reduction(nest, payload, policy)
