"""Public functions over tensors of dynamic shape (`tensor<?x?xf64>`) on the CPU.

An argument of dynamic shape takes an array of any size there (MLIR's run-time verification
checks that the sizes agree where the program needs them to). A result of dynamic shape is an
out-parameter the caller allocates, so each such function `f` gets a public
`__gradir_result_sizes_f` (`mlir_bridge.result_sizes`) that computes its result sizes from the
same arguments: called first, it is usually a few `memref.dim`s; where only the computation
gives a size, it runs what it needs of it. Before, any dynamic shape at a public function's
boundary was refused.
"""
import numpy as np
import pytest

import gradir
from gradir.errors import ArgumentError, NoFunctionError, RunTimeCheckError
from runtime_programs import POSITIVES

PROGRAM = """
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @scaled_sin(%x: tensor<?x?xf64>, %b: tensor<?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf64>
  %m = tensor.dim %x, %c1 : tensor<?x?xf64>
  %e = tensor.empty(%n, %m) : tensor<?x?xf64>
  %y = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x?xf64>, tensor<?xf64>) outs(%e : tensor<?x?xf64>) {
  ^bb0(%a: f64, %c: f64, %o: f64):
    %s = math.sin %a : f64
    %t = arith.mulf %s, %c : f64
    linalg.yield %t : f64
  } -> tensor<?x?xf64>
  return %y : tensor<?x?xf64>
}
func.func @ones(%n: index, %v: f32) -> (tensor<?x3xf32>, index) {
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %f, %n : tensor<?x3xf32>, index
}
""" + POSITIVES

RNG = np.random.default_rng(0)


@pytest.fixture(scope="module")
def exe():
    return gradir.compile(PROGRAM)


@pytest.mark.parametrize("shape", [(2, 3), (5, 1), (1, 7), (0, 4), (3, 0)])
def test_arguments_and_results_of_any_size(exe, shape):
    x, b = RNG.standard_normal(shape), RNG.standard_normal(shape[1])
    y = exe.scaled_sin(x, b)
    assert y.shape == shape
    np.testing.assert_allclose(y, np.sin(x) * b, rtol=1e-15)


def test_a_result_sized_by_an_argument(exe):
    for n in (0, 1, 4):
        ones, same = exe.ones(n, 2.5)
        assert ones.shape == (n, 3) and ones.dtype == np.float32 and int(same) == n
        assert np.all(ones == 2.5)


def test_a_result_sized_by_the_computation(exe):
    """The size is a count the first loop makes: the size function runs that loop."""
    for x in (np.array([1.0, -2.0, 3.0, 0.5, -0.1]), np.array([-1.0]), np.array([])):
        np.testing.assert_array_equal(exe.positives(x), x[x > 0])


def test_sizes_the_program_needs_to_agree_are_checked(exe):
    with pytest.raises(RunTimeCheckError, match=r"dimension #0 of input/output operand #1 is incompatible .*linalg.generic"):
        exe.scaled_sin(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ArgumentError, match=r"argument 0 has shape \(6,\), expected \(\?, \?\)"):
        exe.scaled_sin(np.ones(6), np.ones(4))


def test_the_size_functions_are_not_listed(exe):
    assert set(exe.signatures) == {"scaled_sin", "ones", "positives"}
    assert str(exe.signatures["ones"].results[0]) == "tensor<?x3xf32>"
    with pytest.raises(NoFunctionError, match=r"available: ones, positives, scaled_sin\)"):
        exe.scaled_cos  # noqa: B018
    assert "__gradir_result_sizes_ones" not in dir(exe)


def test_an_exported_library_computes_its_result_sizes_too(tmp_path):
    path = tmp_path / "libdynamic.so"
    gradir.export(PROGRAM, target="cpu", path=path)
    library = gradir.load(path)
    x, b = RNG.standard_normal((3, 2)), RNG.standard_normal(2)
    np.testing.assert_array_equal(library.scaled_sin(x, b), gradir.compile(PROGRAM).scaled_sin(x, b))
    np.testing.assert_array_equal(library.positives(np.array([2.0, -1.0, 4.0])), [2.0, 4.0])


GROWING_STATE = """
func.func @f(%x: tensor<?xf64>, %k: index) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.5 : f64
  %r = scf.for %i = %c0 to %k step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %n = tensor.dim %a, %c0 : tensor<?xf64>
    %n1 = arith.addi %n, %c1 : index
    %e = tensor.empty(%n1) : tensor<?xf64>
    %f = linalg.fill ins(%z : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
    %b = tensor.insert_slice %a into %f[0] [%n] [1] : tensor<?xf64> into tensor<?xf64>
    scf.yield %b : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}
"""


def test_a_loop_state_that_grows_is_a_located_run_time_error(tmp_path):
    """Valid MLIR the CPU pipeline cannot run yet (it updates a loop's state in place, in one
    buffer): the error names the loop and the cause, not MLIR's check of the copy."""
    path = tmp_path / "grow.mlir"
    path.write_text(GROWING_STATE)
    exe = gradir.compile(path)
    (same,) = exe.call("f", np.array([1.0, 2.0]), np.int64(0))  # no iteration: nothing grows
    np.testing.assert_array_equal(same, [1.0, 2.0])
    with pytest.raises(RunTimeCheckError, match=r"grow.mlir:6:3: error: .*a loop state of dynamic shape \(tensor<\?xf64>\) "
                       r"whose extents change between iterations \(scf.for\)"):  # fmt: skip
        exe.call("f", np.array([1.0, 2.0]), np.int64(3))
