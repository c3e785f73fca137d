"""The rules of linalg named ops and tensor ops (rules/linalg.py,
rules/tensor.py): which ops have them, what each declares (the f/df split
captures only the declared values), what they return for operands that get
no gradient, and their located errors. Their numbers are checked in
tests/numerics/test_linalg_tensor_ops.py."""
from __future__ import annotations

import pytest
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.rules import linalg as linalg_rules
from gradir.autodiff_pass.rules import registry
from gradir.autodiff_pass.split import differentiate
from gradir.tools.autodiff_opt import AutodiffOptMain
from gradir.source import parse_module

LINALG_OPS = (
    "linalg.matmul", "linalg.transpose", "linalg.broadcast", "linalg.fill", "linalg.copy",
    "linalg.reduce", *linalg_rules.ELEMENTWISE_SCALAR_OPS,
)  # fmt: skip
TENSOR_OPS = (
    "tensor.extract_slice", "tensor.insert_slice", "tensor.extract", "tensor.insert",
    "tensor.expand_shape", "tensor.collapse_shape", "tensor.cast", "tensor.concat",
    "tensor.from_elements", "tensor.splat",
)  # fmt: skip


@pytest.fixture
def ctx() -> Context:
    return AutodiffOptMain(args=[]).ctx


@pytest.mark.parametrize("name", LINALG_OPS + TENSOR_OPS)
def test_every_op_has_a_reverse_and_a_forward_rule(name):
    rule = registry.get_rule(name)
    assert rule is not None and rule.reverse is not None and rule.forward is not None


@pytest.mark.parametrize("name", list(linalg_rules.ELEMENTWISE_SCALAR_OPS))
def test_elementwise_named_ops_declare_what_their_scalar_rule_reads(name):
    """The named op runs its scalar op's formulas, so it must save the same
    operands and results (its extra `outs` operand is never read)."""
    named = registry.get_rule(name)
    scalar = registry.get_rule(linalg_rules.ELEMENTWISE_SCALAR_OPS[name])
    assert (named.differentiable_inputs, named.saved_inputs, named.saved_outputs) == (
        scalar.differentiable_inputs,
        scalar.saved_inputs,
        scalar.saved_outputs,
    )


def test_tensor_empty_needs_no_rule(ctx):
    """tensor.empty has no operands, so it is never active, even as the init
    of an active op."""
    assert registry.get_rule("tensor.empty") is None
    module = parse_module(ctx, """
func.func @f(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x4xf32>) outs(%e : tensor<4x3xf32>) permutation = [1, 0]
  return %t : tensor<4x3xf32>
}""")
    gradient = differentiate(module, "f")
    module.verify()
    assert gradient.df_input_captured_inputs == () and gradient.df_input_captured_outputs == ()


# ----------------------------------------------------------------------------
# What the f/df split captures
# ----------------------------------------------------------------------------


def test_matmul_backward_captures_a_and_b_not_the_init(ctx):
    module = parse_module(ctx, """
func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>, %c: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}""")
    gradient = differentiate(module, "f")
    module.verify()
    assert gradient.df_input_captured_inputs == (0, 1)
    assert gradient.df_input_captured_outputs == ()
    assert gradient.df_output_vjps == (0, 1, 2)


def test_linear_ops_capture_nothing(ctx):
    """Transpose, broadcast, fill, copy, slices, reshapes and concat read only
    static shapes: their backward needs none of the primal's values."""
    module = parse_module(ctx, """
func.func @f(%x: tensor<2x6xf32>, %v: tensor<3xf32>, %c: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
  %k = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x2x3xf32> into tensor<4x3xf32>
  %s = tensor.extract_slice %k[1, 0] [2, 3] [1, 1] : tensor<4x3xf32> to tensor<2x3xf32>
  %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%c : tensor<2x3xf32>) dimensions = [0]
  %p = linalg.add ins(%s, %b : tensor<2x3xf32>, tensor<2x3xf32>) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  %q = linalg.copy ins(%p : tensor<2x3xf32>) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  %j = tensor.concat dim(0) %q, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %i = tensor.insert_slice %q into %j[2, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x3xf32>
  return %i : tensor<4x3xf32>
}""")
    gradient = differentiate(module, "f", wrt=[0, 1])
    module.verify()
    assert gradient.df_input_captured_inputs == ()
    assert gradient.df_input_captured_outputs == ()


def test_dynamic_offsets_and_indices_are_captured_but_not_the_sliced_tensor(ctx):
    """The backward of extract_slice/extract/insert re-reads their index
    operands; the source tensors themselves are not needed (only mulf's
    operands are)."""
    module = parse_module(ctx, """
func.func @f(%xs: tensor<6x4xf32>, %i: index, %y: tensor<2x4xf32>) -> tensor<6x4xf32> {
  %x = tensor.extract_slice %xs[%i, 0] [2, 4] [1, 1] : tensor<6x4xf32> to tensor<2x4xf32>
  %m = arith.mulf %x, %y : tensor<2x4xf32>
  %c1 = arith.constant 1 : index
  %v = tensor.extract %m[%c1, %i] : tensor<2x4xf32>
  %w = math.sin %v : f32
  %z = tensor.insert %w into %xs[%i, %c1] : tensor<6x4xf32>
  return %z : tensor<6x4xf32>
}""")
    gradient = differentiate(module, "f", wrt=[0, 2])
    module.verify()
    assert gradient.df_input_captured_inputs == (1, 2)  # %i and %y, not %xs
    captured = [str(arg.type) for arg in gradient.df.args]
    assert captured.count("index") == 1


# ----------------------------------------------------------------------------
# The rules called directly
# ----------------------------------------------------------------------------


def _op(ctx, text: str, name: str) -> Operation:
    module = parse_module(ctx, text)
    function = next(op for op in module.ops if isinstance(op, FuncOp))
    return next(op for op in function.walk() if op.name == name)


def _vjp(op: Operation) -> list:
    """Run the rule of `op` with block arguments as output gradients."""
    block = Block(arg_types=[result.type for result in op.results])
    rule = registry.get_rule(op.name)
    return rule.emit_vjp(Builder(InsertPoint.at_end(block)), op, list(block.args))


def test_overwritten_inits_and_index_operands_get_no_gradient(ctx):
    fill = _op(ctx, """
func.func @f(%v: f32, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %f = linalg.fill ins(%v : f32) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %f : tensor<2x3xf32>
}""", "linalg.fill")
    value, init = _vjp(fill)
    assert str(value.type) == "f32" and init is None
    exp = _op(ctx, """
func.func @f(%x: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %e = linalg.exp ins(%x : tensor<3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %e : tensor<3xf32>
}""", "linalg.exp")
    gradient, init = _vjp(exp)
    assert str(gradient.type) == "tensor<3xf32>" and init is None
    select = _op(ctx, """
func.func @f(%k: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %s = linalg.select ins(%k, %x, %y : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}""", "linalg.select")
    condition, on_true, on_false, init = _vjp(select)
    assert condition is None and init is None and on_true is not None and on_false is not None
    sliced = _op(ctx, """
func.func @f(%x: tensor<6xf32>, %i: index, %n: index) -> tensor<2xf32> {
  %s = tensor.extract_slice %x[%i] [2] [%n] : tensor<6xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}""", "tensor.extract_slice")
    gradient, offset, stride = _vjp(sliced)
    assert str(gradient.type) == "tensor<6xf32>" and offset is None and stride is None
    assert gradient.owner.operands[2:] == (sliced.operands[1], sliced.operands[2])


MAPPED_MATMUL = """
func.func @f(%a: tensor<{a}xf32>, %b: tensor<{b}xf32>, %c: tensor<3x3xf32>) -> tensor<3x3xf32> {{
  %m = "linalg.matmul"(%a, %b, %c) <{{operandSegmentSizes = array<i32: 2, 1>, indexing_maps = [affine_map<(d0, d1, d2) -> {maps[0]}>, affine_map<(d0, d1, d2) -> {maps[1]}>, affine_map<(d0, d1, d2) -> {maps[2]}>]}}> ({{
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }}) : (tensor<{a}xf32>, tensor<{b}xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %m : tensor<3x3xf32>
}}"""


def test_matmul_reading_a_transposed_gives_gradients_of_the_stored_shapes(ctx):
    matmul = _op(ctx, MAPPED_MATMUL.format(a="5x3", b="5x3", maps=("(d2, d0)", "(d2, d1)", "(d0, d1)")), "linalg.matmul")
    grad_a, grad_b, grad_c = _vjp(matmul)
    assert [str(g.type) for g in (grad_a, grad_b, grad_c)] == ["tensor<5x3xf32>", "tensor<5x3xf32>", "tensor<3x3xf32>"]


def test_matmul_with_other_indexing_maps_goes_through_its_generic_view(ctx):
    """Writing C transposed is not a layout the matmul formulas know: A and B
    get one adjoint generic each (the op's generic view), C the gradient itself."""
    matmul = _op(ctx, MAPPED_MATMUL.format(a="3x5", b="5x3", maps=("(d0, d2)", "(d2, d1)", "(d1, d0)")), "linalg.matmul")
    grad_a, grad_b, grad_c = _vjp(matmul)
    assert [str(g.type) for g in (grad_a, grad_b, grad_c)] == ["tensor<3x5xf32>", "tensor<5x3xf32>", "tensor<3x3xf32>"]
    assert grad_a.owner.name == grad_b.owner.name == "linalg.generic"
