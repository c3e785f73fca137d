"""Activity analysis: which ops are differentiated (a value must depend on a
wrt argument and reach a differentiated result; masks carry no derivative)."""
from __future__ import annotations

from pass_support import function, run_passes
from xdsl.context import Context

from gradir.autodiff_pass.activity import analyze_activity
from gradir.dialects.autodiff import GradOfOp
from gradir.source import parse_module


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
