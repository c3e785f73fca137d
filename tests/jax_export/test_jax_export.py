"""`gradir.from_jax` / `from_stablehlo` (gradir/jax_export.py): JAX functions exported to linalg
on tensors, run and differentiated by gradir against JAX itself, and README's "From JAX"
commands. Skipped without JAX (`pip install -e '.[jax]'`)."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (the `jax` extra: pip install -e '.[jax]')")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

import gradir  # noqa: E402
from gradir.gradient_check import GradChecker  # noqa: E402
from gradir.source import load_module  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(0)


def arrays(*shapes):
    return [RNG.uniform(0.25, 1.25, size=s).astype(np.float32) * RNG.choice([-1, 1], size=s).astype(np.float32)
            for s in shapes]  # fmt: skip


def grad_wrapper(text: str, name: str, wrt: list[int]) -> str:
    """An `autodiff.grad` entry `@grad_<name>` for the exported `@name`."""
    signature = re.search(rf"^func\.func @{name}\((.*)\) -> (.*) \{{$", text, re.M)
    types = [part.split(": ", 1)[1] for part in signature.group(1).split(", ")]
    grads = [types[i] for i in wrt]
    results = ", ".join(f"%g#{k}" for k in range(len(wrt)))
    return text + (
        f"func.func @grad_{name}({', '.join(f'%a{i}: {t}' for i, t in enumerate(types))}) -> ({', '.join(grads)}) {{\n"
        f"  %g:{len(wrt)} = autodiff.grad @{name}({', '.join(f'%a{i}' for i in range(len(types)))}) "
        f"{{wrt = array<i64: {', '.join(map(str, wrt))}>}} : ({', '.join(types)}) -> ({', '.join(grads)})\n"
        f"  return {results} : {', '.join(grads)}\n}}\n"
    )


def compiled_with_grad(text: str, name: str, wrt: list[int], value: bool = True, **options):
    """`grad_wrapper`'s module compiled with `@grad_<name>` callable, and `@name` with `value`:
    the only functions the tests call (`functions=`), so that the derived vjp (and an uncalled
    `@name`) are not compiled for themselves too."""
    return gradir.compile(grad_wrapper(text, name, wrt), functions=[f"grad_{name}", *[name] * value], **options)


def assert_matches_jax(function, args, name, wrt):
    """Value and gradient against JAX's, then gradcheck (f64, central differences). Both
    compile at LLVM -O0: the numbers are the same, the compile several times faster. JAX's
    references here and below run under `jax.jit`: run eagerly, JAX compiled each op alone
    (erf_inv's gradient: 0.9 s eagerly, 0.13 jitted)."""
    text = gradir.from_jax(function, *args, name=name)
    exe = compiled_with_grad(text, name, wrt, opt_level=0)
    (value,) = exe.call(name, *args)
    np.testing.assert_allclose(value, jax.jit(function)(*args), rtol=2e-5, atol=1e-6)
    grads = exe.call(f"grad_{name}", *args)
    for got, want in zip(grads, jax.jit(jax.grad(function, argnums=tuple(wrt)))(*args)):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-5)
    checker = GradChecker(text, [(name, wrt)], opt_level=0)
    result = checker.check(name, [a.astype(np.float64) for a in args])
    assert result.ok, result.report()
    return text


def mlp(w, b, x):
    return jnp.sum(jnp.tanh(x @ w + b) ** 2)


def test_exported_function_is_plain_linalg_on_tensors():
    text = gradir.from_jax(mlp, *arrays((3, 2), (2,), (4, 3)), name="mlp")
    for foreign in ("stablehlo", "chlo", "mhlo", "jax.", "@main", "private", "module"):
        assert foreign not in text, foreign
    assert "func.func @mlp(%arg0: tensor<3x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<4x3xf32>) -> tensor<f32>" in text
    assert "linalg.matmul" in text
    (function,) = [op for op in load_module(text).ops]  # gradir's own parser reads it; one function
    assert function.sym_name.data == "mlp"


def test_mlp_value_and_gradient_match_jax():
    assert_matches_jax(mlp, arrays((3, 2), (2,), (4, 3)), "mlp", [0, 1, 2])


def test_name_defaults_to_the_function_name_and_pytrees_flatten():
    def loss(params, x):
        return jnp.sum(jnp.tanh(x @ params["w"] + params["b"]))

    w, b, x = arrays((3, 2), (2,), (4, 3))
    text = gradir.from_jax(loss, {"w": w, "b": b}, x)
    # JAX flattens a dict by sorted keys: b, w, then x.
    assert "func.func @loss(%arg0: tensor<2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<4x3xf32>)" in text
    value = gradir.compile(text).loss(b, w, x)
    np.testing.assert_allclose(value, loss({"w": w, "b": b}, x), rtol=2e-5)


def test_scan_becomes_scf_while():
    def rnn(w, h0, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h

        _, hs = lax.scan(step, h0, xs)
        return jnp.sum(hs**2)

    text = assert_matches_jax(rnn, arrays((3, 3), (2, 3), (4, 2, 3)), "rnn", [0, 1, 2])
    assert "scf.while" in text


def test_cond_and_switch_become_scf_if():
    def cond(x):
        return lax.cond(x[0] > 0, lambda y: jnp.sum(jnp.sin(y)), lambda y: jnp.sum(y * y), x)

    for first in (0.5, -0.5):
        x = np.array([first, -0.3, 0.7, 0.2], np.float32)
        text = assert_matches_jax(cond, [x], "cond", [0])
    assert "scf.if" in text

    branches = [lambda y: jnp.sum(jnp.sin(y)), lambda y: jnp.sum(y * y), lambda y: jnp.sum(jnp.exp(y))]

    def switch(x, k):
        return lax.switch(k, branches, x)

    exe = gradir.compile(gradir.from_jax(switch, x, np.int32(0)))
    for k in (-1, 0, 1, 2, 3):  # out of range: clamped, as in JAX
        value = exe.switch(x, np.int32(k))
        np.testing.assert_allclose(value, switch(x, k), rtol=2e-5, err_msg=f"branch {k}")


def test_from_stablehlo_text_equals_from_jax():
    args = arrays((3, 2), (2,), (4, 3))
    expected = gradir.from_jax(mlp, *args, name="mlp")
    assert gradir.from_stablehlo(jax.jit(mlp).lower(*args).as_text(), "mlp") == expected
    exported = jax.export.export(jax.jit(mlp))(*[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args])
    assert gradir.from_stablehlo(exported.mlir_module(), "mlp") == expected


def eigenvalue_weights(x):
    return jnp.sum(jnp.linalg.eigh(jnp.outer(x, x) + jnp.eye(4))[0] * jnp.arange(4.0))


def eigenvalue_weights_held(x):
    """With a stop_gradient, from_jax re-traces the jaxpr (to mark it): the eigh's error
    pointed at that re-evaluation in gradir/jax_export.py, not at this line."""
    return jnp.sum(jnp.linalg.eigh(jnp.outer(x, x) + jnp.eye(4))[0] * lax.stop_gradient(x))


@pytest.mark.parametrize("function", [eigenvalue_weights, eigenvalue_weights_held])
def test_an_op_without_a_conversion_is_a_located_error(function):
    line = function.__code__.co_firstlineno + (1 if function is eigenvalue_weights else 3)
    with pytest.raises(gradir.SourceError) as caught:
        gradir.from_jax(function, np.ones(4, np.float32))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{__file__}:{line}:")
    assert "no conversion to linalg for stablehlo.custom_call" in message  # LAPACK's syevd


def sorted_weights(x, v):
    return jnp.sum(jnp.sort(x * v, axis=1) * jnp.arange(5.0))


def argsorted_along_rows(x, v):
    order = jnp.argsort(x * jnp.array([1.0, -1.0, 1.0, -1.0, 1.0]), axis=0)  # two operands sorted together
    return jnp.sum(jnp.take_along_axis(v * x, order, axis=0) * jnp.arange(4.0)[:, None])


def trimmed_mean_and_median(x, v):
    flat = jnp.sort((x * v).reshape(-1))
    return jnp.mean(flat[3:-3] ** 2) + jnp.median(x, axis=1).sum() + jnp.quantile(v, 0.3)


def top_k_sum(x, v):
    values, _ = lax.top_k(x + v, 2)
    return jnp.sum(jnp.tanh(values) * jnp.array([1.0, -2.0]))


@pytest.mark.parametrize("function", [sorted_weights, argsorted_along_rows, trimmed_mean_and_median, top_k_sum])
def test_sorts_become_loops_with_jaxs_values_and_gradients(function):
    x, v = arrays((4, 5), (4, 5))
    text = assert_matches_jax(function, [x, v], function.__name__, [0, 1])
    assert "stablehlo" not in text and "arith.select" in text and "scf.for" in text


def test_a_sort_keeps_equal_keys_in_order_as_jax_does():
    """Stable: tied keys keep their order, so the gradient of each sorted position goes to the
    element JAX sends it to (central differences cannot check a tie)."""

    def ranked(keys, values):
        order = jnp.argsort(keys)
        return jnp.sum(values[order] * jnp.arange(6.0)) + jnp.sum(jnp.sort(keys) * jnp.arange(6.0) ** 2)

    keys = np.array([0.5, -1.0, 0.5, 0.25, -1.0, 0.5], np.float32)
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], np.float32)
    text = gradir.from_jax(ranked, keys, values, name="ranked")
    exe = compiled_with_grad(text, "ranked", [0, 1], value=False)
    for got, want in zip(exe.call("grad_ranked", keys, values), jax.jit(jax.grad(ranked, argnums=(0, 1)))(keys, values)):
        np.testing.assert_array_equal(got, want)


def scatter_add_repeated(x, v):
    return jnp.sum(jnp.sin(x.at[jnp.array([0, 2, 0])].add(v[:3] * x[1:4])))


def scatter_set_window(x, v):
    return jnp.sum(jnp.tanh(x.at[jnp.array([3, 1]), 2:4].set(v[:2, :2] * x[:2, 1:3])) ** 2)


def scatter_mul_and_max(x, v):
    y = x.at[1].mul(v[2]).at[jnp.array([0, 1, 1]), jnp.array([4, 2, 3])].max(v[0, :3] * 2.0)
    return jnp.sum(y * x)


def segment_sum_loss(x, v):
    return jnp.sum(jax.ops.segment_sum(x * v[:4], jnp.array([2, 0, 2, 1]), num_segments=3) ** 2)


def scatter_out_of_bounds(x, v):
    """Index 7 and the 2x2 windows at rows 3 are out of bounds: those updates are dropped."""
    dropped = x.at[jnp.array([1, 7]), 1:].add(v[:2, :4] * 2.0, mode="drop")
    windows = lax.ScatterDimensionNumbers(update_window_dims=(1, 2), inserted_window_dims=(),
                                          scatter_dims_to_operand_dims=(0, 1))  # fmt: skip
    starts = jnp.array([[0, 1], [3, 0], [2, 3]])
    patches = jnp.stack([v[:2, :2], v[1:3, 2:4] * 2.0, v[2:, :2]])
    return jnp.sum(dropped**2) + jnp.sum(jnp.cos(lax.scatter_add(x, starts, patches * x[:2, :2], windows)))


def vmapped_scatter(x, v):
    """`vmap` gives the scatter batching dimensions: each row's update goes to its own row."""
    return jnp.sum(jax.vmap(lambda row, i, u: row.at[i].add(u * row[0]))(x, jnp.array([1, 2, 3, 4]), v[:, 0]) ** 2)


def gather_gradient_inside(x, v):
    """The program differentiates a gather itself: JAX's transpose of it is a scatter-add."""
    inner = jax.grad(lambda y: jnp.sum(jnp.tanh(y[jnp.array([0, 3, 3])] * v[:3]) ** 2))(x)
    return jnp.sum(inner * x)


def scatter_in_a_scan(x, v):
    def step(carry, row):
        return carry.at[jnp.argmax(row)].add(row * carry[0]), None

    return jnp.sum(lax.scan(step, x, v)[0] ** 2)


@pytest.mark.parametrize("function", [scatter_add_repeated, scatter_set_window, scatter_mul_and_max, segment_sum_loss,
                                      scatter_out_of_bounds, vmapped_scatter, gather_gradient_inside,
                                      scatter_in_a_scan])  # fmt: skip
def test_scatters_become_loops_with_jaxs_values_and_gradients(function):
    x, v = arrays((4, 5), (4, 5))

    def on_jax_arrays(*args):  # `x.at[...]` needs a JAX array, not NumPy's
        return function(*(jnp.asarray(a) for a in args))

    text = assert_matches_jax(on_jax_arrays, [x, v], function.__name__, [0, 1])
    assert "stablehlo" not in text and "tensor.insert" in text and "scf.for" in text


def test_common_update_computations_are_scalar_ops():
    """add, set, mul, max are scalar ops in the loop, not a call of a 0-d generic, whose reverse
    recomputed it and so taped the whole operand every iteration (64 MB for a segment_sum of
    2000x16 updates into 500 rows)."""
    x, v = arrays((4, 5), (4, 5))
    for function in (scatter_add_repeated, scatter_set_window, scatter_mul_and_max, segment_sum_loss):
        text = gradir.from_jax(lambda a, b: function(jnp.asarray(a), jnp.asarray(b)), x, v, name="f")
        assert "tensor.from_elements" not in text, function.__name__


def test_the_reversed_scatter_loop_adds_one_element_per_update():
    """The reverse of a segment_sum's loop sums each update's cotangent into its element
    (`AccumulateIntoBranches`, then `AccumulateIntoSlice`): no op inside the reversed loop
    touches a whole tensor. Summed whole after the branch, the gradient of 2000x16 updates
    into 500 rows took 290 ms, against 0.25 ms now (JAX jit: 0.14)."""
    from gradir.compilation import lower_to_linalg

    ids = jnp.array([2, 0, 2, 1, 5, 3])

    def segments(x, w):
        return jnp.sum(jax.ops.segment_sum(x @ w, ids, num_segments=6) ** 2)

    x, w = arrays((6, 3), (3, 4))
    text = grad_wrapper(gradir.from_jax(segments, x, w, name="segments"), "segments", [0, 1])
    module = lower_to_linalg(text)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert len(loops) == 3  # the function's, the vjp's forward and its reverse
    for loop in loops:
        whole = [op.name for op in loop.walk() if op.name.startswith("linalg.") or op.name == "arith.constant"
                 and "dense" in str(op.value)]  # fmt: skip
        assert not whole, whole


VARIADIC_SCATTER = """
func.func public @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<1x1xi32>, %u: tensor<1xf32>) -> tensor<4xf32> {
  %r:2 = "stablehlo.scatter"(%x, %y, %i, %u, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    stablehlo.return %c, %d : tensor<f32>, tensor<f32>
  }) : (tensor<4xf32>, tensor<4xf32>, tensor<1x1xi32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0 : tensor<4xf32>
}
"""


def test_a_scatter_of_two_operands_is_a_located_error():
    with pytest.raises(gradir.SourceError, match=r"stablehlo\.scatter: 2 operands scattered together") as caught:
        gradir.from_stablehlo(VARIADIC_SCATTER, "f")
    assert "\n" not in str(caught.value)


def cholesky_and_solves(x, v):
    covariance = x[:, :4] @ x[:, :4].T + 2.0 * jnp.eye(4)
    factor = jnp.linalg.cholesky(covariance)
    y = jax.scipy.linalg.solve_triangular(factor, v[:, 3:], lower=True)
    z = jax.scipy.linalg.solve_triangular(factor.T, y, lower=False)
    return jnp.sum(z**2) + jnp.sum(jnp.log(jnp.diag(factor)))


def cho_factor_upper_and_solve(x, v):
    """cho_factor keeps LAPACK's other triangle (the input's values); lower=False asks for U."""
    factor = jax.scipy.linalg.cho_factor(x[:, :4] @ x[:, :4].T + 2.0 * jnp.eye(4), lower=False)
    return jnp.sum(jax.scipy.linalg.cho_solve(factor, v[:, 1:3]) ** 2) + jnp.sum(factor[0] * v[:, :4])


def multivariate_normal_density(x, v):
    covariance = x[:, :4] @ x[:, :4].T + jnp.eye(4)
    return jnp.sum(jax.scipy.stats.multivariate_normal.logpdf(v.T, x[:, 0] * 0.5, covariance))


def triangular_solves_every_way(x, v):
    """Transposed, unit-diagonal, and from the right (what a Cholesky's own derivative uses)."""
    a = jnp.tril(x[:, :4]) + 3.0 * jnp.eye(4)
    r1 = jax.scipy.linalg.solve_triangular(a, v[:, 4], lower=True, trans=1)
    r2 = jax.scipy.linalg.solve_triangular(a.T, v[:, 2:4], lower=False, unit_diagonal=True)
    r3 = lax.linalg.triangular_solve(a, v[:, 1:4].T, left_side=False, lower=True)
    r4 = lax.linalg.triangular_solve(a.T, v[:, :4], left_side=False, lower=False, transpose_a=True)
    return jnp.sum(r1**2) + jnp.sum(jnp.sin(r2)) + jnp.sum(r3**2) + jnp.sum(r4 * x[:, :4])


def batched_cholesky(x, v):
    outer = jnp.einsum("bi,bj->bij", x, x) + jnp.einsum("bi,bj->bij", v, v)  # positive semidefinite
    covariances = outer[:, :3, :3] + jnp.eye(3)
    return jnp.sum(jnp.linalg.cholesky(covariances) ** 2)


def sum_of_a_scalar(x, v):
    """jnp.sum of a 0-d value: a reduce over no dimensions, its input as XLA computes it."""
    return jnp.sum(jnp.sum(x * v)) + lax.reduce(jnp.sum(x), jnp.float32(5.0), lax.add, ())


@pytest.mark.parametrize("function", [cholesky_and_solves, cho_factor_upper_and_solve, multivariate_normal_density,
                                      triangular_solves_every_way, batched_cholesky, sum_of_a_scalar])  # fmt: skip
def test_lapack_calls_become_loops_with_jaxs_values_and_gradients(function):
    x, v = arrays((4, 5), (4, 5))
    text = assert_matches_jax(function, [x, v], function.__name__, [0, 1])
    assert "stablehlo" not in text


UPPER_CHOLESKY = """
func.func public @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<i32>
}
"""


def test_an_upper_cholesky_keeps_the_lower_triangle_as_lapack_does():
    """JAX asks LAPACK only for lower factors (it transposes for upper ones); StableHLO from
    elsewhere may ask for `uplo = U`: U^T U = A in the upper triangle, the input below it."""
    text = gradir.from_stablehlo(UPPER_CHOLESKY, "upper")
    a = np.array([[4.0, 1.2, -0.6], [0.7, 3.0, 0.4], [-0.3, 0.9, 2.5]], np.float32)  # only its upper half is read
    factor, info = gradir.compile(text).call("upper", a)
    expected = np.linalg.cholesky(np.triu(a) + np.triu(a, 1).T).T
    np.testing.assert_allclose(np.triu(factor), expected, rtol=1e-6)
    np.testing.assert_array_equal(np.tril(factor, -1), np.tril(a, -1))
    assert info == 0


def target_loss(w, x):
    """A loss whose target is computed from the parameters and held constant."""
    t = jnp.tanh(x * w)
    return jnp.sum((t - lax.stop_gradient(3.0 * t)) ** 2)


def test_stop_gradient_survives_the_export():
    """StableHLO has no stop_gradient: JAX drops it, and gradir differentiated through it,
    a gradient -2x JAX's here with no error. It is carried as an optimization barrier and
    becomes autodiff.stop_gradient."""
    w, x = arrays((3, 4), (3, 4))
    text = gradir.from_jax(target_loss, w, x)
    assert text.count('"autodiff.stop_gradient"') == 1
    exe = compiled_with_grad(text, "target_loss", [0])
    np.testing.assert_allclose(exe.call("target_loss", w, x)[0], target_loss(w, x), rtol=2e-5)
    np.testing.assert_allclose(exe.grad_target_loss(w, x), jax.jit(jax.grad(target_loss))(w, x), rtol=2e-4, atol=1e-5)


def test_stop_gradient_in_softmax_and_in_a_jitted_helper():
    """jax.nn.log_softmax and logsumexp hold stop_gradients (harmless shifts by the max); a
    stop_gradient inside a jitted helper is inlined out of its pjit."""
    helper = jax.jit(lambda t: lax.stop_gradient(t) * t)

    def loss(z):
        return -jax.nn.log_softmax(z)[0] + jax.nn.logsumexp(z) + jnp.sum(helper(z))

    (z,) = arrays((5,))
    text = gradir.from_jax(loss, z)
    assert text.count('"autodiff.stop_gradient"') >= 3  # log_softmax, logsumexp, helper
    exe = compiled_with_grad(text, "loss", [0], value=False)
    np.testing.assert_allclose(exe.grad_loss(z), jax.jit(jax.grad(loss))(z), rtol=2e-4, atol=1e-5)
    # The softmax part alone also passes finite differences (its stops change nothing);
    # the helper's does not (finite differences see the identity): JAX is the reference.
    assert_matches_jax(lambda z: -jax.nn.log_softmax(z)[0] + jax.nn.logsumexp(z), [z], "softmax_part", [0])


def test_stop_gradient_beside_a_custom_jvp_function():
    """A function with a stop_gradient (log_softmax's) and a jax.custom_jvp function
    without one (jax.nn.relu): re-binding the custom_jvp call raised KeyError: 'subfuns',
    so a classifier with ReLU layers and a log-softmax loss never exported."""
    (w,) = arrays((4, 3))
    x = arrays((5, 4))[0]

    def loss(w):
        return -jnp.sum(jax.nn.log_softmax(jax.nn.relu(x @ w), axis=-1)[:, 0])

    assert_matches_jax(loss, [w], "relu_log_softmax", [0])


def test_concatenations_are_exported_as_tensor_concat():
    """jaxlib legalizes a concatenation into a generic that picks its operand with scf.if
    and reads it with tensor.extract, which gradir refused to differentiate: every
    jnp.concatenate, jnp.stack and array of traced scalars. They stay tensor.concat."""

    def loss(a, b, c):
        joined = jnp.concatenate([a, b], axis=1)  # (3, 2) and (3, 4) -> (3, 6)
        stacked = jnp.stack([c, 2.0 * c])  # (2, 6)
        scalars = jnp.array([jnp.sum(a), jnp.max(b)])
        return jnp.sum(jnp.tanh(joined) @ stacked.T * scalars)

    args = arrays((3, 2), (3, 4), (6,))
    text = assert_matches_jax(loss, args, "concatenations", [0, 1, 2])
    assert text.count("tensor.concat") >= 3
    assert "scf.if" not in text


def test_unsigned_loop_states_and_jax_random():
    """A while loop over uint32 values (jax.random's threefry rounds, a fori_loop on
    jnp.uint32) kept ui32 states joined to jaxlib's signless ops by
    unrealized_conversion_casts, which no pipeline could run ("op was not bufferized")."""

    def counted(x):
        u = lax.fori_loop(0, 3, lambda i, u: u * jnp.uint32(3) + jnp.uint32(1), jnp.arange(4, dtype=jnp.uint32))
        return jnp.sum(x * u.astype(jnp.float32))

    def noisy(x):
        return jnp.sum(jnp.sin(x) * jax.random.normal(jax.random.key(0), (4,)))

    (x,) = arrays((4,))
    for function, name in ((counted, "counted"), (noisy, "noisy")):
        text = gradir.from_jax(function, x, name=name)
        assert "unrealized_conversion_cast" not in text and "ui32" not in text
        exe = compiled_with_grad(text, name, [0], opt_level=0)
        np.testing.assert_allclose(exe.call(name, x)[0], function(x), rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(exe.call(f"grad_{name}", x)[0], jax.jit(jax.grad(function))(x), rtol=2e-4, atol=1e-5)


# Both of Giles' polynomials (|x| < 0.9966 and beyond), 0 itself, both signs.
ERF_INV_POINTS = np.array([0.0, 0.3, -0.55, 0.8, -0.9, 0.97, -0.9985, 0.9993], dtype=np.float32)


def test_erf_inv_gradient_is_its_own_not_nan():
    """jaxlib expands erf_inv into selects between polynomials, sqrt(w) and x * inf: the
    unchosen side's gradient is 0 * inf = NaN, so gradir's gradient of jax.scipy.special.erfinv
    (JAX's truncated normal, inverse-CDF sampling) was NaN everywhere with the value right.
    from_jax writes erf_inv as code whose every derivative is finite and right."""

    def loss(x):
        return jnp.sum(jax.scipy.special.erfinv(x) * jnp.arange(1.0, 9.0, dtype=x.dtype))

    text = assert_matches_jax(loss, [ERF_INV_POINTS], "erf_inv", [0])  # value, grad, gradcheck (f64)
    hessian = gradir.hessian(text, "erf_inv", opt_level=0)(ERF_INV_POINTS)  # -O0: compiled for one call
    want = jax.jit(jax.hessian(loss))(jnp.asarray(ERF_INV_POINTS, jnp.float32))
    np.testing.assert_allclose(hessian, want, rtol=1e-3, atol=1e-3)
    # The values are JAX's in f32 and f64, the poles stay poles.
    poles = np.array([1.0, -1.0], np.float32)
    for dtype, rtol in ((np.float32, 1e-6), (np.float64, 1e-13)):
        with jax.enable_x64(dtype == np.float64):
            x = np.concatenate([ERF_INV_POINTS, poles]).astype(dtype)
            exe = gradir.compile(gradir.from_jax(jax.scipy.special.erfinv, x, name="erf_inv"), opt_level=0)
            np.testing.assert_allclose(exe.call("erf_inv", x)[0], jax.jit(jax.scipy.special.erfinv)(x), rtol=rtol, atol=rtol)


# Positive integers (where jaxlib's unchosen reflection is log(0)), halves, the reflected
# side (x < 1/2, negative non-integers), a large value.
GAMMA_POINTS = np.array([1.0, 2.0, 3.0, 0.5, 0.3, -0.5, -1.3, 4.5, 30.0], dtype=np.float32)


@pytest.mark.parametrize("special", ["gammaln", "digamma"])
def test_gammaln_and_digamma_gradients_are_theirs_not_nan(special):
    """jaxlib's lgamma and digamma select between Lanczos' formula and a reflection that is
    infinite at positive integers: gradir's gradient of that expansion was NaN there (a
    Dirichlet or Gamma log density at concentration 1, numpyro's usual start). from_jax
    writes them as code whose every derivative is finite and right."""
    function = getattr(jax.scipy.special, special)

    def loss(x):
        return jnp.sum(function(x) * jnp.linspace(1.0, 2.0, x.shape[0], dtype=x.dtype))

    text = gradir.from_jax(loss, GAMMA_POINTS, name=special)
    exe = compiled_with_grad(text, special, [0], value=False, opt_level=0)
    np.testing.assert_allclose(exe.call(f"grad_{special}", GAMMA_POINTS)[0], jax.jit(jax.grad(loss))(GAMMA_POINTS), rtol=2e-5)
    hessian = gradir.hessian(text, special)(GAMMA_POINTS)
    np.testing.assert_allclose(np.diag(hessian), np.diag(jax.jit(jax.hessian(loss))(GAMMA_POINTS)), rtol=2e-4)
    with jax.enable_x64(True):  # the values, to f64 precision
        x = GAMMA_POINTS.astype(np.float64)
        exe = gradir.compile(gradir.from_jax(function, x, name="v"), opt_level=0)
        np.testing.assert_allclose(exe.call("v", x)[0], function(x), rtol=1e-13, atol=1e-13)
    # Central differences off x = 1/2, where the sides meet: with the f32 program's constants
    # they differ by an f32 rounding, which a step of 1e-6 reads as a slope.
    away = np.where(GAMMA_POINTS == 0.5, 0.55, GAMMA_POINTS).astype(np.float64)
    result = GradChecker(text, [(special, [0])], opt_level=0).check(special, [away])
    assert result.ok, result.report()


# Integer and half-integer a (where jaxlib's expansion gave NaN), the series side (x < a + 1),
# the continued fraction's (x > a + 1), both near x = a + 1, small and large x.
IGAMMA_A = np.array([1.0, 2.0, 3.0, 0.5, 4.5, 7.0, 12.0, 0.2, 30.0])
IGAMMA_X = np.array([0.5, 2.5, 4.5, 2.0, 1.0, 8.5, 11.0, 0.01, 45.0])


def test_gammaincc_gradients_are_theirs_not_nan():
    """jaxlib expands igamma(c) into a series and a continued fraction that stop on the value's
    convergence, selected per element: gradir's gradient of gammainc in `a` was NaN (the
    unchosen side) and its jvp 2e-4 off (the loop stops before the derivative converges).
    from_jax writes them as loops that run until the derivative in `a` has converged too.
    (gammaincc takes both sides: 1 - the series, and the fraction itself.)"""

    def loss(a, x):
        return jnp.sum(jax.scipy.special.gammaincc(a, x) * jnp.linspace(1.0, 2.0, a.shape[0], dtype=a.dtype))

    with jax.enable_x64(True):
        text = gradir.from_jax(loss, IGAMMA_A, IGAMMA_X, name="igammac")
        exe = compiled_with_grad(text, "igammac", [0, 1], value=False, opt_level=0)
        for got, want in zip(exe.call("grad_igammac", IGAMMA_A, IGAMMA_X), jax.jit(jax.grad(loss, (0, 1)))(IGAMMA_A, IGAMMA_X)):
            np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-14)
    result = GradChecker(text, [("igammac", [0, 1])], opt_level=0).check("igammac", [IGAMMA_A, IGAMMA_X])
    assert result.ok, result.report()


def test_gammainc_values_and_its_own_gradient_in_a_are_jaxs():
    """The values, with the domain's edges as JAX gives them (x = 0, x = inf, a = 0, NaN
    outside), and `igamma_grad_a`, the primitive `jax.grad` binds inside an exported
    function: JAX's, except 0 (the limit) where JAX's is NaN at x = 0 and x = inf."""

    def values(a, x):
        grad_a = jax.jit(jax.grad(lambda b: jnp.sum(jax.scipy.special.gammainc(b, x))))(a)
        return jax.scipy.special.gammainc(a, x), jax.scipy.special.gammaincc(a, x), grad_a

    a = np.concatenate([IGAMMA_A, [2.0, 2.0, 0.0, 0.0, -1.0, 1.0, 1e4]])
    x = np.concatenate([IGAMMA_X, [0.0, np.inf, 1.0, 0.0, 1.0, -0.5, 1e4]])
    with jax.enable_x64(True):
        exe = gradir.compile(gradir.from_jax(values, a, x, name="values"), opt_level=0)
        p, q, grad_a = exe.call("values", a, x)
        want_p, want_q, want_grad_a = values(a, x)
    for got, want in ((p, want_p), (q, want_q)):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=1e-10, atol=1e-15)
    limit = (a > 0) & ((x == 0) | (x == np.inf))
    np.testing.assert_array_equal(grad_a[limit], 0.0)
    np.testing.assert_array_equal(np.isnan(grad_a[~limit]), np.isnan(want_grad_a[~limit]))
    finite = ~limit & ~np.isnan(want_grad_a)
    np.testing.assert_allclose(grad_a[finite], want_grad_a[finite], rtol=1e-10)


def test_gammainc_in_f32_matches_jax():
    """f32: the loops stop at f32's epsilon (the program's constants are its own)."""
    a, x = IGAMMA_A.astype(np.float32), IGAMMA_X.astype(np.float32)

    def loss(a, x):
        return jnp.sum(jax.scipy.special.gammainc(a, x) * jnp.linspace(1.0, 2.0, a.shape[0], dtype=a.dtype))

    exe = compiled_with_grad(gradir.from_jax(loss, a, x, name="gammainc"), "gammainc", [0, 1], opt_level=0)
    np.testing.assert_allclose(exe.call("gammainc", a, x)[0], loss(a, x), rtol=2e-6)
    for got, want in zip(exe.call("grad_gammainc", a, x), jax.jit(jax.grad(loss, (0, 1)))(a, x)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_erf_inv_inside_a_loop_is_refused():
    def in_a_loop(x):
        return lax.fori_loop(0, 2, lambda i, v: jax.scipy.special.erfinv(v) * 0.5, x).sum()

    with pytest.raises(gradir.SourceError, match="erf_inv inside scan is not supported") as raised:
        gradir.from_jax(in_a_loop, ERF_INV_POINTS)
    assert raised.value.location.startswith(f"{__file__}:")  # the loop's line


def test_stop_gradient_inside_control_flow_is_refused():
    def in_a_branch(x):
        return lax.cond(jnp.sum(x) > 0, lambda v: lax.stop_gradient(v) * v, lambda v: v * v, x)

    (x,) = arrays((3,))
    with pytest.raises(gradir.SourceError, match="stop_gradient inside cond is not supported"):
        gradir.from_jax(in_a_branch, x)


def barrier_and_stop(x):
    return jnp.sum(jnp.sin(lax.optimization_barrier(x)) * lax.stop_gradient(x))


def barrier_only(x):
    return jnp.sum(jnp.sin(lax.optimization_barrier(x)) ** 2)


def gradient_of_a_checkpointed_loss(x):
    """JAX puts optimization barriers (none of them in the jaxpr) around the recomputed
    function when a `jax.checkpoint`ed loss is differentiated in the program."""
    return jnp.sum(jax.grad(lambda v: jnp.sum(jax.checkpoint(jnp.sin)(v) ** 2))(x) * x)


@pytest.mark.parametrize("function", [barrier_and_stop, barrier_only, gradient_of_a_checkpointed_loss])
def test_an_optimization_barrier_is_an_identity_not_a_stop_gradient(function):
    """A stop_gradient crosses StableHLO as a barrier tagged as such; a barrier of the program's
    own, or of JAX's remat, was taken for one too, and the gradient through it was zero."""
    (x,) = arrays((4,))
    if function is barrier_and_stop:  # central differences see through a stop_gradient: JAX only
        text = gradir.from_jax(function, x, name="f")
        exe = compiled_with_grad(text, "f", [0], value=False, opt_level=0)
        np.testing.assert_allclose(exe.call("grad_f", x)[0], jax.jit(jax.grad(function))(x), rtol=2e-5, atol=1e-6)
        assert text.count("autodiff.stop_gradient") == 1
    else:
        text = assert_matches_jax(function, [x], "f", [0])  # value, grad (vs jax.grad), gradcheck (f64)
        assert "autodiff.stop_gradient" not in text


@jax.custom_vjp
def straight_through(x):
    return jnp.round(x)


straight_through.defvjp(lambda x: (jnp.round(x), None), lambda _, g: (g,))


@jax.custom_jvp
def doubled_slope(x):
    return jnp.sin(x)


doubled_slope.defjvp(lambda primals, tangents: (jnp.sin(primals[0]), 2 * jnp.cos(primals[0]) * tangents[0]))


def test_a_derivative_rule_of_the_programs_own_is_refused_where_it_is_defined():
    """StableHLO keeps the primal code only: a straight-through estimator's gradient (1)
    became round's (0), silently. JAX's own rules (jax.nn.relu) describe their primal
    code's derivative and pass."""
    (x,) = arrays((3,))
    for rule, kind in ((straight_through, "jax.custom_vjp"), (doubled_slope, "jax.custom_jvp")):
        with pytest.raises(gradir.SourceError) as raised:
            gradir.from_jax(lambda v: jnp.sum(rule(v) * v), x)
        assert f"@{rule.__name__} defines its own derivative ({kind})" in raised.value.message
        assert raised.value.location.startswith(f"{__file__}:")
    accepted = gradir.from_jax(lambda v: jnp.sum(straight_through(v) * v), x, name="f", custom_derivatives="primal")
    assert "func.func @f(" in accepted
    mixed = np.array([0.5, -0.7, 1.2], np.float32)  # live and dead relus, whatever the test order
    assert_matches_jax(lambda v: jnp.sum(jax.nn.relu(v) * v), [mixed], "relu_part", [0])
    with pytest.raises(gradir.ArgumentError, match="custom_derivatives must be 'error' or 'primal'"):
        gradir.from_jax(lambda v: jnp.sum(v), x, custom_derivatives="ignore")


CONCENTRATIONS = np.array([0.7, 1.5, 2.5, 0.2, 8.0])  # below and above 1, a small one, a large one


def test_gamma_samples_get_jaxs_implicit_reparameterization():
    """jax.random.gamma is differentiated by JAX with implicit reparameterization; StableHLO
    keeps only the rejection sampler, whose derivative for a fixed key is a few percent off
    (before, a refusal). from_jax keeps the sample and gives it the implicit derivative.
    -O0: the program (the sampler's loops and P(a, x)'s) takes 30 s to compile at -O2."""

    def loss(a):
        return jnp.sum(jax.random.gamma(jax.random.key(0), a) * jnp.linspace(1.0, 2.0, a.shape[0], dtype=a.dtype))

    with jax.enable_x64(True):
        text = gradir.from_jax(loss, CONCENTRATIONS, name="sampled")
        exe = compiled_with_grad(text, "sampled", [0], opt_level=0)
        assert exe.call("sampled", CONCENTRATIONS)[0] == loss(CONCENTRATIONS)  # the same sample, exactly
        np.testing.assert_allclose(exe.call("grad_sampled", CONCENTRATIONS)[0], jax.jit(jax.grad(loss))(CONCENTRATIONS), rtol=1e-12)


def test_the_reparameterization_has_jaxs_first_and_second_derivatives():
    """The code gradir differentiates (two Newton steps on P(a, e^y) = u from the sample),
    its derivatives taken by JAX, in the log space `jax.random.beta` and `dirichlet` draw in:
    the first and second are those of JAX's own rule (random_gamma_grad, and its derivative).
    Each draw's derivative is its own concentration's, so one tangent of ones gives them all."""
    from gradir.jax_special_functions import reparameterized_gamma

    key, ones = jax.random.key(3), np.ones_like(CONCENTRATIONS)

    def ours(a):
        return reparameterized_gamma(a, lax.stop_gradient(jax.random.loggamma(key, a)), True, lax.stop_gradient)

    def theirs(a):
        return jax.random.loggamma(key, a)

    def second(function):
        return jax.jit(lambda a: jax.jvp(lambda b: jax.jvp(function, (b,), (ones,))[1], (a,), (ones,)))

    with jax.enable_x64(True):
        (first_ours, second_ours), (first_theirs, second_theirs) = second(ours)(CONCENTRATIONS), second(theirs)(CONCENTRATIONS)
        np.testing.assert_array_equal(ours(CONCENTRATIONS), theirs(CONCENTRATIONS))
    np.testing.assert_allclose(first_ours, first_theirs, rtol=1e-12)
    np.testing.assert_allclose(second_ours, second_theirs, rtol=1e-12)


def test_a_gamma_sample_inside_a_loop_is_refused_unless_the_primal_derivative_is_accepted():
    def in_a_scan(a):
        return lax.fori_loop(0, 2, lambda i, v: v + jax.random.gamma(jax.random.key(i), a), a).sum()

    with pytest.raises(gradir.SourceError) as raised:
        gradir.from_jax(in_a_scan, CONCENTRATIONS.astype(np.float32))
    assert "jax.random.gamma inside scan is not supported (StableHLO keeps only its rejection sampler" in raised.value.message
    assert raised.value.message.endswith('or pass custom_derivatives="primal" to accept that')
    assert raised.value.location.startswith(f"{__file__}:")
    accepted = gradir.from_jax(in_a_scan, CONCENTRATIONS.astype(np.float32), name="g", custom_derivatives="primal")
    assert "func.func @g(" in accepted


def test_a_failure_inside_jaxlib_is_its_own_message_at_the_python_line():
    """jaxlib's legalization makes an invalid empty slice of lax.associative_scan: the error
    said only "Failure while executing pass pipeline:", with no place."""
    (x,) = arrays((8,))
    with pytest.raises(gradir.SourceError) as raised:
        gradir.from_jax(lambda v: jnp.sum(lax.associative_scan(jnp.add, v) ** 2), x)
    assert "StableHLO to linalg failed in jaxlib: offset 0 is out-of-bounds" in raised.value.message
    assert raised.value.location.startswith(f"{__file__}:")


# ---------------------------------------------------------------- README


def _readme_from_jax_blocks():
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## From JAX\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(python|sh)\n(.*?)```", section, re.S)


def test_readme_from_jax_commands_run(tmp_path):
    blocks = _readme_from_jax_blocks()
    assert [kind for kind, _ in blocks] == ["sh", "python", "sh"]
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "autodiff-gradcheck").exists():
        pytest.skip("autodiff-gradcheck is not installed next to this Python")
    namespace = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(blocks[1][1], "README.md (From JAX)", "exec"), namespace)
    finally:
        os.chdir(cwd)
    gw, gb = namespace["gw"], namespace["gb"]
    want = jax.jit(jax.grad(namespace["loss"], argnums=(0, 1)))(*(namespace[n] for n in "wbxy"))
    np.testing.assert_allclose(gw, want[0], rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(gb, want[1], rtol=2e-4, atol=1e-6)
    for line in blocks[2][1].strip().splitlines():
        command = line.replace(".venv/bin/", f"{bin_dir}/")
        done = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
    # Function bodies are `__gradir_f` in LLVM; the C interface keeps the user's name.
    assert "llvm.func @_mlir_ciface_grad_loss" in (tmp_path / "loss.llvm.mlir").read_text()
