"""Rules of the tensor ops added for "Real MLIR II" (gather, scatter, generate, pad,
reshape) and of bufferization ops on tensors: what each declares, which ops need
none because they never carry a derivative (tensor.dim, tensor.empty, rank,
alloc_tensor without a copy, to_tensor of a memref), and the located errors
(dynamic padding, a bitcast or a memref made of an active tensor). The numbers
are checked in tests/numerics/test_tensor_ops.py."""

from __future__ import annotations

import pytest

from gradir.autodiff_pass.rules import registry
from gradir.compilation import lower_to_linalg
from gradir.errors import DifferentiationError

WRAP = """
func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = autodiff.grad @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
func.func @h(%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<f32> {
  %r, %dr = autodiff.jvp @f(%x, %t) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<f32>, tensor<f32>)
  return %dr : tensor<f32>
}"""


@pytest.mark.parametrize(
    "name, differentiable",
    [("tensor.gather", (0,)), ("tensor.scatter", (0, 1)), ("tensor.reshape", (0,)),
     ("tensor.pad", (0,)), ("tensor.generate", ()), ("bufferization.materialize_in_destination", (0,))],
)  # fmt: skip
def test_rules_and_what_they_differentiate(name, differentiable):
    rule = registry.get_rule(name)
    assert rule is not None and rule.reverse is not None and rule.forward is not None
    for index in range(3):
        assert rule.differentiates(index) == (index in differentiable), index


def test_region_ops_account_for_captured_values():
    assert registry.get_rule("tensor.generate").captures
    assert registry.get_rule("tensor.pad").captures


@pytest.mark.parametrize("name", ["tensor.dim", "tensor.empty", "tensor.rank", "bufferization.to_tensor"])
def test_ops_that_never_carry_a_derivative_have_no_rule(name):
    assert registry.get_rule(name) is None


INACTIVE = """
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<4xf32>
  %r = tensor.rank %x : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = bufferization.alloc_tensor() : tensor<4xf32>
  %m = memref.alloc() : memref<4xf32>
  %t = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  %i = arith.index_cast %n : index to i64
  %f = arith.sitofp %i : i64 to f32
  %p = arith.mulf %x, %x : tensor<4xf32>
  %q = arith.addf %p, %t : tensor<4xf32>
  %w = tensor.insert %f into %q[%r] : tensor<4xf32>
  %s = autodiff.sum %w : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}"""


def test_dim_rank_empty_alloc_and_to_tensor_are_never_an_error():
    """An index from tensor.dim/rank, a fresh tensor, a memref's contents: none
    carries a derivative, so none needs a rule on the active path."""
    module = lower_to_linalg(INACTIVE + WRAP)
    names = {op.name for op in module.walk()}
    assert "autodiff.grad" not in names and "linalg.generic" in names


@pytest.mark.parametrize(
    "body, message",
    [
        (
            """  %b = tensor.bitcast %x : tensor<4xf32> to tensor<4xi32>
  %c = tensor.bitcast %b : tensor<4xi32> to tensor<4xf32>
  %s = autodiff.sum %c : tensor<4xf32> -> tensor<f32>""",
            "'tensor.bitcast' reinterprets the bits of %x",
        ),
        (
            """  %m = bufferization.to_buffer %x : tensor<4xf32> to memref<4xf32>
  %c = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  %s = autodiff.sum %c : tensor<4xf32> -> tensor<f32>""",
            "'bufferization.to_buffer' turns %x, which carries a derivative, into a memref",
        ),
    ],
    ids=["bitcast", "to_buffer"],
)
def test_located_errors(body, message):
    text = (
        f"""
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {{
  %n = arith.constant 1 : index
{body}
  return %s : tensor<f32>
}}"""
        + WRAP
    )
    with pytest.raises(DifferentiationError, match=r"<string>:\d+:\d+: error: .*" + message.replace("(", r"\(")):
        lower_to_linalg(text)
