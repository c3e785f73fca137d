"""Boolean (i1) tensors in the CPU pipeline: kept in registers, stored as bytes.

MLIR 22 cannot lower a load from a `memref<...xi1>`: it fails an assertion
and aborts the whole process. So no i1 tensor may become a buffer. i1 values
live inside `linalg.generic` bodies (comparisons feeding selects); wherever a
boolean tensor must be stored it is stored as i8, NumPy's layout for `bool`:

- `widen_boolean_boundaries` (on the input, before anything else): public
  functions take and return i8 tensors where they had i1 (truncated on entry,
  extended on exit), i1 constants are stored as i8, and reshapes/slices of
  boolean tensors move bytes.
- `store_boolean_results_as_bytes` (after fusion): a generic whose i1 result
  is still materialised -- the producer of a boolean used by several
  consumers, which elementwise fusion does not duplicate -- yields i8, and
  each consuming generic truncates in its body.
- `reject_boolean_buffers` (after bufferization): anything left is a clear
  PipelineError instead of MLIR's abort.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from gradir.errors import PipelineError
from gradir.gpu_backend.mlir_bridge import location_text, public_functions, walk_ops

# Ops that only move tensor elements around: they run on bytes just as well.
_LAYOUT_OPS = {
    "tensor.expand_shape", "tensor.collapse_shape", "tensor.extract_slice", "tensor.insert_slice",
    "tensor.cast", "tensor.reshape",
}


def _byte_type(value_type: ir.Type) -> ir.Type | None:
    """tensor<...xi8> for a tensor<...xi1>, else None."""
    boolean = ir.IntegerType.get_signless(1)
    if isinstance(value_type, ir.RankedTensorType) and value_type.element_type == boolean:
        return ir.RankedTensorType.get(value_type.shape, ir.IntegerType.get_signless(8))
    return None


def _truncate_uses(value: ir.Value, boolean_type: ir.Type, insertion: ir.InsertionPoint, location) -> None:
    """Give every current use of `value` (now bytes) `trunci(value)` instead."""
    with insertion, location:
        truncated = arith.trunci(boolean_type, value)
    value.replace_all_uses_except(truncated, truncated.owner.operation)


def _read_bytes(value: ir.Value, boolean_type: ir.Type, insertion: ir.InsertionPoint, location) -> None:
    """Let the generics reading `value` (a byte tensor standing for `boolean_type`)
    take the bytes and truncate each element in their body, so that no i1
    tensor is materialised; other users get `trunci(value)`."""
    boolean, byte = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(8)
    others = []
    for use in list(value.uses):
        user = use.owner
        if user.name == "linalg.generic" and use.operand_number < _input_count(user):
            body = user.regions[0].blocks[0]
            argument = body.arguments[use.operand_number]
            if argument.type == boolean:
                argument.set_type(byte)
                _truncate_uses(argument, boolean, ir.InsertionPoint.at_block_begin(body), user.location)
        else:
            others.append((user, use.operand_number))
    if others:
        with insertion, location:
            truncated = arith.trunci(boolean_type, value)
        for user, position in others:
            user.operands[position] = truncated


def widen_boolean_boundaries(module: ir.Module) -> None:
    """i8 for the i1 tensors of public signatures, constants and layout ops."""
    for function in public_functions(module):
        _widen_signature(function)
    for op in walk_ops(module, _LAYOUT_OPS):
        _widen_layout_op(op)
    for constant in walk_ops(module, {"arith.constant"}):
        _widen_constant(constant)


def _widen_signature(function: ir.Operation) -> None:
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    inputs = [_byte_type(t) or t for t in function_type.inputs]
    results = [_byte_type(t) or t for t in function_type.results]
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    entry = function.regions[0].blocks[0]
    for argument in entry.arguments:
        byte_type = _byte_type(argument.type)
        if byte_type is not None:
            boolean_type = argument.type
            argument.set_type(byte_type)
            _read_bytes(argument, boolean_type, ir.InsertionPoint.at_block_begin(entry), function.location)
    for block in function.regions[0].blocks:
        terminator = block.operations[len(block.operations) - 1]
        if terminator.name != "func.return":
            continue
        for index, operand in enumerate(terminator.operands):
            byte_type = _byte_type(operand.type)
            if byte_type is not None:
                with ir.InsertionPoint(terminator), terminator.location:
                    terminator.operands[index] = arith.extui(byte_type, operand)


def _widen_layout_op(op: ir.Operation) -> None:
    result = op.results[0]
    byte_type = _byte_type(result.type)
    if byte_type is None:
        return
    for index, operand in enumerate(op.operands):
        operand_bytes = _byte_type(operand.type)
        if operand_bytes is not None:
            with ir.InsertionPoint(op), op.location:
                op.operands[index] = arith.extui(operand_bytes, operand)
    boolean_type = result.type
    result.set_type(byte_type)
    _read_bytes(result, boolean_type, ir.InsertionPoint.after(op), op.location)


def _widen_constant(constant: ir.Operation) -> None:
    byte_type = _byte_type(constant.results[0].type)
    if byte_type is None:
        return
    values = ir.DenseIntElementsAttr(constant.attributes["value"])
    shape = ir.RankedTensorType(byte_type).shape
    if values.is_splat:
        data = np.full(shape, values.get_splat_value().value & 1, np.uint8)
    else:
        data = (np.array([values[i] for i in range(len(values))]) & 1).astype(np.uint8).reshape(shape)
    with ir.InsertionPoint(constant), constant.location:
        stored = arith.constant(byte_type, ir.DenseElementsAttr.get(data, type=byte_type))
    boolean_type = constant.results[0].type
    constant.results[0].replace_all_uses_with(stored)
    constant.erase()
    _read_bytes(stored, boolean_type, ir.InsertionPoint.after(stored.owner), stored.owner.location)


def store_boolean_results_as_bytes(module: ir.Module) -> None:
    """Make every generic with a materialised i1 result yield i8 instead.

    Only done where it is simple and safe: the result's init is a
    `tensor.empty`, the body does not read it, and every user is a generic
    (which then truncates the byte back to i1 in its own body).
    """
    for generic in walk_ops(module, {"linalg.generic"}):
        inputs = _input_count(generic)
        for index, result in enumerate(generic.results):
            byte_type = _byte_type(result.type)
            if byte_type is None or not _can_store_as_bytes(generic, inputs + index, result):
                continue
            body = generic.regions[0].blocks[0]
            with ir.InsertionPoint(generic), generic.location:
                generic.operands[inputs + index] = tensor.empty(byte_type.shape, byte_type.element_type)
            body.arguments[inputs + index].set_type(byte_type.element_type)
            terminator = body.operations[len(body.operations) - 1]
            with ir.InsertionPoint(terminator), terminator.location:
                terminator.operands[index] = arith.extui(byte_type.element_type, terminator.operands[index])
            boolean_type = result.type
            result.set_type(byte_type)
            for use in list(result.uses):
                consumer = use.owner
                position = use.operand_number
                consumer_body = consumer.regions[0].blocks[0]
                argument = consumer_body.arguments[position]
                argument.set_type(byte_type.element_type)
                _truncate_uses(
                    argument,
                    ir.RankedTensorType(boolean_type).element_type,
                    ir.InsertionPoint.at_block_begin(consumer_body),
                    consumer.location,
                )


def _input_count(generic: ir.Operation) -> int:
    segments = ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"])
    return segments[0]


def _can_store_as_bytes(generic: ir.Operation, init_position: int, result: ir.Value) -> bool:
    init = generic.operands[init_position]
    init_owner = init.owner if isinstance(init, ir.OpResult) else None
    if init_owner is None or init_owner.name != "tensor.empty":
        return False
    if len(list(generic.regions[0].blocks[0].arguments[init_position].uses)) > 0:
        return False
    consumers = [use.owner for use in result.uses]
    return bool(consumers) and all(
        consumer.name == "linalg.generic" and use.operand_number < _input_count(consumer)
        for consumer, use in zip(consumers, result.uses)
    )


def reject_boolean_buffers(module: ir.Module) -> None:
    """A one-line PipelineError, rather than MLIR's abort, for an i1 buffer."""
    boolean = ir.IntegerType.get_signless(1)
    for op in walk_ops(module, {"memref.alloc", "memref.alloca", "memref.get_global", "func.func"}):
        if op.name == "func.func":
            values = list(op.regions[0].blocks[0].arguments) if op.regions[0].blocks else []
        else:
            values = list(op.results)
        for value in values:
            if isinstance(value.type, ir.MemRefType) and value.type.element_type == boolean:
                raise PipelineError(
                    "cpu-bufferize: a boolean (i1) tensor would be stored in memory, which the "
                    "CPU pipeline does not support here; keep it inside elementwise ops",
                    location_text(op.location),
                )
