"""The *elementwise* strategy: ops without reduction dims, one thread per point.

The parallel dims are linearised with the output's innermost dimension fastest, so neighbouring
threads of a warp touch neighbouring addresses (coalesced loads and stores).
"""
from __future__ import annotations

from mlir import ir

from gradir.gpu_backend.loop_nests import (
    Nest,
    Payload,
    delinearize,
    emit_launch,
    output_initial,
    point_arguments,
    store_outputs,
)
from gradir.gpu_backend.tile_policy import TilePolicy


def map_elementwise(nest: Nest, payload: Payload, policy: TilePolicy) -> None:
    parallel = nest.parallel_dims

    def thread(linear: ir.Value) -> None:
        dims: list = [None] * len(nest.ranges)
        for d, coord in zip(parallel, delinearize(linear, [nest.ranges[d] for d in parallel])):
            dims[d] = coord
        outputs = [
            output_initial(nest, o, dims) if nest.reads_output(o) else None
            for o in range(len(nest.outputs))
        ]
        store_outputs(nest, payload(point_arguments(nest, dims, outputs), dims), dims)

    emit_launch(nest.size(parallel), policy, "elementwise", thread)
