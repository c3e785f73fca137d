"""The CPU pipeline's vector schedule: what gets vectorised, and how.

`vector_schedule(module)` writes a transform script (applied on buffers with
`mlir_bridge.apply_schedule`): one tile-and-vectorise step per contraction,
transpose and short-row elementwise generic of the module, then the vector
lowering shared by all of them. `apply_vector_schedule` applies it and never
fails: an op whose step MLIR cannot apply is left to the loop lowering. (The
tensor-stage script both backends start with is
`mlir_bridge.tensor_stage.TENSOR_SCHEDULE`.)

Contractions (`linalg.matmul`, `linalg.batch_matmul`) are tiled into 8x32
register blocks of C over 8-deep slices of K (`MATMUL_TILES`); after
vectorisation the C block is hoisted out of the K loop, so it stays in 16
AVX-512 registers while `vector.contract` lowers to broadcast-FMA outer
products: about 200 GFLOP/s on one core. Transposes of the last two
dimensions move 16x16 blocks with register shuffles instead of strided
scalar copies (13x faster on a 1024x1024 f32 matrix). Everything else is
left to `convert-linalg-to-loops` and LLVM's loop vectoriser.

Tiles never exceed a loop's extent: a tile larger than its loop would
vectorise with constant masks, which the vector canonicalisations turn into
fully unrolled code. A contraction's loops with a partial tile at the edge are
peeled (`_TILE_AND_PEEL`): every tile then has a static shape and vectorises
without masks. Other ops' partial tiles are masked.
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from gradir.errors import PipelineError
from gradir.mlir_bridge import apply_schedule, walk_ops

# Register block (M, N, K-slice) per element width: 8 x 32 f32 accumulators
# fill 16 AVX-512 registers; f64 halves the columns per register.
# The K slice is the kernel's unrolling (one outer product per step): 8 deep
# rather than 16 halved the kernels' code, LeNet-5's gradient compiled in 20%
# less time and ran as fast or faster (so did bench/cpu.py's MLP and the GMM).
MATMUL_TILES = {
    "linalg.matmul": {32: (8, 32, 8), 64: (8, 16, 8)},
    "linalg.batch_matmul": {32: (1, 8, 32, 8), 64: (1, 8, 16, 8)},
}
TRANSPOSE_BLOCK = 16
VECTOR_BITS = 512
ACCUMULATOR_REGISTERS = 24
"""AVX-512: 32 vector registers, 24 of them for a block of C's accumulators."""

_TILE_AND_VECTORIZE = """
    %{tag} = transform.structured.match ops{{["{name}"]}} attributes{{gradir.{tag}}} in %root
        : (!transform.any_op) -> !transform.any_op
    %{tag}_tile, %{tag}_loops:{rank} = transform.structured.tile_using_for %{tag} tile_sizes {sizes}
        : (!transform.any_op) -> (!transform.any_op{loop_types})
    transform.structured.vectorize %{tag}_tile vector_sizes {sizes} : !transform.any_op
"""

# A contraction's tile loops whose extent the tile does not divide are peeled,
# innermost first (each peel copies the loops inside it): the full tiles then
# have static shapes, and so does the one partial tile per peeled loop, and all
# of them vectorise without masks once canonicalisation has folded their sizes.
_TILE_AND_PEEL = """
    %{tag} = transform.structured.match ops{{["{name}"]}} attributes{{gradir.{tag}}} in %root
        : (!transform.any_op) -> !transform.any_op
    %{tag}_tile, %{tag}_loops:{rank} = transform.structured.tile_using_for %{tag} tile_sizes {sizes}
        : (!transform.any_op) -> (!transform.any_op{loop_types})
"""

_PEEL = """
    %{tag}_for{loop} = transform.cast %{tag}_loops#{loop} : !transform.any_op to !transform.op<"scf.for">
    %{tag}_full{loop}, %{tag}_partial{loop} = transform.loop.peel %{tag}_for{loop}
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
"""

_VECTORIZE_PEELED = """
    %{tag}_static = transform.structured.match ops{{["{name}"]}} attributes{{gradir.{tag}}} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.structured.vectorize %{tag}_static : !transform.any_op
"""

_CANONICALIZE = """
    %peeled_functions = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %peeled_functions {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
"""

_VECTOR_LOWERING = """
    %functions = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %functions {
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %hoisted = transform.structured.hoist_redundant_vector_transfers %functions
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.vector.lower_shape_cast
      transform.apply_patterns.vector.lower_broadcast
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.lower_masks
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.lower_transpose
    } : !transform.any_op
"""


def _element_bits(value_type: ir.Type) -> int:
    element = ir.ShapedType(value_type).element_type
    return element.width if isinstance(element, (ir.F16Type, ir.F32Type, ir.F64Type)) else 0


def _clipped(tiles: tuple[int, ...], extents: tuple[int, ...]) -> list[int] | None:
    """`tiles` cut down to `extents`; None for empty loops (nothing to vectorise)."""
    if len(tiles) != len(extents) or 0 in extents:
        return None
    return [min(tile, extent) for tile, extent in zip(tiles, extents)]


def _contraction_tiles(op: ir.Operation) -> list[int] | None:
    """Tile sizes for a matmul/batch_matmul on static f32/f64 buffers, else None."""
    output = ir.ShapedType(op.operands[-1].type)
    left = ir.ShapedType(op.operands[0].type)
    tiles = MATMUL_TILES[op.name].get(_element_bits(output))
    if tiles is None or not (output.has_static_shape and left.has_static_shape):
        return None
    extents = (*output.shape, left.shape[-1])  # parallel loops, then K
    if not _default_matmul_maps(op):
        # A matmul reading an operand transposed (`indexing_maps`, e.g. named
        # back from a gradient's generic) vectorised this way crashes at run time
        # from about 256x256x256 (B transposed); loops are slower but right.
        return None
    if op.name == "linalg.batch_matmul" or 1 in extents:
        # MLIR 22's vector lowering of these (unit-extent or batched contractions)
        # does not terminate; plain loops + LLVM's vectoriser handle them. (Static
        # batch matmuls on tensors already became loops of matmuls: batch_matmul_loops.)
        return None
    clipped = _clipped(tiles, extents)
    if clipped is None:
        return None
    (tile_m, tile_n, tile_k), (m, n, k) = clipped, extents
    # Columns are the vector dimension: whole or half register widths only.
    columns = tile_n if n % tile_n == 0 or n % (tile_n // 2) else tile_n // 2
    lanes = VECTOR_BITS // _element_bits(output)
    if columns > lanes and columns % lanes:
        # More columns than a vector but not whole vectors (only when all the columns
        # fit one tile): one vector and a peeled remainder. Tiled whole, 25 f32 columns
        # made vector<25> (16 + 8 + one scalar lane per row): LeNet's first filter
        # gradient, 6x12544 @ 12544x25, 0.105 -> 0.062 ms.
        columns = lanes
    rows = _dividing_tile(m, tile_m, smallest=4)
    vectors_per_row = max(1, columns * _element_bits(output) // VECTOR_BITS)
    if m * vectors_per_row <= ACCUMULATOR_REGISTERS:
        # Few rows: all of them in one register block, so B (K x N, often the
        # large operand) is streamed once instead of once per 8 rows: x^T @ G of
        # the GMM gradient (20 x 10000 @ 10000 x 1000, f64) 23.9 -> 12.6 ms.
        rows = m
    return [rows, columns, _dividing_tile(k, tile_k, smallest=4)]


_DEFAULT_MATMUL_MAPS = [
    "affine_map<(d0, d1, d2) -> (d0, d2)>", "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
]


def _default_matmul_maps(op: ir.Operation) -> bool:
    if op.name != "linalg.matmul" or "indexing_maps" not in op.attributes:
        return True
    return [str(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"])] == _DEFAULT_MATMUL_MAPS


def _dividing_tile(extent: int, tile: int, smallest: int) -> int:
    """The largest tile from `tile` down to `smallest` that divides `extent`, else `tile`.

    A partial tile at the edge was masked, and MLIR 22's masked vector code is
    several times slower than the full tiles: x @ Q of the GMM (1000x20 @
    20x1000, f64) ran at 14 GFLOP/s with 16-deep K slices (a 4-deep masked
    remainder) and 16-wide columns (8 left over), at 50-80 with 10 and 8.
    Contractions now peel partial tiles instead, but each peeled loop is one
    more copy of the unrolled kernel to compile, so a dividing tile is still
    preferred. Tiles stay at most the defaults: a 32-deep K slice crashes LLVM."""
    for candidate in range(tile, max(smallest, 1) - 1, -1):
        if extent % candidate == 0:
            return candidate
    return tile


def _transpose_tiles(op: ir.Operation) -> list[int] | None:
    """Tile sizes for a transpose that swaps the last two dims of a static buffer, else None."""
    output = ir.ShapedType(op.operands[-1].type)
    permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    rank = len(permutation)
    # Rank 2 only: MLIR 22's shuffle lowering exhausts memory on batched
    # (rank-3) 16x16 blocks; those transposes stay plain loops.
    swaps_last_two = rank == 2 and permutation == [1, 0]
    if not (swaps_last_two and output.has_static_shape and _element_bits(output)):
        return None
    if 1 in output.shape:
        return None
    tiles = (1,) * (rank - 2) + (TRANSPOSE_BLOCK, TRANSPOSE_BLOCK)
    return _clipped(tiles, tuple(output.shape))


SHORT_ROW = 32
"""Innermost loops at most this long are vectorised whole (`_short_row_tiles`)."""
SHORT_ROW_ELEMENTS = 128
"""Elements per vectorised block of short rows."""


def _short_row_tiles(op: ir.Operation) -> list[int] | None:
    """Tile sizes for an elementwise generic whose innermost loop is short, else None.

    LLVM vectorises the innermost loop of a loop nest: 20 iterations of f64 are
    one 16-wide vector step, a scalar remainder and the loop's own overhead for
    every row, which made a 500000 x 20 broadcast product 10x slower than the
    same product with 1024-long rows (38 ms against 3.7). Here blocks of whole
    rows (up to `SHORT_ROW_ELEMENTS` elements, a divisor of the row count) are
    vectorised instead, each operand read row by row or broadcast."""
    if op.name != "linalg.generic":
        return None
    kinds = [str(kind) for kind in ir.ArrayAttr(op.attributes["iterator_types"])]
    # Rank 2 only (after `collapse_dims` most are): MLIR 22's vector lowering of
    # a rank-3 block exhausts memory, as for transposes.
    if len(kinds) != 2 or any("parallel" not in kind for kind in kinds):
        return None
    body = [inner.name for inner in op.regions[0].blocks[0].operations]
    if not all(name.startswith(("arith.", "math.")) or name == "linalg.yield" for name in body):
        return None
    if any(name in ("arith.cmpf", "arith.select") for name in body):
        return None  # i1 vectors would be stored as bytes: leave them to the loops
    if not all(isinstance(operand.type, ir.ShapedType) for operand in op.operands):
        return None  # a scalar operand (`ins(%x, %s : tensor<4x5xf32>, f32)`): left to the loops
    types = [ir.ShapedType(operand.type) for operand in op.operands]
    if not all(t.has_static_shape and _element_bits(t) in (32, 64) for t in types):
        return None
    rank = len(kinds)
    innermost = rank - 1
    for amap in (ir.AffineMapAttr(a).value for a in ir.ArrayAttr(op.attributes["indexing_maps"])):
        dims = [ir.AffineDimExpr(e).position if isinstance(e, ir.AffineDimExpr) else None for e in amap.results]
        if None in dims or (innermost in dims and dims[-1] != innermost):
            return None  # only rows read contiguously, or broadcast along them
    extents = ir.ShapedType(op.operands[-1].type).shape
    row = extents[-1]
    if not 1 < row <= SHORT_ROW or 0 in extents:
        return None
    rows = _dividing_tile(extents[-2], max(2, SHORT_ROW_ELEMENTS // row), smallest=2)
    if extents[-2] % rows:
        # No block of 2 or more rows divides the row count: a one-row block
        # (a unit vector dimension) or a masked edge makes MLIR 22's vector
        # lowering run without end, as for unit-extent contractions.
        return None
    return [rows, row]


_TILE_RULES_PEELED = ("linalg.matmul", "linalg.batch_matmul")
"""Contractions: tiled, peeled where a tile is partial, then vectorised (`_TILE_AND_PEEL`)."""

_TILE_RULES = {
    "linalg.matmul": _contraction_tiles,
    "linalg.batch_matmul": _contraction_tiles,
    "linalg.transpose": _transpose_tiles,
    "linalg.generic": _short_row_tiles,
}


@dataclass(frozen=True)
class ScheduleStep:
    """The tile-and-vectorise step of one op, tagged `gradir.<tag>` in the module."""

    tag: str
    op_name: str
    sizes: tuple[int, ...]
    peeled: tuple[int, ...] = ()
    """Tile loops to peel, innermost first (`_partial_loops`); with any, the step's
    tiles are vectorised after peeling and canonicalisation, else with masks."""

    def text(self) -> str:
        fields = dict(
            tag=self.tag, name=self.op_name, rank=len(self.sizes), sizes=list(self.sizes),
            loop_types=", !transform.any_op" * len(self.sizes),
        )
        if not self.peeled:
            return _TILE_AND_VECTORIZE.format(**fields)
        return _TILE_AND_PEEL.format(**fields) + "".join(_PEEL.format(tag=self.tag, loop=loop) for loop in self.peeled)

    def vectorize_text(self) -> str:
        return _VECTORIZE_PEELED.format(tag=self.tag, name=self.op_name) if self.peeled else ""


def schedule_steps(module: ir.Module) -> list[ScheduleStep]:
    """One step per contraction, transpose and short-row generic worth vectorising; each
    such op is tagged with a unit attribute `gradir.tile_<n>` so that its step finds it."""
    steps = []
    for op in walk_ops(module, set(_TILE_RULES)):
        sizes = _TILE_RULES[op.name](op)
        if sizes is None:
            continue
        step = ScheduleStep(f"tile_{len(steps)}", op.name, tuple(sizes), _partial_loops(op, sizes))
        op.attributes[f"gradir.{step.tag}"] = ir.UnitAttr.get()
        steps.append(step)
    return steps


def _partial_loops(op: ir.Operation, sizes: list[int]) -> tuple[int, ...]:
    """The tile loops of a contraction whose extent the tile does not divide, innermost
    first (the order `_PEEL` needs); () for other ops, and where a peeled tile would
    have a unit extent (MLIR 22's vector lowering of those does not terminate, as for
    unit-extent contractions: such a contraction keeps masked edge tiles)."""
    if op.name not in _TILE_RULES_PEELED:
        return ()
    output = ir.ShapedType(op.operands[-1].type)
    extents = [*output.shape, ir.ShapedType(op.operands[0].type).shape[-1]]
    remainders = [extent % size for extent, size in zip(extents, sizes)]
    if 1 in remainders:
        return ()
    return tuple(loop for loop in reversed(range(len(sizes))) if remainders[loop])


def schedule_script(steps: list[ScheduleStep], lowering: bool = True) -> str:
    """The transform script running `steps`, then (with `lowering`) the vector lowering."""
    peeled = [step for step in steps if step.peeled]
    return (
        "module attributes {transform.with_named_sequence} {\n"
        "  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {"
        + "".join(step.text() for step in steps)
        + (_CANONICALIZE if peeled else "")
        + "".join(step.vectorize_text() for step in peeled)
        + (_VECTOR_LOWERING if lowering else "")
        + "    transform.yield\n  }\n}\n"
    )


def vector_schedule(module: ir.Module) -> str | None:
    """The transform script vectorising the module's contractions, transposes and short
    rows (tagging them, see `schedule_steps`); None when nothing qualifies."""
    steps = schedule_steps(module)
    return schedule_script(steps) if steps else None


STAGE = "cpu-vector-schedule"


def apply_vector_schedule(module: ir.Module) -> list[str]:
    """Vectorise the module in place as `vector_schedule` says, never failing: returns what
    had to be left to the loop lowering (empty when the whole schedule applied).

    MLIR 22's transforms fail on a few valid ops (see `tests/cpu_backend/test_schedule_fallback.py`),
    and a failing transform leaves the module half transformed. So the module is kept as it
    was; on a failure it is restored and each op's step is tried alone (restored again if it
    fails: that op becomes loops like every unscheduled op), then the vector lowering runs once;
    if that fails too, the module is restored and nothing is vectorised.
    """
    with module.context, ir.Location.unknown():
        return _apply_with_fallback(module)


def _apply_with_fallback(module: ir.Module) -> list[str]:
    steps = schedule_steps(module)
    if not steps:
        return []
    original = module.operation.clone()
    try:
        try:
            apply_schedule(module, schedule_script(steps), STAGE)
            return []
        except PipelineError:
            _restore(module, original)
        left_to_loops = []
        for step in steps:
            before_step = module.operation.clone()
            try:
                apply_schedule(module, schedule_script([step], lowering=False), STAGE)
            except PipelineError as error:
                _restore(module, before_step)
                left_to_loops.append(f"{step.op_name} {list(step.sizes)}: {error.message}")
            finally:
                before_step.erase()
        try:
            apply_schedule(module, schedule_script([]), STAGE)
        except PipelineError as error:
            _restore(module, original)
            left_to_loops = [f"every op: {error.message}"]
        return left_to_loops
    finally:
        original.erase()


def _restore(module: ir.Module, saved: ir.Operation) -> None:
    """Make `module`'s body a copy of `saved`'s (a clone of the module taken earlier)."""
    for op in list(module.body.operations):
        op.operation.erase()
    copy = saved.clone()
    for op in list(copy.regions[0].blocks[0].operations):
        module.body.append(op.operation.detach_from_parent())
    copy.erase()
