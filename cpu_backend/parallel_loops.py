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
  compiled both ways and a run-time `scf.if` on the trip count picks one
  (counting one operation per iteration where the body's work is unknown; the
  test folds away where the trip count is static);
- every other `scf.parallel` (small, or nested in a parallel one) becomes
  serial `scf.for` loops, as `convert-linalg-to-loops` wrote it; one that carries
  reductions (a program's own `scf.parallel ... init`) folds them in iteration
  order, as with one thread.

Only parallel dimensions are ever split between threads; a reduction dimension
stays a serial loop inside one iteration, in the same order as with one thread.
With the static schedule each element is computed by the same operations in
the same order whatever the thread count, so results are bit for bit those of
serial code (tests/cpu_backend/test_parallel_loops.py checks it on several
programs), with one exception: a row reduction whose combiner is marked
reassociative (`cpu_pipeline._mark_reassociative_reductions`) and whose
accumulator lives in a buffer is reassociated by LLVM in serial code but summed
in order inside a region, where the buffer's pointer arrives as an argument of
the outlined region and LLVM no longer knows it aliases nothing (a
log-softmax over rows of 10 differed in the last bits); its results are still
the same on every run.

A failed run-time check or allocation inside a region is caught on the thread
that failed and passed on after the region (`guard_parallel_regions`).
"""
from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith, scf

from gradir.mlir_bridge import run_pipeline, walk_ops

PARALLEL_WORK_THRESHOLD = 1 << 18
"""Operations (MLIR ops of a loop body, times the iterations that run them) below which
a loop nest stays serial: about 15 us of vectorised work (a loop of `sin(x)`, 35
operations per element after `cpu_math_approximation`, ran 1 024 elements in 2 us on
one core). PyTorch's grain size is similar (32 768 elements of a simple elementwise
op). Measured on this 2-core machine shared with other jobs (load 6-9,
bench/threads.py and a loop of 2 000 forks), a fork and join of libiomp5 cost
30-100 us when the other thread had been descheduled and 2-6 us when it was still
spinning; loops of 65 536 `sin(x) * y` (2.3 M operations) ran 1.7x faster on 2
threads in a quiet moment and no faster under the heaviest load. Below the
threshold the fork is never worth its risk."""

CHUNKS_PER_THREAD = 4
"""Leading dimensions are made parallel until their trip counts give each thread this many
iterations (a 3-row outer loop alone would leave one of 2 threads a third of the work
idle), but never the innermost of several, which LLVM vectorises."""

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


def _serial_reductions(loop: ir.Operation) -> None:
    """Replace `scf.parallel` `loop`, which carries reductions, by `scf.for` loops that
    fold each iteration's values into accumulators in iteration order, as
    `convert-scf-to-cf` lowers it with one thread (`convert-scf-to-openmp` would combine
    per-thread partial results: another order)."""
    rank = len(loop.regions[0].blocks[0].arguments)
    bounds = _bounds(loop)
    carried = list(loop.operands)[3 * rank :]
    body = loop.regions[0].blocks[0]
    loops, induction_variables = [], []
    insertion = ir.InsertionPoint(loop)
    for lower, upper, step in bounds:
        new = scf.ForOp(lower, upper, step, carried, loc=loop.location, ip=insertion)
        loops.append(new)
        induction_variables.append(new.induction_variable)
        carried = list(new.inner_iter_args)
        insertion = ir.InsertionPoint(new.body)
    for old, new_value in zip(body.arguments, induction_variables):
        old.replace_all_uses_with(new_value)
    operations = list(body.operations)
    reduction = operations[-1]
    for op in operations[:-1]:
        op.detach_from_parent()
        insertion.insert(op)
    folded = []
    for accumulator, value, region in zip(carried, reduction.operands, reduction.regions):
        block = region.blocks[0]
        block.arguments[0].replace_all_uses_with(accumulator)
        block.arguments[1].replace_all_uses_with(value)
        for op in list(block.operations):
            if op.name == "scf.reduce.return":
                folded.append(op.operands[0])
                continue
            op.detach_from_parent()
            insertion.insert(op)
    with insertion, loop.location:
        scf.YieldOp(folded)
    for outer, inner in zip(reversed(loops[:-1]), reversed(loops[1:])):
        with ir.InsertionPoint(outer.body), loop.location:
            scf.YieldOp(list(inner.results))
    for old, new_value in zip(loop.results, loops[0].results):
        old.replace_all_uses_with(new_value)
    loop.erase()


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
        if len(loop.results):
            _serial_reductions(loop)
            continue
        if _inside_parallel(loop) or threads < 2:
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


def _inline_alloca_scopes(module: ir.Module) -> None:
    """Inline the `memref.alloca_scope` `convert-scf-to-openmp` wraps each loop body in,
    where the body allocates no stack: a scope of several blocks (a run-time check's
    branch) cannot be lowered, and canonicalize keeps every scope whose body calls a
    function (it might allocate)."""
    for scope in walk_ops(module, {"memref.alloca_scope"}):
        if walk_ops(scope, {"memref.alloca", "llvm.alloca"}):
            continue
        block = scope.regions[0].blocks[0]
        results = []
        for op in list(block.operations):
            if op.name == "memref.alloca_scope.return":
                results = list(op.operands)
                op.erase()
                continue
            op.move_before(scope)
        for old, new in zip(scope.results, results):
            old.replace_all_uses_with(new)
        scope.erase()


GUARD_SWAP_FUNCTION = "__gradir_parallel_guard_swap"
"""`(!llvm.ptr) -> !llvm.ptr`: make its argument this thread's jump buffer
(`checked_allocations`), return the one before (defined by `checked_allocations`)."""
GUARD_FAILED_FUNCTION = "__gradir_parallel_failed"
"""`(i64) -> ()`: pass a failure caught in a parallel region on to the guard of the
calling thread, as a failed run-time check does (defined by `checked_allocations`)."""

_ATOMIC_EXCHANGE, _MONOTONIC = 0, 2  # LLVM::AtomicBinOp::xchg, LLVM::AtomicOrdering::monotonic
_JUMP_BUFFER_WORDS = 65  # checked_allocations.JUMP_BUFFER_BYTES / 8 + 1: the jmp_buf and the code


def _declare_guard_functions(module: ir.Module) -> None:
    text = f"""
    func.func private @{GUARD_SWAP_FUNCTION}(!llvm.ptr) -> !llvm.ptr
    func.func private @{GUARD_FAILED_FUNCTION}(i64)
    llvm.func @_setjmp(!llvm.ptr) -> i32 attributes {{passthrough = ["returns_twice"]}}
    """
    existing = {ir.StringAttr(op.attributes["sym_name"]).value for op in module.body.operations
                if "sym_name" in op.attributes}  # fmt: skip
    for op in ir.Module.parse(text, module.context).body.operations:
        if ir.StringAttr(op.attributes["sym_name"]).value not in existing:
            op.clone(ir.InsertionPoint(module.body))


def _guard_region(region_op: ir.Operation) -> None:
    """Catch, on each thread of OpenMP region `region_op`, what a failed run-time check or
    allocation throws (`checked_allocations`: a `longjmp` to the thread's guard), and throw
    it again on the calling thread after the region.

    A thread's jump without this landed in no guard (a worker thread has none: `abort`)
    or in the caller's guard from inside the region (the other threads then wait for it
    forever). Each thread now sets its own jump buffer; after a jump it skips the rest of
    its share of the loop, records the failure code in a slot of the calling function and
    joins the others at the end of the region (the loop is `nowait`, so the jump skips no
    barrier). The calling thread then hands the code to its own guard. Where several
    threads fail, one of their failures is reported."""
    ptr = ir.Type.parse("!llvm.ptr")
    i64 = ir.IntegerType.get_signless(64)
    i32 = ir.IntegerType.get_signless(32)
    function = region_op.parent
    while function.name != "func.func":
        function = function.parent
    entry = function.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(entry):
        one = ir.Operation.create("llvm.mlir.constant", [i64], attributes={"value": ir.IntegerAttr.get(i64, 1)})
        slot = ir.Operation.create("llvm.alloca", [ptr], [one.result],
                                   attributes={"elem_type": ir.TypeAttr.get(i64)})  # fmt: skip
    with ir.InsertionPoint(region_op):
        zero = arith.constant(i64, 0)
        ir.Operation.create("llvm.store", [], [zero, slot.result])
    for loop in walk_ops(region_op, {"omp.wsloop"}):
        loop.attributes["nowait"] = ir.UnitAttr.get()
    block = region_op.regions[0].blocks[0]
    body = list(block.operations)[:-1]
    terminator = list(block.operations)[-1]
    with ir.InsertionPoint.at_block_begin(block):
        count = ir.Operation.create("llvm.mlir.constant", [i64], attributes={"value": ir.IntegerAttr.get(i64, 1)})
        buffer_type = ir.Type.parse(f"!llvm.array<{_JUMP_BUFFER_WORDS} x i64>")
        state = ir.Operation.create("llvm.alloca", [ptr], [count.result], attributes={
            "elem_type": ir.TypeAttr.get(buffer_type), "alignment": ir.IntegerAttr.get(i64, 16)})  # fmt: skip
        previous = ir.Operation.create("func.call", [ptr], [state.result], attributes={
            "callee": ir.FlatSymbolRefAttr.get(GUARD_SWAP_FUNCTION)})  # fmt: skip
        jumped = ir.Operation.create("llvm.call", [i32], [state.result], attributes={
            "callee": ir.FlatSymbolRefAttr.get("_setjmp"),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0]),
            "op_bundle_sizes": ir.DenseI32ArrayAttr.get([])})  # fmt: skip
        first = arith.cmpi(arith.CmpIPredicate.eq, jumped.result, arith.constant(i32, 0))
        choice = scf.IfOp(first, [], has_else=True)
    with ir.InsertionPoint(choice.then_block):
        finished = scf.YieldOp([])
    for op in body:
        op.move_before(finished)
    with ir.InsertionPoint(choice.else_block):
        offset = arith.constant(i64, _JUMP_BUFFER_WORDS * 8 - 8)
        code_slot = ir.Operation.create("llvm.getelementptr", [ptr], [state.result, offset], attributes={
            "rawConstantIndices": ir.DenseI32ArrayAttr.get([-2147483648]),
            "elem_type": ir.TypeAttr.get(ir.IntegerType.get_signless(8))})  # fmt: skip
        code = ir.Operation.create("llvm.load", [i64], [code_slot.result])
        ir.Operation.create("llvm.atomicrmw", [i64], [slot.result, code.result], attributes={
            "bin_op": ir.IntegerAttr.get(i64, _ATOMIC_EXCHANGE),
            "ordering": ir.IntegerAttr.get(i64, _MONOTONIC)})  # fmt: skip
        scf.YieldOp([])
    with ir.InsertionPoint(terminator):
        ir.Operation.create("func.call", [ptr], [previous.result], attributes={
            "callee": ir.FlatSymbolRefAttr.get(GUARD_SWAP_FUNCTION)})  # fmt: skip
    with ir.InsertionPoint.after(region_op):
        failure = ir.Operation.create("llvm.load", [i64], [slot.result])
        failed = arith.cmpi(arith.CmpIPredicate.ne, failure.result, arith.constant(i64, 0))
        rethrow = scf.IfOp(failed, [])
    with ir.InsertionPoint(rethrow.then_block):
        ir.Operation.create("func.call", [], [failure.result], attributes={
            "callee": ir.FlatSymbolRefAttr.get(GUARD_FAILED_FUNCTION)})  # fmt: skip
        scf.YieldOp([])


def guard_parallel_regions(module: ir.Module) -> None:
    """`_guard_region` on every OpenMP region of `module`."""
    regions = walk_ops(module, {"omp.parallel"})
    if regions:
        _declare_guard_functions(module)
    for region_op in regions:
        _guard_region(region_op)


def run_loops_on_threads(module: ir.Module, threads: int) -> int:
    """Stage `cpu-threads` on a module of loops (after `LOOP_PIPELINE`), in place:
    the chosen nests become OpenMP regions of `threads` threads, the rest serial loops.
    Returns the number of nests made parallel."""
    with module.context, ir.Location.unknown():
        run_pipeline(module, FORALL_PIPELINE, "cpu-threads")
        kept = choose_parallel_loops(module, threads)
        if kept:
            run_pipeline(module, OPENMP_PIPELINE.format(threads=threads), "cpu-threads")
            _inline_alloca_scopes(module)
            guard_parallel_regions(module)
        return kept
