"""The strategies for ops with reduction dims that are not staged through shared memory.

- *reduce*: one thread per output point, its accumulators in registers (`scf.for` iter_args);
  when some input does not depend on one of the two innermost output dims (a contraction), each
  thread computes a TM x TN register tile of outputs, so every load feeds several FMAs
  (*reduce-tile*).
- *split-reduce*: few outputs and a long reduction with a recognised combiner (`addf`,
  `maximumf`, ...): a first launch gives C threads per output, each folding a strided chunk from
  the combiner's identity into a partial buffer, and a second launch (*split-combine*) folds the
  partials into the output. Full reductions to a 0-d tensor take this path, so they run on the
  device too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from mlir import ir
from mlir.dialects import arith, memref

from gradir.gpu_backend.loop_nests import (
    Nest,
    Payload,
    delinearize,
    dims_of,
    emit_launch,
    index,
    loop_nest,
    output_initial,
    point_arguments,
    store_outputs,
)
from gradir.gpu_backend.tile_policy import TilePolicy

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
        initial = [output_initial(nest, o, p) for p in points for o in range(num_outputs)]

        def step(ivs: list[ir.Value], accs: list[ir.Value]) -> list[ir.Value]:
            results = []
            for p, dims in enumerate(points):
                full = list(dims)
                for d, iv in zip(reduction, ivs):
                    full[d] = iv
                mine = accs[p * num_outputs : (p + 1) * num_outputs]
                results += payload(point_arguments(nest, full, mine), full)
            return results

        final = loop_nest([(0, nest.ranges[d], 1) for d in reduction], initial, step)
        for p, dims in enumerate(points):
            store_outputs(nest, final[p * num_outputs : (p + 1) * num_outputs], dims)

    strategy = "reduce" if tm * tn == 1 else f"reduce-tile{tm}x{tn}"
    emit_launch(math.prod(tile_counts), policy, strategy, thread)


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
    """Two launches: C strided partial folds per output into a buffer, then one fold per output."""
    parallel, reduction = nest.parallel_dims, nest.reduction_dims
    num_points, length = nest.size(parallel), nest.size(reduction)
    element_types = [ir.MemRefType(v.type).element_type for v in nest.outputs]
    partials = partial_buffers(nest, chunks)

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
            return payload(point_arguments(nest, full, accs), full)

        final = loop_nest([(0, length // chunks, 1)], initial, step)
        slot = arith.addi(arith.muli(chunk, index(num_points)), point)
        for buffer, value in zip(partials, final):
            memref.store(value, buffer, [slot])

    emit_launch(num_points * chunks, policy, f"split-reduce{chunks}", partial_thread)
    emit_split_combine(nest, partials, combiners, chunks, policy)


def partial_buffers(nest: Nest, chunks: int) -> list[ir.Value]:
    """One `memref.alloc` per output for `chunks` partials of every output point, chunk-major
    (`map_to_gpu` moves it to the device and frees it)."""
    num_points = nest.size(nest.parallel_dims)
    return [
        memref.alloc(ir.MemRefType.get([chunks * num_points], ir.MemRefType(v.type).element_type), [], [])
        for v in nest.outputs
    ]


def emit_split_combine(
    nest: Nest, partials: list[ir.Value], combiners: list[Combiner], chunks: int, policy: TilePolicy
) -> None:
    """The *split-combine* launch: a thread per output point folds its `chunks` partials
    (`partials[c * points + point]`, point row-major over the parallel dims) into the output's
    initial value."""
    parallel = nest.parallel_dims
    num_points = nest.size(parallel)

    def combine_thread(linear: ir.Value) -> None:
        dims: list = [None] * len(nest.ranges)
        for d, coord in zip(parallel, delinearize(linear, [nest.ranges[d] for d in parallel])):
            dims[d] = coord
        initial = [output_initial(nest, o, dims) for o in range(len(combiners))]

        def step(ivs: list[ir.Value], accs: list[ir.Value]) -> list[ir.Value]:
            slot = arith.addi(arith.muli(ivs[0], index(num_points)), linear)
            return [
                c.combine(memref.load(buffer, [slot]), acc)
                for c, buffer, acc in zip(combiners, partials, accs)
            ]

        store_outputs(nest, loop_nest([(0, chunks, 1)], initial, step), dims)

    emit_launch(num_points, policy, "split-combine", combine_thread)
