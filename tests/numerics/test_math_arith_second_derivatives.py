"""Second derivatives through the new math/arith rules: each backward formula is
itself differentiated (grad of grad). For f(x) = sum(op(x, ...)), the function
`<u, grad f(x)>` is gradchecked in f64 in both modes, which compares reverse over
reverse and forward over reverse against central differences of the gradient;
on whole tensors (the formulas emit autodiff ops and math ops) and inside a
`linalg.generic` body (they emit arith/math, which the generic rule then
differentiates again)."""
from __future__ import annotations

import numpy as np
import pytest

from gradir.gradient_check import GradChecker
from exercised import assert_exercised

# op -> (input range per operand, sign both ways)
TENSOR_OPS = {
    "math.atan": [(-2.0, 2.0)], "math.tan": [(-1.0, 1.0)], "math.asin": [(-0.7, 0.7)],
    "math.acosh": [(1.3, 3.0)], "math.sinh": [(-1.5, 1.5)], "math.cosh": [(-1.5, 1.5)],
    "math.log2": [(0.5, 2.0)], "math.cbrt": [(0.4, 1.5)], "math.erfc": [(-1.0, 1.0)],
    "math.expm1": [(-1.0, 1.0)], "math.atan2": [(0.3, 1.0), (0.3, 1.0)],
    "math.copysign": [(0.3, 1.0), (-1.0, -0.3)], "arith.maxnumf": [(-1.0, 0.0), (0.1, 1.0)],
    "math.fma": [(-1.0, 1.0)] * 3, "math.clampf": [(-2.0, 2.0), (-1.0, -0.3), (0.3, 1.0)],
}  # fmt: skip
GENERIC_OPS = {
    "math.atan": [(-2.0, 2.0)], "math.cosh": [(-1.5, 1.5)], "math.atan2": [(0.3, 1.0), (0.3, 1.0)],
    "math.log10": [(0.5, 2.0)], "math.asinh": [(-2.0, 2.0)],
}  # fmt: skip
T = "tensor<2x3xf32>"


def _name(op: str) -> str:
    return op.replace(".", "_")


def _apply(op: str, xs: list[str], type_: str) -> str:
    if op == "math.clampf":
        return f"%r = math.clampf {xs[0]} to [{xs[1]}, {xs[2]}] : {type_}"
    return f"%r = {op} {', '.join(xs)} : {type_}"


def _grad_dot(name: str, arity: int, body: str) -> str:
    """@name computing the loss from %x0..; @dot_name = <%u, grad of @name wrt all>."""
    args = ", ".join(f"%x{k}: {T}" for k in range(arity))
    xs = ", ".join(f"%x{k}" for k in range(arity))
    types = ", ".join([T] * arity)
    grads = ", ".join(f"%g{k}" for k in range(arity))
    us = ", ".join(f"%u{k}: {T}" for k in range(arity))
    products = "\n".join(
        f"  %p{k} = autodiff.mul %g{k}, %u{k} : ({T}, {T}) -> {T}\n"
        f"  %s{k} = autodiff.sum %p{k} : {T} -> tensor<f32>" for k in range(arity)
    )
    total = "%s0"
    for k in range(1, arity):
        products += f"\n  %t{k} = autodiff.add {total}, %s{k} : (tensor<f32>, tensor<f32>) -> tensor<f32>"
        total = f"%t{k}"
    return f"""
func.func @{name}({args}) -> tensor<f32> {{
{body}
}}
func.func @dot_{name}({args}, {us}) -> tensor<f32> {{
  {grads} = autodiff.grad @{name}({xs}) : ({types}) -> ({types})
{products}
  return {total} : tensor<f32>
}}"""


def tensor_program(op: str, arity: int) -> str:
    xs = [f"%x{k}" for k in range(arity)]
    body = f"  {_apply(op, xs, T)}\n  %l = autodiff.sum %r : {T} -> tensor<f32>\n  return %l : tensor<f32>"
    return _grad_dot(f"tensor_{_name(op)}", arity, body)


def generic_program(op: str, arity: int) -> str:
    maps = ", ".join(["#id"] * (arity + 1))
    block = ", ".join([f"%a{k}: f32" for k in range(arity)] + ["%o: f32"])
    xs = ", ".join(f"%x{k}" for k in range(arity))
    types = ", ".join([T] * arity)
    body = f"""  %e = tensor.empty() : {T}
  %y = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel"]}}
      ins({xs} : {types}) outs(%e : {T}) {{
  ^bb0({block}):
    {_apply(op, [f'%a{k}' for k in range(arity)], 'f32')}
    linalg.yield %r : f32
  }} -> {T}
  %l = autodiff.sum %y : {T} -> tensor<f32>
  return %l : tensor<f32>"""
    return _grad_dot(f"generic_{_name(op)}", arity, body)


CASES = [("tensor", op, ranges) for op, ranges in TENSOR_OPS.items()] + [
    ("generic", op, ranges) for op, ranges in GENERIC_OPS.items()
]


PIECEWISE_LINEAR = {"math_copysign", "arith_maxnumf", "arith_minnumf", "arith_maximumf", "arith_minimumf", "math_clampf", "math_absf"}
"""Ops whose second derivative is zero wherever it exists."""

@pytest.fixture(scope="module")
def checker():
    text = "#id = affine_map<(i, j) -> (i, j)>\n"
    for kind, op, ranges in CASES:
        text += (tensor_program if kind == "tensor" else generic_program)(op, len(ranges))
    functions = [(f"dot_{kind}_{_name(op)}", list(range(len(ranges)))) for kind, op, ranges in CASES]
    return GradChecker(text, functions)


@pytest.mark.parametrize("kind, op, ranges", CASES, ids=[f"{kind}_{_name(op)}" for kind, op, _ in CASES])
def test_second_derivative(checker, kind, op, ranges):
    rng = np.random.default_rng(7)
    xs = [rng.uniform(low, high, (2, 3)) for low, high in ranges]
    us = [rng.standard_normal((2, 3)) for _ in ranges]
    result = checker.check(f"dot_{kind}_{_name(op)}", [*xs, *us], allow_vacuous=True)
    assert_exercised(result, zero_derivative=_name(op) in PIECEWISE_LINEAR)
