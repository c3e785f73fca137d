"""Every rule of MLIR 22's math and arith float ops (issue "Real MLIR II"), in f64
against central differences through the CPU pipeline, reverse (vjp) and forward
(jvp) mode:

- on whole tensors of random shapes (rank 1 to 3), one operand broadcast to the
  others' shape with `autodiff.broadcast_to` (so its gradient is summed back);
- as scalars inside a `linalg.generic` body, an operand read through a broadcast
  indexing map.

Inputs lie inside each op's domain and away from its kinks and jumps; the
conventions at those points have their own tests (`test_math_arith_conventions.py`).
The older arith/math rules are checked the same way in `test_standard_ops.py`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from gradir.gradient_check import GradChecker
from exercised import assert_exercised

def uniform(low: float, high: float, both_signs: bool = False):
    def sample(rng, shape):
        values = rng.uniform(low, high, shape)
        return values * rng.choice([-1.0, 1.0], shape) if both_signs else values

    return sample


def off_integers(rng, shape):
    """k + u, u in [0.15, 0.35] or [0.65, 0.85]: away from the jumps of floor,
    ceil, trunc (integers) and round, roundeven (half-integers)."""
    offset = rng.uniform(0.15, 0.35, shape) + rng.choice([0.0, 0.5], shape)
    return rng.integers(-2, 3, shape) + offset


# op -> one sampler per float operand
UNARY = {
    "math.tan": [uniform(-1.0, 1.0)], "math.atan": [uniform(-2.0, 2.0)],
    "math.asin": [uniform(-0.8, 0.8)], "math.acos": [uniform(-0.8, 0.8)],
    "math.sinh": [uniform(-1.5, 1.5)], "math.cosh": [uniform(-1.5, 1.5)],
    "math.asinh": [uniform(-2.0, 2.0)], "math.acosh": [uniform(1.2, 3.0)],
    "math.atanh": [uniform(-0.8, 0.8)], "math.log2": [uniform(0.5, 2.0)],
    "math.log10": [uniform(0.5, 2.0)], "math.exp2": [uniform(-1.0, 1.0)],
    "math.expm1": [uniform(-1.0, 1.0)], "math.cbrt": [uniform(0.3, 1.5, both_signs=True)],
    "math.erfc": [uniform(-1.5, 1.5)], "math.floor": [off_integers], "math.ceil": [off_integers],
    "math.round": [off_integers], "math.roundeven": [off_integers], "math.trunc": [off_integers],
}  # fmt: skip
BINARY = {
    "math.atan2": [uniform(0.3, 1.0, True), uniform(0.3, 1.0, True)],
    "math.copysign": [uniform(0.3, 1.0, True), uniform(0.3, 1.0, True)],
    "arith.maxnumf": [uniform(-1.0, 1.0), uniform(-1.0, 1.0)],
    "arith.minnumf": [uniform(-1.0, 1.0), uniform(-1.0, 1.0)],
}  # fmt: skip
TERNARY = {
    "math.fma": [uniform(-1.0, 1.0)] * 3,
    "math.clampf": [uniform(-2.0, 2.0), uniform(-1.0, -0.3), uniform(0.3, 1.0)],
}  # fmt: skip
SPECIAL = ("math.sincos", "arith.remf", "math.fpowi")

ZERO_DERIVATIVE = ("math_floor", "math_ceil", "math_round", "math_roundeven", "math_trunc")
"""Ops whose derivative is zero wherever it exists: their checks compare zeros."""
"""Ops with a shape of their own: two results, a quotient kept off integers, an integer exponent."""


@dataclass
class Case:
    id: str
    text: str
    function: str
    inputs: list


def _name(op: str) -> str:
    return op.replace(".", "_")


def _type(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _random_shape(rng) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(1, 5, rng.integers(1, 4)))


def _apply(op: str, operands: list[str], type_: str) -> str:
    """The op applied to `operands` (SSA names), result %r."""
    if op == "math.clampf":
        return f"%r = math.clampf {operands[0]} to [{operands[1]}, {operands[2]}] : {type_}"
    if op == "math.sincos":  # both results feed the loss
        return (f"%s, %c = math.sincos {operands[0]} : {type_}\n"
                f"  %r = arith.mulf %s, %c : {type_}")  # fmt: skip
    return f"%r = {op} {', '.join(operands)} : {type_}"


def tensor_case(op: str, samplers, rng) -> Case:
    """`op` on tensors of a random shape; the last operand is given with a leading
    dim fewer (or size 1) and broadcast with `autodiff.broadcast_to`."""
    shape = _random_shape(rng)
    full = _type(shape)
    small_shape = shape[1:] if len(shape) > 1 else (1,)
    small = _type(small_shape)
    f = f"tensor_{_name(op)}"
    arguments = [f"%x{k}: {full}" for k in range(len(samplers) - 1)] + [f"%b: {small}"]
    last = f"%x{len(samplers) - 1}"
    operands = [f"%x{k}" for k in range(len(samplers))]
    text = f"""
func.func @{f}({', '.join(arguments)}) -> tensor<f32> {{
  {last} = autodiff.broadcast_to %b : {small} -> {full}
  {_apply(op, operands, full)}
  %l = autodiff.sum %r : {full} -> tensor<f32>
  return %l : tensor<f32>
}}"""
    shapes = [shape] * (len(samplers) - 1) + [small_shape]
    inputs = [sample(rng, s) for sample, s in zip(samplers, shapes)]
    return Case(f, text, f, inputs)


def generic_case(op: str, samplers, rng) -> Case:
    """`op` on scalars in a `linalg.generic` over a random 2-d shape; the last
    operand is a row vector read with the broadcast map (i, j) -> (j)."""
    shape = tuple(int(d) for d in rng.integers(2, 5, 2))
    full, row = _type(shape), _type(shape[1:])
    f = f"generic_{_name(op)}"
    n = len(samplers)
    maps = ", ".join(["#rows"] * (n - 1) + ["#cols", "#rows"])
    types = ", ".join([full] * (n - 1) + [row])
    arguments = [f"%x{k}: {full}" for k in range(n - 1)] + [f"%b: {row}"]
    block = ", ".join([f"%u{k}: f32" for k in range(n)] + ["%o: f32"])
    text = f"""
func.func @{f}({', '.join(arguments)}) -> tensor<f32> {{
  %e = tensor.empty() : {full}
  %y = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel"]}}
      ins({', '.join([f'%x{k}' for k in range(n - 1)] + ['%b'])} : {types}) outs(%e : {full}) {{
  ^bb0({block}):
    {_apply(op, [f'%u{k}' for k in range(n)], 'f32')}
    linalg.yield %r : f32
  }} -> {full}
  %l = autodiff.sum %y : {full} -> tensor<f32>
  return %l : tensor<f32>
}}"""
    inputs = [sample(rng, s) for sample, s in zip(samplers, [shape] * (n - 1) + [shape[1:]])]
    return Case(f, text, f, inputs)


def remf_inputs(rng, shape, divisor_shape):
    """lhs = rhs * (k + u) with u in [0.2, 0.8]: the quotient stays off integers,
    away from fmod's jumps, for the broadcast divisor too."""
    rhs = uniform(0.6, 1.4, both_signs=True)(rng, divisor_shape)
    quotient = rng.integers(-3, 4, shape) + rng.uniform(0.2, 0.8, shape)
    return [np.broadcast_to(rhs, shape) * quotient, rhs]


def special_cases(rng) -> list[Case]:
    cases = [tensor_case("math.sincos", [uniform(-2.0, 2.0)], rng),
             generic_case("math.sincos", [uniform(-2.0, 2.0), uniform(0.9, 1.1)], rng)]  # fmt: skip
    # sincos in a generic: the broadcast operand %u1 scales the product
    cases[-1].text = cases[-1].text.replace(
        "%r = arith.mulf %s, %c : f32", "%p = arith.mulf %s, %c : f32\n    %r = arith.mulf %p, %u1 : f32"
    )
    # remf: the divisor broadcast (tensor) / read through (i, j) -> (j) (generic)
    remf_tensor = tensor_case("arith.remf", [uniform(0, 1), uniform(0, 1)], rng)
    shape = remf_tensor.inputs[0].shape
    remf_tensor.inputs = remf_inputs(rng, shape, remf_tensor.inputs[1].shape)
    remf_generic = generic_case("arith.remf", [uniform(0, 1), uniform(0, 1)], rng)
    shape = remf_generic.inputs[0].shape
    remf_generic.inputs = remf_inputs(rng, shape, shape[1:])
    cases += [remf_tensor, remf_generic]
    # fpowi: integer exponents -2..3 (0 included), both signs of the base
    shape = _random_shape(rng)
    exponents = rng.integers(-2, 4, shape)
    dense = np.array2string(exponents, separator=", ").replace("\n", "")
    full, ints = _type(shape), _type(shape).replace("f32", "i32")
    cases.append(Case("tensor_math_fpowi", f"""
func.func @tensor_math_fpowi(%x: {full}) -> tensor<f32> {{
  %n = arith.constant dense<{dense}> : {ints}
  %r = math.fpowi %x, %n : {full}, {ints}
  %l = autodiff.sum %r : {full} -> tensor<f32>
  return %l : tensor<f32>
}}""", "tensor_math_fpowi", [uniform(0.5, 1.5, both_signs=True)(rng, shape)]))  # fmt: skip
    cases.append(Case("generic_math_fpowi", """
func.func @generic_math_fpowi(%x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %n = arith.constant dense<[-2, 0, 1, 3]> : tensor<4xi32>
  %y = linalg.generic {indexing_maps = [#rows, #cols, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b, %n : tensor<3x4xf32>, tensor<4xf32>, tensor<4xi32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%u: f32, %v: f32, %k: i32, %o: f32):
    %w = arith.mulf %u, %v : f32
    %r = math.fpowi %w, %k : f32, i32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  %l = autodiff.sum %y : tensor<3x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}""", "generic_math_fpowi", [uniform(0.5, 1.5, True)(rng, (3, 4)), uniform(0.9, 1.1)(rng, (4,))]))  # fmt: skip
    return cases


MAPS = """
#rows = affine_map<(i, j) -> (i, j)>
#cols = affine_map<(i, j) -> (j)>
"""


def all_cases() -> list[Case]:
    rng = np.random.default_rng(22)
    cases = []
    for table in (UNARY, BINARY, TERNARY):
        for op, samplers in table.items():
            cases.append(tensor_case(op, samplers, rng))
            # a unary op in a generic still gets a broadcast operand: a shift near 0
            generic_samplers = samplers if len(samplers) > 1 else [*samplers, uniform(-0.05, 0.05)]
            case = generic_case(op, generic_samplers, rng)
            if len(samplers) == 1:
                case.text = case.text.replace(
                    f"%r = {op} %u0, %u1 : f32", f"%w = arith.addf %u0, %u1 : f32\n    %r = {op} %w : f32"
                )
            cases.append(case)
    return cases + special_cases(rng)


CASES = all_cases()


@pytest.fixture(scope="module")
def checker():
    text = MAPS + "".join(case.text for case in CASES)
    return GradChecker(text, [(case.function, None) for case in CASES])


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_math_arith_gradcheck(checker, case):
    result = checker.check(case.function, case.inputs, allow_vacuous=True)
    assert_exercised(result, zero_derivative=any(op in case.id for op in ZERO_DERIVATIVE))
    assert {check.mode for check in result.checks} == {"vjp", "jvp"}


def test_every_new_rule_is_covered_on_tensors_and_scalars():
    ids = {case.id for case in CASES}
    for op in (*UNARY, *BINARY, *TERNARY, *SPECIAL):
        assert f"tensor_{_name(op)}" in ids and f"generic_{_name(op)}" in ids, op
