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


def _loop_activity(ctx: Context, text: str, wrt: list[int]):
    module = parse_module(ctx, text)
    f = function(module, "f")
    block = f.body.block
    return f, analyze_activity(block, [f.args[i] for i in wrt], block.last_op.operands)


def test_loop_state_varied_only_through_a_value_read_inside(ctx: Context):
    """The initial value is a constant; the body reads the varied w from outside."""
    f, activity = _loop_activity(ctx, """
        func.func @f(%w: f64) -> f64 {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c3 = arith.constant 3 : index
          %one = arith.constant 1.0 : f64
          %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %one) -> f64 {
            %m = arith.mulf %a, %w : f64
            scf.yield %m : f64
          }
          return %y : f64
        }
        """, [0])  # fmt: skip
    loop = next(op for op in f.body.block.ops if op.name == "scf.for")
    assert activity.is_active(loop.results[0])
    assert activity.is_active(loop.body.block.args[1])
    assert activity.active_positions(loop) == [0]


def test_a_float_from_an_integer_inside_a_loop_is_inactive(ctx: Context):
    f, activity = _loop_activity(ctx, """
        func.func @f(%x: f64) -> f64 {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c3 = arith.constant 3 : index
          %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> f64 {
            %ii = arith.index_cast %i : index to i64
            %fi = arith.sitofp %ii : i64 to f64
            %m = arith.mulf %a, %fi : f64
            scf.yield %m : f64
          }
          return %y : f64
        }
        """, [0])  # fmt: skip
    loop = next(op for op in f.body.block.ops if op.name == "scf.for")
    cast, sitofp, mul, _ = loop.body.block.ops
    assert not activity.is_active_op(cast) and not activity.is_active_op(sitofp)
    assert activity.is_active_op(mul)


def test_while_loop_activity_flows_through_both_regions(ctx: Context):
    """The counter is never active; the float state is active in both regions;
    a float state computed only from constants (the decay) is inactive."""
    f, activity = _loop_activity(ctx, """
        func.func @f(%x: f64) -> f64 {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %c10 = arith.constant 10 : index
          %half = arith.constant 0.5 : f64
          %r:3 = scf.while (%i = %c0, %a = %x, %d = %half) : (index, f64, f64) -> (index, f64, f64) {
            %go = arith.cmpi slt, %i, %c10 : index
            scf.condition(%go) %i, %a, %d : index, f64, f64
          } do {
          ^bb0(%j: index, %b: f64, %e: f64):
            %n = arith.addi %j, %c1 : index
            %m = arith.mulf %b, %e : f64
            %e2 = arith.mulf %e, %e : f64
            scf.yield %n, %m, %e2 : index, f64, f64
          }
          return %r#1 : f64
        }
        """, [0])  # fmt: skip
    loop = next(op for op in f.body.block.ops if op.name == "scf.while")
    before, after = loop.before_region.block, loop.after_region.block
    assert activity.active_positions(loop) == [1]
    assert activity.is_active(before.args[1]) and activity.is_active(after.args[1])
    assert not activity.is_active(before.args[2]) and not activity.is_active(after.args[2])
    assert not activity.is_active(loop.results[0])


def test_affine_for_is_a_loop(ctx: Context):
    f, activity = _loop_activity(ctx, """
        func.func @f(%x: f64) -> f64 {
          %one = arith.constant 1.0 : f64
          %y = affine.for %i = 0 to 4 iter_args(%a = %one) -> (f64) {
            %m = arith.mulf %a, %x : f64
            affine.yield %m : f64
          }
          return %y : f64
        }
        """, [0])  # fmt: skip
    loop = next(op for op in f.body.block.ops if op.name == "affine.for")
    assert activity.active_positions(loop) == [0]
    assert activity.is_active(loop.body.block.args[1])
