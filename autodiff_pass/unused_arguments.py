"""Which differentiated arguments do not influence a function's results: PyTorch's
`allow_unused` / `materialize_grads` choice (`torch.autograd.grad`).

gradir gives such an argument a zero gradient (DESIGN.md 3.2), which is PyTorch's
`materialize_grads=True`. PyTorch can instead refuse it ("One of the differentiated
Tensors appears to not have been used in the graph", `allow_unused=False`) or return
None (`materialize_grads=False`); `gradir.differentiate` offers the same choice.

An argument is unused when its gradient is zero *by construction*, whatever the
inputs: reverse mode made it an `autograd_zero` (not read, read only through
`stop_gradient` or through integers), or a sum of such, or the result of a `grad_of` or
of a call to a generated function that yields one. A gradient that is zero only for
some inputs (a relu below 0) is a used argument, as in PyTorch, where it is in the
graph. Following calls and `grad_of` bodies matters: `autodiff-specialize-zero` does
not look into callees, so `f(x, y) = g(x, y)` with `g` ignoring `y` still returns the
result of a call for `y`'s gradient.
"""
from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable

from gradir.dialects.autodiff import AutogradAddOp, AutogradZeroOp, GradOfOp, YieldOp

SymbolLookup = Callable[[str], Operation | None]


class ZeroGradients:
    """Answers "is this gradient zero by construction?", remembering each function's
    returned values (a call graph may reach a function many times, or recursively)."""

    def __init__(self, lookup: SymbolLookup):
        self.lookup = lookup
        self.returned: dict[tuple[str, int], bool] = {}

    def is_zero(self, value: SSAValue) -> bool:
        if isinstance(value, BlockArgument):
            owner = value.block.parent_op()
            if isinstance(owner, GradOfOp):  # a grad_of's block arguments are its operands
                return self.is_zero(owner.operands[value.index])
            return False
        assert isinstance(value, OpResult)
        op = value.owner
        if isinstance(op, AutogradZeroOp):
            return True
        if isinstance(op, AutogradAddOp):
            return all(self.is_zero(operand) for operand in op.operands)
        if isinstance(op, GradOfOp):
            terminator = op.body.block.last_op
            assert isinstance(terminator, YieldOp)
            return self.is_zero(terminator.operands[value.index])
        if isinstance(op, CallOp):
            return self.returns_zero(op.callee.root_reference.data, value.index)
        return False

    def returns_zero(self, function_name: str, index: int) -> bool:
        """Whether every return of function `function_name` gives a zero by construction
        at `index`."""
        function = self.lookup(function_name)
        return isinstance(function, FuncOp) and self.function_returns_zero(function, index)

    def function_returns_zero(self, function: FuncOp, index: int) -> bool:
        key = (function.sym_name.data, index)
        if key not in self.returned:
            self.returned[key] = False  # a recursive call proves nothing
            returns = [op for op in function.body.walk() if isinstance(op, ReturnOp) and op.parent_op() is function]
            self.returned[key] = bool(returns) and all(self.is_zero(op.operands[index]) for op in returns)
        return self.returned[key]


def zero_results(function: FuncOp) -> list[int]:
    """The positions of `function`'s results that are zero by construction (the functions
    it calls are looked up in its module)."""
    module = function.parent_op()
    assert module is not None

    def lookup(name: str) -> Operation | None:
        return SymbolTable.lookup_symbol(module, name)

    analysis = ZeroGradients(lookup)
    count = len(function.function_type.outputs.data)
    return [index for index in range(count) if analysis.function_returns_zero(function, index)]


def checked_unused_choice(allow_unused: bool | None, materialize_grads: bool | None) -> tuple[bool, bool]:
    """`(allow_unused, materialize_grads)` by PyTorch's rules: `allow_unused` defaults to
    `materialize_grads`, and zeros for an argument one refuses are a contradiction (an
    `ArgumentError`). Only the default differs: with neither given, gradir keeps its zeros
    (`materialize_grads=True`, PyTorch's is False), and `allow_unused=False` alone asks for
    the error (PyTorch's default `materialize_grads=False` makes it one there too)."""
    from gradir.api_arguments import checked_flag
    from gradir.errors import ArgumentError

    if allow_unused is not None:
        allow_unused = checked_flag("allow_unused", allow_unused)
    if materialize_grads is None:
        materialize_grads = allow_unused is not False
    materialize_grads = checked_flag("materialize_grads", materialize_grads)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ArgumentError(
            "allow_unused=False contradicts materialize_grads=True (zeros for unused arguments); "
            "leave materialize_grads out"
        )
    return allow_unused, materialize_grads
