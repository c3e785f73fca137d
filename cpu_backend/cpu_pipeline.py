"""The CPU pipeline: linalg/tensor/arith/math on tensors down to the LLVM dialect.

`lower_to_llvm` runs these stages on an `mlir.ir.Module` (every textual
pipeline is a constant below, so it can be replayed with other tools):

1. `inline` (except a public function whose whole body calls another public
   function: it keeps the call, so the callee is compiled once;
   `forwarding_calls`), then the tensor stage both backends share
   (`mlir_bridge.tensor_stage`: `TENSOR_SCHEDULE`, then
   `ELEMENTWISE_FUSION_PIPELINE` with every named contraction behind a call,
   `outline_contractions`, inlined back after) -- arith/math on whole tensors
   become `linalg.generic`s, named elementwise ops are generalised, and each
   chain of elementwise generics fuses into one loop nest: no intermediate
   tensor is written to memory. Generics that are
   really matmuls or transposes are then given back their names
   (`specialize_generics`: only generics whose bodies are exactly multiply,
   add and casts; upstream's pass would also name `acc + exp(a) * b` a
   matmul, dropping the `exp`). Batch-matmul generics are named before
   fusion, so they are outlined with the other contractions, and each batch
   matmul becomes a loop of matmuls over the batch (`batch_matmul_loops`), so
   that every product gets the vectorised matmul schedule. Likewise every
   convolution (a named one, a generic of that shape, and the adjoints of
   both) becomes a gather of its windows and one matmul (`conv_matmuls`), and
   pooling over small strided windows one elementwise generic reading each
   window element as an operand (`pooling_taps`). A select
   of tensors on a scalar condition is made a generic first
   (`mlir_bridge.booleans.select_with_tensor_conditions`).
2. `BUFFER_PIPELINE` -- one-shot bufferization across function boundaries
   with identity layouts; tensor results become trailing out-parameters
   (`memref` arguments the caller allocates) and temporaries are freed; a
   call kept by stage 1 writes into its caller's out-parameters.
   Each `scf.for` state is first made to update one buffer in place
   (`loop_states`). MLIR's `eliminate-empty-tensors` is not run: it made
   valid programs fail to bufferize, and one miscompile (see `BUFFER_PIPELINE`).
   Public functions' arguments are marked read-only first, so an input
   buffer is never updated in place. Every i1 tensor is stored as bytes
   (`mlir_bridge.booleans`: MLIR 22 aborts on i1 buffers), and so are the ownership
   flags the deallocation pipeline keeps in memory. Stack buffers
   (`memref.alloca`) that could overflow the stack become heap buffers first
   (`heap_allocas`).
   On the buffers, what the inputs could make undefined (an index out of
   bounds, a division by zero, a loop step that is not positive) is checked
   (`run_time_checks`, stage `cpu-checks`).
3. `cpu_schedule.apply_vector_schedule` -- contractions and transposes are tiled
   and vectorised (register-blocked FMA matmuls, shuffled 16x16 transposes); an
   op MLIR's transforms fail on is left to the loops of stage 4 instead.
4. `LOOP_PIPELINE` -- everything else becomes `scf.for` loops that LLVM's
   loop vectoriser handles (at `cpu_runtime.DEFAULT_OPT_LEVEL`). With more
   than one thread (`thread_runtime.thread_count`), `PARALLEL_LOOP_PIPELINE`
   makes the parallel dimensions `scf.parallel` instead, large matmuls are
   first split into row blocks (`contraction_rows`), and the nests worth it
   become OpenMP regions (`parallel_loops`, stage `cpu-threads`). The combiners
   of reductions are marked reassociative so they vectorise too, and f32 exp/log/tanh/sin/cos
   are rewritten into branch-free arithmetic (`cpu_math_approximation`) instead
   of scalar libm calls.
5. `CPU_LLVM_PIPELINE` (`mlir_bridge.host_execution.LLVM_PIPELINE`, buffers
   allocated with `aligned_alloc`; `SERIAL_LLVM_PIPELINE` for one thread, without the
   OpenMP conversion) -- every remaining dialect to `llvm`. The
   data pointer of each memref argument of a public function is marked
   `noalias`.

Calling convention of the result: each public function `f` keeps its tensor
arguments as memref arguments, followed by one memref out-parameter per
result, and has an `llvm.emit_c_interface` wrapper `_mlir_ciface_f` taking a
pointer to a memref descriptor per argument. Inputs are read-only and must
not overlap the outputs.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func, linalg
from xdsl.dialects.builtin import ModuleOp

from gradir.cpu_backend.memory_check import refuse_impossible_allocations
from gradir.cpu_backend.batch_matmul_loops import batch_matmuls_as_loops
from gradir.cpu_backend.cache_blocked_matmuls import cache_blocked_matmuls
from gradir.cpu_backend.collapse_dims import collapse_contiguous_loops
from gradir.cpu_backend.contraction_rows import share_contraction_rows
from gradir.cpu_backend.conv_matmuls import convolutions_as_matmuls
from gradir.cpu_backend.heap_allocas import allocas_on_heap
from gradir.mlir_bridge.forwarding_calls import keep_forwarding_calls, write_call_results_in_place
from gradir.errors import PipelineError
from gradir.mlir_bridge.booleans import (
    reject_boolean_buffers,
    select_with_tensor_conditions,
    store_boolean_buffers_as_bytes,
    store_booleans_as_bytes,
)
from gradir.cpu_backend.cpu_math_approximation import approximate_math
from gradir.cpu_backend.cpu_schedule import apply_vector_schedule
from gradir.cpu_backend.run_time_checks import add_run_time_checks, check_tensor_indices
from gradir.cpu_backend.parallel_loops import run_loops_on_threads
from gradir.cpu_backend.pooling_taps import pooling_windows_unrolled
from gradir.cpu_backend.thread_runtime import thread_count
from gradir.cpu_backend.tight_windows import tighten_windowed_inputs
from gradir.cpu_backend.specialize_generics import specialize_pure_generics
from gradir.mlir_bridge import (
    apply_schedule,
    drop_provenance,
    public_functions,
    run_pipeline,
    to_mlir_module,
    top_level_ops,
    walk_ops,
)
from gradir.instrumentation import stage
from gradir.mlir_bridge.distinct_results import copy_repeated_results
from gradir.mlir_bridge.host_execution import (
    IMPLEMENTATION_PREFIX,
    LLVM_PIPELINE,
    accurate_expm1,
    keep_function_names_off_the_c_library,
    restore_c_interface_names,
)
from gradir.mlir_bridge.loop_states import drop_in_place_states, yield_loop_states_in_place
from gradir.mlir_bridge.written_arguments import (
    copy_written_arguments,
    copy_written_loop_states,
    copy_yielded_slices,
    materialize_into_arguments_as_values,
)
from gradir.mlir_bridge.tensor_stage import (
    ELEMENTWISE_FUSION_PIPELINE,
    TENSOR_SCHEDULE,
    move_read_inits_to_inputs,
)

BUFFER_PIPELINE = (
    "canonicalize,"
    "one-shot-bufferize{bufferize-function-boundaries"
    " function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
    "canonicalize, cse,"
    "func.func(buffer-loop-hoisting),"
    "buffer-deallocation-pipeline"
)
"""Bufferization. `buffer-loop-hoisting` allocates each temporary of a loop body once, before
the loop, when its size does not change between iterations and it is not carried to the next
one (MLIR's pass checks both): allocated and freed in every iteration, the temporaries made
`malloc` the cost of the ADBench LSTM gradient (c = 1024: 4.0 ms, 1.85 ms hoisted), and of
every call made after the heap was fragmented by other code (9.5 ms after one PyTorch backward
pass in the same process; 1.85 ms hoisted).

MLIR's `eliminate-empty-tensors` is not run: MLIR 22's pass, followed by one-shot
bufferization, miscompiled a loop body that fills and inserts into a zero tensor defined
before the loop (the destination it chose was written in place in every iteration, so
iteration i's slice was added i + 1 times: a batched gradient through two reversed loops,
tests/numerics/test_batched_tensor_ops.py), and it made valid programs fail to bufferize at
random (see `bufferize`). Without it a value is computed in a buffer of its own and copied
to its destination: one copy more."""


LOOSE_BUFFER_PIPELINE = BUFFER_PIPELINE.replace(
    "one-shot-bufferize{", "one-shot-bufferize{allow-return-allocs-from-loops ", 1
)
"""`BUFFER_PIPELINE` letting a loop yield a buffer other than its argument's: for the last
attempt of `bufferize`, whose loop states are not forced in place (`drop_in_place_states`)."""


def bufferize(module: ir.Module) -> None:
    """`BUFFER_PIPELINE` on `module` in place; where it fails, the stage reruns
    from a copy of the module taken before it with the writes into loop states
    made in branches copied first.

    Among the ops that could compute a value directly in its destination,
    MLIR 22's `eliminate-empty-tensors` picked one in an order that changed
    from run to run, and some picks made `one-shot-bufferize` fail on a valid
    program ("cannot avoid RaW conflict": tests/property/test_standard_program_findings.py,
    in about 3 of 4 compiles) or, worse, succeed with wrong code (see
    `BUFFER_PIPELINE`): the pass is not run. A `tensor.insert` into a loop's
    state inside an `scf.if` of its body meets the same refusal (reverse mode
    of the same suite's seed 626762); an explicit copy
    (`copy_written_loop_states`) bufferizes it. A slice returned from a branch
    while its source is written after it (a batched undo log) is refused too;
    the third attempt copies those slices as well (`copy_yielded_slices`). The
    last does not force loop states in place (`drop_in_place_states`) and lets
    bufferization allocate a loop's new state where it must. The copies cost
    time, so each is made only where the attempts before failed; where all
    fail, the error is the first attempt's.
    """
    drop_program_deallocs(module)
    attempts = (
        (BUFFER_PIPELINE, None),
        (BUFFER_PIPELINE, copy_written_loop_states),
        (BUFFER_PIPELINE, _copy_written_states_and_yielded_slices),
        (LOOSE_BUFFER_PIPELINE, _states_not_in_place),
    )
    before = module.operation.clone()
    first_error = None
    try:
        for number, (pipeline, prepare) in enumerate(attempts):
            if number:
                _restore(module, before)
            if prepare is not None:
                prepare(module)
            try:
                run_pipeline(module, pipeline, "cpu-bufferize")
                return
            except PipelineError as error:
                first_error = first_error or error
                if number == len(attempts) - 1:
                    raise first_error from None
    finally:
        before.erase()


def drop_program_deallocs(module: ir.Module) -> None:
    """Erase the program's own `memref.dealloc`s: MLIR's `buffer-deallocation-pipeline` frees
    every buffer after its last use itself and refuses a program that frees one ("memory free
    side-effect on MemRef value not supported!"), which made any program pairing a
    `memref.alloc` with its `memref.dealloc` (Enzyme's and MLIR's tests do) uncompilable."""
    for dealloc in walk_ops(module, {"memref.dealloc"}):
        dealloc.erase()


def _copy_written_states_and_yielded_slices(module: ir.Module) -> None:
    copy_written_loop_states(module)
    copy_yielded_slices(module)


def _states_not_in_place(module: ir.Module) -> None:
    _copy_written_states_and_yielded_slices(module)
    drop_in_place_states(module)


def _restore(module: ir.Module, before: ir.Operation) -> None:
    """Replace the body of `module` with a clone of `before`'s (a module)."""
    body = module.body
    for op in list(body.operations):
        op.erase()
    for op in before.regions[0].blocks[0].operations:
        op.clone(ir.InsertionPoint(body))


# Vector transfers are unrolled (full-unroll): staged through a memref.alloca, as
# convert-vector-to-scf does by default, they took new stack in every iteration of
# the matmul's K loop and overflowed it (tests/cpu_backend/test_vector_lowering.py).
LOOP_PIPELINE = (
    "func.func(convert-linalg-to-loops),"
    "convert-vector-to-scf{full-unroll=true},"
    "expand-strided-metadata, lower-affine,"
    "canonicalize, cse,"
    "func.func(math-extend-to-supported-types{target-type=f32})"
)

PARALLEL_LOOP_PIPELINE = LOOP_PIPELINE.replace("convert-linalg-to-loops", "convert-linalg-to-parallel-loops")
"""`LOOP_PIPELINE` for more than one thread: a linalg op's parallel dimensions become one
`scf.parallel` (its reductions `scf.for` loops inside), for `parallel_loops` to share out."""
assert PARALLEL_LOOP_PIPELINE != LOOP_PIPELINE

CPU_LLVM_PIPELINE = LLVM_PIPELINE.replace(
    "finalize-memref-to-llvm,", "finalize-memref-to-llvm{use-aligned-alloc=true},"
).replace("reconcile-unrealized-casts,", "convert-openmp-to-llvm, reconcile-unrealized-casts,")
"""`LLVM_PIPELINE`, with the OpenMP regions of `parallel_loops` (if any) and every buffer
from `aligned_alloc`. By default an aligned
`memref.alloc` becomes `malloc(size + alignment)` and the pointer rounded up
through `ptrtoint`/`inttoptr`, which hides from LLVM that it points to a fresh
allocation: every access to a temporary might then alias every other, and LLVM
left unvectorised (as scalar moves) the copies that gather convolution windows
between two temporaries: 38% of LeNet-5's gradient (perf), which ran about 1.9x
faster with `aligned_alloc` (the same copies between arguments, `noalias`, had
always been vectorised)."""
assert CPU_LLVM_PIPELINE != LLVM_PIPELINE

SERIAL_LLVM_PIPELINE = CPU_LLVM_PIPELINE.replace("convert-openmp-to-llvm, ", "")
"""`CPU_LLVM_PIPELINE` for one thread, whose code has no OpenMP region to convert: the pass
still walked the whole module, 14 ms of the MLP gradient's 0.34 s in this pipeline."""
assert SERIAL_LLVM_PIPELINE != CPU_LLVM_PIPELINE

CONTRACTIONS = ("linalg.matmul", "linalg.batch_matmul")
_OUTLINED_PREFIX = "__gradir_contraction_"


def outline_contractions(module: ir.Module) -> None:
    """Move each named contraction into a private function of its own, called in place.

    `linalg-fuse-elementwise-ops` also folds reshapes into their neighbours by
    expanding the neighbour's loops, and fuses transposes into consumers;
    applied to a matmul whose operand is a `collapse_shape` or a transpose (or
    whose result is expanded) it yields a higher-rank generic
    that no schedule recognises, which then runs as scalar loops with a
    strided innermost reduction: 10x slower on ADBench GMM (64, 200). Behind
    a call the fusion cannot see the contraction; `inline` restores it after.
    """
    with module.context, ir.Location.unknown():
        for index, op in enumerate(walk_ops(module, set(CONTRACTIONS))):
            name = f"{_OUTLINED_PREFIX}{index}"
            operands = list(op.operands)
            result_types = [result.type for result in op.results]
            with ir.InsertionPoint(module.body):
                callee = func.FuncOp(name, ([v.type for v in operands], result_types), visibility="private")
            entry = callee.add_entry_block()
            with ir.InsertionPoint(entry):
                body = op.clone()
                for position, argument in enumerate(entry.arguments):
                    body.operands[position] = argument
                func.ReturnOp(body.results)
            with ir.InsertionPoint(op):
                call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(name), operands)
            for old, new in zip(op.results, call.results):
                old.replace_all_uses_with(new)
            op.erase()


# Linalg ops whose arith combiners may be reassociated (summation order).
_REDUCING_OPS = {
    "linalg.generic", "linalg.reduce", "linalg.matvec", "linalg.vecmat", "linalg.dot",
    "linalg.batch_matvec", "linalg.batch_vecmat",
}
_COMBINERS = {
    "arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf",
}


def _function_argument_count(function: ir.Operation) -> int:
    return len(function.regions[0].blocks[0].arguments)


def add_argument_attribute(function: ir.Operation, index: int, name: str, value: ir.Attribute) -> None:
    """Set attribute `name` on argument `index` of a `func.func` or `llvm.func`."""
    if "arg_attrs" in function.attributes:
        dictionaries = [ir.DictAttr(entry) for entry in ir.ArrayAttr(function.attributes["arg_attrs"])]
    else:
        dictionaries = [ir.DictAttr.get({}) for _ in range(_function_argument_count(function))]
    old = dictionaries[index]
    entries = {old[position].name: old[position].attr for position in range(len(old))}
    entries[name] = value
    dictionaries[index] = ir.DictAttr.get(entries)
    function.attributes["arg_attrs"] = ir.ArrayAttr.get(dictionaries)


def _prepare_public_functions(module: ir.Module) -> None:
    """C-interface wrappers for the runtime; read-only tensor arguments.

    Bufferization would otherwise be free to update an argument's buffer in
    place, that is, to overwrite the caller's input array.
    """
    for function in public_functions(module):
        function.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
        for index, argument in enumerate(function.regions[0].blocks[0].arguments):
            if isinstance(argument.type, ir.RankedTensorType):
                add_argument_attribute(function, index, "bufferization.writable", ir.BoolAttr.get(False))


def _is_reduction(op: ir.Operation) -> bool:
    if op.name != "linalg.generic":
        return True
    return any("reduction" in str(kind) for kind in ir.ArrayAttr(op.attributes["iterator_types"]))


def _accumulators(op: ir.Operation) -> list[ir.Value]:
    """The body arguments of a structured op that stand for its inits: the last
    ones, one per init (`outputs`, or `inits` for `linalg.reduce`, which has no
    `operandSegmentSizes`)."""
    view = op.opview
    inits = view.inits if isinstance(view, linalg.ReduceOp) else view.outputs
    arguments = list(op.regions[0].blocks[0].arguments)
    return arguments[len(arguments) - len(inits) :]


def _mark_reassociative_reductions(module: ir.Module) -> None:
    """Let LLVM reassociate reduction combiners, so that it can vectorise reductions.

    The summation order then differs from a sequential loop, as in every
    vectorised BLAS or PyTorch reduction; elementwise arithmetic stays strict.
    Only the combiners (the ops that read an accumulator) are marked, and a
    product that only feeds one (`acc + a * b` still becomes an FMA): marking
    every addf/mulf of the body let LLVM contract `sin(a) * b + b` inside a
    candidate of a max reduction, 1 ulp away from the same candidate recomputed
    by reverse mode, which then found no maximum to send the gradient to and
    divided by zero (NaN gradients; tests/property's standard-MLIR programs).
    """
    fast = ir.Attribute.parse("#arith.fastmath<reassoc,contract>")
    for op in walk_ops(module, _REDUCING_OPS):
        if not _is_reduction(op):
            continue
        block = op.regions[0].blocks[0]
        accumulators = _accumulators(op)
        for body_op in block.operations:
            if body_op.name in _COMBINERS and any(a in accumulators for a in body_op.operands):
                body_op.attributes["fastmath"] = fast
                for operand in body_op.operands:
                    producer = operand.owner
                    if (
                        isinstance(producer, ir.Operation | ir.OpView)
                        and producer.name == "arith.mulf"
                        and len(list(operand.uses)) == 1
                    ):
                        producer.attributes["fastmath"] = fast


def _has_identity_layout(memref_type: ir.Type) -> bool:
    memref_type = ir.MemRefType(memref_type)
    layout = memref_type.layout
    identity = ir.AffineMap.get_identity(memref_type.rank)
    return isinstance(layout, ir.AffineMapAttr) and layout.value == identity


def copies_to_loops(module: ir.Module) -> None:
    """Turn strided `memref.copy`s into `linalg.copy` loops.

    Contiguous copies lower to a memcpy; strided ones would call `memrefCopy`
    from libmlir_c_runner_utils, which the MLIR 22 wheel does not ship.
    """
    for copy in walk_ops(module, {"memref.copy"}):
        source, target = copy.operands
        if _has_identity_layout(source.type) and _has_identity_layout(target.type):
            continue
        with ir.InsertionPoint(copy), copy.location:
            linalg.copy(source, outs=[target])
        copy.erase()


def _memref_ranks(module: ir.Module) -> dict[str, list[int | None]]:
    """Per public function, the rank of each bufferized argument (None: not a memref)."""
    ranks = {}
    for function in public_functions(module):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        ranks[name] = [
            argument.type.rank if isinstance(argument.type, ir.MemRefType) else None
            for argument in function.regions[0].blocks[0].arguments
        ]
    return ranks


def _mark_noalias(module: ir.Module, memref_ranks: dict[str, list[int | None]]) -> None:
    """`noalias` on the data pointer of every memref argument of the public functions.

    Inputs are read-only and outputs are distinct buffers, so no memory is
    written through one argument and accessed through another. Knowing that,
    LLVM keeps reduction accumulators in registers and drops overlap checks.
    """
    for function in top_level_ops(module, {"llvm.func"}):
        name = ir.StringAttr(function.attributes["sym_name"]).value.removeprefix(IMPLEMENTATION_PREFIX)
        if name not in memref_ranks or not function.regions[0].blocks:
            continue
        position = 0
        for rank in memref_ranks[name]:
            if rank is None:
                position += 1
                continue
            # A memref argument expands to: allocated, aligned, offset, sizes, strides.
            add_argument_attribute(function, position + 1, "llvm.noalias", ir.UnitAttr.get())
            position += 3 + 2 * rank


def fuse_tensors(module: ir.Module) -> None:
    """Stage 1 (still on tensors): everything inlined into the public functions,
    elementwise chains fused, contractions named (and batched ones made loops),
    unit loops dropped and contiguous loops merged (`collapse_dims`)."""
    with module.context, ir.Location.unknown(), stage("cpu-tensor"):
        check_tensor_indices(module)  # before canonicalization folds reads of fills away
        keep_forwarding_calls(module)
        # `affine.for` on tensors becomes `scf.for` now, so its tensor states
        # are updated in place and bufferize like any scf.for's. Branches between blocks
        # are lifted to `scf` as gradir's first pass (`lift-control-flow`) does, for text
        # given to the backend directly (`CpuExecutable`): MLIR 22's value-bounds analysis
        # asserts on them, which ends the process.
        run_pipeline(module, "lift-cf-to-scf, lower-affine, inline", "cpu-tensor")
        apply_schedule(module, TENSOR_SCHEDULE, "cpu-tensor")
        drop_provenance(module)  # after `add_result_size_functions` read it, before symbol-dce
        run_pipeline(module, "inline, symbol-dce", "cpu-tensor")
        convolutions_as_matmuls(module)
        pooling_windows_unrolled(module)
        specialize_pure_generics(module, contractions_only=True)
        batch_matmuls_as_loops(module)
        outline_contractions(module)
        select_with_tensor_conditions(module)
        move_read_inits_to_inputs(module)
        run_pipeline(module, ELEMENTWISE_FUSION_PIPELINE, "cpu-tensor")
        specialize_pure_generics(module)
        run_pipeline(module, "canonicalize, cse, inline, symbol-dce, canonicalize, cse", "cpu-tensor")
        tighten_windowed_inputs(module)  # else the fold below can leave a window that does not verify
        run_pipeline(module, "linalg-fold-unit-extent-dims, canonicalize", "cpu-tensor")
        collapse_contiguous_loops(module)
        run_pipeline(module, "canonicalize, cse", "cpu-tensor")


def to_buffers(module: ir.Module) -> None:
    """Stages 1 and 2 in place: fused tensors, then buffers (`memref`), temporaries freed."""
    with module.context, ir.Location.unknown():
        _prepare_public_functions(module)
        fuse_tensors(module)
        with stage("cpu-bufferize"):
            store_booleans_as_bytes(module)
            copy_written_arguments(module)
            materialize_into_arguments_as_values(module)
            yield_loop_states_in_place(module)
            copy_repeated_results(module)
            allocas_on_heap(module)
            bufferize(module)
            write_call_results_in_place(module)


def lower_to_llvm(
    module: ir.Module, allocation_limit: int | None = None, threads: int | None = None
) -> ir.Module:
    """Lower a linalg-on-tensors module to the LLVM dialect, in place; returns it.

    Large loop nests run on `threads` threads (`thread_runtime.thread_count()` unless
    given: `GRADIR_NUM_THREADS`, else every core; `parallel_loops`); with 1 the code is
    serial and needs no OpenMP runtime.

    Raises PipelineError naming the failing stage: `cpu-tensor`,
    `cpu-bufferize`, `cpu-checks`, `cpu-loops`, `cpu-threads` or `cpu-llvm` (the vector schedule falls
    back to loops instead of failing), or `cpu-memory` where a buffer of static
    size exceeds `allocation_limit` bytes (given when the code is to run here).
    """
    threads = thread_count() if threads is None else threads
    with module.context, ir.Location.unknown():
        to_buffers(module)
        with stage("cpu-checks"):
            if allocation_limit is not None:
                refuse_impossible_allocations(module, allocation_limit)
            add_run_time_checks(module)
        with stage("cpu-loops"):
            store_boolean_buffers_as_bytes(module)
            reject_boolean_buffers(module)
            memref_ranks = _memref_ranks(module)
            copies_to_loops(module)
            _mark_reassociative_reductions(module)
            if cache_blocked_matmuls(module, threads):
                run_pipeline(module, "scf-forall-to-parallel, canonicalize", "cpu-loops")
            share_contraction_rows(module, threads)
            apply_vector_schedule(module)
            if threads == 1:
                run_pipeline(module, LOOP_PIPELINE, "cpu-loops")
            else:
                run_pipeline(module, PARALLEL_LOOP_PIPELINE, "cpu-loops")
            approximate_math(module)
        if threads > 1:
            with stage("cpu-threads"):
                run_loops_on_threads(module, threads)
        with stage("cpu-llvm"):
            keep_function_names_off_the_c_library(module)
            accurate_expm1(module)
            if threads > 1:
                run_pipeline(module, CPU_LLVM_PIPELINE, "cpu-llvm")
            else:
                run_pipeline(module, SERIAL_LLVM_PIPELINE, "cpu-llvm")
            restore_c_interface_names(module)
            _mark_noalias(module, memref_ranks)
    return module


def lower_to_llvm_text(source: ModuleOp | str | ir.Module) -> str:
    """The LLVM-dialect module for `source` as MLIR text (the CLI's `--pipeline cpu`)."""
    module = source if isinstance(source, ir.Module) else to_mlir_module(source)
    return str(lower_to_llvm(module))
