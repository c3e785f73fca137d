"""Stage 2 of the GPU pipeline, `map_to_gpu`: every op of a bufferized host function that
touches tensor data becomes a kernel launch, and its buffers move to the device.

Per host function, and inside the bodies of the loops and branches that stay on the host:
- each `linalg.generic` becomes its own launch(es) (`gpu_mapping.map_nest` picks the strategy),
  with a fill the reduction reads first folded into the reduction's initial value
  (`_fold_fills`), and an elementwise op reading a reduction's result computed in the
  reduction's kernel (`epilogue_fusion`); copies become copy kernels; constants (`memref.get_global`) become fills or a
  `gpu.memcpy` to the device;
- a branch condition computed from device data is computed by a one-thread kernel and copied to
  a host scalar (`_condition_to_host`);
- a loop nest of scalar loads and stores (the scatter that reverse mode writes for the gradient
  of a gather at data indices, `tensor.extract %t[%i, %label]`; a `scf.while` on scalars
  reading device data; a loop writing or reading its tape) runs as it is in a one-thread
  kernel (`_scalar_loop_to_device`), its final state copied back: its iterations may write
  the same element, so they stay in order;
- an element of device data read on the host (a scalar result, a gradient with respect to a
  scalar argument) is copied there by a one-thread kernel and `gpu.memcpy`, and a host scalar
  written into device data is stored by a one-thread kernel taking it as an argument
  (`_scalars_across`); scalar arithmetic on host values (arguments, constants, such copies)
  stays on the host, as index arithmetic does;
- every `memref.alloc` becomes a `gpu.alloc` (at its run-time size, if any), freed with
  `gpu.dealloc` after its last user in its block (`_buffers_to_device`);
- a buffer of run-time size or strided layout reaches a kernel as its base and its offset,
  sizes and strides, and the kernel rebuilds it (`_bare_pointer_buffers`).
What may stay on the host is spelled out below (`HOST_OPS`, `HOST_CONTROL_FLOW`,
`HOST_INDEX_OPS`); anything else there is an error naming the op (`_check_host`).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref

from gradir.errors import PipelineError
from gradir.gpu_backend.epilogue_fusion import (
    EPILOGUE,
    FUSED_INTO,
    consumer_epilogue,
    find_epilogue_fusions,
    finish_epilogue_fusions,
    fusion_of,
)
from gradir.gpu_backend.gpu_mapping import map_nest
from gradir.gpu_backend.loop_nests import (
    VIEW_OPS,
    Nest,
    buffer_root,
    captured_buffers,
    clone_body,
    emit_launch,
    load_element,
    defined_in,
    nest_of_generic,
    nested_in,
    reroute_through_views,
    store_element,
)
from gradir.gpu_backend.tile_policy import TilePolicy
from gradir.mlir_bridge import defined_functions, location_text, run_pipeline, walk_ops

LAUNCH_CLEANUP_PIPELINE = "canonicalize, cse, gpu-launch-sink-index-computations"

SELECT = "arith.select"
"""Canonicalization turns an `scf.if` yielding one of two buffers into a select of memrefs:
a host choice of descriptor, whose result aliases both buffers."""

HOST_OPS = VIEW_OPS | {
    "func.return",
    "func.call",
    "arith.constant",
    "memref.alloc",
    "memref.alloca",  # a host scalar a branch condition is copied into
    "memref.dealloc",
    "gpu.launch",
    "gpu.memcpy",
    "memref.get_global",  # only as the source of a gpu.memcpy to the device
    "memref.dim",  # a run-time extent, read from the descriptor (`run_time_mapping`)
}
"""Everything a host function may still hold after `map_to_gpu`: no op reads tensor data."""

HOST_CONTROL_FLOW = {"scf.for", "scf.while", "scf.condition", "scf.if", "scf.yield"}
"""Loops and branches stay on the host (their bodies launch kernels); loop bounds are host
integers, a branch condition computed from device data is copied to the host first, and so
is what a `scf.while` condition reads of it (`_scalars_across`)."""

SCALAR_OPS_PREFIXES = ("arith.", "math.")
"""Scalar ops a branch condition may be computed with on the device (`_condition_to_host`)."""

HOST_INDEX_OPS = {
    "arith.addi", "arith.subi", "arith.muli", "arith.divui", "arith.remui", "arith.divsi",
    "arith.remsi", "arith.cmpi", "arith.select", "arith.minui", "arith.maxui", "arith.minsi",
    "arith.maxsi", "arith.index_cast",
}  # fmt: skip
"""Integer arithmetic on loop indices (offsets of slices): allowed on the host."""


def _aliases(use: ir.OpOperand) -> list[ir.Value]:
    """Memref values through which the buffer of `use` stays visible after its user."""
    owner = use.owner.operation
    if owner.name in VIEW_OPS:
        return [owner.results[0]]
    if owner.name == SELECT and isinstance(owner.results[0].type, ir.MemRefType):
        return [owner.results[0]]
    if owner.name == "scf.for" and use.operand_number >= 3:
        return [owner.results[use.operand_number - 3]]
    if owner.name == "scf.while":
        return [owner.results[use.operand_number]]
    if owner.name == "scf.yield" and owner.parent.operation.name == "scf.if":
        return [owner.parent.operation.results[use.operand_number]]
    return []


def is_select(buffer: ir.Value) -> bool:
    """A buffer chosen by a select or a branch: it may be any of several buffers."""
    return isinstance(buffer, ir.OpResult) and buffer.owner.name in (SELECT, "scf.if")


def _fill_value(op: ir.Operation) -> ir.Value | None:
    """The scalar a `linalg.generic` writes everywhere (a generalised fill), else None."""
    if op.name != "linalg.generic" or len(op.opview.outputs) != 1 or len(op.opview.inputs) > 1:
        return None
    if any("reduction" in str(a) for a in op.attributes["iterator_types"]):
        return None
    body = op.regions[0].blocks[0]
    yielded = list(body.operations)[-1].operands[0]
    if len(op.opview.inputs) == 1 and yielded == body.arguments[0]:
        scalar = op.opview.inputs[0]
        return None if isinstance(scalar.type, ir.ShapedType) else scalar
    owner = yielded.owner
    inside = owner == body if isinstance(owner, ir.Block) else owner.operation.block == body
    return None if inside else yielded


def _fold_fills(block: ir.Block) -> list[tuple[ir.Operation, dict[int, ir.Value]]]:
    """Reductions whose outputs were just filled: start from the fill value, drop the fill.

    A fill folds when it is the last op before the reduction that touches the output's
    buffer (through any view), so nothing else can observe the filled values. Returns each
    reduction with its output index -> initial value (a list: operations hash by content).
    """
    ops = [op.operation for op in block.operations]
    folded: list[tuple[ir.Operation, dict[int, ir.Value]]] = []
    dead: list[ir.Operation] = []
    for position, op in enumerate(ops):
        if op.name != "linalg.generic":
            continue
        if not any("reduction" in str(a) for a in op.attributes["iterator_types"]):
            continue
        input_roots = {buffer_root(v) for v in op.opview.inputs if isinstance(v.type, ir.MemRefType)}
        for output, buffer in enumerate(op.opview.outputs):
            root = buffer_root(buffer)
            if is_select(root) or root in input_roots:  # the reduction also reads the filled values as an input
                continue
            for previous in reversed(ops[:position]):
                if previous in dead or not any(
                    isinstance(v.type, ir.MemRefType) and buffer_root(v) == root
                    for v in [*previous.operands, *captured_buffers(previous)]
                ):
                    continue
                value = _fill_value(previous)
                if value is not None and previous.opview.outputs[0] == buffer:
                    if not folded or folded[-1][0] != op:
                        folded.append((op, {}))
                    folded[-1][1][output] = value
                    dead.append(previous)
                break
    for op in dead:
        op.erase()
    return folded


def _splat_fill(buffer: ir.Value, value: ir.Attribute, policy: TilePolicy) -> None:
    """A launch writing `value` to every element of `buffer`."""
    shape = ir.MemRefType(buffer.type).shape
    identity = ir.AffineMap.get_identity(len(shape))
    element_type = ir.MemRefType(buffer.type).element_type
    nest = Nest(list(shape), [], [buffer], [identity], 0, None, buffer.location)
    map_nest(nest, lambda args, dims: [arith.ConstantOp(element_type, value).result], policy)


def _copy(source: ir.Value, target: ir.Value, policy: TilePolicy) -> None:
    """A launch copying `source` to `target` elementwise (views of any layout)."""
    shape = ir.MemRefType(target.type).shape
    identity = ir.AffineMap.get_identity(len(shape))
    nest = Nest(list(shape), [], [source, target], [identity, identity], 1, None, target.location)
    map_nest(nest, lambda args, dims: [args[0]], policy)


def _constants_to_device(module: ir.Module, function: ir.Operation, policy: TilePolicy) -> None:
    """`memref.get_global` reads host memory: splats become fills, the rest a copy to the device."""
    globals_by_name = {
        ir.StringAttr(op.attributes["sym_name"]).value: op
        for op in module.body.operations
        if op.operation.name == "memref.global"
    }
    for get in walk_ops(function, {"memref.get_global"}):
        name = ir.FlatSymbolRefAttr(get.attributes["name"]).value
        initial = globals_by_name[name].attributes["initial_value"]
        with ir.InsertionPoint(get), get.location:
            buffer = memref.alloc(ir.MemRefType(get.result.type), [], [])
        get.result.replace_all_uses_with(buffer)
        splat = isinstance(initial, ir.DenseElementsAttr) and initial.is_splat
        with ir.InsertionPoint(get), get.location:
            if splat:
                _splat_fill(buffer, initial.get_splat_value(), policy)
            else:
                gpu.MemcpyOp(None, [], buffer, get.result)
        if splat:
            get.erase()
        else:
            get.move_before(buffer.owner)  # the copy reads the host global


def _top_level_user(op: ir.Operation, block: ir.Block, alloc: ir.Operation) -> ir.Operation:
    """The op of `block` that holds `op`. A buffer allocated in a loop body that the loop
    passes out (an `scf.while` state the body did not update in place) is used outside its
    block: the device buffer would be freed too early, and that is an error."""
    op = op.operation
    while op.block != block:
        parent = op.parent
        if parent is None or parent.name in ("func.func", "builtin.module"):
            raise PipelineError(
                "gpu-map: a buffer made inside a loop or branch is used after it; only buffers "
                "updated in place may leave a loop on the GPU",
                location_text(alloc.location) or location_text(_function_of(alloc).location),
            )
        op = parent.operation
    return op


def _function_of(op: ir.Operation) -> ir.Operation:
    while op.name != "func.func":
        op = op.parent.operation
    return op


def _buffers_to_device(function: ir.Operation) -> None:
    """memref.alloc -> gpu.alloc, freed with gpu.dealloc right after the last user
    in the alloc's own block (a loop body's buffers live for one iteration)."""
    for op in walk_ops(function, {"memref.dealloc"}):
        op.erase()  # every buffer gets its gpu.dealloc below
    _hoist_escaping_allocs(function)
    for alloc in walk_ops(function, {"memref.alloc"}):
        block = alloc.block
        # Operations hash by content in these bindings (changing an operand changes the
        # hash): compare them, never use them as keys.
        top_level = [op.operation for op in block.operations]
        buffer_type = alloc.result.type
        users = [alloc]
        pending = [alloc.result]
        while pending:
            value = pending.pop()
            for use in value.uses:
                owner = use.owner.operation
                users.append(_top_level_user(owner, block, alloc))
                pending += _aliases(use)
        last = max(users, key=top_level.index)
        with ir.InsertionPoint(alloc), alloc.location:
            device = gpu.AllocOp(buffer_type, None, [], list(alloc.operands), []).memref  # run-time sizes
        alloc.result.replace_all_uses_with(device)
        with ir.InsertionPoint.after(last) if last.name != "func.return" else ir.InsertionPoint(last):
            gpu.DeallocOp(None, [], device, loc=alloc.location)
        alloc.erase()


def _hoist_escaping_allocs(function: ir.Operation) -> None:
    """A buffer a branch yields outlives its block: allocate it in front of the `if`
    (where its run-time sizes, if any, are known: else an error). Then again while an
    enclosing branch yields what the inner one did."""
    moved = True
    while moved:
        moved = False
        for alloc in walk_ops(function, {"memref.alloc"}):
            pending = [alloc.result]
            while pending and not moved:
                for use in pending.pop().uses:
                    owner = use.owner.operation
                    yielded_by_if = owner.name == "scf.yield" and owner.parent.operation.name == "scf.if"
                    if yielded_by_if and owner.block != alloc.block:
                        # a branch nested in the alloc's block yields it: so does its `if`
                        pending.append(owner.parent.operation.results[use.operand_number])
                    elif yielded_by_if:
                        branch = owner.parent.operation
                        for op in _size_computation(alloc, branch):
                            op.move_before(branch)
                        alloc.move_before(branch)
                        moved = True
                        break
                    if owner.name in VIEW_OPS or owner.name == SELECT:
                        pending += list(owner.results)


def _size_computation(alloc: ir.Operation, branch: ir.Operation) -> list[ir.Operation]:
    """The ops of `branch` that compute `alloc`'s run-time sizes, in order, when they are
    integer arithmetic on values from before the branch (`%n + 1`): they move up with it.
    A size read from data inside the branch is an error: the GPU allocates the buffer
    before the branch."""
    ops: list[ir.Operation] = []
    pending = [size for size in alloc.operands if defined_in(size, branch)]
    while pending:
        owner = pending.pop().owner
        op = None if isinstance(owner, ir.Block) else owner.operation
        if op is None or op.name not in HOST_INDEX_OPS | {"arith.constant"} or op.block != alloc.block:
            raise PipelineError(
                "gpu-map: a branch yields a buffer whose size it computes from data; the GPU "
                "needs the size before the branch",
                location_text(alloc.location) or location_text(branch.location),
            )
        if not any(op == o for o in ops):
            ops.append(op)
            pending += [v for v in op.operands if defined_in(v, branch)]
    return [o.operation for o in alloc.block.operations if any(o.operation == op for op in ops)]


def _bare_pointer_buffers(function: ir.Operation) -> None:
    """Kernels take each buffer as a bare pointer (`kernel-bare-ptr-calling-convention`),
    which needs a static shape and a static, identity-like layout. Any other buffer a kernel
    uses (a loop's tape of run-time length, `memref<?x4xf64>`; a loop state bufferized with a
    strided layout) goes in as its base (`memref.extract_strided_metadata` on the host: a
    0-d memref at the same address) and its run-time offset, sizes and strides as index
    arguments, and the kernel rebuilds it with `memref.reinterpret_cast`."""
    run_time, dynamic_size = ir.ShapedType.get_dynamic_stride_or_offset(), ir.ShapedType.get_dynamic_size()
    for launch in walk_ops(function, {"gpu.launch"}):
        for buffer in captured_buffers(launch):
            buffer_type = ir.MemRefType(buffer.type)
            strides, offset = buffer_type.get_strides_and_offset()
            if buffer_type.has_static_shape and run_time not in (*strides, offset):
                continue
            rank = buffer_type.rank
            with ir.InsertionPoint(launch), launch.location:
                metadata = memref.ExtractStridedMetadataOp(buffer)
            base = metadata.results[0]
            run_time_offset, sizes, run_time_strides = (
                metadata.results[1], list(metadata.results[2 : 2 + rank]), list(metadata.results[2 + rank :])
            )
            body = launch.regions[0].blocks[0]
            with ir.InsertionPoint.at_block_begin(body), launch.location:
                rebuilt = memref.reinterpret_cast(
                    buffer_type, base,
                    [run_time_offset] if offset == run_time else [],
                    [v for v, extent in zip(sizes, buffer_type.shape) if extent == dynamic_size],
                    [v for v, stride in zip(run_time_strides, strides) if stride == run_time],
                    [offset], buffer_type.shape, strides,
                )  # fmt: skip
            for owner, number in [(use.owner.operation, use.operand_number) for use in buffer.uses]:
                if nested_in(owner, launch):
                    owner.operands[number] = rebuilt


def _check_host(function: ir.Operation) -> None:
    _check_host_block(function.regions[0].blocks[0])


def _check_host_block(block: ir.Block) -> None:
    for op in block.operations:
        name = op.operation.name
        if name in HOST_CONTROL_FLOW:
            for region in op.operation.regions:
                for nested in region.blocks:
                    _check_host_block(nested)
            continue
        if name == SELECT and isinstance(op.operation.results[0].type, ir.MemRefType):
            continue
        if name in HOST_INDEX_OPS and all(
            isinstance(r.type, (ir.IndexType, ir.IntegerType)) for r in op.operation.results
        ):
            continue
        if name == "memref.load" and _is_host_scalar(op.operation.operands[0]):
            continue
        if _is_host_scalar_op(op.operation):
            continue
        if name not in HOST_OPS:
            raise PipelineError(
                f"gpu-map: '{op.operation.name}' would run on the host; only linalg ops, copies "
                "and constants can be mapped onto the GPU",
                location_text(op.location),
            )


def _is_host_scalar(buffer: ir.Value) -> bool:
    return isinstance(buffer, ir.OpResult) and buffer.owner.name == "memref.alloca"


def _is_host_scalar_op(op: ir.Operation) -> bool:
    """Scalar arithmetic the host may do: after `_scalars_across` no device element reaches
    the host unless copied, so its operands are host values."""
    return (
        op.name.startswith(SCALAR_OPS_PREFIXES)
        and not op.regions
        and all(isinstance(v.type, (ir.IntegerType, ir.FloatType, ir.IndexType)) for v in (*op.operands, *op.results))
    )


def _copy_to_host(device: ir.Value, function: ir.Operation) -> ir.Value:
    """The 0-d device buffer `device` copied (`gpu.memcpy`) into a host scalar (an alloca at
    `function`'s entry) and loaded there, at the insertion point."""
    entry = function.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(entry):
        host = memref.alloca(ir.MemRefType(device.type), [], [])
    gpu.MemcpyOp(None, [], host, device)
    return memref.load(host, [])


def _in_kernel(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "gpu.launch":
            return True
        parent = parent.operation.parent
    return False


def _scalars_across(function: ir.Operation, policy: TilePolicy) -> None:
    """Element reads and writes of device buffers left on the host (not a branch condition,
    not a scalar loop: those run on the device): a read becomes a one-thread kernel copying
    the element into a device scalar, `gpu.memcpy` to a host scalar and a load there; a write
    becomes a one-thread kernel storing the host value, passed as a kernel argument."""
    for op in walk_ops(function, {"memref.load", "memref.store"}):
        op = op.operation
        buffer = op.operands[0] if op.name == "memref.load" else op.operands[1]
        if _is_host_scalar(buffer) or _in_kernel(op):
            continue
        with ir.InsertionPoint(op), op.location:
            if op.name == "memref.load":
                element_type = ir.MemRefType(buffer.type).element_type
                scalar_type = ir.MemRefType.get([], element_type)
                indices = list(op.operands[1:])
                device = memref.alloc(scalar_type, [], [])

                def read(linear: ir.Value) -> None:
                    memref.store(load_element(buffer, indices), device, [])

                emit_launch(1, policy, "element_to_host", read)
                op.results[0].replace_all_uses_with(_copy_to_host(device, function))
            else:
                value, indices = op.operands[0], list(op.operands[2:])

                def write(linear: ir.Value) -> None:
                    store_element(value, buffer, indices)

                emit_launch(1, policy, "element_from_host", write)
        op.erase()


def _scalar_slice(condition: ir.Value, block: ir.Block) -> list[ir.Operation]:
    """The ops of `block` that compute `condition` from loaded tensor elements, in block
    order; empty when no element of a buffer is read (a decision on host integers)."""
    members: list[ir.Operation] = []
    pending = [condition]
    while pending:
        value = pending.pop()
        owner = value.owner
        if isinstance(owner, ir.Block):
            continue
        op = owner.operation
        if op.block != block or any(op == m for m in members):
            continue
        if op.name == "memref.load":
            if _is_host_scalar(op.operands[0]):
                continue
        elif not op.name.startswith(SCALAR_OPS_PREFIXES) or op.regions:
            continue
        if any(isinstance(r.type, ir.ShapedType) for r in op.results):
            continue
        members.append(op)
        pending += [v for v in op.operands if not isinstance(v.type, ir.MemRefType)]
    if not any(op.name == "memref.load" for op in members):
        return []
    return [op.operation for op in block.operations if any(op.operation == m for m in members)]


def _condition_to_host(branch: ir.Operation, policy: TilePolicy) -> None:
    """A branch condition read from device buffers is computed by a one-thread kernel into
    a device byte, copied (`gpu.memcpy`) to a host scalar and loaded there: the host never
    touches tensor data nor does float arithmetic, and the decision waits for the data."""
    block = branch.block
    ops = _scalar_slice(branch.operands[0], block)
    if not ops:
        return
    byte = ir.IntegerType.get_signless(8)  # MLIR 22 cannot store an i1 to memory
    with ir.InsertionPoint(branch), branch.location:
        device = memref.alloc(ir.MemRefType.get([], byte), [], [])

        def thread(linear: ir.Value) -> None:
            mapping: list[tuple[ir.Value, ir.Value]] = []

            def mapped(value: ir.Value) -> ir.Value:
                return next((new for old, new in mapping if old == value), value)

            for op in ops:
                if op.name == "memref.load":
                    new = load_element(op.operands[0], [mapped(v) for v in op.operands[1:]])
                    mapping.append((op.result, new))
                    continue
                clone = op.clone()
                for i, operand in enumerate(clone.operands):
                    clone.operands[i] = mapped(operand)
                mapping += list(zip(op.results, clone.results))
            memref.store(arith.extui(byte, mapped(branch.operands[0])), device, [])

        emit_launch(1, policy, "condition", thread)
        flag = _copy_to_host(device, _function_of(branch))
        branch.operands[0] = arith.cmpi(arith.CmpIPredicate.ne, flag, arith.constant(byte, 0))
    for op in reversed(ops):
        if all(len(list(r.uses)) == 0 for r in op.results):
            op.erase()


SCALAR_LOOP_OPS = HOST_CONTROL_FLOW | HOST_INDEX_OPS | {"memref.load", "memref.store", "arith.constant"}
"""What a loop nest run by one device thread may hold (besides scalar arith/math)."""


def _is_scalar_loop(loop: ir.Operation) -> bool:
    """An `scf.for` or `scf.while` whose body reads or writes device buffer elements with
    scalar code only: no linalg op, copy, allocation or call (those launch kernels of their
    own from the host), no host scalar (a kernel cannot read host memory), and results (its
    final state) of scalar types other than i1, which memory cannot hold."""
    if loop.name not in ("scf.for", "scf.while"):
        return False
    touches_memory = False

    def check(op: ir.Operation) -> bool:
        nonlocal touches_memory
        if op.name in ("memref.load", "memref.store"):
            touches_memory = True
            if _is_host_scalar(op.operands[0 if op.name == "memref.load" else 1]):
                return False
        scalar = op.name.startswith(SCALAR_OPS_PREFIXES) and not any(
            isinstance(r.type, ir.ShapedType) for r in op.results
        )
        if op.name not in SCALAR_LOOP_OPS and not scalar:
            return False
        return all(check(inner.operation) for region in op.regions for b in region.blocks for inner in b.operations)

    storable = all(
        isinstance(r.type, (ir.FloatType, ir.IndexType)) or (isinstance(r.type, ir.IntegerType) and r.type.width > 1)
        for r in loop.results
    )
    return storable and check(loop) and touches_memory


def _scalar_loop_to_device(loop: ir.Operation, policy: TilePolicy) -> None:
    """`loop` (see `_is_scalar_loop`) moved into a one-thread kernel; its loads and stores go
    through views to the buffers the kernel receives. Its results are stored on the device
    and copied to host scalars, one `gpu.memcpy` each: the host no longer launches a kernel
    and waits for a copy per element the loop reads (a loop's tape, a `scf.while` deciding on
    device data)."""
    results = list(loop.results)
    with ir.InsertionPoint(loop), loop.location:
        devices = [memref.alloc(ir.MemRefType.get([], r.type), [], []) for r in results]

        def thread(linear: ir.Value) -> None:
            del linear
            clone = loop.clone()
            for access in walk_ops(clone, {"memref.load", "memref.store"}):
                reroute_through_views(access)
            for value, device in zip(clone.results, devices):
                memref.store(value, device, [])

        emit_launch(1, policy, "sequential", thread)
        for result, device in zip(results, devices):
            result.replace_all_uses_with(_copy_to_host(device, _function_of(loop)))
    loop.erase()


def _map_block(block: ir.Block, policy: TilePolicy) -> None:
    """Launches for the linalg ops and copies of `block` and of the loop bodies in it."""
    folded = _fold_fills(block)
    fusions = find_epilogue_fusions(block)
    for op in [op.operation for op in block.operations]:
        if op.name == "memref.copy" and op.operands[0] == op.operands[1]:
            op.erase()  # a loop state materialized onto itself (an insert_slice into its cache)
        elif op.name == "memref.copy":
            with ir.InsertionPoint(op), op.location:
                _copy(op.operands[0], op.operands[1], policy)
            op.erase()
        elif op.name == "linalg.generic" and FUSED_INTO in op.attributes:
            continue  # computed by its producer's kernel (erased below)
        elif op.name == "linalg.generic":
            nest = nest_of_generic(op.opview)
            nest.initial_values = next((i for o, i in folded if o == op), {})
            fusion = fusion_of(op, fusions, EPILOGUE)
            if fusion is not None:
                nest.epilogue = consumer_epilogue(fusion, nest)
            with ir.InsertionPoint(op), op.location:
                map_nest(nest, clone_body(nest), policy)
            op.erase()
        elif op.name.startswith("linalg."):
            raise PipelineError(
                f"gpu-map: '{op.name}' was not generalised", location_text(op.location)
            )
        elif _is_scalar_loop(op):
            _scalar_loop_to_device(op, policy)
        elif op.name in HOST_CONTROL_FLOW:
            if op.name == "scf.if":
                _condition_to_host(op, policy)
            for region in op.regions:
                for nested in region.blocks:
                    _map_block(nested, policy)
    finish_epilogue_fusions(fusions)


def map_to_gpu(module: ir.Module, policy: TilePolicy | None = None) -> ir.Module:
    """Stage 2: one `gpu.launch` (two for a split reduction) per op; buffers on the device."""
    policy = policy or TilePolicy()
    with module.context, ir.Location.unknown():
        for function in defined_functions(module):
            _constants_to_device(module, function, policy)
            _map_block(function.regions[0].blocks[0], policy)
            _scalars_across(function, policy)
            _check_host(function)
            _buffers_to_device(function)
        run_pipeline(module, LAUNCH_CLEANUP_PIPELINE, "gpu-map")
        # After canonicalization, which would fold the rebuilt buffer back into the original.
        for function in defined_functions(module):
            _bare_pointer_buffers(function)
    return module
