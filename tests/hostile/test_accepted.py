"""Inputs that look hostile but are valid, and work: the other half of the contract."""
from __future__ import annotations

import numpy as np

import gradir

PRIVATE = """\
func.func private @f(%x: tensor<2xf64>) -> tensor<f64> {
  %s = autodiff.sum %x : tensor<2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""


def test_gradcheck_checks_a_private_function():
    """gradcheck calls the function it checks, so it makes it public in its own copy (it
    said "no public function 'f'" and listed its own wrappers)."""
    assert gradir.gradcheck(PRIVATE, "f").ok


def test_a_file_with_no_op_is_an_empty_module(tmp_path):
    """As for mlir-opt (xDSL 0.74 says `Could not parse entire input!`)."""
    (tmp_path / "e.mlir").write_text("// only a comment\n")
    exe = gradir.compile(tmp_path / "e.mlir")
    assert exe.signatures == {}


def test_a_quoted_symbol_name_is_gradchecked():
    quoted = PRIVATE.replace("private @f", '@"my loss"')
    assert gradir.gradcheck(quoted, "my loss").ok


def test_numpy_integer_indices_are_integers():
    program = PRIVATE.replace("private ", "")
    assert gradir.gradcheck(program, "f", wrt=np.array([0])).ok
    assert gradir.gradcheck(program, "f", wrt=[np.int64(0)], eps=np.float32(1e-6)).ok


NESTED_TRAITS = """\
#pointwise = {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
func.func @f(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic #pointwise ins(%x : tensor<3xf32>) outs(%y : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = tensor.empty() : tensor<3xf32>
    %inner = linalg.generic #pointwise ins(%y : tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%c: f32, %d: f32):
      linalg.yield %c : f32
    } -> tensor<3xf32>
    linalg.yield %a : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
"""


def test_a_generic_with_a_trait_nested_in_another_parses():
    """The inner generic's trait handling removed the outer's: an internal error (fuzz, seed 11251)."""
    from gradir.source import load_module

    module = load_module(NESTED_TRAITS)
    assert [op.name for op in module.walk()].count("linalg.generic") == 2
