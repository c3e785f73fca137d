"""Large matmuls share their rows of C among threads (before the vector schedule).

`share_contraction_rows` tiles each large `linalg.matmul` on buffers into one
block of rows per thread with `transform.structured.tile_using_forall`; the
vector schedule then register-blocks each block's smaller matmul as before,
and the `scf.forall` becomes an OpenMP region (`parallel_loops`). Row blocks
write disjoint rows of C and each element of C is summed over K in the same
order as without them, so results are bit for bit those of one thread.

Only a block height that divides M and is a multiple of 8 (the register
block's rows) is used, so every block keeps a static shape; other matmuls stay
serial. Matmuls large enough for `cache_blocked_matmuls` are shared by its own outermost
block loop (an `scf.parallel` by then); their blocks, inside that loop, are left
alone here. This serves the mid-sized matmuls below its threshold.
"""
from __future__ import annotations

from mlir import ir

from gradir.errors import PipelineError
from gradir.mlir_bridge import apply_schedule, walk_ops

CONTRACTION_WORK_THRESHOLD = 1 << 21
"""M * N * K below which a matmul stays on one thread: 128 x 128 x 128 takes about 40 us
on one core (100 GFLOP/s), above what a fork costs even on a loaded machine
(`parallel_loops.PARALLEL_WORK_THRESHOLD`)."""

ROW_MULTIPLE = 8
_TAG = "gradir.rows"

_TILE_ROWS = """
    %{tag} = transform.structured.match ops{{["linalg.matmul"]}} attributes{{{attribute}}} in %root
        : (!transform.any_op) -> !transform.any_op
    %{tag}_tile, %{tag}_forall = transform.structured.tile_using_forall %{tag} tile_sizes [{rows}]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
"""


def _row_block(op: ir.Operation, threads: int) -> int | None:
    """Rows per block for `op`, or None where it stays serial."""
    output, left = (ir.ShapedType(op.operands[index].type) for index in (-1, 0))
    if not (output.has_static_shape and left.has_static_shape) or output.rank != 2:
        return None
    rows, columns = output.shape
    depth = left.shape[1] if left.shape[0] == rows else left.shape[0]
    if rows * columns * depth < CONTRACTION_WORK_THRESHOLD:
        return None
    for blocks in range(threads, rows // ROW_MULTIPLE + 1):
        if rows % blocks == 0 and (rows // blocks) % ROW_MULTIPLE == 0:
            return rows // blocks
    return None


def _inside_parallel_loop(op: ir.Operation) -> bool:
    parent = op.operation.parent
    while parent is not None:
        if parent.name in ("scf.parallel", "scf.forall"):
            return True
        parent = parent.parent
    return False


def share_contraction_rows(module: ir.Module, threads: int) -> int:
    """Tile, in place, each large matmul of `module` (on buffers) into `threads` or more row
    blocks under an `scf.forall`; returns how many were tiled (0 where the transform fails:
    the module is then left as it was)."""
    if threads < 2:
        return 0
    steps = []
    for op in walk_ops(module, {"linalg.matmul"}):
        if _inside_parallel_loop(op):
            continue  # a block of a cache-blocked matmul: its outer loop is shared already
        rows = _row_block(op, threads)
        if rows is None:
            continue
        attribute = f"{_TAG}_{len(steps)}"
        op.attributes[attribute] = ir.UnitAttr.get()
        steps.append(_TILE_ROWS.format(tag=f"rows_{len(steps)}", attribute=attribute, rows=rows))
    if not steps:
        return 0
    script = (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {"
        + "".join(steps)
        + "    transform.yield\n  }\n}\n"
    )
    saved = module.operation.clone()
    try:
        apply_schedule(module, script, "cpu-threads")
    except PipelineError:
        for op in list(module.body.operations):
            op.operation.erase()
        for op in list(saved.regions[0].blocks[0].operations):
            module.body.append(op.operation.detach_from_parent())
        return 0
    finally:
        saved.erase()
    return len(steps)
