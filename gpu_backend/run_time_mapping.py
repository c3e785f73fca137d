"""The *run-time* strategy: an op whose loop ranges are known only when it runs (a
`linalg.generic` over `tensor<?xf32>` made by `tensor.empty(%n)`, a copy of a loop's tape).

Every other strategy sizes its grid and tiles when it compiles. Here the host reads the
ranges from the buffers (`memref.dim`), multiplies the parallel ones into a thread count and
launches `ceil(count / block)` blocks; each thread takes one point of the parallel dims
(delinearised by the run-time ranges, the output's innermost dimension fastest, as in the
elementwise strategy) and runs the reduction dims as loops, accumulating in registers, as the
per-point reduction strategy does. No tiles, no split: the shapes that pay for those are
unknown here.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from gradir.errors import PipelineError
from gradir.gpu_backend.loop_nests import (
    Nest,
    Payload,
    delinearize,
    index,
    loop_nest,
    output_initial,
    point_arguments,
    store_outputs,
)
from gradir.gpu_backend.tile_policy import TilePolicy
from gradir.mlir_bridge import location_text

RUN_TIME_BLOCK = 256
"""Threads per block: the count is unknown, so the policy's usual block (256) for large ones."""


def run_time_ranges(nest: Nest) -> list[ir.Value]:
    """Each loop dim's extent as a host index: a constant, or `memref.dim` of an operand
    that the dim indexes (emitted at the insertion point)."""
    ranges = []
    for dim, extent in enumerate(nest.ranges):
        if extent >= 0:
            ranges.append(index(extent))
            continue
        ranges.append(_dim_of_an_operand(nest, dim))
    return ranges


def _dim_of_an_operand(nest: Nest, dim: int) -> ir.Value:
    for operand, amap in zip(nest.operands, nest.maps):
        if not isinstance(operand.type, ir.MemRefType):
            continue
        for position, expr in enumerate(amap.results):
            if isinstance(expr, ir.AffineDimExpr) and ir.AffineDimExpr(expr).position == dim:
                return memref.dim(operand, index(position))
    raise PipelineError(
        "gpu-map: no operand gives the extent of a loop dimension known only at run time",
        location_text(nest.location),
    )


def map_run_time(nest: Nest, payload: Payload, policy: TilePolicy) -> None:
    """One launch, one thread per point of the parallel dims, sized on the host."""
    del policy  # nothing in it applies to sizes unknown when compiling
    ranges = run_time_ranges(nest)
    parallel, reduction = nest.parallel_dims, nest.reduction_dims
    count = index(1)
    for d in parallel:
        count = arith.muli(count, ranges[d])
    block = index(RUN_TIME_BLOCK)
    # At least one block: CUDA refuses an empty grid (no point: every thread fails the guard).
    grid = arith.maxui(arith.divui(arith.addi(count, index(RUN_TIME_BLOCK - 1)), block), index(1))
    launch = gpu.LaunchOp((grid, index(1), index(1)), (block, index(1), index(1)))
    launch.attributes["gradir.strategy"] = ir.StringAttr.get("run_time")
    body = launch.regions[0].blocks[0]
    with ir.InsertionPoint(body):
        block_id, thread_id = body.arguments[0], body.arguments[3]
        linear = arith.addi(arith.muli(block_id, block), thread_id)
        guard = scf.IfOp(arith.cmpi(arith.CmpIPredicate.ult, linear, count))
        with ir.InsertionPoint(guard.then_block):
            dims: list = [None] * len(nest.ranges)
            for d, coordinate in zip(parallel, delinearize(linear, [ranges[d] for d in parallel])):
                dims[d] = coordinate
            outputs = range(len(nest.outputs))
            if reduction:
                initial = [output_initial(nest, o, dims) for o in outputs]

                def step(ivs: list[ir.Value], accumulators: list[ir.Value]) -> list[ir.Value]:
                    point = list(dims)
                    for d, iv in zip(reduction, ivs):
                        point[d] = iv
                    return payload(point_arguments(nest, point, accumulators), point)

                final = loop_nest([(0, ranges[d], 1) for d in reduction], initial, step)
            else:
                current = [output_initial(nest, o, dims) if nest.reads_output(o) else None for o in outputs]
                final = payload(point_arguments(nest, dims, current), dims)
            store_outputs(nest, final, dims)
            scf.YieldOp([])
        gpu.TerminatorOp()
