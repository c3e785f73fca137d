"""The *shared* strategy: contractions staged through workgroup (shared) memory.

A contraction here has one reduction dim k and inputs that ignore one of the two innermost output
dims m, n, as in a matmul. A block computes a BM x BN output tile, each thread a TM x TN register
tile of it (2-D thread block). The k loop runs in chunks of BK; for each chunk the block first
copies the slices of the inputs it needs into workgroup memory, one coalesced element per thread
at a time, `gpu.barrier`, then every thread folds the chunk from shared memory into its
accumulators, `gpu.barrier`. Each input element then leaves DRAM once per block instead of once
per thread.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from gradir.gpu_backend.loop_nests import (
    Nest,
    Payload,
    delinearize,
    index,
    load_operand,
    loop_nest,
    output_initial,
    store_outputs,
)
from gradir.gpu_backend.tile_policy import TilePolicy


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
        initial = [output_initial(nest, o, p) for _, _, p in points for o in range(num_outputs)]

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
            store_outputs(nest, final[p * num_outputs : (p + 1) * num_outputs], dims)
        gpu.TerminatorOp()
