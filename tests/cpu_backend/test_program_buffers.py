"""Programs that compute in buffers of their own, as MLIR's and Enzyme's tests write them: an
`affine.for` storing to and loading from a `memref.alloc` at its induction variable, freed
by the program's `memref.dealloc`. Two things stopped them: xDSL 0.74 read `%m[%i]` with `%i`
a symbol (`()[s0] -> (s0)`), which MLIR 22 refuses for a loop's induction variable
("operand cannot be used as a symbol"), and MLIR's buffer deallocation refuses a program
that frees a buffer itself ("memory free side-effect on MemRef value not supported!"). The
values against NumPy, and the derivative (the buffer holds no derivative: it is a table
the differentiated value is scaled by) by `gradcheck`."""
import numpy as np

import gradir
from gradir.source import load_module

PROGRAM = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %table = memref.alloc() : memref<5xf64>
  affine.for %i = 0 to 5 {
    %k = arith.index_cast %i : index to i64
    %v = arith.sitofp %k : i64 to f64
    affine.store %v, %table[%i] : memref<5xf64>
  }
  %sum = affine.for %i = 1 to 5 iter_args(%acc = %x) -> (tensor<3xf64>) {
    %previous = affine.load %table[%i - 1] : memref<5xf64>
    %this = affine.load %table[%i] : memref<5xf64>
    %w = arith.mulf %previous, %this : f64
    %e = tensor.empty() : tensor<3xf64>
    %next = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>], iterator_types = ["parallel"]} ins(%acc : tensor<3xf64>) outs(%e : tensor<3xf64>) {
    ^bb0(%a: f64, %o: f64):
      %s = math.sin %a : f64
      %t = arith.mulf %s, %w : f64
      %u = arith.addf %t, %a : f64
      linalg.yield %u : f64
    } -> tensor<3xf64>
    affine.yield %next : tensor<3xf64>
  }
  memref.dealloc %table : memref<5xf64>
  return %sum : tensor<3xf64>
}
"""


def numpy_f(x):
    table = np.arange(5.0)
    for i in range(1, 5):
        x = np.sin(x) * (table[i - 1] * table[i]) + x
    return x


def test_affine_indices_are_dimensions_as_mlir_reads_them():
    loads = [op for op in load_module(PROGRAM).walk() if op.name == "affine.load"]
    assert [str(op.properties["map"].data) for op in loads] == ["(d0) -> ((d0 + -1))", "(d0) -> (d0)"]


def test_a_program_computing_in_its_own_buffer_runs_and_is_differentiated():
    x = np.array([0.3, -0.5, 0.8]) * 0.1
    np.testing.assert_allclose(gradir.compile(PROGRAM, target="cpu").f(x), numpy_f(x), rtol=1e-12)
    result = gradir.gradcheck(PROGRAM, "f", wrt=[0], inputs=[x])
    assert all(check.ok and not check.vacuous for check in result.checks), result
