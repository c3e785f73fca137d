"""Derivatives of linalg named ops and tensor ops (issue #6) against central
finite differences in float64 through the CPU pipeline, reverse (vjp) and
forward (jvp) mode, on shapes drawn at random (fixed seed). Offsets and
indices that are SSA values come from an integer tensor argument, so they are
only known at run time. All functions share one compilation."""
from dataclasses import dataclass

import numpy as np
import pytest

from gradir.gradient_check import GradChecker

RNG = np.random.default_rng(2026)


def _t(shape) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + "f32>"


@dataclass
class Case:
    function: str
    text: str
    inputs: list
    wrt: tuple[int, ...] | None = None


def _uniform(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape)


def matmul_cases() -> list[Case]:
    m, k, n = (int(v) for v in RNG.integers(2, 6, 3))
    a, b, c = _t((m, k)), _t((k, n)), _t((m, n))
    body = f"""
  %m = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  %t = math.tanh %m : {c}
  %s = autodiff.sum %t : {c} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    inputs = [_uniform(m, k), _uniform(k, n), _uniform(m, n)]
    cases = [
        Case(name, f"\nfunc.func @{name}(%a: {a}, %b: {b}, %c: {c}) -> tensor<f32> {{" + body, inputs, wrt)
        for name, wrt in [
            ("matmul_all", None),
            # One active operand at a time: the other tangents are zero in jvp.
            ("matmul_wrt_a", (0,)),
            ("matmul_wrt_b", (1,)),
            ("matmul_wrt_init", (2,)),
        ]
    ]
    # An init that is a fill of a constant (the usual shape) is inactive.
    text = f"""
func.func @matmul_zero_init(%a: {a}, %b: {b}) -> tensor<f32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %c = linalg.fill ins(%z : f32) outs(%e : {c}) -> {c}
  %m = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  %sq = arith.mulf %m, %m : {c}
  %s = autodiff.sum %sq : {c} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases.append(Case("matmul_zero_init", text, inputs[:2]))
    return cases


def transpose_broadcast_cases() -> list[Case]:
    shape = [int(v) for v in RNG.integers(2, 5, 3)]
    permutation = [int(v) for v in RNG.permutation(3)]
    while permutation == [0, 1, 2]:
        permutation = [int(v) for v in RNG.permutation(3)]
    transposed = [shape[p] for p in permutation]
    text = f"""
func.func @transpose_rank3(%x: {_t(shape)}, %w: {_t(transposed)}) -> tensor<f32> {{
  %e = tensor.empty() : {_t(transposed)}
  %t = linalg.transpose ins(%x : {_t(shape)}) outs(%e : {_t(transposed)}) permutation = {permutation}
  %p = arith.mulf %t, %w : {_t(transposed)}
  %q = math.sin %p : {_t(transposed)}
  %s = autodiff.sum %q : {_t(transposed)} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases = [Case("transpose_rank3", text, [_uniform(*shape), _uniform(*transposed)])]
    # Broadcast a vector along new dims 0 and 2; the gradient sums over both.
    a, b, n = (int(v) for v in RNG.integers(2, 5, 3))
    out = (a, n, b)
    text = f"""
func.func @broadcast_two_dims(%v: {_t((n,))}, %w: {_t(out)}) -> tensor<f32> {{
  %e = tensor.empty() : {_t(out)}
  %b = linalg.broadcast ins(%v : {_t((n,))}) outs(%e : {_t(out)}) dimensions = [0, 2]
  %p = arith.mulf %b, %w : {_t(out)}
  %q = math.tanh %p : {_t(out)}
  %s = autodiff.sum %q : {_t(out)} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases.append(Case("broadcast_two_dims", text, [_uniform(n), _uniform(*out)]))
    return cases


def fill_copy_cases() -> list[Case]:
    rows, cols = (int(v) for v in RNG.integers(2, 5, 2))
    out = _t((rows, cols))
    # The filled scalar is the product of two elements of %x: its gradient is
    # a float scalar flowing back through arith.mulf and tensor.extract. The
    # fill's init is active too (%x broadcast), but is overwritten.
    text = f"""
func.func @fill_active_scalar(%x: {_t((cols,))}, %w: {out}) -> tensor<f32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u = tensor.extract %x[%c0] : {_t((cols,))}
  %v = tensor.extract %x[%c1] : {_t((cols,))}
  %uv = arith.mulf %u, %v : f32
  %e = tensor.empty() : {out}
  %init = linalg.broadcast ins(%x : {_t((cols,))}) outs(%e : {out}) dimensions = [0]
  %f = linalg.fill ins(%uv : f32) outs(%init : {out}) -> {out}
  %p = arith.mulf %f, %w : {out}
  %q = math.sin %p : {out}
  %s = autodiff.sum %q : {out} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases = [Case("fill_active_scalar", text, [_uniform(cols), _uniform(rows, cols)])]
    text = f"""
func.func @copy_into_active_init(%x: {out}, %c: {out}) -> tensor<f32> {{
  %m = linalg.copy ins(%x : {out}) outs(%c : {out}) -> {out}
  %q = arith.mulf %m, %c : {out}
  %t = math.exp %q : {out}
  %s = autodiff.sum %t : {out} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases.append(Case("copy_into_active_init", text, [_uniform(rows, cols), _uniform(rows, cols)]))
    return cases


def elementwise_cases() -> list[Case]:
    """Every elementwise named op, chained; `select` picks with an i1 argument."""
    shape = tuple(int(v) for v in RNG.integers(2, 5, 2))
    t = _t(shape)
    i1 = "tensor<" + "".join(f"{n}x" for n in shape) + "i1>"

    def named(op, *operands):
        return f"linalg.{op} ins({', '.join(operands)} : {', '.join([t] * len(operands))}) outs(%e : {t}) -> {t}"

    text = f"""
func.func @elementwise_named(%x: {t}, %y: {t}, %cond: {i1}) -> tensor<f32> {{
  %e = tensor.empty() : {t}
  %a = {named("add", "%x", "%y")}
  %b = {named("mul", "%a", "%x")}
  %d = {named("sub", "%b", "%y")}
  %ex = {named("exp", "%d")}
  %l = {named("log", "%a")}
  %sq = {named("sqrt", "%ex")}
  %mx = {named("max", "%sq", "%l")}
  %mn = {named("min", "%mx", "%x")}
  %sel = linalg.select ins(%cond, %mn, %b : {i1}, {t}, {t}) outs(%e : {t}) -> {t}
  %s = autodiff.sum %sel : {t} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cond = RNG.integers(0, 2, shape).astype(np.bool_)
    return [Case("elementwise_named", text, [_uniform(*shape, low=0.5, high=1.5), _uniform(*shape, low=0.5, high=1.5), cond])]


def slice_cases() -> list[Case]:
    rows, cols = int(RNG.integers(6, 9)), int(RNG.integers(3, 6))
    source = _t((rows, cols))
    part = _t((2, cols))
    # Offsets read at run time from %at = [extract row, insert row]; the
    # insert_slice has row stride 2, so it writes rows j and j+2.
    text = f"""
func.func @dynamic_slices(%xs: {source}, %at: tensor<2xi64>, %y: {part}) -> tensor<f32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r0 = tensor.extract %at[%c0] : tensor<2xi64>
  %r1 = tensor.extract %at[%c1] : tensor<2xi64>
  %i = arith.index_cast %r0 : i64 to index
  %j = arith.index_cast %r1 : i64 to index
  %x = tensor.extract_slice %xs[%i, 0] [2, {cols}] [1, 1] : {source} to {part}
  %m = arith.mulf %x, %y : {part}
  %z = tensor.insert_slice %m into %xs[%j, 0] [2, {cols}] [2, 1] : {part} into {source}
  %e = math.sin %z : {source}
  %s = autodiff.sum %e : {source} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    offsets = np.array([RNG.integers(0, rows - 1), RNG.integers(0, rows - 3)], dtype=np.int64)
    cases = [Case("dynamic_slices", text, [_uniform(rows, cols), offsets, _uniform(2, cols)])]
    # A rank-reducing, strided extract_slice (every other column of one row).
    half = (cols + 1) // 2
    text = f"""
func.func @strided_row(%xs: {source}, %w: {_t((half,))}) -> tensor<f32> {{
  %r = tensor.extract_slice %xs[1, 0] [1, {half}] [1, 2] : {source} to {_t((half,))}
  %p = arith.mulf %r, %w : {_t((half,))}
  %q = math.exp %p : {_t((half,))}
  %s = autodiff.sum %q : {_t((half,))} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases.append(Case("strided_row", text, [_uniform(rows, cols), _uniform(half)]))
    # Element reads and writes at run-time indices; the written element is a
    # function of the read one.
    text = f"""
func.func @dynamic_elements(%x: {source}, %at: tensor<2xi64>) -> tensor<f32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r0 = tensor.extract %at[%c0] : tensor<2xi64>
  %r1 = tensor.extract %at[%c1] : tensor<2xi64>
  %i = arith.index_cast %r0 : i64 to index
  %j = arith.index_cast %r1 : i64 to index
  %v = tensor.extract %x[%i, %j] : {source}
  %w = math.sin %v : f32
  %z = tensor.insert %w into %x[%j, %i] : {source}
  %p = arith.mulf %z, %x : {source}
  %s = autodiff.sum %p : {source} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    indices = np.array([RNG.integers(0, cols), RNG.integers(0, cols)], dtype=np.int64)
    cases.append(Case("dynamic_elements", text, [_uniform(rows, cols), indices]))
    return cases


def shape_cases() -> list[Case]:
    a, b, c = (int(v) for v in RNG.integers(2, 4, 3))
    flat, full, merged = _t((a, b * c)), _t((a, b, c)), _t((a * b, c))
    text = f"""
func.func @reshapes(%x: {flat}, %w: {merged}) -> tensor<f32> {{
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [{a}, {b}, {c}] : {flat} into {full}
  %t = math.tanh %e : {full}
  %m = tensor.collapse_shape %t [[0, 1], [2]] : {full} into {merged}
  %p = arith.mulf %m, %w : {merged}
  %s = autodiff.sum %p : {merged} -> tensor<f32>
  return %s : tensor<f32>
}}"""
    cases = [Case("reshapes", text, [_uniform(a, b * c), _uniform(a * b, c)])]
    top, bottom, cols = (int(v) for v in RNG.integers(1, 4, 3))
    rows = top + bottom
    joined = _t((rows, 2 * cols))
    text = f"""
func.func @concat_splat_from_elements(%x: {_t((top, cols))}, %y: {_t((bottom, cols))}, %v: tensor<3xf32>) -> tensor<f32> {{
  %cx = tensor.cast %x : {_t((top, cols))} to {_t((top, cols))}
  %j = tensor.concat dim(0) %cx, %y : ({_t((top, cols))}, {_t((bottom, cols))}) -> {_t((rows, cols))}
  %k = tensor.concat dim(1) %j, %j : ({_t((rows, cols))}, {_t((rows, cols))}) -> {joined}
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %a = tensor.extract %v[%c0] : tensor<3xf32>
  %b = tensor.extract %v[%c2] : tensor<3xf32>
  %ab = arith.mulf %a, %b : f32
  %sp = tensor.splat %ab : {joined}
  %p = arith.mulf %k, %sp : {joined}
  %t = math.sin %p : {joined}
  %fe = tensor.from_elements %a, %ab : tensor<2xf32>
  %g = autodiff.sum %t : {joined} -> tensor<f32>
  %h = autodiff.sum %fe : tensor<2xf32> -> tensor<f32>
  %q = autodiff.mul %g, %h : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %q : tensor<f32>
}}"""
    cases.append(Case("concat_splat_from_elements", text, [_uniform(top, cols), _uniform(bottom, cols), _uniform(3)]))
    return cases


CASES = matmul_cases() + transpose_broadcast_cases() + fill_copy_cases() + elementwise_cases() + slice_cases() + shape_cases()


@pytest.fixture(scope="module")
def checker():
    text = "".join(case.text for case in CASES)
    return GradChecker(text, [(case.function, case.wrt) for case in CASES])


@pytest.mark.parametrize("case", CASES, ids=[case.function for case in CASES])
def test_linalg_tensor_op_gradcheck(checker, case):
    result = checker.check(case.function, case.inputs)
    assert result.ok, result.report()
    assert {check.mode for check in result.checks} == {"vjp", "jvp"}


LOG_SOFTMAX_ATTENTION = """
// Scores of one attention head written with linalg named ops only, then a
// row-wise log-softmax (max shift, exp, sum, log) and the rows of a window.
func.func @attention(%x: tensor<5x4xf32>, %wq: tensor<4x3xf32>, %wk: tensor<4x3xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -1.0e30 : f32
  %e53 = tensor.empty() : tensor<5x3xf32>
  %z53 = linalg.fill ins(%zero : f32) outs(%e53 : tensor<5x3xf32>) -> tensor<5x3xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<5x4xf32>, tensor<4x3xf32>) outs(%z53 : tensor<5x3xf32>) -> tensor<5x3xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<5x4xf32>, tensor<4x3xf32>) outs(%z53 : tensor<5x3xf32>) -> tensor<5x3xf32>
  %e35 = tensor.empty() : tensor<3x5xf32>
  %kt = linalg.transpose ins(%k : tensor<5x3xf32>) outs(%e35 : tensor<3x5xf32>) permutation = [1, 0]
  %e55 = tensor.empty() : tensor<5x5xf32>
  %z55 = linalg.fill ins(%zero : f32) outs(%e55 : tensor<5x5xf32>) -> tensor<5x5xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<5x3xf32>, tensor<3x5xf32>) outs(%z55 : tensor<5x5xf32>) -> tensor<5x5xf32>
  %e5 = tensor.empty() : tensor<5xf32>
  %low = linalg.fill ins(%lowest : f32) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %m = linalg.reduce ins(%s : tensor<5x5xf32>) outs(%low : tensor<5xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.maximumf %in, %acc : f32
      linalg.yield %r : f32
    }
  %mb = linalg.broadcast ins(%m : tensor<5xf32>) outs(%e55 : tensor<5x5xf32>) dimensions = [1]
  %d = linalg.sub ins(%s, %mb : tensor<5x5xf32>, tensor<5x5xf32>) outs(%e55 : tensor<5x5xf32>) -> tensor<5x5xf32>
  %ex = linalg.exp ins(%d : tensor<5x5xf32>) outs(%e55 : tensor<5x5xf32>) -> tensor<5x5xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %sum = linalg.reduce ins(%ex : tensor<5x5xf32>) outs(%z5 : tensor<5xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  %l = linalg.log ins(%sum : tensor<5xf32>) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %lse = linalg.add ins(%l, %m : tensor<5xf32>, tensor<5xf32>) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %lb = linalg.broadcast ins(%lse : tensor<5xf32>) outs(%e55 : tensor<5x5xf32>) dimensions = [1]
  %logp = linalg.sub ins(%s, %lb : tensor<5x5xf32>, tensor<5x5xf32>) outs(%e55 : tensor<5x5xf32>) -> tensor<5x5xf32>
  %window = tensor.extract_slice %logp[1, 0] [3, 5] [1, 1] : tensor<5x5xf32> to tensor<3x5xf32>
  %sq = linalg.mul ins(%window, %window : tensor<3x5xf32>, tensor<3x5xf32>) outs(%window : tensor<3x5xf32>) -> tensor<3x5xf32>
  %flat = tensor.collapse_shape %sq [[0, 1]] : tensor<3x5xf32> into tensor<15xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %total = linalg.reduce ins(%flat : tensor<15xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  return %total : tensor<f32>
}
"""


def test_log_softmax_attention_of_named_ops():
    """A program mixing the rules: matmuls, a transpose, reductions,
    broadcasts, elementwise named ops, a slice and a reshape."""
    rng = np.random.default_rng(5)
    inputs = [rng.standard_normal((5, 4)), rng.standard_normal((4, 3)) * 0.5, rng.standard_normal((4, 3)) * 0.5]
    result = GradChecker(LOG_SOFTMAX_ATTENTION, [("attention", None)]).check("attention", inputs)
    assert result.ok, result.report()


def _transposed_matmul(name: str, a_map: str, b_map: str, a: str, b: str) -> str:
    """A matmul reading A and/or B transposed, in generic form: xDSL 0.74 parses
    `indexing_maps` only there and drops them when printing the custom form,
    so gradcheck's print-and-reparse cannot take it and it is checked below."""
    maps = f"[affine_map<(d0, d1, d2) -> {a_map}>, affine_map<(d0, d1, d2) -> {b_map}>, affine_map<(d0, d1, d2) -> (d0, d1)>]"
    return f"""
func.func @{name}(%a: {a}, %b: {b}, %c: tensor<3x2xf64>) -> tensor<f64> {{
  %m = "linalg.matmul"(%a, %b, %c) <{{operandSegmentSizes = array<i32: 2, 1>, indexing_maps = {maps}}}> ({{
  ^bb0(%x: f64, %y: f64, %z: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %z, %p : f64
    linalg.yield %s : f64
  }}) : ({a}, {b}, tensor<3x2xf64>) -> tensor<3x2xf64>
  %t = math.tanh %m : tensor<3x2xf64>
  %r = autodiff.sum %t : tensor<3x2xf64> -> tensor<f64>
  return %r : tensor<f64>
}}
func.func @{name}_grad(%a: {a}, %b: {b}, %c: tensor<3x2xf64>) -> ({a}, {b}, tensor<3x2xf64>) {{
  %da, %db, %dc = autodiff.grad @{name}(%a, %b, %c) : ({a}, {b}, tensor<3x2xf64>) -> ({a}, {b}, tensor<3x2xf64>)
  return %da, %db, %dc : {a}, {b}, tensor<3x2xf64>
}}
func.func @{name}_tangent(%a: {a}, %b: {b}, %c: tensor<3x2xf64>, %ta: {a}, %tb: {b}) -> tensor<f64> {{
  %r, %t = autodiff.jvp @{name}(%a, %b, %c, %ta, %tb) {{wrt = array<i64: 0, 1>}} : ({a}, {b}, tensor<3x2xf64>, {a}, {b}) -> (tensor<f64>, tensor<f64>)
  return %t : tensor<f64>
}}"""


TRANSPOSED_MATMULS = {
    # name: (A's map, B's map, A's shape, B's shape); A' is 3x4, B' is 4x2
    "matmul_transpose_a": ("(d2, d0)", "(d2, d1)", (4, 3), (4, 2)),
    "matmul_transpose_b": ("(d0, d2)", "(d1, d2)", (3, 4), (2, 4)),
    "matmul_transpose_both": ("(d2, d0)", "(d1, d2)", (4, 3), (2, 4)),
}


def test_matmul_with_transposed_operands():
    import gradir

    def tensor(shape):
        return f"tensor<{shape[0]}x{shape[1]}xf64>"

    text = "".join(
        _transposed_matmul(name, a_map, b_map, tensor(a), tensor(b))
        for name, (a_map, b_map, a, b) in TRANSPOSED_MATMULS.items()
    )
    exe = gradir.compile(text)
    rng = np.random.default_rng(8)
    for name, (_, _, a_shape, b_shape) in TRANSPOSED_MATMULS.items():
        inputs = [rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, b_shape), rng.uniform(-1, 1, (3, 2))]
        a_used = inputs[0].T if a_shape == (4, 3) else inputs[0]
        b_used = inputs[1].T if b_shape == (2, 4) else inputs[1]
        np.testing.assert_allclose(exe.call(name, *inputs)[0], np.tanh(a_used @ b_used + inputs[2]).sum())

        def f(*values):
            return float(exe.call(name, *values)[0])

        numeric = []
        for k, value in enumerate(inputs):
            gradient = np.zeros_like(value)
            for index in np.ndindex(value.shape):
                plus, minus = [v.copy() for v in inputs], [v.copy() for v in inputs]
                plus[k][index] += 1e-6
                minus[k][index] -= 1e-6
                gradient[index] = (f(*plus) - f(*minus)) / 2e-6
            numeric.append(gradient)
        for analytic, expected in zip(exe.call(f"{name}_grad", *inputs), numeric):
            np.testing.assert_allclose(analytic, expected, atol=1e-6)
        tangents = [rng.standard_normal(a_shape), rng.standard_normal(b_shape)]
        (tangent,) = exe.call(f"{name}_tangent", *inputs, *tangents)
        expected = sum(float(np.sum(g * t)) for g, t in zip(numeric, tangents))
        np.testing.assert_allclose(float(tangent), expected, atol=1e-6)
