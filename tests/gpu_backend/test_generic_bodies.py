"""`linalg.generic` bodies the GPU kernels clone (`loop_nests.clone_body`): an `scf.if` in the
body (a choice per element), and reads of a tensor that is not an operand (`tensor.extract`
in the body: a buffer the kernel captures), including a slice at a loop's position, whose
view the kernel must not take as an argument. Kernels run emulated on the CPU, checked
against the CPU pipeline and, for gradients, central differences."""
import numpy as np

import gradir
from gradir.gpu_backend.gpu_pipeline import compile_to_gpu
from gradir.compilation import runnable_linalg
from gradir.mlir_bridge import to_mlir_module

from test_run_time_sizes import central_differences

CHOICE_PER_ELEMENT = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @f(%x: tensor<3x4xf64>, %b: tensor<4xf64>) -> tensor<3x4xf64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<3x4xf64>, tensor<4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%v: f64, %w: f64, %o: f64):
    %i = linalg.index 0 : index
    %c1 = arith.constant 1 : index
    %first = arith.cmpi ult, %i, %c1 : index
    %big = arith.cmpf ogt, %v, %w : f64
    %y = scf.if %big -> (f64) {
      %s = math.sin %v : f64
      %m = arith.mulf %s, %w : f64
      scf.yield %m : f64
    } else {
      %q = arith.mulf %v, %v : f64
      %z = scf.if %first -> (f64) {
        scf.yield %q : f64
      } else {
        %t = arith.addf %q, %w : f64
        scf.yield %t : f64
      }
      scf.yield %z : f64
    }
    linalg.yield %y : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
func.func @df(%x: tensor<3x4xf64>, %b: tensor<4xf64>, %ct: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<4xf64>) {
  %r, %gx, %gb = autodiff.vjp @f(%x, %b, %ct) {wrt = array<i64: 0, 1>}
      : (tensor<3x4xf64>, tensor<4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>, tensor<4xf64>)
  return %gx, %gb : tensor<3x4xf64>, tensor<4xf64>
}
"""
"""Each element takes one of three formulas (nested `scf.if`s reading the point's index)."""


def choice_per_element(x, b):
    rows = np.arange(3)[:, None]
    return np.where(x > b, np.sin(x) * b, np.where(rows < 1, x * x, x * x + b))


def test_an_if_in_a_linalg_body_runs_in_the_kernel():
    program = gradir.compile(CHOICE_PER_ELEMENT, target="cuda")
    rng = np.random.default_rng(7)
    x, b, ct = rng.uniform(-1, 1, (3, 4)), rng.uniform(-0.5, 0.5, 4), rng.standard_normal((3, 4))
    (y,) = program.emulate("f", x, b)
    np.testing.assert_allclose(y, choice_per_element(x, b), rtol=1e-14)
    assert 2 <= len(np.unique(np.select([x > b, np.arange(3)[:, None] < 1], [0, 1], 2))) # every branch taken
    gx, gb = program.emulate("df", x, b, ct)
    want = central_differences(lambda x, b: program.emulate("f", x, b)[0], [x, b], ct)
    np.testing.assert_allclose(gx, want[0], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gb, want[1], rtol=1e-7, atol=1e-9)


ROW_OF_A_LOOP_STATE = """
#id = affine_map<(j) -> (j)>
func.func @f(%m: tensor<3x4xf64>, %x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %x) -> (tensor<4xf64>) {
    %row = tensor.extract_slice %m[%i, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
    %e = tensor.empty() : tensor<4xf64>
    %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%t : tensor<4xf64>) outs(%e : tensor<4xf64>) {
    ^bb0(%v: f64, %o: f64):
      %j = linalg.index 0 : index
      %k = arith.subi %c3, %j : index
      %w = tensor.extract %row[%k] : tensor<4xf64>
      %p = arith.mulf %v, %w : f64
      %s = math.sin %p : f64
      linalg.yield %s : f64
    } -> tensor<4xf64>
    scf.yield %n : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
"""
"""The body reads the loop's row of `m` backwards: a slice at the loop's offset, which the
kernel reads through the whole buffer (`reroute_through_views`; a view with a run-time
offset is not a bare pointer, and NVVM refused the kernel)."""


def test_a_body_reading_a_slice_at_a_loops_offset():
    program = gradir.compile(ROW_OF_A_LOOP_STATE, target="cuda")
    rng = np.random.default_rng(3)
    m, x = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, 4)
    want = x
    for i in range(3):
        want = np.sin(want * m[i, ::-1])
    np.testing.assert_allclose(program.emulate("f", m, x)[0], want, rtol=1e-14)
    # The kernel reads m itself at the row's offset (an index argument), not a rebuilt view.
    assert "extract_strided_metadata" not in program.launch_ir


EPILOGUE_WITH_A_CAPTURE = """
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4x8xf64>, %z: tensor<4xf64>) -> tensor<4xf64> {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<4xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e0 : tensor<4xf64>) -> tensor<4xf64>
  %r = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf64>) outs(%init : tensor<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %e1 = tensor.empty() : tensor<4xf64>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<4xf64>) outs(%e1 : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %s = math.sin %a : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %e2 = tensor.empty() : tensor<4xf64>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<4xf64>) outs(%e2 : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %i = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %j = arith.subi %c3, %i : index
    %v = tensor.extract %y[%j] : tensor<4xf64>
    %m = arith.mulf %a, %v : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  return %c : tensor<4xf64>
}
"""
"""`%c` reads the row sums elementwise (an epilogue of the reduction) and `%y`, computed
after the reduction, through its body: it must not move into the reduction's kernel (it did,
and MLIR refused the IR: `%y`'s buffer was used before it was made)."""


def test_an_elementwise_op_capturing_a_later_buffer_is_not_an_epilogue():
    program = gradir.compile(EPILOGUE_WITH_A_CAPTURE, target="cuda")
    rng = np.random.default_rng(5)
    x, z = rng.standard_normal((4, 8)), rng.standard_normal(4)
    np.testing.assert_allclose(program.emulate("f", x, z)[0], x.sum(axis=1) * np.sin(z)[::-1], rtol=1e-13)
    assert len(program.kernels_of("f")) == 3


EPILOGUE_WITH_AN_OPERAND = EPILOGUE_WITH_A_CAPTURE[: EPILOGUE_WITH_A_CAPTURE.index("  %e2 =")] + """\
  %e2 = tensor.empty() : tensor<4xf64>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%r, %y : tensor<4xf64>, tensor<4xf64>) outs(%e2 : tensor<4xf64>) {
  ^bb0(%a: f64, %v: f64, %o: f64):
    %m = arith.mulf %a, %v : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  return %c : tensor<4xf64>
}
"""
"""The same product with `%y` an operand: `%y` fuses into `%c` and `%c` into the reduction."""


def test_an_epilogue_without_a_capture_still_fuses():
    program = gradir.compile(EPILOGUE_WITH_AN_OPERAND, target="cuda")
    x, z = np.random.default_rng(5).standard_normal((4, 8)), np.linspace(-1, 1, 4)
    np.testing.assert_allclose(program.emulate("f", x, z)[0], x.sum(axis=1) * np.sin(z), rtol=1e-13)
    assert program.kernels_of("f") == ["f_0_reduce"]


def test_the_stage_two_ir_of_an_if_in_a_body():
    text = str(compile_to_gpu(to_mlir_module(str(runnable_linalg(CHOICE_PER_ELEMENT))), stop_after="outline"))
    kernel = text[text.index("gpu.func @f_"):]
    kernel = kernel[: kernel.index("gpu.return")]
    assert kernel.count("scf.if") >= 3  # the bounds guard and the two choices


MARKED_REDUCTION_INDEXED_BY_THE_OUTPUT = """
func.func @f(%x: tensor<3x4xf64>, %o: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%o : tensor<4x3xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %s = math.sin %v : f64
    linalg.yield %s : f64
  } -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}
func.func @df(%x: tensor<3x4xf64>, %o: tensor<4x3xf64>, %ct: tensor<4x3xf64>) -> tensor<3x4xf64> {
  %r, %g = autodiff.vjp @f(%x, %o, %ct) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x4xf64>)
  return %g : tensor<3x4xf64>
}
"""


def test_a_loop_marked_reduction_that_the_output_indexes_is_parallel():
    """IREE's tests write transposes with a "reduction" loop the output indexes: each output
    element is written once. The GPU mapping took it for a reduction and crashed (an
    internal ValueError building a load without an index)."""
    program = gradir.compile(MARKED_REDUCTION_INDEXED_BY_THE_OUTPUT, target="cuda")
    rng = np.random.default_rng(11)
    x, o, ct = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 3)), rng.standard_normal((4, 3))
    (y,) = program.emulate("f", x, o)
    np.testing.assert_allclose(y, np.sin(x).T, rtol=1e-14)
    (g,) = program.emulate("df", x, o, ct)
    np.testing.assert_allclose(g, np.cos(x) * ct.T, rtol=1e-13)


CHECKS_ONLY = """
func.func @f(%x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %c4 = arith.constant 4 : i64
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<4xi64>) {
  ^bb0(%in: i64):
    %ok = arith.cmpi slt, %in, %c4 : i64
    cf.assert %ok, "index must be smaller than dim size"
    linalg.yield
  }
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %a : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_a_generic_without_outputs_is_mapped():
    """A generic left only to check its inputs (torch-mlir asserts each gathered index in
    one; corpus torchmlir_gather's vjp): the mapping ordered its loops by an output it does
    not have (an internal IndexError)."""
    x = np.arange(4, dtype=np.float32)
    (got,) = gradir.compile(CHECKS_ONLY, target="cuda").emulate("f", x, np.array([0, 1, 2, 3]))
    np.testing.assert_array_equal(got, x * x)
