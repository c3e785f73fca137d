"""The AD passes: activity, reverse and forward mode, zero specialisation, the
f/df split, and their numbers on the CPU against finite differences."""
from __future__ import annotations

import itertools
import pathlib
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, Region, SSAValue
from xdsl.passes import PassPipeline
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from gradir.autodiff_pass.activity import analyze_activity
from gradir.autodiff_pass.derivative_functions import DerivativeKey
from gradir.autodiff_pass.ir_building import erase_dead_code
from gradir.autodiff_pass.rules import register_jvp, register_vjp
from gradir.autodiff_pass.cse import scoped_cse
from gradir.autodiff_pass.specialize_zero import SPECIALIZE_ZERO_PATTERNS, specialize_zero
from gradir.autodiff_pass.split import GRADIENT_ATTR, Gradient, differentiate
from gradir.dialects.autodiff import GradOfOp, MulOp
from gradir.errors import DifferentiationError
from gradir.gpu_backend.cpu_runtime import CpuExecutable
from gradir.tools.autodiff_opt import AutodiffOptMain
from gradir.tools.pipelines import LINALG_PASSES
from gradir.tools.source import parse_module

REPO = pathlib.Path(__file__).resolve().parents[2]

# f(a, b) = a*b*a + b, the running example of the issue.
ABA_PLUS_B = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def fresh_context() -> Context:
    """The `ctx` fixture's context, for module-scoped fixtures and hypothesis tests."""
    return AutodiffOptMain(args=[]).ctx


def run_passes(ctx: Context, module: ModuleOp, passes: str) -> ModuleOp:
    available = AutodiffOptMain(args=[]).available_passes
    PassPipeline.parse_spec(available, passes).apply(ctx, module)
    module.verify()
    return module


def function(module: ModuleOp, name: str) -> FuncOp:
    found = [op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == name]
    assert found, f"no @{name} in\n{module}"
    return found[0]


def function_names(module: ModuleOp) -> list[str]:
    return [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]


def compile_for_cpu(ctx: Context, text: str) -> CpuExecutable:
    module = parse_module(ctx, text)
    run_passes(ctx, module, ",".join(LINALG_PASSES))
    return CpuExecutable(module)


# ----------------------------------------------------------------------------
# Activity analysis
# ----------------------------------------------------------------------------


def test_activity_needs_both_a_wrt_argument_and_a_result(ctx: Context):
    module = parse_module(
        ctx,
        """
        func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
          %only_y = autodiff.exp %y : tensor<4xf32>
          %dead = autodiff.sin %x : tensor<4xf32>
          %r = autodiff.mul %x, %only_y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          return %r : tensor<4xf32>
        }
        """,
    )
    f = function(module, "f")
    block = f.body.block
    returned = block.last_op.operands
    activity = analyze_activity(block, [f.args[0]], returned)
    only_y, dead, product, _ = block.ops
    assert not activity.is_active_op(only_y)  # does not depend on x
    assert not activity.is_active_op(dead)  # does not reach the result
    assert activity.is_active_op(product)
    assert activity.is_active(f.args[0]) and not activity.is_active(f.args[1])


def test_a_mask_from_a_comparison_carries_no_derivative(ctx: Context):
    module = parse_module(
        ctx,
        """
        func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
          %mask = "test.op"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
          %r = autodiff.select %mask, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          return %r : tensor<4xf32>
        }
        """,
    )
    f = function(module, "f")
    block = f.body.block
    compare, select, _ = block.ops
    activity = analyze_activity(block, list(f.args), block.last_op.operands)
    assert not activity.is_active_op(compare)
    assert not activity.is_active(compare.results[0])
    assert activity.is_active_op(select)


def test_reverse_needs_no_rule_for_an_inactive_comparison(ctx: Context):
    module = parse_module(
        ctx,
        """
        func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
          %mask = "test.op"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
          %r = autodiff.select %mask, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          return %r : tensor<4xf32>
        }
        func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
          %r, %dx, %dy = autodiff.vjp @f(%x, %y, %c) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
          return %dx : tensor<4xf32>
        }
        """,
    )
    run_passes(ctx, module, "autodiff-reverse")
    vjp = function(module, "f_vjp_0_1")
    names = [op.op_name.data for op in vjp.walk() if isinstance(op, GradOfOp)]
    assert names == ["autodiff.select"]


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------


def test_an_active_op_without_a_rule_is_a_located_error(ctx: Context):
    module = parse_module(
        ctx,
        """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
          %e = autodiff.exp %a : tensor<4xf32>
          %t = "test.op"(%e) : (tensor<4xf32>) -> tensor<4xf32>
          return %t : tensor<4xf32>
        }
        func.func @main(%a: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
          %r, %d = autodiff.vjp @f(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
          return %d : tensor<4xf32>
        }""",
        "model.mlir",
    )
    with pytest.raises(DifferentiationError) as caught:
        run_passes(ctx, module, "autodiff-reverse")
    assert str(caught.value) == (
        "model.mlir:3:11: error: differentiation of 'test.op' is not supported"
    )


def test_bad_wrt_for_differentiate_is_an_error(ctx: Context):
    module = parse_module(ctx, ABA_PLUS_B)
    with pytest.raises(DifferentiationError, match="wrt index 2 does not name"):
        differentiate(module, "f", wrt=[2])
    with pytest.raises(DifferentiationError, match="no function @g"):
        differentiate(module, "g")


# ----------------------------------------------------------------------------
# Generated functions
# ----------------------------------------------------------------------------


def test_one_function_per_callee_and_wrt_also_across_runs(ctx: Context):
    entry = """
        func.func @{name}(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {{
          %r, %da = autodiff.vjp @f(%a, %b, %c) {{wrt = array<i64: {wrt}>}} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
          return %da : tensor<4xf32>
        }}"""
    module = parse_module(
        ctx,
        ABA_PLUS_B + entry.format(name="m1", wrt=0) + entry.format(name="m2", wrt=0)
        + entry.format(name="m3", wrt=1),
    )
    run_passes(ctx, module, "autodiff-reverse")
    assert function_names(module) == ["f", "f_vjp_0", "f_vjp_1", "m1", "m2", "m3"]
    # A later run finds the function by its autodiff.derivative attribute.
    later = parse_module(ctx, entry.format(name="m4", wrt=0)).body.block.first_op
    assert later is not None
    later.detach()
    module.body.block.add_op(later)
    run_passes(ctx, module, "autodiff-reverse")
    assert function_names(module) == ["f", "f_vjp_0", "f_vjp_1", "m1", "m2", "m3", "m4"]
    key = DerivativeKey.of_function(function(module, "f_vjp_1"))
    assert key == DerivativeKey("vjp", "f", (1,), (0,))


def test_a_name_clash_gets_a_suffix(ctx: Context):
    module = parse_module(
        ctx,
        ABA_PLUS_B
        + """
        func.func @f_vjp_0_1(%x: tensor<4xf32>) -> tensor<4xf32> {
          return %x : tensor<4xf32>
        }""",
    )
    gradient = differentiate(module, "f")
    assert function_names(module) == [
        "f", "f_vjp_0_1__1", "f_vjp_0_1__1_fwd", "f_vjp_0_1__1_bwd", "f_vjp_0_1"
    ]
    assert gradient.f.sym_name.data == "f_vjp_0_1__1_fwd"


def test_recursion_is_differentiated_through_the_function_being_built(ctx: Context):
    module = parse_module(
        ctx,
        """func.func @r(%x: tensor<f32>) -> tensor<f32> {
          %y = func.call @r(%x) : (tensor<f32>) -> tensor<f32>
          %z = autodiff.sin %y : tensor<f32>
          return %z : tensor<f32>
        }""",
    )
    differentiate(module, "r")
    calls = [
        op.callee.string_value()
        for op in function(module, "r_vjp_0_bwd").walk()
        if op.name == "func.call"
    ]
    assert calls == ["r_vjp_0"]


# ----------------------------------------------------------------------------
# The f/df split and the Gradient record
# ----------------------------------------------------------------------------


def test_differentiate_returns_the_gradient_record(ctx: Context):
    module = parse_module(ctx, ABA_PLUS_B)
    gradient = differentiate(module, "f", wrt=[0])
    module.verify()
    assert gradient.f.sym_name.data == "f_vjp_0_fwd"
    assert gradient.df.sym_name.data == "f_vjp_0_bwd"
    # f returns r, then the temporary a*b; df takes dr, a, b, a*b; returns da.
    assert (
        gradient.f_real_outputs,
        gradient.df_input_vjps,
        gradient.df_input_captured_inputs,
        gradient.df_input_captured_outputs,
        gradient.df_output_vjps,
    ) == (1, (0,), (0, 1), (1,), (0,))
    assert [str(t) for t in gradient.f.function_type.outputs] == ["tensor<4xf32>"] * 2
    assert len(gradient.df.args) == 4
    # The record is also on f, and asking again returns it.
    assert Gradient.from_attribute(gradient.f, gradient.df) == gradient
    assert GRADIENT_ATTR in gradient.f.attributes
    assert differentiate(module, "f", wrt=[0]) == gradient


def test_captures_are_what_the_rules_save(ctx: Context):
    """mul saves both inputs, add nothing: f(a,b) = a*b + b captures a and b
    (inputs) for the mul's backward, no temporary."""
    module = parse_module(
        ctx,
        """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
          %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          %r = autodiff.add %ab, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          return %r : tensor<4xf32>
        }""",
    )
    gradient = differentiate(module, "f")
    assert gradient.df_input_captured_inputs == (0, 1)
    assert gradient.df_input_captured_outputs == ()
    assert gradient.df_output_vjps == (0, 1)


# ----------------------------------------------------------------------------
# Custom rules for ops of other dialects
# ----------------------------------------------------------------------------


def test_a_registered_rule_makes_an_op_of_another_dialect_differentiable(ctx: Context):
    """`mydialect.scale(x, k) = x * k` with Python rules, differentiated w.r.t. x."""

    def scale_vjp(builder: Builder, op: Operation, grads: list[SSAValue]):
        return [builder.insert(MulOp(grads[0], op.operands[1])).result, None]

    def scale_jvp(builder: Builder, op: Operation, tangents: list[SSAValue | None]):
        return [builder.insert(MulOp(tangents[0], op.operands[1])).result]

    register_vjp("mydialect.scale", scale_vjp, differentiable_inputs=[0], saved_inputs=[1])
    register_jvp("mydialect.scale", scale_jvp)
    ctx.allow_unregistered = True
    module = parse_module(
        ctx,
        """func.func @f(%x: tensor<4xf32>, %k: tensor<4xf32>) -> tensor<4xf32> {
          %y = "mydialect.scale"(%x, %k) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          return %y : tensor<4xf32>
        }
        func.func @main(%x: tensor<4xf32>, %k: tensor<4xf32>, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
          %y, %dx = autodiff.vjp @f(%x, %k, %t) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
          %z, %tz = autodiff.jvp @f(%x, %k, %t) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
          return %dx, %tz : tensor<4xf32>, tensor<4xf32>
        }""",
    )
    run_passes(ctx, module, "autodiff-reverse,autodiff-forward")
    vjp = function(module, "f_vjp_0")
    (grad_of,) = [op for op in vjp.walk() if isinstance(op, GradOfOp)]
    assert grad_of.op_name.data == "mydialect.scale"
    (product,) = [op for op in grad_of.body.ops if isinstance(op, MulOp)]
    assert tuple(product.operands) == (grad_of.body.block.args[0], vjp.args[1])
    jvp = function(module, "f_jvp_0")
    (tangent,) = [op for op in jvp.walk() if isinstance(op, MulOp)]
    assert tuple(tangent.operands) == (jvp.args[2], jvp.args[1])


# ----------------------------------------------------------------------------
# Numbers on the CPU: finite differences, jvp/vjp agreement, second order
# ----------------------------------------------------------------------------

LOSS = """
func.func @loss(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>) -> tensor<f64> {
  %h = autodiff.matmul %x, %w : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<4x2xf64>
  %hb = autodiff.add %h, %b : (tensor<4x2xf64>, tensor<2xf64>) -> tensor<4x2xf64>
  %t = autodiff.tanh %hb : tensor<4x2xf64>
  %e = autodiff.exp %t : tensor<4x2xf64>
  %p = autodiff.mul %e, %t : (tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
  %s = autodiff.sum %p : tensor<4x2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

ENTRIES = """
func.func @grad(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>) -> (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) {
  %dw, %dx, %db = autodiff.grad @loss(%w, %x, %b) : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>)
  return %dw, %dx, %db : tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>
}
func.func @jvp(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %tw: tensor<3x2xf64>, %tx: tensor<4x3xf64>, %tb: tensor<2xf64>) -> tensor<f64> {
  %s, %ts = autodiff.jvp @loss(%w, %x, %b, %tw, %tx, %tb) : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>, tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> (tensor<f64>, tensor<f64>)
  return %ts : tensor<f64>
}
func.func @grad_w(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>) -> tensor<3x2xf64> {
  %dw = autodiff.grad @loss(%w, %x, %b) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  return %dw : tensor<3x2xf64>
}
// Hessian-vector products w.r.t. w, forward over reverse and reverse over reverse.
func.func @hvp_forward(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %v: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %dw, %hv = autodiff.jvp @grad_w(%w, %x, %b, %v) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>)
  return %hv : tensor<3x2xf64>
}
func.func @grad_dot_v(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %v: tensor<3x2xf64>) -> tensor<f64> {
  %dw = func.call @grad_w(%w, %x, %b) : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  %p = autodiff.mul %dw, %v : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  %s = autodiff.sum %p : tensor<3x2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @hvp_reverse(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %v: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %hv = autodiff.grad @grad_dot_v(%w, %x, %b, %v) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %hv : tensor<3x2xf64>
}
"""

SHAPES = [(3, 2), (4, 3), (2,)]


@pytest.fixture(scope="module")
def loss_program() -> CpuExecutable:
    return compile_for_cpu(fresh_context(), LOSS + ENTRIES)


def random_point(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape) for shape in SHAPES]


def central_difference(function, point: list[np.ndarray], direction: list[np.ndarray]):
    eps = 1e-6
    plus = function(*[p + eps * d for p, d in zip(point, direction)])
    minus = function(*[p - eps * d for p, d in zip(point, direction)])
    return [(a - b) / (2 * eps) for a, b in zip(plus, minus)]


def test_gradient_matches_finite_differences(loss_program: CpuExecutable):
    point = random_point(0)
    gradient = loss_program.grad(*point)
    for which, index in itertools.product(range(3), [0, -1]):
        direction = [np.zeros(shape) for shape in SHAPES]
        direction[which].flat[index] = 1.0
        (expected,) = central_difference(loss_program.loss, point, direction)
        np.testing.assert_allclose(gradient[which].flat[index], expected, rtol=1e-6, atol=1e-8)


def test_jvp_is_the_gradient_dotted_with_the_tangent(loss_program: CpuExecutable):
    point, tangent = random_point(1), random_point(2)
    (directional,) = loss_program.jvp(*point, *tangent)
    gradient = loss_program.grad(*point)
    expected = sum(float(np.sum(g * t)) for g, t in zip(gradient, tangent))
    np.testing.assert_allclose(directional, expected, rtol=1e-10)


def test_hessian_vector_products_agree_and_match_finite_differences(
    loss_program: CpuExecutable,
):
    point = random_point(3)
    v = np.random.default_rng(4).normal(size=SHAPES[0])
    (forward,) = loss_program.hvp_forward(*point, v)
    (reverse,) = loss_program.hvp_reverse(*point, v)
    np.testing.assert_allclose(forward, reverse, rtol=1e-10)
    (expected,) = central_difference(
        loss_program.grad_w, point, [v, np.zeros(SHAPES[1]), np.zeros(SHAPES[2])]
    )
    np.testing.assert_allclose(forward, expected, rtol=1e-5, atol=1e-8)


def test_split_functions_reproduce_the_gradient(ctx: Context, loss_program: CpuExecutable):
    """Run f, then df on the values the Gradient record says it takes."""
    module = parse_module(ctx, LOSS)
    gradient = differentiate(module, "loss")
    run_passes(ctx, module, ",".join(LINALG_PASSES))
    program = CpuExecutable(module)
    point = random_point(5)
    f_outputs = program.call(gradient.f.sym_name.data, *point)
    assert len(f_outputs) == gradient.f_real_outputs + len(
        [i for i in gradient.df_input_captured_outputs if i >= gradient.f_real_outputs]
    )
    seed = np.array(1.0)
    df_inputs = (
        [seed for _ in gradient.df_input_vjps]
        + [point[i] for i in gradient.df_input_captured_inputs]
        + [f_outputs[i] for i in gradient.df_input_captured_outputs]
    )
    df_outputs = program.call(gradient.df.sym_name.data, *df_inputs)
    for index, grad in zip(gradient.df_output_vjps, df_outputs, strict=True):
        np.testing.assert_allclose(grad, loss_program.grad(*point)[index], rtol=1e-12)
    np.testing.assert_allclose(f_outputs[0], loss_program.loss(*point)[0], rtol=1e-12)


# ----------------------------------------------------------------------------
# The linear-time cleanups give xDSL's results
# ----------------------------------------------------------------------------

UNARY = ("exp", "sin", "neg")
BINARY = ("add", "mul", "sub")


def random_program(seed: int, size: int) -> str:
    """A DAG with fan-out, repeated subexpressions and dead values, differentiated."""
    rng = random.Random(seed)
    t = "tensor<4xf32>"
    lines = [f"func.func @f(%a: {t}, %b: {t}) -> {t} {{"]
    values = ["%a", "%b"]
    for index in range(size):
        if rng.random() < 0.5:
            op, operands, signature = rng.choice(UNARY), [rng.choice(values)], t
        else:
            op, signature = rng.choice(BINARY), f"({t}, {t}) -> {t}"
            operands = [rng.choice(values), rng.choice(values)]
        line = f"autodiff.{op} {', '.join(operands)} : {signature}"
        lines.append(f"  %v{index} = {line}")
        if rng.random() < 0.3:  # the same expression again, for CSE
            lines.append(f"  %w{index} = {line}")
            values.append(f"%w{index}")
        values.append(f"%v{index}")
    lines.append(f"  return {values[-1]} : {t}\n}}")
    lines.append(
        f"func.func @main(%a: {t}, %b: {t}, %c: {t}) -> ({t}, {t}, {t}) {{\n"
        f"  %r, %da, %db = autodiff.vjp @f(%a, %b, %c) : ({t}, {t}, {t}) -> ({t}, {t}, {t})\n"
        f"  return %r, %da, %db : {t}, {t}, {t}\n}}"
    )
    return "\n".join(lines)


def raw_reverse(ctx: Context, seed: int, size: int) -> ModuleOp:
    """Reverse mode's output (not cleaned: CSE and DCE have work to do)."""
    module = parse_module(ctx, random_program(seed, size))
    run_passes(ctx, module, "autodiff-reverse")
    return module


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_scoped_cse_is_xdsl_cse(seed: int, size: int):
    ctx = fresh_context()
    expected, actual = raw_reverse(ctx, seed, size), raw_reverse(ctx, seed, size)
    cse(expected)
    scoped_cse(actual)
    assert str(actual) == str(expected)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_one_sweep_dead_code_removal_is_region_dce(seed: int, size: int):
    ctx = fresh_context()
    expected, actual = raw_reverse(ctx, seed, size), raw_reverse(ctx, seed, size)
    region_dce(expected.body)
    for op in actual.ops:
        erase_dead_code(op.body.block)
    assert str(actual) == str(expected)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_gradir_dce_is_xdsl_dce(seed: int, size: int):
    """gradir's `dce` (effect queries cached) removes exactly what xDSL's does."""
    from gradir.autodiff_pass.dce import region_dce as gradir_region_dce

    ctx = fresh_context()
    expected, actual = raw_reverse(ctx, seed, size), raw_reverse(ctx, seed, size)
    region_dce(expected.body)
    gradir_region_dce(actual.body)
    assert str(actual) == str(expected)


def zero_bookkeeping_program(seed: int, size: int) -> str:
    """Random reverse-mode bookkeeping: zeros, sums, nested grad_ofs, few results read."""
    rng = random.Random(seed)
    t = "tensor<4xf32>"
    counter = itertools.count()

    def block(values: list[str], depth: int, lines: list[str], indent: str) -> list[str]:
        values = list(values)
        for _ in range(rng.randint(1, size)):
            n = next(counter)
            kind = rng.random()
            if kind < 0.25:
                lines.append(f"{indent}%z{n} = autodiff.autograd_zero : {t}")
                values.append(f"%z{n}")
            elif kind < 0.6:
                a, b = rng.choice(values), rng.choice(values)
                lines.append(f"{indent}%s{n} = autodiff.autograd_add {a}, {b} : {t}")
                values.append(f"%s{n}")
            else:
                grads = [rng.choice(values) for _ in range(rng.randint(1, 2))]
                arity = rng.randint(1, 3)
                results = [f"%g{n}_{k}" for k in range(arity)]
                lines.append(
                    f"{indent}{', '.join(results)} = autodiff.grad_of \"autodiff.mul\" "
                    f"({', '.join(grads)}) : ({', '.join([t] * len(grads))}) -> "
                    f"({', '.join([t] * arity)}) {{"
                )
                arguments = [f"%d{n}_{k}" for k in range(len(grads))]
                lines.append(f"{indent}^bb0({', '.join(f'{a}: {t}' for a in arguments)}):")
                inner = values + arguments
                if depth < 2 and rng.random() < 0.5:
                    inner = block(inner, depth + 1, lines, indent + "  ")
                products = []
                for k in range(arity):
                    x, y = rng.choice(inner), rng.choice(arguments)
                    lines.append(f"{indent}  %p{n}_{k} = autodiff.mul {x}, {y} : ({t}, {t}) -> {t}")
                    products.append(f"%p{n}_{k}")
                lines.append(f"{indent}  autodiff.yield {', '.join(products)} : {', '.join([t] * arity)}")
                lines.append(f"{indent}}}")
                values += results
        return values

    lines = [f"func.func @f(%a: {t}, %b: {t}) -> ({t}, {t}) {{"]
    values = block(["%a", "%b"], 0, lines, "  ")
    read = [rng.choice(values), rng.choice(values)]
    lines.append(f"  return {', '.join(read)} : {t}, {t}")
    lines.append("}")
    return "\n".join(lines)


def specialize_zero_by_patterns(region: Region) -> None:
    """The reference: a greedy walk of the rewrite patterns that state the rules."""
    PatternRewriteWalker(
        GreedyRewritePatternApplier(list(SPECIALIZE_ZERO_PATTERNS), dce_enabled=False),
        walk_reverse=True,
    ).rewrite_region(region)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000), size=st.integers(1, 12))
def test_two_sweep_specialize_zero_is_the_pattern_fixpoint(seed: int, size: int):
    """`specialize_zero` (a forward and a backward sweep) leaves exactly what a
    greedy walk of its rewrite patterns does."""
    ctx = fresh_context()
    text = zero_bookkeeping_program(seed, size)
    expected, actual = parse_module(ctx, text), parse_module(ctx, text)
    specialize_zero_by_patterns(expected.body)
    specialize_zero(actual.body)
    assert str(actual) == str(expected)


def test_two_sweep_specialize_zero_on_the_lit_inputs():
    text = (REPO / "lit_tests/autodiff_pass/autodiff-specialize-zero.mlir").read_text()
    for chunk in text.split("// -----"):
        ctx = fresh_context()
        expected, actual = parse_module(ctx, chunk), parse_module(ctx, chunk)
        specialize_zero_by_patterns(expected.body)
        specialize_zero(actual.body)
        assert str(actual) == str(expected)


# Inputs with loops, branches, linalg bodies, calls and memory effects.
DCE_AND_CSE_INPUTS = sorted(
    path
    for folder in ("examples", "lit_tests/autodiff_pass", "lit_tests/lowering")
    for path in (REPO / folder).rglob("*.mlir")
    if "invalid" not in path.name
)


@pytest.mark.parametrize("path", DCE_AND_CSE_INPUTS, ids=lambda p: str(p.relative_to(REPO)))
def test_gradir_cse_and_dce_match_xdsl_on_every_input(path):
    """Same output as xDSL 0.74's own `cse` and `dce` on each example and lit
    input, except that gradir's `dce` also erases unused linalg ops on tensors
    (the reference erases them between rounds of xDSL's `dce`)."""
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination
    from gradir.autodiff_pass.effects import is_tensor_linalg_op
    from gradir.autodiff_pass.cse import ScopedCommonSubexpressionElimination

    ctx = fresh_context()
    for chunk in path.read_text().split("// -----"):
        try:
            expected = parse_module(ctx, chunk)
        except Exception:  # noqa: BLE001 -- inputs meant to be rejected by the parser
            continue
        actual = expected.clone()
        CommonSubexpressionElimination().apply(ctx, expected)
        while True:
            DeadCodeElimination().apply(ctx, expected)
            unused_linalg = [
                op for op in expected.walk()
                if is_tensor_linalg_op(op) and all(not result.uses for result in op.results)
            ]  # fmt: skip
            if not unused_linalg:
                break
            for op in unused_linalg:
                op.detach()
                op.erase()
        for module_pass in (ScopedCommonSubexpressionElimination(), GradirDeadCodeElimination()):
            module_pass.apply(ctx, actual)
        assert str(actual) == str(expected)


def test_autodiff_opt_runs_gradirs_cse_and_dce():
    from gradir.tools.pass_registry import GRADIR_REPLACEMENT_PASSES

    assert GRADIR_REPLACEMENT_PASSES["dce"] == ("gradir.autodiff_pass.dce", "DeadCodeElimination")
    passes = AutodiffOptMain(args=[]).available_passes
    assert passes["dce"]().__module__ == "gradir.autodiff_pass.dce"


IMPURE_AND_DEAD = """
func.func private @g() -> f32
func.func @f(%m: memref<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %i = arith.constant 0 : index
  %unused_call = func.call @g() : () -> f32
  memref.store %unused_call, %m[%i] : memref<4xf32>
  %unused_load = memref.load %m[%i] : memref<4xf32>
  %unused_exp = autodiff.exp %x : tensor<4xf32>
  %r = scf.for %k = %i to %i step %i iter_args(%acc = %x) -> (tensor<4xf32>) {
    %dead_inside = autodiff.neg %acc : tensor<4xf32>
    scf.yield %acc : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
"""


def test_gradir_dce_keeps_effects_and_removes_pure_dead_ops(ctx):
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination

    expected, actual = parse_module(ctx, IMPURE_AND_DEAD), parse_module(ctx, IMPURE_AND_DEAD)
    DeadCodeElimination().apply(ctx, expected)
    GradirDeadCodeElimination().apply(ctx, actual)
    text = str(actual)
    assert text == str(expected)
    assert "func.call @g()" in text and "memref.store" in text
    assert "unused_load" not in text and "unused_exp" not in text and "dead_inside" not in text


UNSTRUCTURED = """
func.func @f(%x: f32, %n: i1) -> f32 {
  %e = arith.addf %x, %x : f32
  %read_later = arith.negf %x : f32
  cf.br ^bb1(%e : f32)
^bb1(%v: f32):
  %w = arith.mulf %v, %v : f32
  %unused = arith.negf %x : f32
  cf.cond_br %n, ^bb1(%w : f32), ^bb2
^bb2:
  %unused_reader = arith.negf %read_later : f32
  %r = scf.execute_region -> (f32) {
    %dead_inside = arith.negf %x : f32
    cf.br ^bb3
  ^bb3:
    scf.yield %x : f32
  }
  func.return %r : f32
}
"""


def test_gradir_dce_on_multi_block_regions_is_xdsl_dce(ctx):
    """Unstructured code: the sweep, then xDSL's fixpoint, gives xDSL's result
    (a block's backward sweep cannot see that `%read_later` is dead)."""
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from gradir.autodiff_pass.dce import DeadCodeElimination as GradirDeadCodeElimination

    expected, actual = parse_module(ctx, UNSTRUCTURED), parse_module(ctx, UNSTRUCTURED)
    DeadCodeElimination().apply(ctx, expected)
    GradirDeadCodeElimination().apply(ctx, actual)
    text = str(actual)
    assert text == str(expected)
    assert "unused" not in text and "read_later" not in text and "dead_inside" not in text
    assert "cf.cond_br" in text


LOADS_AND_STORES = """
func.func @f(%m: memref<4xf32>, %x: tensor<4xf32>) -> (f32, f32, f32, tensor<4xf32>, tensor<4xf32>) {
  %i = arith.constant 0 : index
  %a = memref.load %m[%i] : memref<4xf32>
  %b = memref.load %m[%i] : memref<4xf32>
  memref.store %a, %m[%i] : memref<4xf32>
  %c = memref.load %m[%i] : memref<4xf32>
  %e1 = autodiff.exp %x : tensor<4xf32>
  %e2 = autodiff.exp %x : tensor<4xf32>
  return %a, %b, %c, %e1, %e2 : f32, f32, f32, tensor<4xf32>, tensor<4xf32>
}
"""


def test_gradir_cse_merges_pure_ops_and_respects_writes(ctx):
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

    from gradir.autodiff_pass.cse import ScopedCommonSubexpressionElimination

    expected, actual = parse_module(ctx, LOADS_AND_STORES), parse_module(ctx, LOADS_AND_STORES)
    CommonSubexpressionElimination().apply(ctx, expected)
    ScopedCommonSubexpressionElimination().apply(ctx, actual)
    text = str(actual)
    assert text == str(expected)
    assert text.count("memref.load") == 2 and text.count("autodiff.exp") == 1


def _reverse_text(text: str, reuse_bodies: bool) -> str | None:
    ctx = fresh_context()
    try:
        module = parse_module(ctx, text)
    except Exception:  # noqa: BLE001 -- inputs meant to be rejected by the parser
        return None
    option = "true" if reuse_bodies else "false"
    try:
        run_passes(ctx, module, f"autodiff-reverse{{reuse-backward-bodies={option}}},autodiff-forward")
    except Exception:  # noqa: BLE001 -- inputs whose differentiation is an error
        return None
    return str(module)


@pytest.mark.parametrize("path", DCE_AND_CSE_INPUTS, ids=lambda p: str(p.relative_to(REPO)))
def test_backward_bodies_cloned_from_templates_equal_emitted_ones(path):
    """Reverse mode clones the backward body of an op from the first op of the
    same shape: the output is the same as interpreting its formulas each time."""
    for chunk in path.read_text().split("// -----"):
        assert _reverse_text(chunk, True) == _reverse_text(chunk, False)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_backward_body_templates_on_random_programs(seed: int, size: int):
    text = random_program(seed, size)
    cloned = _reverse_text(text, True)
    assert cloned is not None and cloned == _reverse_text(text, False)


def _cleanup_pipeline_text(text: str, clean_inside_reverse: bool) -> str | None:
    """`autodiff-reverse,autodiff-forward,autodiff-specialize-zero,cse,dce` on
    `text`, optionally with reverse mode's vjp functions cleaned (CSE, unread
    gradients, DCE) right after it, as it used to do itself."""
    from gradir.autodiff_pass.derivative_functions import clean_for_differentiation

    ctx = fresh_context()
    try:
        module = parse_module(ctx, text)
        run_passes(ctx, module, "autodiff-reverse")
    except Exception:  # noqa: BLE001 -- inputs that are rejected on purpose
        return None
    if clean_inside_reverse:
        for op in module.ops:
            key = DerivativeKey.of_function(op) if isinstance(op, FuncOp) else None
            if key is not None and key.kind == "vjp":
                clean_for_differentiation(op)
    run_passes(ctx, module, "autodiff-forward,autodiff-specialize-zero,cse,dce")
    return str(module)


@pytest.mark.parametrize("path", DCE_AND_CSE_INPUTS, ids=lambda p: str(p.relative_to(REPO)))
def test_reverse_mode_leaves_cleaning_to_the_pipeline_without_loss(path):
    """`autodiff-reverse` does not clean its functions; the passes after it in
    every pipeline give the same result as cleaning inside it would."""
    for chunk in path.read_text().split("// -----"):
        assert _cleanup_pipeline_text(chunk, True) == _cleanup_pipeline_text(chunk, False)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_reverse_mode_leaves_cleaning_to_the_pipeline_on_random_programs(seed: int, size: int):
    text = random_program(seed, size)
    cleaned = _cleanup_pipeline_text(text, True)
    assert cleaned is not None and cleaned == _cleanup_pipeline_text(text, False)
