"""Map every bufferized `linalg.generic` of a host function onto the GPU: `map_nest` chooses, from
the op's shape, the strategy that emits its launch(es).

MLIR's own route (`convert-linalg-to-parallel-loops` + `gpu-map-parallel-loops`) leaves loops
without a parallel dimension on the host, puts rows on `threadIdx.x` and keeps reduction
accumulators in memory. Here each op gets a launch chosen from its shape instead, one module per
kind of op:

- `elementwise_mapping` -- no reduction dims: one thread per point, the output's innermost
  dimension fastest (coalesced);
- `contraction_mapping` -- a contraction (one reduction dim k, inputs that each ignore one of the
  two innermost output dims, as in a matmul) whose tiles fit: block tiles staged through shared
  memory between barriers, a register tile per thread; with few output tiles and a long k, k
  is split across blocks and the partials combined (*split-k*);
- `reduction_mapping` -- other reductions: a *split* reduction in two launches when there are
  few outputs and a recognised combiner (full reductions to 0-d included), else one thread per
  output point (or per register tile of a contraction) accumulating in registers;
- `run_time_mapping` -- loop ranges known only at run time: one thread per parallel point,
  the grid sized on the host, reduction dims as loops.

They share `loop_nests` (the `Nest` read from a generic, the IR builders, `emit_launch`) and
`tile_policy.TilePolicy` (threads per block, tile candidates, when to split). A fill of the output
that the reduction reads first is folded into the reduction's initial value by the caller
(`map_to_gpu`). Float `mulf/addf/subf/...` in kernel bodies get `fastmath<contract>` so LLVM
emits FMA.
"""
from __future__ import annotations

from dataclasses import replace

from gradir.gpu_backend.contraction_mapping import map_shared_contraction, shared_tile
from gradir.gpu_backend.elementwise_mapping import map_elementwise
from gradir.gpu_backend.loop_nests import Nest, Payload
from gradir.gpu_backend.reduction_mapping import (
    find_combiners,
    map_reduction,
    map_split_reduction,
    split_factor,
)
from gradir.gpu_backend.run_time_mapping import map_run_time
from gradir.gpu_backend.tile_policy import TilePolicy


def map_nest(nest: Nest, payload: Payload, policy: TilePolicy) -> None:
    """Emit the launches for one loop nest at the current insertion point."""
    if nest.run_time:
        map_run_time(nest, payload, policy)
        return
    if not nest.reduction_dims:
        map_elementwise(nest, payload, policy)
        return
    tile = shared_tile(nest, policy)
    if tile is not None:
        combiners = find_combiners(nest) if tile.split > 1 else None
        if combiners is None:
            tile = replace(tile, split=1)
        map_shared_contraction(nest, payload, tile, combiners, policy)
        return
    chunks = split_factor(nest, policy)
    combiners = find_combiners(nest) if chunks > 1 else None
    if combiners:
        map_split_reduction(nest, payload, combiners, chunks, policy)
    else:
        map_reduction(nest, payload, policy)
