"""`autodiff-check-numerics`: stop at the first op whose result holds a NaN or an Inf.

A NaN gradient used to come back with exit status 0 and no hint where it started
(`log(0)` in the forward, `sqrt'(0) = 1 / (2 * 0)` in the backward, `0 * inf`). Like
PyTorch's `torch.autograd.detect_anomaly` and JAX's `debug_nans`/`debug_infs`, this
pass makes the program check, after every op that computes floats, that its result is
finite, and the public functions that their float arguments are: the first check that
fails names the op and where the user wrote it. An op of a backward is named by the
forward op whose `grad_of` holds it ("the backward of 'autodiff.sqrt'"), located at
that forward op (reverse mode gives each `grad_of` its forward op's location).

It runs after the derivative passes, while `grad_of` regions still say which backward an
op belongs to, and before the lowering, so each check sees a whole tensor of an
`autodiff` op (or a standard op: `arith`/`math` on scalars, a `linalg` op's result).
A check sums `x - x` over the tensor (NaN exactly where an element is NaN or Inf); only
when the sum is NaN does a second reduction make the byte that says which (bit 0: a NaN,
bit 1: an Inf); then a `cf.assert` per bit, located at the op: the CPU pipeline's run-time checks
(`cpu_backend.run_time_checks`) turn every `cf.assert` into a call of their failure
function, so a failed check is a `RunTimeCheckError` with this message, as an index out
of bounds is. Checks are in program order, which the buffers keep, so the first that
fails is the first op that produced a NaN or Inf, NaN before Inf for one op.

Not checked: integers; ops that only move or pick values that were already checked
(reshapes, transposes, broadcasts, `tensor` ops, calls, loops and branches: what they
carry was checked where it was computed); constants and fills (`-inf` is the start of
every max reduction); the scalar bodies of `linalg` ops (their result is checked).
A value that is Inf on purpose and consumed later is still reported, as by PyTorch's
and JAX's modes. Nothing is added unless the pass runs (`gradir.compile(...,
check_numerics=True)`, the CLIs' `--check-numerics`): the cost is one vectorised read of
each checked result, which also keeps it from being fused with its consumers
(bench/check_numerics.py: 1.06x the MLP gradient's time, 2.1x a 1M-element elementwise
one whose seven ops had fused into one loop). Being read twice, a product is no longer
contracted into an FMA with the sum it feeds, so f32 results may differ in the last bits.
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, scf, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    FileLineColLoc,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.dialects.linalg.ops import YieldOp as LinalgYieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.ir_building import TANGENT_OF
from gradir.dialects.autodiff import AutogradAddOp, GradOfOp

COMPUTING_DIALECTS = ("autodiff", "arith", "math", "linalg")
"""Dialects whose ops compute new float values (less `NOT_COMPUTING`)."""

NOT_COMPUTING = frozenset({
    "arith.constant", "linalg.fill", "linalg.copy", "linalg.transpose", "linalg.broadcast",
    "autodiff.autograd_zero", "autodiff.grad_of", "autodiff.yield", "autodiff.reshape",
    "autodiff.transpose", "autodiff.broadcast_to", "autodiff.stop_gradient",
})  # fmt: skip
"""Ops whose float results are constants, or values already checked where they were made."""

NAN_BIT, INF_BIT = 1, 2
"""The bits of a check's byte."""


def float_element_type(kind: Attribute) -> AnyFloat | None:
    """The float type of a float scalar or of a tensor's elements, else None."""
    if isinstance(kind, TensorType):
        kind = kind.element_type
    return kind if isinstance(kind, AnyFloat) else None


def is_checked(op: Operation) -> bool:
    """Whether `op` computes floats that `autodiff-check-numerics` checks."""
    if op.dialect_name() not in COMPUTING_DIALECTS or op.name in NOT_COMPUTING:
        return False
    if inside_linalg_body(op):
        return False
    return any(float_element_type(result.type) is not None for result in op.results)


def inside_linalg_body(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if parent.dialect_name() == "linalg":
            return True
        parent = parent.parent_op()
    return False


def nearest_location(op: Operation) -> Attribute | None:
    """The user's location of `op`, or of the nearest enclosing op that has one (an op of a
    backward has none: its `grad_of` has the forward op's)."""
    current: Operation | None = op
    while current is not None:
        location = current.location
        if isinstance(location, NameLoc):  # a tangent op's: its primal op's location
            location = location.location
        if isinstance(location, FileLineColLoc):
            return location
        current = current.parent_op()
    return None


def enclosing_grad_of(op: Operation) -> GradOfOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, GradOfOp):
            return parent
        parent = parent.parent_op()
    return None


def what_produced(op: Operation) -> str:
    """How a message names the producer of a bad value: the op, or the backward it belongs to."""
    if isinstance(op.location, NameLoc) and op.location.desc.data.startswith(TANGENT_OF):
        return f"the {op.location.desc.data} (the result of its '{op.name}')"
    grad_of = enclosing_grad_of(op)
    if grad_of is not None:
        return f"the backward of '{grad_of.op_name.data}' (the result of its '{op.name}')"
    if isinstance(op, AutogradAddOp):
        return "a sum of gradients in the backward ('autodiff.autograd_add')"
    return f"the result of '{op.name}'"


def _byte(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IntegerType(8)))


def _bad_bits(element: SSAValue, element_type: AnyFloat) -> list[Operation]:
    """Ops computing the byte of one float `element`: `NAN_BIT` if NaN, `INF_BIT` if +-Inf."""
    is_nan = arith.CmpfOp(element, element, "uno")
    plus, minus = (arith.ConstantOp(FloatAttr(sign * float("inf"), element_type)) for sign in (1, -1))
    is_plus, is_minus = arith.CmpfOp(element, plus, "oeq"), arith.CmpfOp(element, minus, "oeq")
    is_inf = arith.OrIOp(is_plus, is_minus)
    nan_byte, inf_byte = arith.ExtUIOp(is_nan, IntegerType(8)), arith.ExtUIOp(is_inf, IntegerType(8))
    inf_shift = _byte(INF_BIT // NAN_BIT)
    inf_bit = arith.MuliOp(inf_byte, inf_shift)
    both = arith.OrIOp(nan_byte, inf_bit)
    return [is_nan, plus, minus, is_plus, is_minus, is_inf, nan_byte, inf_byte, inf_shift, inf_bit, both]


def _reduction(value: SSAValue, init_value: Attribute, body_ops) -> list[Operation]:
    """Ops reducing every element of tensor `value` into a 0-d tensor that starts at
    `init_value`, then extracting it; `body_ops(element, accumulated)` makes the body's ops,
    the last of which gives the new accumulator."""
    assert isinstance(value.type, TensorType)
    rank = len(value.type.get_shape())
    result_type = TensorType(init_value.type, [])
    start = arith.ConstantOp(init_value)
    empty = tensor.EmptyOp([], result_type)
    init = FillOp([start.result], [empty.tensor], [result_type])
    body = Block(arg_types=[value.type.element_type, init_value.type])
    ops = body_ops(*body.args)
    body.add_ops([*ops, LinalgYieldOp(ops[-1])])
    maps = [
        AffineMapAttr(AffineMap(rank, 0, tuple(AffineExpr.dimension(k) for k in range(rank)))),
        AffineMapAttr(AffineMap(rank, 0, ())),
    ]
    reduction = GenericOp(
        [value], [init.results[0]], Region(body), maps, [IteratorTypeAttr.reduction()] * rank, [result_type]
    )
    extracted = tensor.ExtractOp(reduction.results[0], [], init_value.type)
    return [start, empty, init, reduction, extracted]


def _tensor_bad_bits(value: SSAValue, element_type: AnyFloat) -> list[Operation]:
    """Ops giving the `or` of the `_bad_bits` of a float tensor's elements.

    First the sum of `x - x` over the tensor, which is NaN exactly when an element is NaN
    or +-Inf: a float sum, which the CPU pipeline vectorises like any other (a reduction of
    `_bad_bits` bytes ran as scalar code, 0.8 ns per element). Only when it is NaN does a
    second reduction tell NaN from Inf."""

    def difference_sum(element: SSAValue, accumulated: SSAValue) -> list[Operation]:
        difference = arith.SubfOp(element, element)
        return [difference, arith.AddfOp(accumulated, difference)]

    def bits_or(element: SSAValue, accumulated: SSAValue) -> list[Operation]:
        bits = _bad_bits(element, element_type)
        return [*bits, arith.OrIOp(accumulated, bits[-1])]

    total = _reduction(value, FloatAttr(0.0, element_type), difference_sum)
    finite = arith.CmpfOp(total[-1], total[-1], "ord")
    none_bad = _byte(0)
    which = _reduction(value, IntegerAttr(0, IntegerType(8)), bits_or)
    branch = scf.IfOp(finite, [IntegerType(8)], [none_bad, scf.YieldOp(none_bad)], [*which, scf.YieldOp(which[-1])])
    return [*total, finite, branch]


def _asserts(bits: SSAValue, where: str) -> list[Operation]:
    """One `cf.assert` per bit of `bits`: NaN first, so a value holding both says NaN."""
    ops: list[Operation] = []
    zero = _byte(0)
    ops.append(zero)
    for bit, what in ((NAN_BIT, "a NaN"), (INF_BIT, "an Inf")):
        mask = _byte(bit)
        masked = arith.AndIOp(bits, mask)
        clear = arith.CmpiOp(masked, zero, "eq")
        ops += [mask, masked, clear, cf.AssertOp(clear, f"{what} in {where}")]
    return ops


def check_ops(value: SSAValue, where: str, location: Attribute | None) -> list[Operation]:
    """The ops that check float `value` (a tensor or a scalar), each at `location`."""
    element_type = float_element_type(value.type)
    assert element_type is not None
    if isinstance(value.type, TensorType):
        ops = _tensor_bad_bits(value, element_type)
    else:
        ops = _bad_bits(value, element_type)
    ops += _asserts(ops[-1].results[0], where)
    if location is not None:
        for op in ops:
            for nested in op.walk():
                nested.location = location
    return ops


def _is_public(function: func.FuncOp) -> bool:
    return function.sym_visibility is None or function.sym_visibility.data == "public"


@dataclass(frozen=True)
class AutodiffCheckNumericsPass(ModulePass):
    """Check, in the program, every float result and every public function's float
    arguments for NaN and Inf (see the module's docstring)."""

    name = "autodiff-check-numerics"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if not function.body.blocks:
                continue
            checked = [inner for inner in function.body.walk() if is_checked(inner)]  # before adding checks
            if _is_public(function):
                check_arguments(function)
            for op in checked:
                check_results(op)


def check_arguments(function: func.FuncOp) -> None:
    """Checks of the float arguments of `function`, at the start of its body."""
    entry = function.body.blocks[0]
    location = nearest_location(function)
    ops: list[Operation] = []
    for index, argument in enumerate(entry.args):
        if float_element_type(argument.type) is not None:
            ops += check_ops(argument, f"argument {index} of @{function.sym_name.data}", location)
    if ops:
        Rewriter.insert_op(ops, InsertPoint.at_start(entry))


def check_results(op: Operation) -> None:
    """Checks of the float results of `op`, right after it."""
    location, where = nearest_location(op), what_produced(op)
    ops: list[Operation] = []
    for result in op.results:
        if float_element_type(result.type) is not None:
            ops += check_ops(result, where, location)
    Rewriter.insert_op(ops, InsertPoint.after(op))
