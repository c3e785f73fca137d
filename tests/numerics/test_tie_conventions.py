"""Derivatives at kinks and ties follow PyTorch eager (DESIGN.md section 3.1):
relu'(0) = 0, abs'(0) = 0, maximum/minimum ties split the gradient in half,
`max` shares it evenly among tied maxima."""
import numpy as np
import pytest

import gradir

VJP_OF_UNARY = """
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {{
  %r = autodiff.{op} %x : tensor<4xf64>
  func.return %r : tensor<4xf64>
}}
func.func @df(%x: tensor<4xf64>, %g: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {{
  %r, %dx = autodiff.vjp @f(%x, %g) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  func.return %r, %dx : tensor<4xf64>, tensor<4xf64>
}}
"""


@pytest.mark.parametrize(
    "op, expected",
    [("relu", [0.0, 1.0, 0.0, 1.0]), ("abs", [0.0, 1.0, -1.0, 1.0])],
)
def test_kink_at_zero(op, expected):
    exe = gradir.compile(VJP_OF_UNARY.format(op=op))
    _, dx = exe.df(np.array([0.0, 2.0, -3.0, 0.5]), np.ones(4))
    np.testing.assert_array_equal(dx, expected)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_binary_tie_splits_in_half(op):
    source = f"""
    func.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {{
      %r = autodiff.{op} %x, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
      func.return %r : tensor<3xf64>
    }}
    func.func @df(%x: tensor<3xf64>, %y: tensor<3xf64>, %g: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {{
      %r, %dx, %dy = autodiff.vjp @f(%x, %y, %g) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
      func.return %dx, %dy : tensor<3xf64>, tensor<3xf64>
    }}
    """
    x = np.array([1.0, 2.0, 5.0])
    y = np.array([1.0, 3.0, 4.0])
    g = np.array([2.0, 2.0, 2.0])
    dx, dy = gradir.compile(source).df(x, y, g)
    x_wins = [1.0, 0.0, 2.0] if op == "maximum" else [1.0, 2.0, 0.0]
    np.testing.assert_array_equal(dx, x_wins)
    np.testing.assert_array_equal(dy, [2.0 - v for v in x_wins])


def test_max_reduction_shares_among_tied_maxima():
    source = """
    func.func @f(%x: tensor<2x4xf64>) -> tensor<2xf64> {
      %r = autodiff.max %x {dims = array<i64: 1>} : tensor<2x4xf64> -> tensor<2xf64>
      func.return %r : tensor<2xf64>
    }
    func.func @df(%x: tensor<2x4xf64>, %g: tensor<2xf64>) -> tensor<2x4xf64> {
      %r, %dx = autodiff.vjp @f(%x, %g) : (tensor<2x4xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2x4xf64>)
      func.return %dx : tensor<2x4xf64>
    }
    """
    x = np.array([[1.0, 3.0, 3.0, 0.0], [7.0, 7.0, 7.0, 7.0]])
    dx = gradir.compile(source).df(x, np.array([1.0, 2.0]))
    np.testing.assert_allclose(dx, [[0.0, 0.5, 0.5, 0.0], [0.5, 0.5, 0.5, 0.5]])
