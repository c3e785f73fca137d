"""A public function that only calls another public function keeps its call, on the CPU.

For `%d = autodiff.grad @f(...)` in a public `g`, `autodiff-reverse` writes
`f_vjp_<wrt>` (the backward pass, returning the value of `f` too) and
`f_grad_<wrt>` (a call of it with the seed 1, the value dropped), and `g`
becomes a call of `f_grad_<wrt>`; all three are public, since each can be
called. The CPU pipeline inlines every call, so each held its own copy of the
backward pass and LLVM compiled it three times: LeNet-5's gradient (batch 64)
was 62 000 of its 72 000 lines of LLVM dialect.

A call that is a public function's whole body, with the function's arguments
in order and its results returned as they are (`g` calling `f_grad_<wrt>`),
is marked `no_inline` (the inliner leaves such calls alone): the callee is
compiled once, and the caller costs one direct call. `f_grad_<wrt>` is no such
forwarder (it adds the seed and drops the value) and keeps its inlined copy:
called instead, `f_vjp_<wrt>` computes the value that inlining lets DCE drop,
which made bench/cpu.py's elementwise gradient 1.5x slower (the value's sum
recomputed sin, exp and tanh of 2M elements).

After bufferization the forwarder would allocate a buffer for each result of
its call and copy it into its own out-parameter; `write_call_results_in_place`
passes the out-parameters to the call instead.
"""
from __future__ import annotations

from mlir import ir

from gradir.mlir_bridge import public_functions, symbol_name, walk_ops


def _forwarded_call(function: ir.Operation) -> ir.Operation | None:
    """The call that is `function`'s whole body, passing its arguments in order and
    returning its results as they are; else None."""
    block = function.regions[0].blocks[0]
    body = [op.operation for op in block.operations]
    if len(body) != 2 or [op.name for op in body] != ["func.call", "func.return"]:
        return None
    call, terminator = body
    if list(call.operands) != list(block.arguments) or list(terminator.operands) != list(call.results):
        return None
    return call


def keep_forwarding_calls(module: ir.Module) -> int:
    """Mark `no_inline` the call of every public forwarder to another public function;
    returns how many were marked."""
    public = {symbol_name(function) for function in public_functions(module)}
    marked = 0
    with module.context:
        for function in public_functions(module):
            call = _forwarded_call(function)
            if call is None:
                continue
            callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
            if any(not ir.ShapedType(r.type).has_static_shape for r in call.results if isinstance(r.type, ir.ShapedType)):
                continue  # a result of dynamic shape cannot be an out-parameter of a call: inlined
            if callee in public and callee != symbol_name(function):
                call.attributes["no_inline"] = ir.UnitAttr.get()
                marked += 1
    return marked


def write_call_results_in_place(module: ir.Module) -> int:
    """After bufferization, let a call write straight into its caller's out-parameters.

    Bufferized, a forwarder allocates a buffer for each result of its call and
    copies it into its own out-parameter (`alloc; call(.., %alloc); copy %alloc,
    %out; dealloc %alloc`): two 4 MB copies per call of bench/cpu.py's
    elementwise gradient. Where the buffer is used by nothing else and the
    out-parameter by nothing but the copy, the call gets the out-parameter
    instead. Returns how many copies were removed."""
    removed = 0
    with module.context:
        for function in walk_ops(module, {"func.func"}):
            if not function.regions[0].blocks:
                continue
            arguments = list(function.regions[0].blocks[0].arguments)
            for copy in walk_ops(function, {"memref.copy"}):
                source, target = copy.operands
                allocation = source.owner
                if not isinstance(allocation, (ir.Operation, ir.OpView)) or allocation.name != "memref.alloc":
                    continue
                if target not in arguments or source.type != target.type or len(list(target.uses)) != 1:
                    continue
                users = [use.owner for use in source.uses]
                calls = [user for user in users if user.name == "func.call"]
                others = [user for user in users if user.name not in ("func.call", "memref.copy", "memref.dealloc")]
                if len(calls) != 1 or others or len(users) > 3:
                    continue
                call = calls[0]
                if call.operation.block != copy.operation.block or target in list(call.operands):
                    continue
                for position, operand in enumerate(call.operands):
                    if operand == source:
                        call.operands[position] = target
                for user in users:
                    if user.name in ("memref.copy", "memref.dealloc"):
                        user.erase()
                allocation.erase()
                removed += 1
    return removed
