"""Which loop nests run on several threads, and how (stage `cpu-threads`).

The loop stage (`cpu_pipeline.LOOP_PIPELINE`) lowers every linalg op with
`convert-linalg-to-parallel-loops`: its parallel dimensions become one
`scf.parallel`, its reduction dimensions `scf.for` loops. So do the
`scf.forall` loops a transform schedule leaves (`scf-forall-to-parallel`).
`run_loops_on_threads` then decides, per `scf.parallel`:

- an outermost one (no `scf.parallel` around it) with at least
  `PARALLEL_WORK_THRESHOLD` operations of work (its trip count times what one
  iteration runs, nested `scf.for` loops counted by their trip counts) keeps its
  leading dimensions parallel: as few as give every thread `CHUNKS_PER_THREAD`
  iterations (the innermost stays a serial loop where possible, so LLVM still
  vectorises it), and becomes an OpenMP region with a static schedule
  (`convert-scf-to-openmp`);
- where the trip count or nested loops are not static, the same nest is
  compiled both ways and a run-time `scf.if` on the trip count picks one;
- every other `scf.parallel` (small, nested in a parallel one, or carrying a
  reduction) becomes serial `scf.for` loops, as `convert-linalg-to-loops` wrote it.

Only parallel dimensions are ever split between threads; a reduction dimension
stays a serial loop inside one iteration, in the same order as with one thread.
With the static schedule each element is computed by the same instructions
whatever the thread count, so results are bit for bit those of serial code
(tests/cpu_backend/test_parallel_loops.py checks it on several programs).
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, scf

from gradir.mlir_bridge import run_pipeline, walk_ops

PARALLEL_WORK_THRESHOLD = 32768
"""Operations (MLIR ops of a loop body, times the iterations that run them) below which
a loop nest stays serial. Forking and joining 2 threads of libiomp5 costs about
2-3 us here; an elementwise loop (`sin(x) * y`, vectorised) of N elements ran
faster on 2 threads than on 1 from about N = 4096 (5 ops per element: 20 000
operations) and at 1.6-1.9x from 65 536 elements (bench/threads.py); below the
threshold the fork costs more than it saves on a loaded machine."""

CHUNKS_PER_THREAD = 4
"""Leading dimensions are made parallel until their trip counts give each thread this many
iterations (so a 2-row outer loop over wide rows is not split 1:1 with an idle thread)."""

FORALL_PIPELINE = "func.func(scf-forall-to-parallel)"
OPENMP_PIPELINE = "convert-scf-to-openmp{{num-threads={threads}}}, canonicalize"


def _static_trip_count(lower: ir.Value, upper: ir.Value, step: ir.Value) -> int | None:
    values = []
    for value in (lower, upper, step):
        owner = value.owner
        if not (isinstance(owner, ir.OpView | ir.Operation) and owner.name == "arith.constant"):
            return None
        values.append(ir.IntegerAttr(owner.attributes["value"]).value)
    lower_value, upper_value, step_value = values
    if step_value <= 0:
        return None
    return max(0, -(-(upper_value - lower_value) // step_value))


def _bounds(loop: ir.Operation) -> list[tuple[ir.Value, ir.Value, ir.Value]]:
    """(lower, upper, step) per dimension of an `scf.for` or `scf.parallel`."""
    operands = list(loop.operands)
    if loop.name == "scf.for":
        return [(operands[0], operands[1], operands[2])]
    rank = len(loop.regions[0].blocks[0].arguments)
    return [(operands[d], operands[rank + d], operands[2 * rank + d]) for d in range(rank)]


def _block_work(block: ir.Block) -> int | None:
    """Operations one run of `block` executes (nested loops times their trip counts);
    None where a nested loop's trip count is not static."""
    total = 0
    for op in block.operations:
        if op.name in ("scf.for", "scf.parallel"):
            trips = [_static_trip_count(*bounds) for bounds in _bounds(op)]
            inner = _block_work(op.regions[0].blocks[0])
            if inner is None or None in trips:
                return None
            total += math.prod(trips) * inner
            continue
        total += 1
        for region in op.regions:
            for nested in region.blocks:
                inner = _block_work(nested)
                if inner is None:
                    return None
                total += inner
    return total


def _inside_parallel(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in ("scf.parallel", "omp.parallel"):
            return True
        parent = parent.parent
    return False


def _rebuild(loop: ir.Operation, parallel_dims: int) -> ir.Operation:
    """Replace result-less `scf.parallel` `loop` by an `scf.parallel` over its first
    `parallel_dims` dimensions (none: no `scf.parallel`) around `scf.for` loops over the
    others; returns the outermost new loop."""
    bounds = _bounds(loop)
    body = loop.regions[0].blocks[0]
    induction_variables: list[ir.Value] = []
    insertion = ir.InsertionPoint(loop)
    outermost = None
    if parallel_dims:
        lowers, uppers, steps = zip(*bounds[:parallel_dims])
        new = scf.ParallelOp([], list(lowers), list(uppers), list(steps), [], loc=loop.location, ip=insertion)
        block = new.regions[0].blocks.append(*[ir.IndexType.get()] * parallel_dims)
        with ir.InsertionPoint(block):
            scf.ReduceOp([], 0)
        induction_variables += list(block.arguments)
        insertion = ir.InsertionPoint.at_block_terminator(block)
        outermost = new.operation
    for lower, upper, step in bounds[parallel_dims:]:
        new = scf.ForOp(lower, upper, step, loc=loop.location, ip=insertion)
        with ir.InsertionPoint(new.body):
            scf.YieldOp([])
        induction_variables.append(new.induction_variable)
        insertion = ir.InsertionPoint.at_block_terminator(new.body)
        outermost = outermost or new.operation
    for old, new_value in zip(body.arguments, induction_variables):
        old.replace_all_uses_with(new_value)
    for op in list(body.operations):
        if op.name == "scf.reduce":
            continue
        op.detach_from_parent()
        insertion.insert(op)
    loop.erase()
    return outermost


def _parallel_dims(trips: list[int | None], threads: int) -> int:
    """How many leading dimensions to share among `threads`: enough for `CHUNKS_PER_THREAD`
    iterations each, keeping the innermost serial unless it is the only one."""
    wanted = threads * CHUNKS_PER_THREAD
    count, product = 0, 1
    for position, trip in enumerate(trips):
        if position == len(trips) - 1 and position > 0:
            break
        count += 1
        product *= trip if trip is not None else wanted
        if product >= wanted:
            break
    return count


def _work_condition(loop: ir.Operation, body_work: int | None) -> ir.Value:
    """`i1`: the run-time trip count of `loop` times `body_work` (1 if unknown) reaches the
    threshold."""
    with ir.InsertionPoint(loop), loop.location:
        trips = None
        for lower, upper, step in _bounds(loop):
            span = arith.subi(upper, lower)
            count = arith.ceildivsi(span, step)
            trips = count if trips is None else arith.muli(trips, count)
        needed = -(-PARALLEL_WORK_THRESHOLD // max(body_work or 1, 1))
        limit = arith.constant(ir.IndexType.get(), needed)
        return arith.cmpi(arith.CmpIPredicate.sge, trips, limit)


def _run_time_choice(loop: ir.Operation, threads: int, body_work: int | None) -> None:
    """`scf.if` (enough work) { `loop` made parallel } else { its serial copy }."""
    condition = _work_condition(loop, body_work)
    with loop.location:
        choice = scf.IfOp(condition, [], has_else=True, ip=ir.InsertionPoint(loop))
    with ir.InsertionPoint(choice.else_block):
        scf.YieldOp([])
    with ir.InsertionPoint(choice.then_block):
        scf.YieldOp([])
    serial = loop.clone(ir.InsertionPoint.at_block_terminator(choice.else_block))
    loop.move_before(choice.then_block.operations[0])
    for nested in walk_ops(serial.operation, {"scf.parallel"}):
        if nested != serial.operation:
            _rebuild(nested, 0)
    _rebuild(serial.operation, 0)
    trips = [_static_trip_count(*bounds) for bounds in _bounds(loop)]
    _rebuild(loop, _parallel_dims(trips, threads))


def choose_parallel_loops(module: ir.Module, threads: int) -> int:
    """Keep as `scf.parallel` (leading dimensions only) the loop nests worth running on
    `threads` threads, make every other `scf.parallel` serial loops; returns how many
    nests stay parallel (counting a run-time choice as one)."""
    kept = 0
    for loop in walk_ops(module, {"scf.parallel"}):
        if len(loop.results) or _inside_parallel(loop) or threads < 2:
            _rebuild(loop, 0)
            continue
        trips = [_static_trip_count(*bounds) for bounds in _bounds(loop)]
        body_work = _block_work(loop.regions[0].blocks[0])
        if None in trips or body_work is None:
            _run_time_choice(loop, threads, body_work)
            kept += 1
            continue
        if math.prod(trips) * body_work < PARALLEL_WORK_THRESHOLD:
            _rebuild(loop, 0)
            continue
        _rebuild(loop, _parallel_dims(trips, threads))
        kept += 1
    return kept


def run_loops_on_threads(module: ir.Module, threads: int) -> int:
    """Stage `cpu-threads` on a module of loops (after `LOOP_PIPELINE`), in place:
    the chosen nests become OpenMP regions of `threads` threads, the rest serial loops.
    Returns the number of nests made parallel."""
    with module.context, ir.Location.unknown():
        run_pipeline(module, FORALL_PIPELINE, "cpu-threads")
        kept = choose_parallel_loops(module, threads)
        if kept:
            run_pipeline(module, OPENMP_PIPELINE.format(threads=threads), "cpu-threads")
        return kept
