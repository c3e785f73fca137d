"""Derivatives of math/arith ops at their special points (ties, NaN operands,
zeros, jumps), in both modes, as `derivatives.yaml` states them: PyTorch eager's
where PyTorch has the op (checked against torch when it is installed), and the
entry's stated choice where PyTorch has none or disagrees with itself."""
from __future__ import annotations

import numpy as np
import pytest

import gradir

NAN, INF = float("nan"), float("inf")


def _program(ops: dict[str, tuple[str, int]], size: int) -> str:
    """For each name: @name(x...) applying the op, @name_vjp (seed 1: the
    gradient of each operand) and @name_jvp (one tangent per operand). Names
    are prefixed `d_`: a function named `cbrt` would clash with the libm
    declaration `convert-math-to-libm` adds for `math.cbrt`."""
    t = f"tensor<{size}xf64>"
    text = ""
    for name, (op, arity) in ops.items():
        name = f"d_{name}"
        xs = [f"%x{k}" for k in range(arity)]
        args = ", ".join(f"{x}: {t}" for x in xs)
        types = ", ".join([t] * arity)
        if op == "math.clampf":
            apply = f"%r = math.clampf %x0 to [%x1, %x2] : {t}"
        else:
            apply = f"%r = {op} {', '.join(xs)} : {t}"
        tangents = ", ".join(f"%t{k}: {t}" for k in range(arity))
        text += f"""
func.func @{name}({args}) -> {t} {{
  {apply}
  return %r : {t}
}}
func.func @{name}_vjp({args}, %g: {t}) -> ({types}) {{
  %r, {', '.join(f'%d{k}' for k in range(arity))} = autodiff.vjp @{name}({', '.join(xs)}, %g) : ({types}, {t}) -> ({t}, {types})
  return {', '.join(f'%d{k}' for k in range(arity))} : {types}
}}
func.func @{name}_jvp({args}, {tangents}) -> {t} {{
  %r, %dr = autodiff.jvp @{name}({', '.join(xs)}, {', '.join(f'%t{k}' for k in range(arity))}) : ({types}, {types}) -> ({t}, {t})
  return %dr : {t}
}}"""
    return text


OPS = {
    "maxnumf": ("arith.maxnumf", 2), "minnumf": ("arith.minnumf", 2),
    "maximumf": ("arith.maximumf", 2), "minimumf": ("arith.minimumf", 2),
    "atan2": ("math.atan2", 2), "copysign": ("math.copysign", 2), "remf": ("arith.remf", 2),
    "cbrt": ("math.cbrt", 1), "absf": ("math.absf", 1), "asin": ("math.asin", 1),
    "acos": ("math.acos", 1), "floor": ("math.floor", 1), "ceil": ("math.ceil", 1),
    "round": ("math.round", 1), "roundeven": ("math.roundeven", 1), "trunc": ("math.trunc", 1),
    "clampf": ("math.clampf", 3),
}  # fmt: skip
SIZE = 4


@pytest.fixture(scope="module")
def exe():
    fpowi = """
func.func @fpowi(%x: tensor<4xf64>) -> tensor<4xf64> {
  %n = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
  %r = math.fpowi %x, %n : tensor<4xf64>, tensor<4xi32>
  return %r : tensor<4xf64>
}
func.func @fpowi_vjp(%x: tensor<4xf64>, %g: tensor<4xf64>) -> tensor<4xf64> {
  %r, %d = autodiff.vjp @fpowi(%x, %g) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %d : tensor<4xf64>
}
func.func @fpowi_jvp(%x: tensor<4xf64>, %t: tensor<4xf64>) -> tensor<4xf64> {
  %r, %d = autodiff.jvp @fpowi(%x, %t) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %d : tensor<4xf64>
}"""
    return gradir.compile(_program(OPS, SIZE) + fpowi)


def derivatives(exe, name: str, *operands) -> list[np.ndarray]:
    """Per operand: the reverse-mode gradient (seed 1) and, checked to agree
    with it, the forward-mode tangent of a unit tangent on that operand alone."""
    xs = [np.asarray(x, dtype=np.float64) for x in operands]
    name = f"d_{name}"
    grads = exe.call(f"{name}_vjp", *xs, np.ones(SIZE))
    for k, grad in enumerate(grads):
        units = [np.ones(SIZE) if j == k else np.zeros(SIZE) for j in range(len(xs))]
        (tangent,) = exe.call(f"{name}_jvp", *xs, *units)
        np.testing.assert_array_equal(tangent, grad, err_msg=f"{name}: jvp and vjp disagree on operand {k}")
    return list(grads)


def torch_gradients(function, *operands):
    torch = pytest.importorskip("torch")
    tensors = [torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True) for x in operands]
    function(torch, *tensors).sum().backward()
    return [t.grad.numpy() for t in tensors]


def test_maxnumf_minnumf_tie_splits_and_nan_is_ignored(exe):
    # tie, lhs wins, NaN rhs (lhs is the result), NaN lhs (rhs is the result)
    lhs, rhs = [1.0, 2.0, 3.0, NAN], [1.0, 1.0, NAN, 4.0]
    d_lhs, d_rhs = derivatives(exe, "maxnumf", lhs, rhs)
    np.testing.assert_array_equal(d_lhs, [0.5, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(d_rhs, [0.5, 0.0, 0.0, 1.0])
    d_lhs, d_rhs = derivatives(exe, "minnumf", lhs, rhs)
    np.testing.assert_array_equal(d_lhs, [0.5, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(d_rhs, [0.5, 1.0, 0.0, 1.0])


@pytest.mark.parametrize("name", ["maximumf", "minimumf"])
def test_maximumf_minimumf_ties_split_in_half(exe, name):
    d_lhs, d_rhs = derivatives(exe, name, [1.0, 2.0, -3.0, 0.0], [1.0, 1.0, -3.0, 5.0])
    wins = [0.5, 1.0, 0.5, 0.0] if name == "maximumf" else [0.5, 0.0, 0.5, 1.0]
    np.testing.assert_array_equal(d_lhs, wins)
    np.testing.assert_array_equal(d_rhs, [1.0 - w for w in wins])
    expected = torch_gradients(lambda torch, a, b: getattr(torch, name[:-1])(a, b), [1.0, 2.0, -3.0, 0.0], [1.0, 1.0, -3.0, 5.0])
    np.testing.assert_array_equal(d_lhs, expected[0])


def test_atan2_at_the_origin_is_zero_as_pytorch(exe):
    y, x = [0.0, 1.0, 0.0, -2.0], [0.0, 0.0, 1.0, 0.0]
    d_y, d_x = derivatives(exe, "atan2", y, x)
    expected = torch_gradients(lambda torch, a, b: torch.atan2(a, b), y, x)
    np.testing.assert_array_equal(d_y, expected[0])
    np.testing.assert_array_equal(d_x, expected[1])
    assert d_y[0] == d_x[0] == 0.0


def test_copysign_at_zero_magnitude_and_sign_operand(exe):
    mag, sign = [0.0, 2.0, -2.0, 0.0], [-1.0, -1.0, 3.0, 1.0]
    d_mag, d_sign = derivatives(exe, "copysign", mag, sign)
    np.testing.assert_array_equal(d_mag, [0.0, -1.0, -1.0, 0.0])
    np.testing.assert_array_equal(d_sign, np.zeros(4))
    expected = torch_gradients(lambda torch, a, b: torch.copysign(a, b), mag, sign)
    np.testing.assert_array_equal(d_mag, expected[0])
    np.testing.assert_array_equal(d_sign, expected[1])


def test_remf_at_its_jumps_takes_the_truncated_quotient(exe):
    lhs, rhs = [2.0, -3.0, 1.5, 0.0], [1.0, 1.5, 2.0, 1.0]
    d_lhs, d_rhs = derivatives(exe, "remf", lhs, rhs)
    np.testing.assert_array_equal(d_lhs, np.ones(4))
    np.testing.assert_array_equal(d_rhs, [-2.0, 2.0, 0.0, 0.0])
    expected = torch_gradients(lambda torch, a, b: torch.fmod(a, b), lhs, rhs)
    np.testing.assert_array_equal(d_rhs, expected[1])


def test_kinks_and_domain_ends(exe):
    (d,) = derivatives(exe, "cbrt", [0.0, 8.0, -8.0, 1.0])
    np.testing.assert_allclose(d, [INF, 1 / 12, 1 / 12, 1 / 3])
    (d,) = derivatives(exe, "absf", [0.0, -2.0, 3.0, -0.0])
    np.testing.assert_array_equal(d, [0.0, -1.0, 1.0, 0.0])
    (d,) = derivatives(exe, "asin", [1.0, -1.0, 0.0, 0.6])
    np.testing.assert_allclose(d, [INF, INF, 1.0, 1.25])
    (d,) = derivatives(exe, "acos", [1.0, -1.0, 0.0, 0.6])
    np.testing.assert_allclose(d, [-INF, -INF, -1.0, -1.25])
    expected = torch_gradients(lambda torch, a: torch.asin(a), [1.0, -1.0, 0.0, 0.6])
    np.testing.assert_allclose(derivatives(exe, "asin", [1.0, -1.0, 0.0, 0.6])[0], expected[0])


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "roundeven", "trunc"])
def test_rounding_has_a_zero_derivative_at_its_jumps_too(exe, name):
    (d,) = derivatives(exe, name, [1.0, -2.0, 0.5, -1.5])
    np.testing.assert_array_equal(d, np.zeros(4))
    torch_name = {"roundeven": "round"}.get(name, name)
    expected = torch_gradients(lambda torch, a: getattr(torch, torch_name)(a), [1.0, -2.0, 0.5, -1.5])
    np.testing.assert_array_equal(d, expected[0])


def test_fpowi_with_exponent_zero_and_base_zero(exe):
    # exponents 0, 1, 2, 3 at bases 0, 0, 0, -2
    d = exe.fpowi_vjp(np.array([0.0, 0.0, 0.0, -2.0]), np.ones(4))
    np.testing.assert_array_equal(d, [0.0, 1.0, 0.0, 12.0])
    t = exe.fpowi_jvp(np.array([0.0, 0.0, 0.0, -2.0]), np.ones(4))
    np.testing.assert_array_equal(t, d)
    expected = torch_gradients(lambda torch, a: a ** torch.tensor([0.0, 1.0, 2.0, 3.0], dtype=torch.float64), [0.0, 0.0, 0.0, -2.0])
    np.testing.assert_array_equal(d, expected[0])


def test_clampf_on_its_bounds_and_with_crossed_bounds(exe):
    # on the lower bound, on the upper bound, inside, crossed bounds (min > max: min)
    value, low, high = [-1.0, 2.0, 0.5, 0.0], [-1.0, -1.0, -1.0, 1.0], [2.0, 2.0, 2.0, -1.0]
    d_value, d_low, d_high = derivatives(exe, "clampf", value, low, high)
    np.testing.assert_array_equal(d_value, [1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(d_low, [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(d_high, [0.0, 0.0, 0.0, 0.0])
    result = exe.d_clampf(np.array(value), np.array(low), np.array(high))
    np.testing.assert_array_equal(result, [-1.0, 2.0, 0.5, 1.0])
    expected = torch_gradients(lambda torch, v, a, b: torch.clamp(v, a, b), value[:3], low[:3], high[:3])
    np.testing.assert_array_equal(d_value[:3], expected[0])
    np.testing.assert_array_equal(d_low[:3], expected[1])
    np.testing.assert_array_equal(d_high[:3], expected[2])
