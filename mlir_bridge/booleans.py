"""Boolean (i1) tensors in both backends' pipelines: every one is stored as bytes.

MLIR 22 cannot lower a load or store of a `memref<...xi1>`: it fails an
assertion in `finalize-memref-to-llvm` (the CPU's and the GPU kernels' lowering
alike) and aborts the whole process. So no i1 tensor may become a buffer.
`store_booleans_as_bytes` runs after elementwise fusion, just before
bufferization, and gives every tensor of i1 in the module -- function
arguments and results, constants, loop states, `scf.if` results, layout ops,
mask results of generics -- the type `tensor<...xi8>` instead: NumPy's layout
for `bool`, so public functions also take and return NumPy bool arrays as
they are. Only the element-level boundaries change code: a linalg body
reading a byte truncates it to i1 (`arith.trunci`) and one writing an i1 into
a byte tensor extends it (`arith.extui`), as do scalar extracts and inserts.
Bodies that only move elements (transpose, broadcast, copy, fill) move bytes.

`select_with_tensor_conditions` (before fusion) turns an `arith.select` of
tensors on one scalar i1 -- the canonical form of an `scf.if` that yields
values defined outside it -- into a generic reading the condition from a 0-d
tensor: fused as is, it would be a generic with a scalar operand, on which
MLIR 22's `linalg-specialize-generic-ops` aborts.

`store_boolean_buffers_as_bytes` (after bufferization) does the same for
the only i1 buffers left: the ownership flags of the deallocation pipeline.
A `bufferization.dealloc` of several buffers whose ownership is known only at
run time (an `scf.if` yielding a buffer from outside in one branch and a new
one in the other) is lowered into a helper function that keeps one flag per
buffer in a `memref<?xi1>`; they become `memref<?xi8>` (loads truncate,
stores extend).

`reject_boolean_buffers` (after that) stays as a safety net: an i1 buffer
that still appears is a clear PipelineError instead of MLIR's abort.

The GPU pipeline (`gpu_backend.gpu_pipeline.bufferize_for_gpu`) runs
`store_booleans_as_bytes` and `reject_boolean_buffers` around its
bufferization too: a mask saved by a forward pass for its backward (the
condition of a select) is a tensor between kernels there, and aborted the
compilation.
"""
from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from gradir.errors import PipelineError
from gradir.mlir_bridge import location_text, walk_ops

# Ops whose i1 tensors only need a new type: they never look at an element.
_MOVING_OPS = {
    "tensor.empty", "tensor.cast", "tensor.expand_shape", "tensor.collapse_shape",
    "tensor.extract_slice", "tensor.insert_slice", "tensor.concat", "tensor.reshape", "tensor.dim",
    "scf.for", "scf.if", "scf.while", "scf.condition", "scf.yield", "scf.execute_region",
    "func.func", "func.call", "func.return", "bufferization.materialize_in_destination",
}
# Ops that read or write single elements: converted at the element.
_ELEMENT_OPS = {
    "tensor.extract", "tensor.insert", "tensor.from_elements", "tensor.splat", "tensor.pad",
    "tensor.generate", "arith.constant",
}


def _boolean() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def _byte() -> ir.Type:
    return ir.IntegerType.get_signless(8)


def _byte_type(value_type: ir.Type) -> ir.Type | None:
    """tensor<...xi8> for a tensor<...xi1>, else None."""
    if isinstance(value_type, ir.RankedTensorType) and value_type.element_type == _boolean():
        return ir.RankedTensorType.get(value_type.shape, _byte(), value_type.encoding)
    return None


def _is_boolean_scalar(value: ir.Value) -> bool:
    return value.type == _boolean()


def _is_byte_tensor(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType) and value.type.element_type == _byte()


def _block_arguments(op: ir.Operation) -> list[ir.Value]:
    return [argument for region in op.regions for block in region.blocks for argument in block.arguments]


def _values(op: ir.Operation) -> list[ir.Value]:
    """The operands and results of `op` and the arguments of its regions' blocks."""
    return list(op.operands) + list(op.results) + _block_arguments(op)


def _touches_booleans(op: ir.Operation) -> bool:
    return any(_byte_type(value.type) is not None for value in _values(op))


def store_booleans_as_bytes(module: ir.Module) -> None:
    """Retype every i1 tensor of `module` to i8 and convert at the elements.

    Raises PipelineError, located, for an op that has i1 tensors but is not
    known to be safe to retype (none is expected after fusion).
    """
    ops = _all_ops(module)
    for op in ops:
        if _touches_booleans(op) and not _retypable(op):
            raise PipelineError(
                f"cpu-bufferize: a boolean (i1) tensor reaches `{op.name}`, which the CPU "
                "pipeline cannot store as bytes",
                location_text(op.location),
            )
    for constant in [op for op in ops if op.name == "arith.constant"]:
        _widen_constant(constant)
    ops = _all_ops(module)
    for op in ops:
        _retype(op)
    for op in ops:
        if _is_structured(op):
            _convert_body(op)
        elif op.name in _ELEMENT_OPS:
            _convert_elements(op)
        elif op.name == "func.func":
            _retype_signature(op)


def _all_ops(module: ir.Module) -> list[ir.Operation]:
    ops: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        ops.append(op)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return ops


def _retypable(op: ir.Operation) -> bool:
    if op.name == "arith.select":  # of whole tensors on a scalar condition
        return _is_boolean_scalar(op.operands[0])
    return op.name in _MOVING_OPS or op.name in _ELEMENT_OPS or _is_structured(op)


def _is_structured(op: ir.Operation) -> bool:
    """A linalg op on tensors with a body: one block argument per operand, in order."""
    return (
        op.name.startswith("linalg.")
        and len(op.regions) == 1
        and len(op.regions[0].blocks) == 1
        and len(op.regions[0].blocks[0].arguments) <= len(op.operands)
    )


def _retype(op: ir.Operation) -> None:
    for value in list(op.results) + _block_arguments(op):
        byte_type = _byte_type(value.type)
        if byte_type is not None:
            value.set_type(byte_type)


def _retype_signature(function: ir.Operation, byte_type=_byte_type) -> None:
    """The `function_type` of a `func.func` with `byte_type(t)` for each type it converts."""
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    inputs = [byte_type(t) or t for t in function_type.inputs]
    results = [byte_type(t) or t for t in function_type.results]
    function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))


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
    constant.results[0].replace_all_uses_with(stored)
    constant.erase()


def _extended(value: ir.Value, before: ir.Operation) -> ir.Value:
    with ir.InsertionPoint(before), before.location:
        return arith.extui(_byte(), value)


def _truncate_uses(value: ir.Value, insertion: ir.InsertionPoint, location: ir.Location, keep=()) -> None:
    """Give the uses of `value` (now a byte) `trunci(value)`, except those in `keep`
    ((op, operand number) pairs, which take the byte itself)."""
    uses = [
        (use.owner, use.operand_number) for use in value.uses
        if not any(use.owner.operation == op.operation and use.operand_number == n for op, n in keep)
    ]  # fmt: skip
    if not uses:
        return
    with insertion, location:
        truncated = arith.trunci(_boolean(), value)
    for owner, position in uses:
        owner.operands[position] = truncated


def _convert_body(op: ir.Operation) -> None:
    """Bytes in and out of the body of a linalg op whose tensors became bytes."""
    if op.name == "linalg.fill" and _is_boolean_scalar(op.operands[0]) and _is_byte_tensor(op.results[0]):
        op.operands[0] = _extended(op.operands[0], op)
    body = op.regions[0].blocks[0]
    terminator = body.operations[len(body.operations) - 1]
    byte_outputs = {
        position for position, result in enumerate(op.results)
        if isinstance(result.type, ir.RankedTensorType) and result.type.element_type == _byte()
    }  # fmt: skip
    for position, argument in enumerate(body.arguments):
        operand_type = op.operands[position].type
        if isinstance(operand_type, ir.RankedTensorType):
            operand_type = operand_type.element_type
        if argument.type != _boolean() or operand_type != _byte():
            continue
        argument.set_type(_byte())
        # A byte yielded into a byte output needs no conversion (copies, transposes).
        keep = [(terminator, index) for index in byte_outputs if terminator.operands[index] == argument]
        _truncate_uses(argument, ir.InsertionPoint.at_block_begin(body), op.location, keep)
    for index in byte_outputs:
        value = terminator.operands[index]
        if _is_boolean_scalar(value):
            terminator.operands[index] = _extended(value, terminator)


def _convert_elements(op: ir.Operation) -> None:
    """Scalar i1 in or out of a tensor of bytes."""
    if op.name == "tensor.extract" and _is_byte_tensor(op.operands[0]) and _is_boolean_scalar(op.results[0]):
        result = op.results[0]
        result.set_type(_byte())
        _truncate_uses(result, ir.InsertionPoint.after(op), op.location)
    elif op.name != "arith.constant" and _is_byte_tensor(op.results[0]):
        # insert, from_elements, splat, pad, generate: i1 elements in, bytes stored.
        for position, operand in enumerate(op.operands):
            if _is_boolean_scalar(operand):
                op.operands[position] = _extended(operand, op)
    if op.name in ("tensor.pad", "tensor.generate") and _is_byte_tensor(op.results[0]):
        body = op.regions[0].blocks[0]
        terminator = body.operations[len(body.operations) - 1]
        if _is_boolean_scalar(terminator.operands[0]):
            terminator.operands[0] = _extended(terminator.operands[0], terminator)


def select_with_tensor_conditions(module: ir.Module) -> None:
    """`arith.select %c, %a, %b` on static tensors with a scalar %c becomes a
    `linalg.generic` over (tensor<i1> from %c, %a, %b)."""
    for select in walk_ops(module, {"arith.select"}):
        condition, on_true, on_false = select.operands
        result_type = select.results[0].type
        if not (_is_boolean_scalar(condition) and isinstance(result_type, ir.RankedTensorType)):
            continue
        if not result_type.has_static_shape:
            continue  # left to MLIR, as before
        rank = result_type.rank
        identity = ir.AffineMap.get_identity(rank)
        maps = [ir.AffineMap.get(rank, 0, []), identity, identity, identity]
        parallel = ir.Attribute.parse("#linalg.iterator_type<parallel>")
        element = result_type.element_type
        with ir.InsertionPoint(select), select.location:
            condition_tensor = tensor.from_elements(ir.RankedTensorType.get([], _boolean()), [condition])
            init = tensor.empty(result_type.shape, element)
            generic = linalg.GenericOp(
                [result_type], [condition_tensor, on_true, on_false], [init],
                ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
                ir.ArrayAttr.get([parallel] * rank),
            )  # fmt: skip
            body = generic.regions[0].blocks.append(_boolean(), element, element, element)
            with ir.InsertionPoint(body):
                linalg.YieldOp([arith.select(body.arguments[0], body.arguments[1], body.arguments[2])])
        select.results[0].replace_all_uses_with(generic.results[0])
        select.erase()


# Ops that may hold the deallocation flags' i1 buffers, and only pass them on.
_BUFFER_MOVING_OPS = {
    "memref.alloc", "memref.alloca", "memref.cast", "memref.dealloc", "memref.dim",
    "func.func", "func.call", "func.return", "scf.for", "scf.if", "scf.yield",
}


def _byte_buffer_type(value_type: ir.Type) -> ir.Type | None:
    """memref<...xi8> for a memref<...xi1> (same layout and memory space), else None."""
    if isinstance(value_type, ir.MemRefType) and value_type.element_type == _boolean():
        return ir.MemRefType.get(value_type.shape, _byte(), value_type.layout, value_type.memory_space)
    return None


def store_boolean_buffers_as_bytes(module: ir.Module) -> None:
    """Retype every i1 buffer to i8, loads truncating and stores extending.

    Only done when every op touching an i1 buffer is a load, a store or one of
    `_BUFFER_MOVING_OPS`; otherwise the module is left as it is (and
    `reject_boolean_buffers` reports it).
    """
    ops = _all_ops(module)
    touching = [op for op in ops if _touches_boolean_buffers(op)]
    allowed = _BUFFER_MOVING_OPS | {"memref.load", "memref.store"}
    if not touching or any(op.name not in allowed for op in touching):
        return
    for op in touching:
        for value in list(op.results) + _block_arguments(op):
            byte_type = _byte_buffer_type(value.type)
            if byte_type is not None:
                value.set_type(byte_type)
    for op in touching:
        if op.name == "func.func":
            _retype_signature(op, _byte_buffer_type)
        elif op.name == "memref.load" and _is_boolean_scalar(op.results[0]):
            op.results[0].set_type(_byte())
            _truncate_uses(op.results[0], ir.InsertionPoint.after(op), op.location)
        elif op.name == "memref.store" and _is_boolean_scalar(op.operands[0]):
            op.operands[0] = _extended(op.operands[0], op)


def _touches_boolean_buffers(op: ir.Operation) -> bool:
    return any(_byte_buffer_type(value.type) is not None for value in _values(op))


def reject_boolean_buffers(module: ir.Module, stage: str = "cpu-bufferize") -> None:
    """A one-line PipelineError, rather than MLIR's abort, for an i1 buffer."""
    for op in _all_ops(module):
        if _touches_boolean_buffers(op):
            raise PipelineError(
                f"{stage}: a boolean (i1) tensor would be stored in memory (at `{op.name}`), "
                "which MLIR 22 cannot lower",
                location_text(op.location),
            )
