"""Verification that reports the failing op's `file:line:col` in one line."""
from __future__ import annotations

import os
import re

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, ErasedSSAValue, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from gradir.errors import SourceError, location_of


def _root_message(error: BaseException) -> str:
    """The innermost verifier message (xDSL wraps it with the printed op)."""
    while isinstance(error.__cause__, (VerifyException, DiagnosticException)):
        error = error.__cause__
    if error.args and isinstance(error.args[0], str):
        message = error.args[0]
    else:
        message = str(error)
    prefix = "Operation does not verify: "
    if message.startswith(prefix):
        message = message[len(prefix):]
    return " ".join(message.strip().splitlines()[0].split()) if message.strip() else "invalid IR"


ops_verified = 0
"""How many times `verify_module` has run an op's verifier, in all calls (tests count
them: how much verification a run does is a count, not a time)."""


def verify_module(module: ModuleOp, context: str = "") -> None:
    """Verify every op; raise `SourceError` at the first op that fails.

    An op like one verified before in the same call is not verified again (`_signature`):
    xDSL's verifier costs about 30 us an op, which made verification the largest stage of
    `autodiff-opt --pipeline grad` on large programs, and the ops there are a few
    signatures repeated thousands of times."""
    global ops_verified
    verified: set[tuple] = set()
    for op in module.walk():
        signature = _signature(op)
        if signature is not None and signature in verified:
            continue
        ops_verified += 1
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as error:
            detail = _root_message(error).removeprefix(f"'{op.name}' ")
            culprit = _redefinition(op, detail) or op
            message = f"'{op.name}' op {detail}"
            if context:
                message = f"{context}: {message}"
            raise SourceError(message, location_of(culprit)) from error
        except Exception as error:  # noqa: BLE001 -- a verifier that crashes on bad input
            # (xDSL 0.74's own linalg.transpose indexed with an out-of-range permutation)
            message = f"'{op.name}' op does not verify ({type(error).__name__} in its verifier: {error})"
            if context:
                message = f"{context}: {message}"
            raise SourceError(message, location_of(op)) from error
        if signature is not None:
            verified.add(signature)
    check_dominance(module)


_CONTEXT_FREE: dict[type, bool] = {}
"""Per op class: whether its verifier reads only the op itself (see `_signature`)."""


def _context_free(op_class: type) -> bool:
    """An `autodiff` op that is no symbol user: its verifier (IRDL constraints, traits such
    as `HasParent`, and the op's `verify_`) reads its operand and result types, properties,
    attributes and parent op, nothing else (tests/tools/test_verify_cost.py checks the
    `verify_` methods for reads of other ops). Other dialects' verifiers are not audited."""
    free = _CONTEXT_FREE.get(op_class)
    if free is None:
        from xdsl.traits import SymbolUserOpInterface

        free = op_class.name.startswith("autodiff.") and not any(
            isinstance(trait, SymbolUserOpInterface) for trait in op_class.traits
        )
        _CONTEXT_FREE[op_class] = free
    return free


def _signature(op: Operation) -> tuple | None:
    """What the verifier of `op` reads, when that is all it reads: its class, parent op
    class, operand and result types, properties and attributes, as object identities (the
    module holds them all while it is verified, so no identity is reused meanwhile), and
    for the last op of a block, what xDSL's terminator check reads: how many blocks the
    region has. None for an op that must be verified every time: one with regions or
    successors, one of a dialect whose verifiers are not audited, or one using an
    erased value."""
    op_class = type(op)
    free = _CONTEXT_FREE.get(op_class)
    if free is None:
        free = _context_free(op_class)
    if not free or op.regions or op.successors:
        return None
    block = op.parent
    if block is None or block.parent is None:
        return None
    last = len(block.parent.blocks) if block.last_op is op else 0
    operand_types = []
    for operand in op.operands:
        if isinstance(operand, ErasedSSAValue):
            return None
        operand_types.append(id(operand.type))
    return (
        op_class,
        type(block.parent_op()),
        last,
        tuple(operand_types),
        tuple([id(result.type) for result in op.results]),
        tuple([(name, id(value)) for name, value in op.properties.items()]),
        tuple([(name, id(value)) for name, value in op.attributes.items()]) if op.attributes else (),
    )


def verify_each_from_environment() -> bool:
    """`GRADIR_VERIFY_EACH=1`: verify after every pass (the CLIs' `--verify-each`)."""
    value = os.environ.get("GRADIR_VERIFY_EACH", "").strip().lower()
    return value not in ("", "0", "off", "no", "false")


def verify_after_pass(previous, module: ModuleOp, _next=None) -> None:
    """The callback of xDSL's `PassPipeline` that verifies after every pass (not before
    the first: the input was verified already), naming the pass in the error."""
    if previous is not None:
        verify_module(module, f"after pass '{previous.name}'")


def verify_result(module: ModuleOp, how_to_find_the_pass: str) -> None:
    """Verify what the passes made, once, after the last (without a check between passes):
    an error a pass made shows here, and `how_to_find_the_pass` says how to learn which."""
    verify_module(module, f"after the passes ({how_to_find_the_pass} names the pass that broke it)")


def check_dominance(module: ModuleOp) -> None:
    """Every operand is defined before its use, in the same block or in an
    enclosing one, and never inside a region the use is not in (xDSL 0.74 does
    not check this; a later pass would then move the use away from its
    definition and fail without a location). Blocks of a multi-block region see
    each other's values (their order is not their dominance); within a block,
    order is checked. One walk: the visible values are kept in one set."""
    visible: set[SSAValue] = set()
    for op in module.ops:  # the module's body is a graph region: symbols, not SSA values
        _check_regions(op, visible)


def _check_regions(op: Operation, visible: set[SSAValue]) -> None:
    for region in op.regions:
        siblings: list[SSAValue] = []
        if len(region.blocks) > 1:
            for block in region.blocks:
                siblings.extend(block.args)
                for inner in block.ops:
                    siblings.extend(inner.results)
            visible.update(siblings)
        for block in region.blocks:
            _check_block(block, visible)
            visible.update(siblings)  # `_check_block` forgets what its block defined
        visible.difference_update(siblings)


def _check_block(block: Block, visible: set[SSAValue]) -> None:
    defined: list[SSAValue] = list(block.args)
    visible.update(defined)
    seen: set[Operation] = set()
    for op in block.ops:
        for index, operand in enumerate(op.operands):
            if operand in visible and not (
                isinstance(operand, OpResult) and operand.op.parent is block and operand.op not in seen
            ):
                continue
            name = f"%{operand.name_hint}" if operand.name_hint else f"#{index}"
            raise SourceError(
                f"'{op.name}' op operand {name} is used before it is defined"
                if _defined_later(operand, op)
                else f"'{op.name}' op operand {name} is used outside the region that defines it",
                location_of(op),
            )
        if op.regions:
            _check_regions(op, visible)
        seen.add(op)
        visible.update(op.results)
        defined.extend(op.results)
    visible.difference_update(defined)


def _defined_later(value: SSAValue, user: Operation) -> bool:
    """Whether `value` is an op result defined after `user`'s ancestor in the
    defining block (as opposed to inside a region `user` is not in)."""
    if not isinstance(value, OpResult) or value.op.parent is None:
        return False
    ancestor: Operation | None = user
    while ancestor is not None and ancestor.parent is not value.op.parent:
        ancestor = ancestor.parent_op()
    return ancestor is not None


def _redefinition(table: Operation, message: str) -> Operation | None:
    """The second definition of the symbol a symbol table's verifier names as
    redefined: the table itself (a module) has no location of its own."""
    match = re.search(r'Redefinition of symbol "([^"]+)"', message)
    if match is None or not table.regions:
        return None
    seen = False
    for child in table.regions[0].ops:
        name = child.properties.get("sym_name") or child.attributes.get("sym_name")
        if isinstance(name, StringAttr) and name.data == match.group(1):
            if seen:
                return child
            seen = True
    return None


def refuse_external_calls(module: ModuleOp) -> None:
    """Raise `SourceError` at the first `func.call` of a function declared without a body.

    The JIT resolves such a function from whatever the process holds: `@cos` found the C
    library's, `@abort` ended the process, and an unknown name failed in machine code
    generation with a line the JIT printed itself. gradir runs (and differentiates)
    whole programs, so the callee must be defined in the module."""
    from xdsl.dialects.func import CallOp, FuncOp

    declared = {
        op.sym_name.data for op in module.walk() if isinstance(op, FuncOp) and not op.body.blocks
    }
    if not declared:
        return
    for call in module.walk():
        if isinstance(call, CallOp) and call.callee.string_value() in declared:
            callee = call.callee.string_value()
            raise SourceError(
                f"'func.call' of @{callee}, which is declared without a body: gradir runs whole "
                f"programs and does not call into the C library or the process (a call there "
                f"could end it); define @{callee} in the module",
                location_of(call),
            )


EXECUTABLE_DIALECTS = (
    "builtin", "func", "arith", "math", "index", "complex", "tensor", "linalg", "scf", "cf",
    "affine", "memref", "bufferization", "vector", "ub", "autodiff",
)  # fmt: skip
"""The dialects of a program gradir compiles and runs: what front ends and AD tools emit and
its pipelines lower. The rest (`llvm`, `gpu`, ...) are its output, not its input."""

UNCHECKED_MEMORY_OPS = {
    "memref.reinterpret_cast": "it may address memory outside its source buffer, which nothing can check",
    "memref.view": "it may address memory outside its source buffer, which nothing can check",
    **{
        f"vector.{name}": "the address of each of its lanes (an index vector, or a mask) is not "
        "checked, and one outside its buffer reads or writes memory anywhere; use "
        "vector.transfer_read/transfer_write or tensor ops"
        for name in ("gather", "scatter", "maskedload", "maskedstore", "expandload", "compressstore")
    },
}


_MEMORY_WRITERS = {
    "memref.store": 1, "memref.atomic_rmw": 1, "memref.generic_atomic_rmw": 0, "memref.copy": 1,
    "vector.store": 1, "vector.transfer_write": 1,
}  # fmt: skip
"""Ops that write memory, and the operand holding the buffer they write (linalg ops on
buffers write their `outs`)."""

_VIEWS = {
    "memref.subview", "memref.cast", "memref.collapse_shape", "memref.expand_shape", "memref.reshape",
    "memref.transpose", "memref.assume_alignment", "memref.memory_space_cast",
}  # fmt: skip
"""Ops whose result is a view of their first operand's buffer."""


def _written_buffers(op: Operation) -> list[SSAValue]:
    if op.name in _MEMORY_WRITERS:
        return [op.operands[_MEMORY_WRITERS[op.name]]]
    if op.name.startswith("linalg.") and hasattr(op, "outputs"):
        return [value for value in op.outputs if "memref" in str(value.type)]
    return []


def _read_only_origin(buffer: SSAValue, constant_globals: set[str], calls: dict[str, list[Operation]]) -> str | None:
    """What makes `buffer` read-only, if it is a view of (or, through calls and loop states,
    is) the buffer of a tensor or a constant global; else None. `calls`: the `func.call`s
    of each callee."""
    from xdsl.dialects.func import FuncOp

    pending, seen = [buffer], set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if isinstance(value, OpResult):
            owner = value.op
            if owner.name == "bufferization.to_buffer":
                return "the buffer of a tensor (bufferization.to_buffer), which MLIR does not let a program write"
            if owner.name == "memref.get_global":
                symbol = owner.properties["name"].string_value()
                if symbol in constant_globals:
                    return f"the constant memref.global @{symbol}"
            if owner.name in _VIEWS:
                pending.append(owner.operands[0])
            elif owner.name == "scf.for":
                pending.append(owner.operands[3 + value.index])
                pending.append(owner.regions[0].block.last_op.operands[value.index])
        elif isinstance(value.owner, Block):
            block, parent = value.owner, value.owner.parent_op()
            if isinstance(parent, FuncOp):
                pending.extend(call.operands[value.index] for call in calls.get(parent.sym_name.data, ()))
            elif parent is not None and parent.name == "scf.for" and value.index > 0:
                pending.append(parent.operands[3 + value.index - 1])
                pending.append(block.last_op.operands[value.index - 1])
    return None


def refuse_writes_to_read_only_memory(module: ModuleOp) -> None:
    """Raise `SourceError` at the first op that writes into the buffer of a tensor
    (`bufferization.to_buffer`) or into a constant `memref.global`, followed through views,
    calls and `scf.for` states. Both are undefined: a store into a tensor argument's buffer
    was read back as the old value (0.0 for 7.0), one into a constant global silently
    dropped, with no error either way."""
    from xdsl.dialects.func import CallOp

    writes = [(op, buffer) for op in module.walk() for buffer in _written_buffers(op)]
    if not writes:
        return
    constant_globals, calls = set(), {}
    for op in module.walk():
        if op.name == "memref.global" and "constant" in op.properties:
            constant_globals.add(op.properties["sym_name"].data)
        elif isinstance(op, CallOp):
            calls.setdefault(op.callee.string_value(), []).append(op)
    for op, buffer in writes:
        origin = _read_only_origin(buffer, constant_globals, calls)
        if origin is not None:
            raise SourceError(
                f"'{op.name}' writes into {origin}: copy it into a memref.alloc first (or write "
                "tensors with tensor.insert and linalg ops)",
                location_of(op),
            )


def refuse_unrunnable_ops(module: ModuleOp) -> None:
    """Raise `SourceError` at the first op gradir will not run: one of a dialect outside
    `EXECUTABLE_DIALECTS` (an `llvm.call @abort` ran and ended the process), or one of
    `UNCHECKED_MEMORY_OPS` (a `memref.reinterpret_cast` 800 MB past a 16-byte buffer was
    stored through with no error)."""
    for op in module.walk():
        dialect = op.name.split(".", 1)[0]
        if dialect not in EXECUTABLE_DIALECTS:
            raise SourceError(
                f"'{op.name}' is not run by gradir: programs it compiles are written in the "
                f"{', '.join(EXECUTABLE_DIALECTS[:-1])} and {EXECUTABLE_DIALECTS[-1]} dialects "
                f"(the {dialect} dialect is a lowering's output)",
                location_of(op),
            )
        if op.name in UNCHECKED_MEMORY_OPS:
            raise SourceError(f"'{op.name}' is not run by gradir: {UNCHECKED_MEMORY_OPS[op.name]}", location_of(op))


def refuse_recursion(module: ModuleOp) -> None:
    """Raise `SourceError` at the `func.call` that closes a cycle of the call graph.

    The compiled code calls a function natively for each `func.call`, with no bound on
    the depth: a recursive program (`@f` calls `@f`, or `@f` -> `@g` -> `@f`) whose
    recursion does not stop, or stops too deep, overflows the stack and kills the whole
    process with a segmentation fault. gradir does not run recursive programs; loops
    (`scf.for`, `scf.while`) say the same and are differentiated. One iterative walk."""
    from xdsl.dialects.func import CallOp, FuncOp

    calls: dict[str, list] = {}
    for function in module.walk():
        if isinstance(function, FuncOp):
            calls[function.sym_name.data] = [
                op for op in function.walk() if isinstance(op, CallOp)
            ]
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in calls:
        if state.get(root):
            continue
        path = [root]
        pending = [iter(calls[root])]
        state[root] = 1
        while pending:
            call = next(pending[-1], None)
            if call is None:
                state[path.pop()] = 2
                pending.pop()
                continue
            callee = call.callee.string_value()
            if callee not in calls:
                continue  # an external declaration: no body here
            if state.get(callee) == 1:
                cycle = path[path.index(callee):] + [callee]
                raise SourceError(
                    f"'func.call' of @{callee} is recursive ({' -> '.join('@' + f for f in cycle)}): "
                    "gradir does not compile recursive programs, whose native call depth it cannot "
                    "bound (the stack would overflow); write the recursion as an scf.for or "
                    "scf.while loop",
                    location_of(call),
                )
            if not state.get(callee):
                state[callee] = 1
                path.append(callee)
                pending.append(iter(calls[callee]))
