"""Derivatives of standard MLIR ops (issue #6) against central finite
differences in float64 through the CPU pipeline, reverse (vjp) and forward
(jvp) mode: every arith/math op with a rule on whole tensors and on scalars
inside a `linalg.generic` (with a broadcast operand), reduction generics,
linalg named ops, tensor slices, and the example programs."""
import pathlib
from dataclasses import dataclass

import numpy as np
import pytest

import gradir
from gradir.gradient_check import GradChecker

ROOT = pathlib.Path(__file__).resolve().parents[2]
STANDARD = ROOT / "examples" / "standard"

UNARY = {
    # op: input range (inside each op's domain, away from kinks)
    "math.exp": (-1.0, 1.0), "math.log": (0.5, 2.0), "math.log1p": (-0.5, 1.5),
    "math.sqrt": (0.5, 2.0), "math.rsqrt": (0.5, 2.0), "math.sin": (-2.0, 2.0),
    "math.cos": (-2.0, 2.0), "math.tanh": (-1.5, 1.5), "math.erf": (-1.5, 1.5),
    "math.absf": (0.2, 1.0), "arith.negf": (-1.0, 1.0),
}  # fmt: skip
BINARY = {
    "arith.addf": ((-1, 1), (-1, 1)), "arith.subf": ((-1, 1), (-1, 1)),
    "arith.mulf": ((-1, 1), (-1, 1)), "arith.divf": ((-1, 1), (0.5, 2)),
    "arith.maximumf": ((-1, 1), (-1, 1)), "arith.minimumf": ((-1, 1), (-1, 1)),
    "math.powf": ((0.5, 2), (-1, 1)),
}  # fmt: skip


@dataclass
class Case:
    id: str
    text: str
    function: str
    inputs: list


def _name(op: str) -> str:
    return op.replace(".", "_")


def _unary_input(op, rng, shape):
    low, high = UNARY[op]
    values = rng.uniform(low, high, shape)
    if op == "math.absf":  # both signs, away from the kink at 0
        values *= rng.choice([-1.0, 1.0], shape)
    return values


def tensor_cases(rng) -> list[Case]:
    cases = []
    for op, (low, high) in UNARY.items():
        f = f"tensor_{_name(op)}"
        text = f"""
func.func @{f}(%x: tensor<3x4xf32>) -> tensor<f32> {{
  %y = {op} %x : tensor<3x4xf32>
  %s = autodiff.sum %y : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}}"""
        cases.append(Case(f, text, f, [_unary_input(op, rng, (3, 4))]))
    for op, (a, b) in BINARY.items():
        f = f"tensor_{_name(op)}"
        text = f"""
func.func @{f}(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<f32> {{
  %z = {op} %x, %y : tensor<3x4xf32>
  %s = autodiff.sum %z : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}}"""
        cases.append(Case(f, text, f, [rng.uniform(*a, (3, 4)), rng.uniform(*b, (3, 4))]))
    return cases


GENERIC_MAPS = """
#rows = affine_map<(i, j) -> (i, j)>
#cols = affine_map<(i, j) -> (j)>
#all = affine_map<(i, j) -> ()>
"""


def generic_cases(rng) -> list[Case]:
    """Each op inside an elementwise generic whose second operand is broadcast
    along rows (map (i, j) -> (j)), followed by a sum."""
    cases = []
    for op, (low, high) in UNARY.items():
        f = f"generic_{_name(op)}"
        text = f"""
func.func @{f}(%x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<f32> {{
  %e = tensor.empty() : tensor<3x4xf32>
  %y = linalg.generic {{indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %b : tensor<3x4xf32>, tensor<4xf32>) outs(%e : tensor<3x4xf32>) {{
  ^bb0(%u: f32, %v: f32, %o: f32):
    %w = arith.mulf %u, %v : f32
    %r = {op} %w : f32
    linalg.yield %r : f32
  }} -> tensor<3x4xf32>
  %s = autodiff.sum %y : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}}"""
        # The broadcast scale stays near 1, so x * scale stays in the domain.
        cases.append(Case(f, text, f, [_unary_input(op, rng, (3, 4)), rng.uniform(0.9, 1.1, 4)]))
    for op, (a, b) in BINARY.items():
        f = f"generic_{_name(op)}"
        text = f"""
func.func @{f}(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<f32> {{
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.generic {{indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}}
      ins(%x, %y : tensor<3x4xf32>, tensor<4xf32>) outs(%e : tensor<3x4xf32>) {{
  ^bb0(%u: f32, %v: f32, %o: f32):
    %r = {op} %u, %v : f32
    linalg.yield %r : f32
  }} -> tensor<3x4xf32>
  %s = autodiff.sum %z : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}}"""
        cases.append(Case(f, text, f, [rng.uniform(*a, (3, 4)), rng.uniform(*b, 4)]))
    return cases


def structure_cases(rng) -> list[Case]:
    cases = []

    def add(name, text, *shapes, low=-1.0, high=1.0):
        cases.append(Case(name, text, name, [rng.uniform(low, high, s) for s in shapes]))

    add("generic_select_cmpf", """
func.func @generic_select_cmpf(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %z = linalg.generic {indexing_maps = [#rows, #rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<3x4xf32>, tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %c = arith.cmpf ogt, %u, %v : f32
    %p = arith.mulf %u, %v : f32
    %r = arith.select %c, %p, %v : f32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  %s = autodiff.sum %z : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (3, 4), (3, 4))
    add("generic_row_sum_of_squares", """
func.func @generic_row_sum_of_squares(%x: tensor<3x4xf32>, %init: tensor<3xf32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#rows, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%init : tensor<3xf32>) {
  ^bb0(%u: f32, %acc: f32):
    %sq = arith.mulf %u, %u : f32
    %t = math.sin %sq : f32
    %n = arith.addf %acc, %t : f32
    linalg.yield %n : f32
  } -> tensor<3xf32>
  %e = math.exp %r : tensor<3xf32>
  %s = autodiff.sum %e : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (3, 4), (3,))
    add("generic_full_reduction_accumulates_into_init", """
func.func @generic_full_reduction_accumulates_into_init(%x: tensor<3x4xf32>, %b: tensor<4xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#rows, #cols, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x, %b : tensor<3x4xf32>, tensor<4xf32>) outs(%init : tensor<f32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %t = math.tanh %p : f32
    %n = arith.addf %t, %acc : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}""", (3, 4), (4,), ())
    add("generic_elementwise_reads_its_init", """
func.func @generic_elementwise_reads_its_init(%x: tensor<3x4xf32>, %init: tensor<3x4xf32>) -> tensor<f32> {
  %z = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%init : tensor<3x4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %p = arith.mulf %u, %o : f32
    linalg.yield %p : f32
  } -> tensor<3x4xf32>
  %s = autodiff.sum %z : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (3, 4), (3, 4))
    add("linalg_matmul_into_active_init", """
func.func @linalg_matmul_into_active_init(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>, %c: tensor<3x2xf32>) -> tensor<f32> {
  %m = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  %t = math.tanh %m : tensor<3x2xf32>
  %s = autodiff.sum %t : tensor<3x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (3, 5), (5, 2), (3, 2))
    add("linalg_transpose_broadcast", """
func.func @linalg_transpose_broadcast(%x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  %bb = linalg.broadcast ins(%b : tensor<4xf32>) outs(%e : tensor<4x3xf32>) dimensions = [1]
  %p = arith.mulf %t, %bb : tensor<4x3xf32>
  %q = math.sin %p : tensor<4x3xf32>
  %s = autodiff.sum %q : tensor<4x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (3, 4), (4,))
    add("linalg_reduce_max_and_add", """
func.func @linalg_reduce_max_and_add(%x: tensor<3x4xf32>, %init: tensor<4xf32>) -> tensor<f32> {
  %m = linalg.reduce ins(%x : tensor<3x4xf32>) outs(%init : tensor<4xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %e = tensor.empty() : tensor<f32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sq = arith.mulf %m, %m : tensor<4xf32>
  %s = linalg.reduce ins(%sq : tensor<4xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %s : tensor<f32>
}""", (3, 4), (4,))
    add("tensor_slices", """
func.func @tensor_slices(%xs: tensor<5x3xf32>, %y: tensor<3xf32>) -> tensor<f32> {
  %x = tensor.extract_slice %xs[2, 0] [1, 3] [1, 1] : tensor<5x3xf32> to tensor<3xf32>
  %m = arith.mulf %x, %y : tensor<3xf32>
  %z = tensor.insert_slice %m into %xs[4, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<5x3xf32>
  %e = math.exp %z : tensor<5x3xf32>
  %s = autodiff.sum %e : tensor<5x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (5, 3), (3,))
    add("tensor_reshapes_and_elements", """
func.func @tensor_reshapes_and_elements(%x: tensor<2x6xf32>, %y: tensor<3x4xf32>) -> tensor<f32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x2x3xf32> into tensor<4x3xf32>
  %t = math.sin %c : tensor<4x3xf32>
  %s = tensor.extract %t[%c1, %c2] : tensor<4x3xf32>
  %m = arith.mulf %s, %s : f32
  %z = tensor.insert %m into %y[%c2, %c1] : tensor<3x4xf32>
  %w = math.exp %z : tensor<3x4xf32>
  %r = autodiff.sum %w : tensor<3x4xf32> -> tensor<f32>
  return %r : tensor<f32>
}""", (2, 6), (3, 4))
    add("linalg_fill_of_an_active_scalar", """
func.func @linalg_fill_of_an_active_scalar(%x: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = autodiff.mul %f, %x : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = math.tanh %p : tensor<2x3xf32>
  %s = autodiff.sum %t : tensor<2x3xf32> -> tensor<f32>
  return %s : tensor<f32>
}""", (3,))
    return cases


def all_cases() -> list[Case]:
    rng = np.random.default_rng(6)
    return tensor_cases(rng) + generic_cases(rng) + structure_cases(rng)


CASES = all_cases()


@pytest.fixture(scope="module")
def checker():
    text = GENERIC_MAPS + "".join(case.text for case in CASES)
    return GradChecker(text, [(case.function, None) for case in CASES])


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_standard_op_gradcheck(checker, case):
    result = checker.check(case.function, case.inputs)
    assert result.ok, result.report()
    assert {check.mode for check in result.checks} == {"vjp", "jvp"}


def test_every_arith_math_rule_is_covered_on_tensors_and_scalars():
    from gradir.autodiff_pass.rules import registry

    ids = {case.id for case in CASES}
    for op in (*UNARY, *BINARY):
        assert registry.get_rule(op) is not None
        assert f"tensor_{_name(op)}" in ids and f"generic_{_name(op)}" in ids


def test_extf_truncf_gradients_convert_back():
    """Casts cannot be gradchecked (promotion to f64 makes them no-ops): the
    gradient of sum(extf(x)^2) is 2x, computed in f64, truncated to f32."""
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<f64> {
  %w = arith.extf %x : tensor<4xf32> to tensor<4xf64>
  %sq = arith.mulf %w, %w : tensor<4xf64>
  %s = autodiff.sum %sq : tensor<4xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @g(%x: tensor<4xf64>) -> tensor<f32> {
  %n = arith.truncf %x : tensor<4xf64> to tensor<4xf32>
  %t = math.sin %n : tensor<4xf32>
  %s = autodiff.sum %t : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @df(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = autodiff.grad @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
func.func @dg(%x: tensor<4xf64>) -> tensor<4xf64> {
  %d = autodiff.grad @g(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %d : tensor<4xf64>
}
"""
    exe = gradir.compile(text)
    x = np.array([0.5, -1.25, 2.0, 3.5], dtype=np.float32)
    dx = exe.df(x)
    assert dx.dtype == np.float32
    np.testing.assert_allclose(dx, 2 * x, rtol=1e-6)
    dy = exe.dg(x.astype(np.float64))
    np.testing.assert_allclose(dy, np.cos(x), rtol=1e-6)


@pytest.mark.parametrize(
    "path, function, shapes",
    [
        ("linalg_mlp.mlir", "mlp_loss", [(8, 16), (16, 32), (32,), (32, 4)]),
        ("logsumexp.mlir", "logsumexp", [(6, 5)]),
    ],
)
def test_standard_examples(path, function, shapes):
    rng = np.random.default_rng(1)
    inputs = [rng.standard_normal(s) * 0.5 for s in shapes]
    result = gradir.gradcheck(STANDARD / path, function, inputs=inputs)
    assert result.ok, result.report()
