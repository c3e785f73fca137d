"""Epilogue fusion: an elementwise op reading a reduction's result runs in the reduction's kernel.

MLIR's `linalg-fuse-elementwise-ops` fuses an elementwise *producer* into its consumer, never a
reduction into the elementwise op after it, so a matmul followed by a bias and a ReLU was two
kernels, and the matmul's result went to memory and straight back: in the MLP gradient at batch
8192, `relu(x W1 + b1)` and the ReLU mask of `dz W2^T` each wrote and re-read an 8 MB
batch x hidden buffer. Here, on buffers just before mapping, such a consumer is computed where
the reduction stores each output element (`Nest.epilogue`), in every strategy (register tiles,
shared-memory tiles, split reductions' combine launch), and the reduction's own result is
stored only if something else reads it.

A reduction P (one output T, indexed by loop dims only) and an all-parallel `linalg.generic` C
fuse when C is the first op after P that touches T's buffer, reads T once, as an input, with
the identity map over C's whole iteration space (one C point per element of T), does not read
its own outputs nor any buffer that is not an operand (a body's `tensor.extract`), and writes no buffer P reads; the ops between them may only be allocations,
constants, views and linalg ops or copies that neither write what C reads nor touch what C
writes (C's work moves up to P). C's operands are then defined before P, or are allocations
between the two, which move up.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from mlir import ir

from gradir.gpu_backend.loop_nests import (
    VIEW_OPS,
    Nest,
    Payload,
    apply_map,
    buffer_root,
    captured_buffers,
    clone_body,
    load_operand,
    nest_of_generic,
    store_element,
)

FUSED_INTO = "gradir.fused_into"
"""On a consumer: the index of its `Fusion` in the block's list (mapped with its producer)."""
EPILOGUE = "gradir.epilogue"
"""On a producer: the index of the `Fusion` whose consumer it computes."""

PASSABLE = VIEW_OPS | {"memref.alloc", "arith.constant"}
"""Ops between producer and consumer that touch no memory."""


@dataclass
class Fusion:
    producer: ir.Operation
    consumer: ir.Operation
    position: int
    """The consumer's input that reads the producer's result."""
    keep_result: bool
    """Something else reads the producer's result (or may: an argument, a view): store it too."""


def _memrefs(values) -> list[ir.Value]:
    return [v for v in values if isinstance(v.type, ir.MemRefType)]


def _is_generic(op: ir.Operation, reduction: bool) -> bool:
    if op.name != "linalg.generic":
        return False
    return any("reduction" in str(a) for a in op.attributes["iterator_types"]) == reduction


def _maps(op: ir.Operation) -> list[ir.AffineMap]:
    return [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]


def _reads_outputs(op: ir.Operation) -> bool:
    body = op.regions[0].blocks[0]
    return any(len(list(a.uses)) for a in list(body.arguments)[len(op.opview.inputs) :])


def _consumer_position(consumer: ir.Operation, result: ir.Value) -> int | None:
    """The input through which `consumer` can compute its points from `result`'s elements."""
    if not _is_generic(consumer, reduction=False) or _reads_outputs(consumer) or captured_buffers(consumer):
        return None
    operands = list(consumer.operands)
    inputs = list(consumer.opview.inputs)
    if sum(v == result for v in operands) != 1 or not any(v == result for v in inputs):
        return None
    position = next(i for i, v in enumerate(inputs) if v == result)
    rank = len(ir.MemRefType(result.type).shape)
    amap = _maps(consumer)[position]
    iterators = len(consumer.attributes["iterator_types"])
    if iterators != rank or amap != ir.AffineMap.get_identity(rank):
        return None
    return position


def _independent(between: Sequence[ir.Operation], consumer: ir.Operation) -> bool:
    """Whether `consumer` may run before the ops `between` (see the module docstring)."""
    consumer_reads = {buffer_root(v) for v in _memrefs(consumer.opview.inputs)}
    consumer_writes = {buffer_root(v) for v in _memrefs(consumer.opview.outputs)}
    for op in between:
        if op.name in PASSABLE:
            continue
        if op.name == "linalg.generic":
            reads = {buffer_root(v) for v in [*_memrefs(op.operands), *captured_buffers(op)]}
            writes = {buffer_root(v) for v in _memrefs(op.opview.outputs)}
        elif op.name == "memref.copy":
            reads, writes = {buffer_root(op.operands[0])}, {buffer_root(op.operands[1])}
        else:
            return False
        if writes & (consumer_reads | consumer_writes) or reads & consumer_writes:
            return False
    return True


def _movable_operands(consumer: ir.Operation, between: Sequence[ir.Operation]) -> list[ir.Operation] | None:
    """The ops between producer and consumer that define the consumer's operands (each an
    allocation or constant, which can move up), or None when one cannot move."""
    moving = []
    for value in consumer.operands:
        owner = value.owner
        if isinstance(owner, ir.Block):
            continue
        defining = next((op for op in between if op == owner.operation), None)
        if defining is None:
            continue
        if defining.name not in ("memref.alloc", "arith.constant") or list(defining.operands):
            return None
        moving.append(defining)
    return moving


def _keep_result(result: ir.Value, producer: ir.Operation, consumer: ir.Operation) -> bool:
    owner = result.owner
    if isinstance(owner, ir.Block) or owner.name != "memref.alloc":
        return True  # an argument or a view: the caller or the rest of a buffer may see it
    return any(
        not (use.owner.operation == producer or use.owner.operation == consumer or use.owner.name == "memref.dealloc")
        for use in result.uses
    )


def find_epilogue_fusions(block: ir.Block) -> list[Fusion]:
    """The producer/consumer pairs of `block` to fuse; marks them with `EPILOGUE`/`FUSED_INTO`
    and moves the consumer's allocations up to its producer."""
    ops = [op.operation for op in block.operations]
    fusions: list[Fusion] = []
    taken: list[ir.Operation] = []
    for start, producer in enumerate(ops):
        if not _is_generic(producer, reduction=True) or len(producer.opview.outputs) != 1:
            continue
        if not ir.MemRefType(producer.opview.outputs[0].type).has_static_shape:
            continue  # mapped with run-time ranges (`run_time_mapping`), which takes no epilogue
        if any(producer == t for t in taken):
            continue
        out_map = _maps(producer)[len(producer.opview.inputs)]
        if not all(isinstance(e, ir.AffineDimExpr) for e in out_map.results):
            continue
        result = producer.opview.outputs[0]
        root = buffer_root(result)
        for end in range(start + 1, len(ops)):
            consumer = ops[end]
            if not any(buffer_root(v) == root for v in _memrefs(consumer.operands)):
                continue  # `_independent` checks the ops passed
            position = _consumer_position(consumer, result)
            if position is None:
                break
            between = ops[start + 1 : end]
            producer_reads = {buffer_root(v) for v in _memrefs(producer.opview.inputs)}
            writes = {buffer_root(v) for v in _memrefs(consumer.opview.outputs)}
            moving = _movable_operands(consumer, between)
            if not writes & (producer_reads | {root}) and _independent(between, consumer) and moving is not None:
                for op in moving:
                    op.move_before(producer)
                index = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(fusions))
                producer.attributes[EPILOGUE] = index
                consumer.attributes[FUSED_INTO] = index
                fusions.append(Fusion(producer, consumer, position, _keep_result(result, producer, consumer)))
                taken.append(consumer)
            break
    return fusions


def consumer_epilogue(fusion: Fusion, producer: Nest) -> Callable[[Sequence[ir.Value], list], None]:
    """What the producer's kernel does with each output element: the consumer's body at the
    same point (its other inputs loaded there), its results stored; the producer's element
    stored too when `keep_result`."""
    consumer: Nest = nest_of_generic(fusion.consumer.opview)
    payload: Payload = clone_body(consumer)
    out_map = producer.maps[producer.num_inputs]
    result = producer.operands[producer.num_inputs]

    def store(values: Sequence[ir.Value], dims: list) -> None:
        (value,) = values
        point = apply_map(out_map, dims)  # the element of T = the consumer's point
        if fusion.keep_result:
            store_element(value, result, point)
        arguments = [
            value if i == fusion.position else load_operand(v, m, point)
            for i, (v, m) in enumerate(zip(consumer.operands[: consumer.num_inputs], consumer.maps))
        ]
        for output, computed in enumerate(payload(arguments, point)):
            position = consumer.num_inputs + output
            store_element(computed, consumer.operands[position], apply_map(consumer.maps[position], point))

    return store


def fusion_of(op: ir.Operation, fusions: list[Fusion], mark: str) -> Fusion | None:
    if mark not in op.attributes:
        return None
    return fusions[ir.IntegerAttr(op.attributes[mark]).value]


def finish_epilogue_fusions(fusions: list[Fusion]) -> None:
    """Erase the consumers (computed by their producers' kernels) and the results nothing
    reads any more (their allocation and deallocations)."""
    for fusion in fusions:
        consumer_inputs = list(fusion.consumer.opview.inputs)
        result = consumer_inputs[fusion.position]
        fusion.consumer.erase()
        if fusion.keep_result or isinstance(result.owner, ir.Block):
            continue
        uses = [use.owner for use in result.uses]
        if all(user.name == "memref.dealloc" for user in uses):
            for user in uses:
                user.erase()
            result.owner.erase()
