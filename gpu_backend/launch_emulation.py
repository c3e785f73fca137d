"""Run stage-2 `gpu.launch` regions on the CPU as loops, barriers included.

A launch becomes loops over its blocks; inside a block, the kernel is cut at every `gpu.barrier`
into *phases*, and each phase runs as a loop over all the block's threads before the next phase
starts. That is exactly what a barrier promises, so kernels that share workgroup memory compute
on the CPU what they compute on the GPU (the same IR, not a model of it).

A value one phase defines and a later phase reads lives in a per-thread slot (a host buffer with
one element per thread of the block) between them; so do the iteration arguments of a loop whose
body holds a barrier (such a loop runs once per block, its phases once per thread). Workgroup
buffers become host buffers shared by the block's threads. Barriers must sit in uniform control
flow, as CUDA requires: a barrier under an `scf.if`, or a loop around one whose bounds depend on
the thread, is an error.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from gradir.errors import PipelineError
from gradir.mlir_bridge import location_text, walk_ops

PHASE = "gradir.emulated_phase"
"""Marks each op of a block being cut with its phase (-1: a loop holding a barrier)."""
THREAD_DIM = "gradir.emulated_thread_dim"
"""Marks the emulation's thread loops (0 = x) until the thread ids are bound to them."""


def launches_to_host_loops(module: ir.Module) -> ir.Module:
    """Rewrite each `gpu.launch` as loops over its blocks and threads, buffers as host memory."""
    with module.context, ir.Location.unknown():
        for launch in walk_ops(module, {"gpu.launch"}):
            _LaunchEmulation(launch).run()
        for op in walk_ops(module, {"gpu.alloc"}):
            with ir.InsertionPoint(op), op.location:
                buffer = memref.alloc(op.results[0].type, list(op.opview.dynamicSizes), [])
            op.results[0].replace_all_uses_with(buffer)
            op.erase()
        for op in walk_ops(module, {"gpu.dealloc"}):
            with ir.InsertionPoint(op), op.location:
                memref.dealloc(op.operands[0])
            op.erase()
        for op in walk_ops(module, {"gpu.memcpy"}):
            with ir.InsertionPoint(op), op.location:
                memref.copy(op.operands[-1], op.operands[-2])
            op.erase()
    return module


def launch_sizes(launch: gpu.LaunchOp | gpu.LaunchFuncOp) -> list[ir.Value]:
    """Grid x, y, z then block x, y, z of a `gpu.launch` or `gpu.launch_func`."""
    return [
        launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ,
        launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ,
    ]


def _has_barrier(op: ir.Operation) -> bool:
    found = []

    def visit(nested: ir.Operation) -> ir.WalkResult:
        if nested.name == "gpu.barrier":
            found.append(nested)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return bool(found)


def _top_level(op: ir.Operation, block: ir.Block) -> ir.Operation:
    """The op of `block` that is or contains `op`."""
    while op.block != block:
        op = op.parent.operation
    return op


class _LaunchEmulation:
    def __init__(self, launch: ir.Operation):
        self.launch = launch
        self.location = launch.location
        self.sizes = launch_sizes(launch.opview)
        self.body = launch.regions[0].blocks[0]
        arguments = list(self.body.arguments)
        self.block_ids, self.thread_ids = arguments[0:3], arguments[3:6]
        self.size_arguments = arguments[6:12]
        self.workgroup = arguments[12:]
        self.buffers: list[ir.Value] = []
        """Host buffers made for the launch (workgroup memory, per-thread slots), freed after it."""
        self.thread_loops: list[ir.Operation] = []

    def run(self) -> None:
        with self.location:
            before = ir.InsertionPoint(self.launch)
            with before:
                self.zero, self.one = _index(0), _index(1)
                self.threads = arith.muli(self.sizes[3], arith.muli(self.sizes[4], self.sizes[5]))
                for argument in self.workgroup:
                    shape = ir.MemRefType(argument.type)
                    plain = ir.MemRefType.get(shape.shape, shape.element_type)
                    buffer = memref.alloc(plain, [], [])
                    argument.replace_all_uses_with(buffer)  # loads and stores only: types agree
                    self.buffers.append(buffer)
            for constant in self._constants():  # uniform: defined once, before the loops
                constant.move_before(self.launch)
            # slots are allocated once, ahead of the block loops (blocks run one after another)
            self.slot_point = ir.InsertionPoint.after(self.threads.owner)
            innermost = self._block_loops(before)
            for op in list(self.body.operations):
                if op.operation.name == "gpu.terminator":
                    op.operation.erase()
                else:
                    op.operation.move_before(innermost)
            self._split(innermost.block)
            self._bind_thread_ids()
            with ir.InsertionPoint.after(self.launch):
                for buffer in self.buffers:
                    memref.dealloc(buffer)
        self.launch.erase()

    def _constants(self) -> list[ir.Operation]:
        """The `arith.constant`s anywhere in the kernel."""
        return [
            constant
            for op in list(self.body.operations)
            for constant in walk_ops(op, {"arith.constant"})
        ]

    def _block_loops(self, insertion: ir.InsertionPoint) -> ir.Operation:
        """Loops over grid z, y, x (x innermost); returns the innermost loop's terminator."""
        ids = []
        for size in reversed(self.sizes[0:3]):
            with insertion:
                loop = scf.ForOp(self.zero, size, self.one)
            with ir.InsertionPoint(loop.body):
                terminator = scf.YieldOp([])
            insertion = ir.InsertionPoint(terminator)
            ids.append(loop.induction_variable)
        for argument, value in zip(self.block_ids + self.size_arguments, list(reversed(ids)) + self.sizes):
            argument.replace_all_uses_with(value)
        return terminator.operation

    # ---------------------------------------------------------------- phases

    def _thread_index(self) -> ir.Value:
        """This thread's position in its block, x fastest (emitted at the insertion point)."""
        tx, ty, tz = self.thread_ids
        sx, sy = self.sizes[3], self.sizes[4]
        return arith.addi(tx, arith.muli(sx, arith.addi(ty, arith.muli(sy, tz))))

    def _slot(self, element: ir.Type) -> ir.Value:
        with self.slot_point:
            slot_type = ir.MemRefType.get([ir.ShapedType.get_dynamic_size()], element)
            slot = memref.alloc(slot_type, [self.threads], [])
        self.buffers.append(slot)
        return slot

    def _store(self, value: ir.Value, slot: ir.Value) -> None:
        memref.store(value, slot, [self._thread_index()])

    def _load(self, slot: ir.Value) -> ir.Value:
        return memref.load(slot, [self._thread_index()])

    def _split(self, block: ir.Block) -> None:
        """Cut `block` (thread-level code ending in a terminator) into phases of thread loops."""
        for op in list(block.operations)[:-1]:
            op = op.operation
            if op.name != "gpu.barrier" and _has_barrier(op):
                if op.name != "scf.for":
                    raise PipelineError(
                        f"gpu-emulate: a gpu.barrier under '{op.name}' is not reached by all "
                        "threads of a block alike (only scf.for may enclose a barrier)",
                        location_text(op.location),
                    )
                self._loop_state_to_slots(op)
        ops = [op.operation for op in list(block.operations)[:-1]]
        phase = 0
        for op in ops:  # phase numbers live on the ops while the block is cut
            if op.name == "gpu.barrier":
                phase += 1
            elif _has_barrier(op):
                op.attributes[PHASE] = _i64(-1)
                phase += 1
            else:
                op.attributes[PHASE] = _i64(phase)
        marked = [op for op in ops if op.name != "gpu.barrier"]
        for op in marked:
            if _phase(op) >= 0:
                self._spill_to_later_phases(op, block)
        group: list[ir.Operation] = []
        for op in [op.operation for op in list(block.operations)[:-1]]:
            if op.name == "gpu.barrier" or _phase(op) == -1:
                if group:
                    self._thread_loops(group)
                    group = []
                if op.name == "gpu.barrier":
                    op.erase()
                else:
                    self._split(op.regions[0].blocks[0])
            else:
                group.append(op)  # also the slot loads and stores just added in this phase
        if group:
            self._thread_loops(group)
        for op in marked:
            del op.attributes[PHASE]

    def _spill_to_later_phases(self, op: ir.Operation, block: ir.Block) -> None:
        for result in op.results:
            foreign = []
            for use in result.uses:
                owner = use.owner.operation
                top = _top_level(owner, block)
                if _phase(top) != _phase(op):
                    if top == owner and _phase(top) == -1:
                        raise PipelineError(
                            "gpu-emulate: a loop around a gpu.barrier has bounds that depend on "
                            "the thread",
                            location_text(owner.location),
                        )
                    foreign.append((owner, use.operand_number))
            if not foreign:
                continue
            slot = self._slot(result.type)
            with ir.InsertionPoint.after(op):
                self._store(result, slot)
            for owner, number in foreign:
                with ir.InsertionPoint(owner):
                    owner.operands[number] = self._load(slot)

    def _loop_state_to_slots(self, loop: ir.Operation) -> None:
        """Carry a barrier loop's iteration arguments in per-thread slots instead."""
        old = loop.opview
        inits = list(old.initArgs)
        with ir.InsertionPoint(loop):
            new = scf.ForOp(old.lowerBound, old.upperBound, old.step)
        with ir.InsertionPoint(new.body):
            new_yield = scf.YieldOp([])
        slots = [self._slot(v.type) for v in inits]
        with ir.InsertionPoint(new):
            for value, slot in zip(inits, slots):
                self._store(value, slot)
        with ir.InsertionPoint(new_yield):
            for argument, slot in zip(old.inner_iter_args, slots):
                argument.replace_all_uses_with(self._load(slot))
        old_yield = list(old.body.operations)[-1].operation
        with ir.InsertionPoint(old_yield):
            for value, slot in zip(old_yield.operands, slots):
                self._store(value, slot)
        old.induction_variable.replace_all_uses_with(new.induction_variable)
        for op in list(old.body.operations)[:-1]:
            op.operation.move_before(new_yield)
        with ir.InsertionPoint(loop):
            for result, slot in zip(old.results, slots):
                result.replace_all_uses_with(self._load(slot))
        loop.erase()

    def _thread_loops(self, group: list[ir.Operation]) -> None:
        """Wrap consecutive ops of one phase in loops over the block's threads (x innermost)."""
        insertion = ir.InsertionPoint(group[0])
        for dim in (2, 1, 0):
            with insertion:
                loop = scf.ForOp(self.zero, self.sizes[3 + dim], self.one)
            loop.attributes[THREAD_DIM] = _i64(dim)
            self.thread_loops.append(loop.operation)
            with ir.InsertionPoint(loop.body):
                terminator = scf.YieldOp([])
            insertion = ir.InsertionPoint(terminator)
        for op in group:
            op.move_before(terminator.operation)

    def _bind_thread_ids(self) -> None:
        """Each use of a thread id reads the induction variable of its enclosing thread loop."""
        for dim, argument in enumerate(self.thread_ids):
            for owner, number in [(u.owner.operation, u.operand_number) for u in argument.uses]:
                loop = owner.parent
                while loop is not None and not (
                    THREAD_DIM in loop.attributes
                    and ir.IntegerAttr(loop.attributes[THREAD_DIM]).value == dim
                ):
                    loop = loop.parent
                if loop is None:  # only the bounds of a loop holding a barrier are outside
                    raise PipelineError(
                        "gpu-emulate: a loop around a gpu.barrier has bounds that depend on the "
                        "thread",
                        location_text(owner.location),
                    )
                owner.operands[number] = loop.opview.induction_variable
        for loop in self.thread_loops:
            del loop.attributes[THREAD_DIM]


def _i64(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _phase(op: ir.Operation) -> int | None:
    return ir.IntegerAttr(op.attributes[PHASE]).value if PHASE in op.attributes else None


def _index(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), value).result
