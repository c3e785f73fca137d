"""The scalar semantics of autodiff's elementwise ops and reductions, as the
arith/math ops that go into `linalg.generic` bodies.

Each formula builds its ops in the current implicit builder (the generic's
body) from the block arguments and returns the value to yield.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.ir import Attribute, Operation, SSAValue

from gradir.dialects import autodiff
from gradir.lowering.linalg_builders import ScalarBody, scalar_constant

ScalarFormula = Callable[[Sequence[SSAValue], Attribute], SSAValue]
"""Scalar semantics of an elementwise op: (block arguments, element type) -> value."""


def _sigmoid(args: Sequence[SSAValue], element_type: Attribute) -> SSAValue:
    # 1 / (1 + exp(-x)): exp overflows to inf for very negative x, giving 0, not NaN.
    one = scalar_constant(1.0, element_type)
    exp_neg = math.ExpOp(arith.NegfOp(args[0])).result
    return arith.DivfOp(one, arith.AddfOp(one, exp_neg)).result


UNARY_FORMULAS: dict[type[Operation], ScalarFormula] = {
    autodiff.NegOp: lambda a, t: arith.NegfOp(a[0]).result,
    autodiff.ExpOp: lambda a, t: math.ExpOp(a[0]).result,
    autodiff.LogOp: lambda a, t: math.LogOp(a[0]).result,
    autodiff.SqrtOp: lambda a, t: math.SqrtOp(a[0]).result,
    autodiff.RsqrtOp: lambda a, t: math.RsqrtOp(a[0]).result,
    autodiff.SinOp: lambda a, t: math.SinOp(a[0]).result,
    autodiff.CosOp: lambda a, t: math.CosOp(a[0]).result,
    autodiff.TanhOp: lambda a, t: math.TanhOp(a[0]).result,
    autodiff.SigmoidOp: _sigmoid,
    autodiff.ReluOp: lambda a, t: arith.MaximumfOp(a[0], scalar_constant(0.0, t)).result,
    autodiff.AbsOp: lambda a, t: math.AbsFOp(a[0]).result,
}

BINARY_FORMULAS: dict[type[Operation], ScalarFormula] = {
    autodiff.AddOp: lambda a, t: arith.AddfOp(a[0], a[1]).result,
    autodiff.SubOp: lambda a, t: arith.SubfOp(a[0], a[1]).result,
    autodiff.MulOp: lambda a, t: arith.MulfOp(a[0], a[1]).result,
    autodiff.DivOp: lambda a, t: arith.DivfOp(a[0], a[1]).result,
    autodiff.PowOp: lambda a, t: math.PowFOp(a[0], a[1]).result,
    # maximumf/minimumf propagate NaN, like torch.maximum/minimum.
    autodiff.MaximumOp: lambda a, t: arith.MaximumfOp(a[0], a[1]).result,
    autodiff.MinimumOp: lambda a, t: arith.MinimumfOp(a[0], a[1]).result,
}


def sum_combiner(args: Sequence[SSAValue]) -> SSAValue:
    return arith.AddfOp(args[0], args[1]).result


def max_combiner(args: Sequence[SSAValue]) -> SSAValue:
    return arith.MaximumfOp(args[0], args[1]).result


REDUCTIONS: dict[type[Operation], tuple[float, ScalarBody]] = {
    autodiff.SumOp: (0.0, sum_combiner),
    autodiff.MeanOp: (0.0, sum_combiner),
    autodiff.MaxOp: (float("-inf"), max_combiner),
}
"""Initial accumulator and combiner (input, accumulator) of each reduction."""
