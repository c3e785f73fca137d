"""What a program may do wrong only at run time becomes an error, not a crash.

An index read from the inputs (`tensor.extract %t[%i]`, a slice at a computed
offset) may fall outside its tensor, and an integer divisor read from them may be
zero: compiled as they are, the first read memory anywhere (a segmentation fault,
or a wrong number with no error) and the second trapped (SIGFPE), ending the
user's process either way. On the buffers, before the loops are made:

- MLIR's `generate-runtime-verification` asserts what each op needs of its
  operands (a load's indices in bounds, a subview inside its source, matching
  dynamic sizes of a linalg op's operands); canonicalize removes what holds
  for every input, so a program of static shapes and constant indices keeps
  nothing, and the loops the pipeline generates later are not checked;
- each integer division and remainder (`arith`, `index`, of integers or of vectors of
  them, lane by lane) asserts its divisor is not zero, and the signed ones that they are not MIN / -1 (LLVM's `sdiv` traps on
  both), unless constants say they cannot be; `math.ipowi`/`fpowi` become such
  divisions first (MLIR's `convert-math-to-funcs`: `ipowi(0, -1)` divides by zero); an `scf.for` whose step is not a constant
  asserts it is positive where the loop would run (a zero step never ends);
- a `vector.load`/`store` written in the program asserts its lanes fall inside the
  buffer, and a `vector.transfer_read`/`write` checks its lanes (its `in_bounds` claims
  are dropped);
- a `memref.expand_shape` that makes two or more dynamic sizes of one dimension (`?` into
  `?x?`, the backward of a collapse of two dynamic sizes) asserts that they multiply to
  the dimension's size, and becomes the strided view it stands for: MLIR 22's
  `generate-runtime-verification` fails an internal assertion on such an expansion,
  which ended the user's process.

Each assertion then calls `FAILURE_FUNCTION` with its number, negated and less one,
when it fails; `checked_allocations` defines that function to jump back to the guarded
entry point like a failed allocation, and the runtime raises a `RunTimeCheckError`
with the assertion's message, kept in order in the module's `MESSAGES_ATTRIBUTE`.
The cost is a compare and a branch where a check stays (per iteration at most, for
a slice or a read at a computed index in a loop); none where nothing can fail.
"""

from __future__ import annotations

import math
import re

from mlir import ir
from mlir.dialects import arith, func, memref, scf, vector
from mlir.dialects import tensor as tensor_dialect

from gradir.cpu_backend.checked_allocations import fresh_symbol, module_symbols
from gradir.mlir_bridge import location_text, run_pipeline, walk_ops

FAILURE_FUNCTION = "__gradir_check_failed"
"""`(i64) -> ()`: called with `-1 - n` when assertion n fails; never returns when guarded
(`FAILURE_FUNCTION_ATTRIBUTE` names it, suffixed where the program has a symbol of that name)."""

FAILURE_FUNCTION_ATTRIBUTE = "gradir.check_failed"
MESSAGES_ATTRIBUTE = "gradir.run_time_checks"
"""Module attributes: the failure function (a symbol reference) and the assertions'
[location, message] string pairs, in number order (location "" where the op has none)."""

_SIGNED = {"arith.divsi", "arith.remsi", "arith.ceildivsi", "arith.floordivsi",
           "index.divs", "index.rems", "index.ceildivs", "index.floordivs"}  # fmt: skip
_UNSIGNED = {"arith.divui", "arith.remui", "arith.ceildivui", "index.divu", "index.remu", "index.ceildivu"}


def add_run_time_checks(module: ir.Module) -> list[tuple[str, str]]:
    """Assert, in place, what `module` (on buffers) needs of its inputs at run time, and
    make each assertion call `FAILURE_FUNCTION` when it fails; returns their (location,
    message) pairs."""
    with module.context, ir.Location.unknown():
        run_pipeline(module, "convert-math-to-funcs", "cpu-checks")
        _check_divisions(module)
        _check_loop_steps(module)
        _check_vector_accesses(module)
        _check_dynamic_expansions(module)
        run_pipeline(module, "generate-runtime-verification, canonicalize, cse", "cpu-checks")
        return _assertions_to_calls(module)


def _is_constant(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.Operation) and owner.name in ("arith.constant", "index.constant")


def _constant_integer(value: ir.Value) -> int | None:
    """The value of an integer constant, else None."""
    if not _is_constant(value):
        return None
    attribute = value.owner.attributes["value"]
    return ir.IntegerAttr(attribute).value if isinstance(attribute, ir.IntegerAttr) else None


def _integer_width(kind: ir.Type) -> int | None:
    """The bit width of an integer or index type, or of a vector's elements; None for any
    other type (tensors are buffers and loops by now)."""
    if isinstance(kind, ir.VectorType):
        kind = ir.VectorType(kind).element_type
    if isinstance(kind, ir.IndexType):
        return 64
    if isinstance(kind, ir.IntegerType):
        return ir.IntegerType(kind).width
    return None


def _constant(kind: ir.Type, value: int) -> ir.Value:
    """`value` of `kind`: an integer, or a vector of it in every lane."""
    if isinstance(kind, ir.VectorType):
        lane = ir.VectorType(kind).element_type
        splat = ir.DenseElementsAttr.get_splat(kind, ir.IntegerAttr.get(lane, value))
        return arith.ConstantOp(kind, splat).result
    return arith.ConstantOp(kind, ir.IntegerAttr.get(kind, value)).result


def _assert(condition: ir.Value, message: str) -> None:
    """Assert `condition`, an i1, or a vector of i1 that must hold in every lane (a division
    of vectors, written by the user: the pipeline vectorises only after the checks)."""
    if isinstance(condition.type, ir.VectorType):
        lanes = ir.VectorType(condition.type)
        flat = ir.VectorType.get([math.prod(lanes.shape)], lanes.element_type)
        condition = vector.ShapeCastOp(flat, condition).result
        condition = vector.ReductionOp(lanes.element_type, vector.CombiningKind.AND, condition).result
    ir.Operation.create("cf.assert", operands=[condition], attributes={"msg": ir.StringAttr.get(message)})


def _check_divisions(module: ir.Module) -> None:
    """Assert each division's divisor is not zero and, for a signed one, that it is not
    the smallest integer by -1; constants that cannot fail are not checked, a constant zero
    divisor always fails (MLIR's `convert-math-to-funcs` divides 1 by 0 for `ipowi(0, -n)`)."""
    for op in walk_ops(module, _SIGNED | _UNSIGNED):
        dividend, divisor = op.operands[0], op.operands[1]
        width = _integer_width(divisor.type)
        if width is None:
            continue
        known_divisor, known_dividend = _constant_integer(divisor), _constant_integer(dividend)
        smallest_value = -(2 ** (width - 1))
        with ir.InsertionPoint(op), op.location:
            kind = divisor.type
            if known_divisor is None or known_divisor == 0:
                not_zero = arith.CmpIOp(arith.CmpIPredicate.ne, divisor, _constant(kind, 0)).result
                _assert(not_zero, f"an integer division by zero ({op.name})")
            could_overflow = (
                op.name in _SIGNED and width > 1
                and known_divisor in (None, -1) and known_dividend in (None, smallest_value)
            )  # fmt: skip
            if could_overflow:
                smallest = arith.CmpIOp(arith.CmpIPredicate.eq, dividend, _constant(kind, smallest_value)).result
                minus_one = arith.CmpIOp(arith.CmpIPredicate.eq, divisor, _constant(kind, -1)).result
                overflow = arith.AndIOp(smallest, minus_one).result
                no_overflow = arith.XOrIOp(overflow, _constant(overflow.type, 1)).result
                _assert(no_overflow, f"an integer division overflow, the smallest i{width} by -1 ({op.name})")


def _check_loop_steps(module: ir.Module) -> None:
    for loop in walk_ops(module, {"scf.for"}):
        lower, upper, step = loop.operands[0], loop.operands[1], loop.operands[2]
        if _is_constant(step):
            continue
        unsigned = "unsignedCmp" in loop.attributes
        with ir.InsertionPoint(loop), loop.location:
            kind = step.type
            zero = _constant(kind, 0)
            positive = arith.CmpIOp(arith.CmpIPredicate.ugt if unsigned else arith.CmpIPredicate.sgt, step, zero)
            empty = arith.CmpIOp(arith.CmpIPredicate.uge if unsigned else arith.CmpIPredicate.sge, lower, upper)
            fine = arith.OrIOp(positive.result, empty.result).result
            _assert(fine, "a loop step that is not positive, so the loop would never end (scf.for)")


def check_tensor_indices(module: ir.Module) -> None:
    """Assert, on tensors, that each run-time index of a `tensor.extract`/`tensor.insert`
    outside a linalg op's body is inside its tensor. The checks on buffers come too late
    for these: canonicalization folds an extract from a `linalg.fill`ed or
    `tensor.generate`d tensor to the value put in, whatever the index (index 9 of a
    4-element fill gave the fill value, no error). In bodies, gathers are checked on
    buffers, where they still load."""
    index = ir.IndexType.get()
    for op in walk_ops(module, {"tensor.extract", "tensor.insert"}):
        if _inside_linalg_op(op):
            continue
        first_index, tensor = (1, op.operands[0]) if op.name == "tensor.extract" else (2, op.operands[1])
        indices = list(op.operands)[first_index:]
        if all(_is_constant(position) for position in indices):
            continue  # a constant index out of bounds is the verifier's
        with ir.InsertionPoint(op), op.location:
            for dimension, position in enumerate(indices):
                if _is_constant(position):
                    continue
                size = tensor_dialect.DimOp(tensor, _constant(index, dimension)).result
                _assert_window_inside(position, 1, size, op.name)


def _assert_window_inside(position: ir.Value, extent: int, size: ir.Value, op_name: str) -> None:
    """Assert that `extent` elements from index `position` lie in a dimension of `size`:
    0 <= position <= size - extent (no sum that could overflow)."""
    index = ir.IndexType.get()
    last = arith.SubIOp(size, _constant(index, extent)).result
    at_least_zero = arith.CmpIOp(arith.CmpIPredicate.sge, position, _constant(index, 0)).result
    at_most_last = arith.CmpIOp(arith.CmpIPredicate.sle, position, last).result
    _assert(arith.AndIOp(at_least_zero, at_most_last).result, f"an index out of bounds ({op_name})")


def _inside_linalg_op(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name.startswith("linalg."):
            return True
        parent = parent.parent
    return False


def _check_vector_accesses(module: ir.Module) -> None:
    """Assert that each `vector.load`/`vector.store` reads or writes inside its buffer: the
    vector covers the buffer's trailing dimensions from the indices, so each index is at
    least 0 and at most the dimension's size less the vector's extent along it (outside,
    a segmentation fault). A `vector.transfer_read`/`transfer_write` that claims to be in
    bounds (`in_bounds = [true]`) is made to check its lanes instead (masked): the claim
    is the program's, unverified, and a wrong one read memory anywhere. Every vector op
    here is the program's own: the pipeline vectorises after the checks."""
    index = ir.IndexType.get()
    for op in walk_ops(module, {"vector.load", "vector.store"}):
        first_index = 1 if op.name == "vector.load" else 2
        base, indices = op.operands[first_index - 1], list(op.operands)[first_index:]
        vector_type = ir.VectorType(op.results[0].type if op.name == "vector.load" else op.operands[0].type)
        rank, lanes = len(indices), list(vector_type.shape)
        extents = [1] * (rank - len(lanes)) + lanes
        with ir.InsertionPoint(op), op.location:
            for dimension, (position, extent) in enumerate(zip(indices, extents)):
                size = memref.DimOp(base, _constant(index, dimension)).result
                _assert_window_inside(position, extent, size, op.name)
    for op in walk_ops(module, {"vector.transfer_read", "vector.transfer_write"}):
        claims = ir.ArrayAttr(op.attributes["in_bounds"])
        op.attributes["in_bounds"] = ir.ArrayAttr.get([ir.BoolAttr.get(False) for _ in claims])


def _expansion_sizes(op: ir.Operation) -> list[ir.Value]:
    """The sizes of an expand_shape's result, as index values (constants where static)."""
    dynamic = iter(op.opview.output_shape)
    static = ir.DenseI64ArrayAttr(op.attributes["static_output_shape"])
    index = ir.IndexType.get()
    return [next(dynamic) if size == ir.ShapedType.get_dynamic_size() else _constant(index, size) for size in static]


def _check_dynamic_expansions(module: ir.Module) -> None:
    """Each `memref.expand_shape` with a group of two or more dynamic sizes: an assertion that
    the group's sizes multiply to its source dimension, and the op rewritten as what it
    means, `reinterpret_cast` of the source's base at its offset, the sizes given and each
    group's strides (the source dimension's stride times the sizes after it in the group),
    cast back to the expansion's type. `generate-runtime-verification` cannot check these
    (it asserts "more than one dynamic dim found in reassoc group" and aborts)."""
    dynamic, index = ir.ShapedType.get_dynamic_size(), ir.IndexType.get()
    for op in walk_ops(module, {"memref.expand_shape"}):
        result_type = ir.MemRefType(op.results[0].type)
        groups = [
            [ir.IntegerAttr(d).value for d in ir.ArrayAttr(g)] for g in ir.ArrayAttr(op.attributes["reassociation"])
        ]
        if all(sum(result_type.is_dynamic_dim(d) for d in group) < 2 for group in groups):
            continue
        source, rank = op.operands[0], result_type.rank
        with ir.InsertionPoint(op), op.location:
            sizes = _expansion_sizes(op)
            metadata = memref.ExtractStridedMetadataOp(source).results
            source_rank = len(groups)
            base, offset = metadata[0], metadata[1]
            source_sizes, source_strides = metadata[2 : 2 + source_rank], metadata[2 + source_rank :]
            strides: list[ir.Value] = [None] * rank  # type: ignore[list-item]
            for position, group in enumerate(groups):
                stride = source_strides[position]
                for dimension in reversed(group):
                    strides[dimension] = stride
                    stride = arith.MulIOp(stride, sizes[dimension]).result
                product = _constant(index, 1)
                for dimension in group:
                    product = arith.MulIOp(product, sizes[dimension]).result
                equal = arith.CmpIOp(arith.CmpIPredicate.eq, product, source_sizes[position]).result
                _assert(equal, f"sizes that do not multiply to the dimension they expand ({op.name})")
            layout = ir.StridedLayoutAttr.get(dynamic, [dynamic] * rank)
            view_type = ir.MemRefType.get([dynamic] * rank, result_type.element_type, layout, result_type.memory_space)
            view = memref.ReinterpretCastOp(
                view_type, base, [offset], sizes, strides, [dynamic], [dynamic] * rank, [dynamic] * rank
            ).result
            op.results[0].replace_all_uses_with(memref.CastOp(result_type, view).result)
        op.erase()


_REASONS = {"out-of-bounds access": "an index out of bounds"}
"""`generate-runtime-verification`'s words, where shorter ones say more to a user."""


def _location(assertion: ir.Operation) -> str:
    """`file:line:col` of the checked op in the user's file, or "" (text gradir generated)."""
    where = location_text(assertion.location)
    return where if where and not where.startswith(("<", ":")) else ""


def _message(assertion: ir.Operation) -> str:
    """`assertion`'s message in one line: `generate-runtime-verification`'s is the failing
    op's text, a `^ reason` line and its location; the op's name and the reason are kept."""
    text = ir.StringAttr(assertion.attributes["msg"]).value
    lines = text.splitlines()
    if len(lines) >= 3 and lines[0].startswith("ERROR: Runtime op verification failed"):
        # The op as printed: `%r = name ...`, `name ...` or `"name"(...)`; its name.
        op_text = re.sub(r"^\s*%[^=\s]*(\s*,\s*%[^=\s]*)*\s*=\s*", "", lines[1])
        name = re.match(r'"?([\w.$]+)', op_text.strip())[1]  # type: ignore[index]
        reason = lines[2].lstrip("^ ").strip()
        text = f"{_REASONS.get(reason, reason)} ({name})"
    function = assertion.parent
    while function is not None and function.name != "func.func":
        function = function.parent
    if function is not None and "sym_visibility" in function.attributes:
        # A function the pipeline made (math.ipowi's, an outlined one): say which.
        text += f" in @{ir.StringAttr(function.attributes['sym_name']).value}"
    return text


def _assertions_to_calls(module: ir.Module) -> list[tuple[str, str]]:
    assertions = walk_ops(module, {"cf.assert"})
    messages = [(_location(assertion), _message(assertion)) for assertion in assertions]
    if not assertions:
        return messages
    name = fresh_symbol(FAILURE_FUNCTION, module_symbols(module))
    with ir.InsertionPoint.at_block_begin(module.body):
        func.FuncOp(name, ([ir.IntegerType.get_signless(64)], []), visibility="private")
    for number, assertion in enumerate(assertions):
        with ir.InsertionPoint(assertion), assertion.location:
            true = _constant(ir.IntegerType.get_signless(1), 1)
            failed = arith.XOrIOp(assertion.operands[0], true).result
            branch = scf.IfOp(failed)
            with ir.InsertionPoint(branch.then_block):
                code = _constant(ir.IntegerType.get_signless(64), -1 - number)
                func.CallOp([], ir.FlatSymbolRefAttr.get(name), [code])
                scf.YieldOp([])
        assertion.erase()
    module.operation.attributes[FAILURE_FUNCTION_ATTRIBUTE] = ir.FlatSymbolRefAttr.get(name)
    module.operation.attributes[MESSAGES_ATTRIBUTE] = ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.StringAttr.get(where), ir.StringAttr.get(text)]) for where, text in messages]
    )
    return messages


def check_messages(module: ir.Module) -> list[tuple[str | None, str]]:
    """(`file:line:col` or None, message) of each check `add_run_time_checks` recorded on
    `module`, by number (none if it found nothing)."""
    if MESSAGES_ATTRIBUTE not in module.operation.attributes:
        return []
    pairs = [ir.ArrayAttr(pair) for pair in ir.ArrayAttr(module.operation.attributes[MESSAGES_ATTRIBUTE])]
    return [(ir.StringAttr(pair[0]).value or None, ir.StringAttr(pair[1]).value) for pair in pairs]


def failure_function(module: ir.Module) -> str | None:
    """The name of the failure function `add_run_time_checks` declared in `module`, if any."""
    if FAILURE_FUNCTION_ATTRIBUTE not in module.operation.attributes:
        return None
    return ir.FlatSymbolRefAttr(module.operation.attributes[FAILURE_FUNCTION_ATTRIBUTE]).value
