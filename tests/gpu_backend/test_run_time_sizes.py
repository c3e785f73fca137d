"""Buffers sized at run time on the GPU: the tape a reverse loop keeps over a trip count
known only when the loop has run (`scf.for` to an argument, `scf.while`). The device
allocates it at its run-time size, and a kernel takes it as its base pointer and its sizes
(the bare-pointer convention passes a pointer only) and rebuilds it
(`map_to_gpu._bare_pointer_buffers`); an op over a run-time number of elements gets a grid
sized on the host (`run_time_mapping`). The gradients run with the kernels emulated on the
CPU and are checked against central differences of the function run the same way."""
import pathlib
import shutil

import numpy as np
import pytest

import gradir
from gradir.compilation import runnable_linalg
from gradir.gpu_backend.gpu_pipeline import compile_to_gpu
from gradir.gpu_backend.gpu_report import format_reports, kernel_reports
from gradir.gpu_backend.ptx import assemble
from gradir.mlir_bridge import to_mlir_module

from test_gpu_cuda_program import RecordingDriver

ROWS_OF_A_LOOP = """
func.func @f(%x: tensor<4xf64>, %w: tensor<4xf64>, %n: index) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> (tensor<4xf64>) {
    %p = arith.mulf %t, %w : tensor<4xf64>
    %v = math.sin %p : tensor<4xf64>
    %s = arith.addf %v, %t : tensor<4xf64>
    scf.yield %s : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
func.func @df(%x: tensor<4xf64>, %w: tensor<4xf64>, %n: index, %ct: tensor<4xf64>)
    -> (tensor<4xf64>, tensor<4xf64>) {
  %r, %gx, %gw = autodiff.vjp @f(%x, %w, %n, %ct) {wrt = array<i64: 0, 1>}
      : (tensor<4xf64>, tensor<4xf64>, index, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
  return %gx, %gw : tensor<4xf64>, tensor<4xf64>
}
"""
"""Its reverse keeps a tape of `n` rows, `memref<?x4xf64>`, written and read by kernels."""

WHILE_BELOW_A_LIMIT = """
func.func @f(%x: tensor<6xf64>, %s: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %limit = arith.constant 2.5 : f64
  %r:2 = scf.while (%i = %c0, %acc = %s) : (index, f64) -> (index, f64) {
    %more = arith.cmpi slt, %i, %c6 : index
    %below = arith.cmpf olt, %acc, %limit : f64
    %go = arith.andi %more, %below : i1
    scf.condition(%go) %i, %acc : index, f64
  } do {
  ^bb0(%j: index, %a: f64):
    %e = tensor.extract %x[%j] : tensor<6xf64>
    %m = arith.mulf %a, %e : f64
    %q = math.sin %m : f64
    %n = arith.addf %a, %q : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %n : index, f64
  }
  return %r#1 : f64
}
func.func @df(%x: tensor<6xf64>, %s: f64, %ct: f64) -> (tensor<6xf64>, f64) {
  %r, %gx, %gs = autodiff.vjp @f(%x, %s, %ct) {wrt = array<i64: 0, 1>}
      : (tensor<6xf64>, f64, f64) -> (f64, tensor<6xf64>, f64)
  return %gx, %gs : tensor<6xf64>, f64
}
"""
"""A data-dependent trip count: the tape (`memref<?xf64>`, `memref<?xindex>`) is sized by
the count the forward loop ran, a host index."""


def central_differences(f, arrays: list[np.ndarray], cotangent, eps: float = 1e-6) -> list[np.ndarray]:
    """<cotangent, df/da> for each array a, by central differences of `f(*arrays)`."""
    gradients = []
    for k, array in enumerate(arrays):
        gradient = np.zeros_like(array, dtype=np.float64)
        for index in np.ndindex(np.shape(array)):
            moved = [np.array(a, dtype=np.float64, copy=True) for a in arrays]
            moved[k][index] += eps
            up = np.asarray(f(*moved), dtype=np.float64)
            moved[k][index] -= 2 * eps
            down = np.asarray(f(*moved), dtype=np.float64)
            gradient[index] = np.sum(cotangent * (up - down)) / (2 * eps)
        gradients.append(gradient)
    return gradients


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_tape_of_run_time_length_on_the_gpu(n):
    program = gradir.compile(ROWS_OF_A_LOOP, target="cuda")
    rng = np.random.default_rng(n)
    x, w, ct = rng.uniform(-1.0, 1.0, 4), rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
    gx, gw = program.emulate("df", x, w, n, ct)
    want = central_differences(lambda x, w: program.emulate("f", x, w, n)[0], [x, w], ct)
    np.testing.assert_allclose(gx, want[0], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gw, want[1], rtol=1e-7, atol=1e-9)
    if n:  # a check that could not tell a gradient from the identity proves little
        assert not np.allclose(gx, ct)


def test_a_while_loops_tape_is_sized_by_the_iterations_it_ran():
    program = gradir.compile(WHILE_BELOW_A_LIMIT, target="cuda")
    x, s, ct = np.array([0.9, 1.2, 0.4, 1.5, 0.7, 1.1]), 0.6, 1.3
    value = program.emulate("f", x, s)[0]
    assert 0.6 < value and np.isfinite(value)
    gx, gs = program.emulate("df", x, s, ct)
    want_x, want_s = central_differences(lambda x, s: program.emulate("f", x, float(s))[0], [x, np.array(s)], ct)
    np.testing.assert_allclose(gx, want_x, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gs, want_s, rtol=1e-7, atol=1e-9)
    assert np.count_nonzero(gx) >= 2 and np.count_nonzero(gx) < 6  # the loop stopped early
    for got, want in zip(program.emulate("df", x, s, ct), gradir.compile(WHILE_BELOW_A_LIMIT).call("df", x, s, ct)):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_kernels_take_a_run_time_sized_buffer_as_its_base_and_sizes():
    linalg = str(runnable_linalg(ROWS_OF_A_LOOP))
    text = str(compile_to_gpu(to_mlir_module(linalg), stop_after="outline"))
    assert "gpu.alloc" in text and "memref<?x4xf64>" in text  # allocated at its run-time size
    kernels = [line for line in text.splitlines() if "gpu.func" in line]
    assert not any("memref<?" in line for line in kernels), kernels  # every argument a bare pointer
    assert any("memref<f64>" in line for line in kernels)
    assert "memref.reinterpret_cast %arg0 to offset: [0], sizes: [%arg1, 4], strides: [4, 1] : memref<f64> to memref<?x4xf64>" in text
    assert "gpu.binary" in str(compile_to_gpu(to_mlir_module(linalg)))  # NVVM refused memref<?x4xf64>


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
@pytest.mark.parametrize("source", [ROWS_OF_A_LOOP, WHILE_BELOW_A_LIMIT], ids=["rows", "while"])
def test_kernels_on_run_time_sized_buffers_assemble_without_spills(source):
    program = gradir.compile(source, target="cuda")
    for name in program.kernels_of("df"):
        assert assemble(program.ptx[name], "sm_90").resources[name].spill_bytes == 0, name


def test_traffic_of_a_kernel_on_a_run_time_sized_buffer_is_unknown():
    program = gradir.compile(ROWS_OF_A_LOOP, target="cuda")
    reports = kernel_reports(program, with_ptxas=False)
    unknown = [r for r in reports if r.bytes_read is None or r.bytes_written is None]
    assert unknown and len(unknown) < len(reports)
    assert "?" in format_reports(reports)


def test_an_empty_tape_allocates_a_byte_and_the_tape_its_rows():
    program = gradir.compile(ROWS_OF_A_LOOP, target="cuda")
    x = np.ones(4)
    for n, tape_bytes in ((0, 1), (3, 3 * 4 * 8)):
        driver = RecordingDriver()
        program.use_driver(driver)
        program.call("df", x, x, n, x)
        sizes = [call[1] for call in driver.calls if call[0] == "alloc"]
        assert 0 not in sizes and tape_bytes in sizes, (n, sizes)


RUN_TIME_INNER_DIMENSION = """
func.func @f(%x: f64, %n: index, %i: index) -> f64 {
  %e = tensor.empty(%n) : tensor<4x?xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.insert %x into %e[%i, %c1] : tensor<4x?xf64>
  %y = tensor.extract %t[%i, %c1] : tensor<4x?xf64>
  %s = math.sin %y : f64
  return %s : f64
}
"""


def test_a_buffer_with_a_run_time_inner_dimension_is_rebuilt_with_its_strides():
    """Its row stride is known only at run time: the kernels take it as an argument."""
    program = gradir.compile(RUN_TIME_INNER_DIMENSION, target="cuda")
    for n, i in ((2, 3), (5, 1)):
        np.testing.assert_allclose(program.emulate("f", 0.7, n, i)[0], np.sin(0.7), rtol=1e-15)


def test_scalar_loops_run_in_one_device_thread_each():
    """The while loop, the loop replaying it to write the tape and the reverse loop reading
    it are scalar code: each runs in one kernel launch and hands its final state back by one
    copy, instead of a launch and a copy per element read or written (14 kernels, launched
    per iteration, before)."""
    program = gradir.compile(WHILE_BELOW_A_LIMIT, target="cuda")
    kernels = program.kernels_of("df")
    assert sum(name.endswith("_sequential") for name in kernels) == 3, kernels
    assert not any("element_" in name for name in kernels), kernels
    driver = RecordingDriver()
    program.use_driver(driver)
    program.call("df", np.ones(6), 0.6, 1.0)
    launched = [call[1] for call in driver.calls if call[0] == "launch"]
    assert sorted(launched) == sorted(kernels)  # each once, whatever the trip count


PER_EXAMPLE = ROWS_OF_A_LOOP + """
func.func @per_example(%xs: tensor<5x4xf64>, %w: tensor<4xf64>, %n: index, %cts: tensor<5x4xf64>)
    -> (tensor<5x4xf64>, tensor<5x4xf64>) {
  %gx, %gw = autodiff.vmap @df(%xs, %w, %n, %cts)
      {in_axes = array<i64: 0, -1, -1, 0>, out_axes = array<i64: 0, 0>, size = 5 : i64}
      : (tensor<5x4xf64>, tensor<4xf64>, index, tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<5x4xf64>)
  return %gx, %gw : tensor<5x4xf64>, tensor<5x4xf64>
}
"""
"""Per-example gradients through the tape of run-time length: vmap broadcasts the unbatched
tape it starts from to every example with its run-time sizes (`tensor.dim`); it refused
that before (`a batched value of dynamic shape`)."""


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_per_example_gradients_through_a_tape_of_run_time_length(target):
    program = gradir.compile(PER_EXAMPLE, target=target)
    run = program.emulate if target == "cuda" else program.call
    rng = np.random.default_rng(11)
    xs, w, cts = rng.uniform(-1, 1, (5, 4)), rng.uniform(0.5, 1.5, 4), rng.standard_normal((5, 4))
    single = gradir.compile(ROWS_OF_A_LOOP)
    for n in (0, 3):
        gx, gw = run("per_example", xs, w, n, cts)
        for k in range(5):
            want_x, want_w = single.call("df", xs[k], w, n, cts[k])
            np.testing.assert_allclose(gx[k], want_x, rtol=1e-12)
            np.testing.assert_allclose(gw[k], want_w, rtol=1e-12)
        assert n == 0 or not np.allclose(gw[0], gw[1])  # the examples differ


ROWS_OF_RUN_TIME_COUNT = (pathlib.Path(__file__).parents[2] / "examples" / "standard" / "run_time_rows.mlir").read_text()
"""Rows `sin((i + 1) x)` for i < n, an n known only at run time: an elementwise op, a full
sum and a column maximum over a run-time number of rows (`run_time_mapping`)."""


@pytest.mark.parametrize("n", [0, 1, 3, 700])
def test_ops_over_a_run_time_number_of_elements(n):
    program = gradir.compile(ROWS_OF_RUN_TIME_COUNT, target="cuda")
    x = np.linspace(-0.9, 0.8, 64, dtype=np.float32)
    rows = np.sin(x.astype(np.float64) * (np.arange(n)[:, None] + 1))
    total, largest = program.emulate("run_time_rows", x, n)
    assert abs(total - rows.sum()) <= 1e-5 * max(np.abs(rows).sum(), 1.0)
    np.testing.assert_allclose(largest, np.maximum(rows.max(axis=0, initial=-np.inf), 0.0), rtol=1e-5, atol=1e-6)
    kernels = program.kernels_of("run_time_rows")
    assert sum(name.endswith("_run_time") for name in kernels) == 3, kernels


def test_a_run_time_grid_is_never_empty():
    """CUDA refuses a launch of 0 blocks: with n = 0 the grid is one block whose threads
    all fail the bounds guard."""
    program = gradir.compile(ROWS_OF_RUN_TIME_COUNT, target="cuda")
    assert any(None in program.launch_configs[k].grid for k in program.kernels_of("run_time_rows"))
    driver = RecordingDriver()
    program.use_driver(driver)
    program.call("run_time_rows", np.ones(64, np.float32), 0)
    grids = [call[2] for call in driver.calls if call[0] == "launch"]
    assert grids and all(min(grid) >= 1 for grid in grids), grids
    assert "?x1x1" in format_reports(kernel_reports(program, with_ptxas=False))
