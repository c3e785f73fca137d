"""Large loop nests run on the OpenMP thread pool (`parallel_loops`, `thread_runtime`).

Each test compiles with an explicit `num_threads`, so it does not depend on the
machine's cores or on `GRADIR_NUM_THREADS`. Calls that could end the session if
a parallel region went wrong (an abort on a worker thread, a deadlock) run in a
child process.
"""
import textwrap

import numpy as np
import pytest

import gradir
from child_process import run_python
from gradir.cpu_backend import contraction_rows, cpu_pipeline, parallel_loops
from gradir.cpu_backend.cpu_runtime import clear_cache
from gradir.mlir_bridge import walk_ops
from gradir.cpu_backend.thread_runtime import thread_count, thread_runtime_library

ELEMENTWISE = """
func.func @f(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> tensor<f32> {{
  %s = autodiff.sin %x : tensor<{n}xf32>
  %e = autodiff.exp %y : tensor<{n}xf32>
  %p = autodiff.mul %s, %e : (tensor<{n}xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>
  %t = autodiff.tanh %p : tensor<{n}xf32>
  %r = autodiff.sum %t : tensor<{n}xf32> -> tensor<f32>
  return %r : tensor<f32>
}}
func.func @df(%x: tensor<{n}xf32>, %y: tensor<{n}xf32>) -> (tensor<{n}xf32>, tensor<{n}xf32>) {{
  %gx, %gy = autodiff.grad @f(%x, %y) : (tensor<{n}xf32>, tensor<{n}xf32>) -> (tensor<{n}xf32>, tensor<{n}xf32>)
  return %gx, %gy : tensor<{n}xf32>, tensor<{n}xf32>
}}
"""

BROADCAST = """
func.func @df(%x: tensor<300x257xf64>, %b: tensor<257xf64>) -> tensor<300x257xf64> {
  %s = autodiff.add %x, %b : (tensor<300x257xf64>, tensor<257xf64>) -> tensor<300x257xf64>
  %r = autodiff.mul %s, %x : (tensor<300x257xf64>, tensor<300x257xf64>) -> tensor<300x257xf64>
  return %r : tensor<300x257xf64>
}
"""
"""Two dimensions that do not collapse into one (a broadcast): rows shared, columns serial."""

MATMUL = """
func.func @f(%a: tensor<256x128xf32>, %b: tensor<128x96xf32>) -> tensor<f32> {
  %c = autodiff.matmul %a, %b : (tensor<256x128xf32>, tensor<128x96xf32>) -> tensor<256x96xf32>
  %t = autodiff.tanh %c : tensor<256x96xf32>
  %s = autodiff.sum %t : tensor<256x96xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @df(%a: tensor<256x128xf32>, %b: tensor<128x96xf32>) -> (tensor<256x128xf32>, tensor<128x96xf32>) {
  %ga, %gb = autodiff.grad @f(%a, %b) : (tensor<256x128xf32>, tensor<128x96xf32>) -> (tensor<256x128xf32>, tensor<128x96xf32>)
  return %ga, %gb : tensor<256x128xf32>, tensor<128x96xf32>
}
"""

ROW_SOFTMAX = """
func.func @f(%x: tensor<1024x10xf32>, %w: tensor<1024x10xf32>) -> tensor<f32> {
  %l = autodiff.log_softmax %x {dim = 1 : i64} : tensor<1024x10xf32>
  %p = autodiff.mul %l, %w : (tensor<1024x10xf32>, tensor<1024x10xf32>) -> tensor<1024x10xf32>
  %s = autodiff.sum %p : tensor<1024x10xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @df(%x: tensor<1024x10xf32>, %w: tensor<1024x10xf32>) -> tensor<1024x10xf32> {
  %g = autodiff.grad @f(%x, %w) {wrt = array<i64: 0>} : (tensor<1024x10xf32>, tensor<1024x10xf32>) -> tensor<1024x10xf32>
  return %g : tensor<1024x10xf32>
}
"""
"""Short rows reduced with reassociated sums (`cpu_pipeline._mark_reassociative_reductions`)."""

GATHER = """
func.func @f(%table: tensor<5xf64>, %ids: tensor<{n}xindex>) -> tensor<{n}xf64> {{
  %e = tensor.empty() : tensor<{n}xf64>
  %r = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}} ins(%ids : tensor<{n}xindex>) outs(%e : tensor<{n}xf64>) {{
  ^bb0(%id: index, %o: f64):
    %v = tensor.extract %table[%id] : tensor<5xf64>
    linalg.yield %v : f64
  }} -> tensor<{n}xf64>
  return %r : tensor<{n}xf64>
}}
"""
"""A gather: each iteration checks its index at run time (`run_time_checks`)."""

LARGE = 1 << 16


def _regions(exe) -> int:
    return exe.llvm_text.count("omp.parallel")


def test_the_runtime_library_is_installed_and_loads():
    path = thread_runtime_library()
    assert path is not None and path.endswith("libiomp5.so")


def test_a_large_elementwise_loop_forks_and_a_tiny_one_does_not():
    assert _regions(gradir.compile(ELEMENTWISE.format(n=LARGE), num_threads=2)) > 0
    assert _regions(gradir.compile(ELEMENTWISE.format(n=64), num_threads=2)) == 0


def test_one_thread_compiles_serial_code():
    assert _regions(gradir.compile(ELEMENTWISE.format(n=LARGE), num_threads=1)) == 0


def test_the_thread_count_is_compiled_in():
    exe = gradir.compile(ELEMENTWISE.format(n=LARGE), num_threads=3)
    assert "omp.parallel num_threads(" in exe.llvm_text and exe.num_threads == 3


def _inputs(program: str, rng) -> list[np.ndarray]:
    shapes = {
        "elementwise": [(LARGE,), (LARGE,)], "broadcast": [(300, 257), (257,)],
        "matmul": [(256, 128), (128, 96)], "softmax": [(1024, 10), (1024, 10)],
    }[program]  # fmt: skip
    dtype = np.float64 if program == "broadcast" else np.float32
    return [rng.uniform(-1, 1, shape).astype(dtype) for shape in shapes]


PROGRAMS = {
    "elementwise": ELEMENTWISE.format(n=LARGE), "broadcast": BROADCAST, "matmul": MATMUL,
    "softmax": ROW_SOFTMAX,
}  # fmt: skip


@pytest.mark.parametrize("program", ["elementwise", "broadcast", "matmul"])
def test_parallel_results_equal_serial_results_bit_for_bit(program):
    inputs = _inputs(program, np.random.default_rng(0))
    serial = gradir.compile(PROGRAMS[program], num_threads=1)
    parallel = gradir.compile(PROGRAMS[program], num_threads=2)
    assert _regions(parallel) > 0
    for ours, theirs in zip(serial.call("df", *inputs), parallel.call("df", *inputs)):
        np.testing.assert_array_equal(ours, theirs)


def test_large_matmuls_share_their_rows(monkeypatch):
    """Every matmul (the forward one and both of the gradient's) is split into row blocks."""
    tiled = []

    def spy(module, threads):
        matmuls = len(walk_ops(module, {"linalg.matmul"}))
        tiled.append((matmuls, contraction_rows.share_contraction_rows(module, threads)))
        return tiled[-1][1]

    monkeypatch.setattr(cpu_pipeline, "share_contraction_rows", spy)
    clear_cache()
    try:
        exe = gradir.compile(MATMUL, num_threads=2)
    finally:
        clear_cache()
    [(matmuls, split)] = tiled
    assert matmuls >= 3 and split == matmuls and "scf.forall" not in exe.llvm_text


def test_reassociated_row_reductions_are_deterministic_and_close_to_serial():
    """Only parallel dimensions are split, but a row sum whose accumulator lives in a
    buffer is reassociated by LLVM in serial code and summed in order inside a region
    (there LLVM no longer knows the buffer aliases nothing): the results differ in the
    last bits (here by up to 3e-7), and are the same on every call and every compile."""
    inputs = _inputs("softmax", np.random.default_rng(1))
    serial = gradir.compile(ROW_SOFTMAX, num_threads=1).df(*inputs)
    parallel = gradir.compile(ROW_SOFTMAX, num_threads=2)
    assert _regions(parallel) > 0
    first = parallel.df(*inputs)
    np.testing.assert_allclose(first, serial, rtol=1e-5, atol=1e-6)
    for _ in range(3):
        np.testing.assert_array_equal(parallel.df(*inputs), first)
    clear_cache()
    np.testing.assert_array_equal(gradir.compile(ROW_SOFTMAX, num_threads=2).df(*inputs), first)


def test_the_work_threshold_decides(monkeypatch):
    source = ELEMENTWISE.format(n=1024)
    assert _regions(gradir.compile(source, num_threads=2)) == 0
    monkeypatch.setattr(parallel_loops, "PARALLEL_WORK_THRESHOLD", 1)
    clear_cache()
    try:
        assert _regions(gradir.compile(source, num_threads=2)) > 0
    finally:
        clear_cache()


@pytest.mark.parametrize("bad", [0, LARGE // 2 - 1, LARGE // 2 + 1, LARGE - 1])
def test_a_failed_check_in_a_parallel_region_is_an_error_on_any_thread(tmp_path, bad):
    """The first and last index are in the calling thread's and the other thread's share."""
    script = textwrap.dedent(f"""
        import numpy as np, gradir
        exe = gradir.compile({GATHER.format(n=LARGE)!r}, num_threads=2)
        assert "omp.parallel" in exe.llvm_text
        table, ids = np.arange(5.0), np.arange({LARGE}) % 5
        print(exe.f(table, ids)[:6].tolist())
        ids[{bad}] = 5
        try:
            exe.f(table, ids)
        except gradir.RunTimeCheckError as error:
            print(type(error).__name__, error)
        ids[{bad}] = 4
        print(exe.f(table, ids)[{bad}])
    """)
    lines = run_python(script, tmp_path, timeout=300).splitlines()
    assert lines[0] == "[0.0, 1.0, 2.0, 3.0, 4.0, 0.0]"
    assert lines[1].startswith("RunTimeCheckError") and "an index out of bounds" in lines[1]
    assert lines[2] == "4.0"


def test_threads_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("GRADIR_NUM_THREADS", "1")
    assert thread_count() == 1
    assert _regions(gradir.compile(ELEMENTWISE.format(n=LARGE))) == 0
    monkeypatch.setenv("GRADIR_NUM_THREADS", "2")
    assert _regions(gradir.compile(ELEMENTWISE.format(n=LARGE))) > 0


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_thread_count_is_an_argument_error(monkeypatch, value):
    monkeypatch.setenv("GRADIR_NUM_THREADS", value)
    with pytest.raises(gradir.ArgumentError, match="GRADIR_NUM_THREADS must be a positive integer"):
        thread_count()
    with pytest.raises(gradir.ArgumentError, match="num_threads must be a positive integer"):
        gradir.compile(ELEMENTWISE.format(n=64), num_threads=0)


DYNAMIC_WORK = """
func.func @f(%x: tensor<{n}xf32>, %k: index) -> tensor<{n}xf32> {{
  %e = tensor.empty() : tensor<{n}xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}} ins(%x : tensor<{n}xf32>) outs(%e : tensor<{n}xf32>) {{
  ^bb0(%v: f32, %o: f32):
    %p = scf.for %j = %c0 to %k step %c1 iter_args(%a = %v) -> f32 {{
      %m = arith.mulf %a, %v : f32
      scf.yield %m : f32
    }}
    linalg.yield %p : f32
  }} -> tensor<{n}xf32>
  return %r : tensor<{n}xf32>
}}
"""
"""Each element's work depends on an argument: the nest is compiled both ways behind a
test of its trip count (one operation per iteration assumed), which folds where that
count is static: a region for 300 000 elements, none for 1 000."""


@pytest.mark.parametrize("n", [1000, 300_000])
def test_work_known_only_at_run_time_is_chosen_at_run_time(n):
    source = DYNAMIC_WORK.format(n=n)
    serial = gradir.compile(source, num_threads=1)
    parallel = gradir.compile(source, num_threads=2)
    assert _regions(parallel) == (1 if n > parallel_loops.PARALLEL_WORK_THRESHOLD else 0)
    x = np.random.default_rng(2).uniform(0.5, 1.5, n).astype(np.float32)
    for k in (0, 3, 7):
        np.testing.assert_array_equal(serial.f(x, k), parallel.f(x, k))
    np.testing.assert_array_equal(parallel.f(x, 2), x * x * x)


PARALLEL_SUM = """
func.func @f(%x: tensor<100000xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000 : index
  %z = arith.constant 0.0 : f32
  %s = "scf.parallel"(%c0, %n, %c1, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %v = tensor.extract %x[%i] : tensor<100000xf32>
    "scf.reduce"(%v) ({
    ^bb1(%a: f32, %b: f32):
      %r = arith.addf %a, %b : f32
      "scf.reduce.return"(%r) : (f32) -> ()
    }) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  return %s : f32
}
"""
"""A program's own parallel loop with a reduction: summed in order, whatever the threads
(it aborted the process: "operation destroyed but still has uses")."""


def test_a_parallel_loop_with_a_reduction_sums_in_order(tmp_path):
    script = textwrap.dedent(f"""
        import numpy as np, gradir
        x = np.random.default_rng(3).uniform(0, 1, 100000).astype(np.float32)
        serial = gradir.compile({PARALLEL_SUM!r}, num_threads=1).f(x)
        parallel = gradir.compile({PARALLEL_SUM!r}, num_threads=2).f(x)
        in_order = np.float32(0)
        for value in x[:1000]:
            in_order = np.float32(in_order + value)
        head = gradir.compile({PARALLEL_SUM!r}, num_threads=2).f(np.concatenate([x[:1000], np.zeros(99000, np.float32)]))
        print(serial == parallel, head == in_order)
    """)
    assert run_python(script, tmp_path, timeout=300).split() == ["True", "True"]


def test_python_threads_may_call_parallel_code_at_once():
    """Each calling thread forks a team of its own (libiomp5 serves several root threads)."""
    from concurrent.futures import ThreadPoolExecutor

    exe = gradir.compile(PROGRAMS["elementwise"], num_threads=2)
    inputs = _inputs("elementwise", np.random.default_rng(4))
    expected = exe.call("df", *inputs)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: exe.call("df", *inputs), range(16)))
    for result in results:
        for ours, theirs in zip(result, expected):
            np.testing.assert_array_equal(ours, theirs)
