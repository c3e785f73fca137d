"""`autodiff-reverse`: errors, the generated functions, rules of other
dialects, gradients against finite differences, and equivalences of its
shortcuts (backward bodies cloned from templates, cleaning left to the pipeline)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pass_support import (
    ABA_PLUS_B,
    SHAPES,
    VALID_INPUTS,
    central_difference,
    chunks,
    fresh_context,
    function,
    function_names,
    input_id,
    random_point,
    random_program,
    run_passes,
)
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue

from gradir.autodiff_pass.derivative_functions import DerivativeKey, clean_for_differentiation
from gradir.autodiff_pass.rules import register_jvp, register_vjp, registry
from gradir.autodiff_pass.split import differentiate
from gradir.dialects.autodiff import GradOfOp, MulOp
from gradir.errors import DifferentiationError
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.source import parse_module


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
# Custom rules for ops of other dialects
# ----------------------------------------------------------------------------


def test_a_registered_rule_makes_an_op_of_another_dialect_differentiable(ctx: Context, monkeypatch):
    """`mydialect.scale(x, k) = x * k` with Python rules, differentiated w.r.t. x."""
    monkeypatch.setattr(registry, "_rules", dict(registry._all_rules()))  # undone after the test

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
# Numbers on the CPU
# ----------------------------------------------------------------------------


def test_gradient_matches_finite_differences(loss_program: CpuExecutable):
    point = random_point(0)
    gradient = loss_program.grad(*point)
    for which, index in itertools.product(range(3), [0, -1]):
        direction = [np.zeros(shape) for shape in SHAPES]
        direction[which].flat[index] = 1.0
        expected = central_difference(loss_program.loss, point, direction)
        np.testing.assert_allclose(gradient[which].flat[index], expected, rtol=1e-6, atol=1e-8)


# ----------------------------------------------------------------------------
# Shortcuts that must not change the output
# ----------------------------------------------------------------------------


def _reverse_text(text: str, reuse_bodies: bool) -> str:
    """`autodiff-reverse{reuse-backward-bodies=...},autodiff-forward` on `text` (branches
    between blocks lifted first, as every pipeline does); any failure fails the test (every
    input is valid)."""
    ctx = fresh_context()
    module = parse_module(ctx, text)
    option = "true" if reuse_bodies else "false"
    run_passes(ctx, module, f"lift-control-flow,autodiff-reverse{{reuse-backward-bodies={option}}},autodiff-forward")
    return str(module)


@pytest.mark.parametrize("path", VALID_INPUTS, ids=input_id)
def test_backward_bodies_cloned_from_templates_equal_emitted_ones(path):
    """Reverse mode clones the backward body of an op from the first op of the
    same shape: the output is the same as interpreting its formulas each time."""
    for chunk in chunks(path):
        assert _reverse_text(chunk, True) == _reverse_text(chunk, False)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_backward_body_templates_on_random_programs(seed: int, size: int):
    text = random_program(seed, size)
    assert _reverse_text(text, True) == _reverse_text(text, False)


def _cleanup_pipeline_text(text: str, clean_inside_reverse: bool) -> str:
    """`lift-control-flow,autodiff-reverse,autodiff-forward,autodiff-specialize-zero,cse,dce`
    on `text`, optionally with reverse mode's vjp functions cleaned (CSE, unread
    gradients, DCE) right after it, as it used to do itself."""
    ctx = fresh_context()
    module = parse_module(ctx, text)
    run_passes(ctx, module, "lift-control-flow,autodiff-reverse")
    if clean_inside_reverse:
        for op in module.ops:
            key = DerivativeKey.of_function(op) if isinstance(op, FuncOp) else None
            if key is not None and key.kind == "vjp":
                clean_for_differentiation(op)
    run_passes(ctx, module, "autodiff-forward,autodiff-specialize-zero,cse,dce")
    return str(module)


@pytest.mark.parametrize("path", VALID_INPUTS, ids=input_id)
def test_reverse_mode_leaves_cleaning_to_the_pipeline_without_loss(path):
    """`autodiff-reverse` does not clean its functions; the passes after it in
    every pipeline give the same result as cleaning inside it would."""
    for chunk in chunks(path):
        assert _cleanup_pipeline_text(chunk, True) == _cleanup_pipeline_text(chunk, False)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), size=st.integers(1, 40))
def test_reverse_mode_leaves_cleaning_to_the_pipeline_on_random_programs(seed: int, size: int):
    text = random_program(seed, size)
    assert _cleanup_pipeline_text(text, True) == _cleanup_pipeline_text(text, False)
