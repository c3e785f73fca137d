"""Loops on the GPU (issue #6): the RNN gradient (a forward scf.for pushing
per-iteration caches, a reverse scf.for reading them back) keeps its loops on
the host, launches kernels from their bodies, and reads slices at loop-dependent
offsets through the whole buffer. Every kernel assembles; the launches, run as
CPU loops, give the CPU pipeline's numbers."""
import pathlib
import shutil
import sys

import numpy as np
import pytest

import gradir
from gradir.gpu_backend.ptx import assemble

RNN = pathlib.Path(__file__).resolve().parents[2] / "examples" / "standard" / "rnn.mlir"
GRAD_ENTRY = """
func.func @rnn_grad(%xs: tensor<20x4x8xf32>, %h0: tensor<4x16xf32>, %wx: tensor<8x16xf32>,
                    %wh: tensor<16x16xf32>, %b: tensor<16xf32>)
    -> (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) {
  %g:5 = autodiff.grad @rnn_loss(%xs, %h0, %wx, %wh, %b)
    : (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>)
   -> (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4
    : tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>
}
"""


@pytest.fixture(scope="module")
def source():
    return RNN.read_text() + GRAD_ENTRY


@pytest.fixture(scope="module")
def program(source):
    return gradir.compile(source, target="cuda")


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(20, 4, 8), (4, 16), (8, 16), (16, 16), (16,)]
    return [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]


def test_loops_stay_on_the_host_and_launch_kernels(program):
    ir = program.gpu_ir
    function = ir[ir.index("func.func @rnn_loss_vjp") :]
    function = function[: function.index("\n  }\n")]
    loop = function.index("scf.for")
    assert "gpu.launch_func" in function[loop:]
    assert function.count("scf.for") >= 2  # the forward loop and the reverse loop


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
def test_every_kernel_assembles_without_spills(source, chip):
    program = gradir.compile(source, target="cuda", chip=chip)
    assert program.ptx
    for name, ptx in program.ptx.items():
        resources = assemble(ptx, chip).resources[name]
        assert resources.spill_bytes == 0, f"{name} spills {resources.spill_bytes} bytes"


def test_kernels_run_as_cpu_loops_match_the_cpu_pipeline(source, program):
    arguments = inputs()
    expected = gradir.compile(source).rnn_grad(*arguments)
    got = program.emulate("rnn_grad", *arguments)
    for index, (a, b) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=f"gradient {index}")


# ---------------------------------------------------------------- a reverse loop and a branch

ROOT = pathlib.Path(__file__).resolve().parents[2]
REVERSE_LOOP = ROOT / "lit_tests" / "gpu_backend" / "host_loops.mlir"
PIECEWISE = ROOT / "examples" / "standard" / "piecewise.mlir"
PIECEWISE_GRAD = """
func.func @piecewise_grad(%x: tensor<5xf32>) -> tensor<5xf32> {
  %g = autodiff.grad @piecewise(%x) : (tensor<5xf32>) -> tensor<5xf32>
  return %g : tensor<5xf32>
}
"""


def reverse_loop_reference(xs, h0, w, b):
    """The hand-written reverse loop in float64: states cached forward, read back reversed."""
    h, cache = h0.astype(np.float64), []
    for x in xs:
        h = np.tanh(h @ w + x + b)
        cache.append(h)
    g = h.copy()
    for j in reversed(range(len(xs))):
        d = g * (1 - cache[j] ** 2)
        g = d if j == 0 else d @ w.T
    return h, g, np.array(cache)


def test_reverse_loop_kernels_read_the_cache_at_the_reversed_index():
    rng = np.random.default_rng(1)
    shapes = [(20, 4, 16), (4, 16), (16, 16), (16,)]
    arguments = [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]
    program = gradir.compile(REVERSE_LOOP.read_text(), target="cuda")
    got = program.emulate("reverse_loop", *arguments)
    for name, a, b in zip(["h", "gradient", "cache"], got, reverse_loop_reference(*arguments)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.fixture(scope="module")
def piecewise_source():
    return PIECEWISE.read_text() + PIECEWISE_GRAD


def test_branch_condition_is_computed_on_the_device_and_copied_back(piecewise_source):
    ir = gradir.compile(piecewise_source, target="cuda").gpu_ir
    function = ir[ir.index("func.func @piecewise(") :]
    host = function[: function.index("\n  }\n")]
    condition = host.index("@piecewise_1_condition")
    copy = host.index("gpu.memcpy", condition)
    wait = host.index("gpu.wait [", copy)  # the host waits for the copy before deciding
    branch = host.index("scf.if", wait)
    assert condition < copy < wait < branch
    assert "arith.cmpf" not in host and "arith.addf" not in host  # no float arithmetic on host


@pytest.mark.parametrize("sign", [1.0, -1.0], ids=["exp-branch", "square-branch"])
def test_both_branches_match_the_cpu_pipeline(piecewise_source, sign):
    x = (sign * np.abs(np.random.default_rng(2).standard_normal(5)) + sign * 0.1).astype(np.float32)
    program = gradir.compile(piecewise_source, target="cuda")
    cpu = gradir.compile(piecewise_source)
    for name in ("piecewise", "piecewise_grad"):
        for a, b in zip(program.emulate(name, x), cpu.call(name, x)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
@pytest.mark.parametrize("which", ["reverse_loop", "piecewise"])
def test_loop_and_branch_kernels_assemble_without_spills(piecewise_source, which, chip):
    text = REVERSE_LOOP.read_text() if which == "reverse_loop" else piecewise_source
    program = gradir.compile(text, target="cuda", chip=chip)
    for name, ptx in program.ptx.items():
        resources = assemble(ptx, chip).resources[name]
        assert resources.spill_bytes == 0, f"{name} spills {resources.spill_bytes} bytes"


NLL_GRADIENT = """
func.func @nll(%logp: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %ignored = arith.constant -100 : i64
  %e = tensor.empty() : tensor<4xf32>
  %picked = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%labels : tensor<4xi64>) outs(%e : tensor<4xf32>) {
  ^bb0(%label: i64, %out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %label : i64 to index
    %v = tensor.extract %logp[%i, %c] : tensor<4x10xf32>
    %keep = arith.cmpi ne, %label, %ignored : i64
    %n = arith.negf %v : f32
    %r = arith.select %keep, %n, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %le = tensor.empty() : tensor<f32>
  %li = linalg.fill ins(%zero : f32) outs(%le : tensor<f32>) -> tensor<f32>
  %total = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%picked : tensor<4xf32>) outs(%li : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %total : tensor<f32>
}
func.func @nll_grad(%logp: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<4x10xf32> {
  %g = autodiff.grad @nll(%logp, %labels) {wrt = array<i64: 0>} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4x10xf32>
  return %g : tensor<4x10xf32>
}
"""


def test_a_scatter_at_data_indices_runs_in_one_device_thread():
    """The gradient of a gather at the labels (an NLL loss) is scattered by an scf.for nest of
    element loads and stores: one thread runs it in order."""
    program = gradir.compile(NLL_GRADIENT, target="cuda")
    assert any(kernel.endswith("_sequential") for kernel in program.ptx)
    labels = np.array([3, 3, 0, 9], dtype=np.int64)
    (gradient,) = program.emulate("nll_grad", np.zeros((4, 10), np.float32), labels)
    expected = np.zeros((4, 10), np.float32)
    expected[0, 3] = expected[1, 3] = expected[2, 0] = expected[3, 9] = -1.0
    np.testing.assert_array_equal(gradient, expected)
    if shutil.which("ptxas"):
        for kernel, ptx in program.ptx.items():
            assemble(ptx, "sm_90")


# ---------------------------------------------------------------- a reshaped slice of a loop state

STATE_AS_MATRIX = """
func.func private @f(%xs: tensor<6x4xf64>, %w: tensor<KxKxf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %h0 = arith.constant dense<0.1> : tensor<4xf64>
  %h = scf.for %t = %c0 to %c6 step %c1 iter_args(%state = %h0) -> (tensor<4xf64>) {
    %x = tensor.extract_slice %xs[%t, 0] [1, 4] [1, 1] : tensor<6x4xf64> to tensor<4xf64>
    %rows = tensor.expand_shape %state [[0, 1]] output_shape [R, K] : tensor<4xf64> into tensor<RxKxf64>
    %m = autodiff.matmul %rows, %w : (tensor<RxKxf64>, tensor<KxKxf64>) -> tensor<RxKxf64>
    %flat = tensor.collapse_shape %m [[0, 1]] : tensor<RxKxf64> into tensor<4xf64>
    %z = autodiff.add %flat, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
    %next = autodiff.tanh %z : tensor<4xf64>
    scf.yield %next : tensor<4xf64>
  }
  %s = autodiff.sum %h : tensor<4xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f_grad(%xs: tensor<6x4xf64>, %w: tensor<KxKxf64>) -> (tensor<6x4xf64>, tensor<KxKxf64>) {
  %g:2 = autodiff.grad @f(%xs, %w) : (tensor<6x4xf64>, tensor<KxKxf64>) -> (tensor<6x4xf64>, tensor<KxKxf64>)
  return %g#0, %g#1 : tensor<6x4xf64>, tensor<KxKxf64>
}
"""


@pytest.mark.parametrize("rows", [1, 2])
def test_a_reshaped_slice_at_a_loop_position_is_read_through_its_buffer(rows):
    """The reverse loop reads the taped state as a matrix (an expand_shape of the tape's
    slice at the loop's position, a dynamic offset): kernels read it through the whole tape,
    as the bare-pointer convention needs (NVVM refused the kernel before)."""
    columns = 4 // rows
    source = STATE_AS_MATRIX.replace("R", str(rows)).replace("K", str(columns))
    program = gradir.compile(source, target="cuda")
    rng = np.random.default_rng(2)
    arguments = rng.standard_normal((6, 4)) * 0.5, rng.standard_normal((columns, columns)) * 0.5
    expected = gradir.compile(source).f_grad(*arguments)
    for got, want in zip(program.emulate("f_grad", *arguments), expected):
        assert np.max(np.abs(want)) > 0.1
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# One element of each row at the loop's position, seen as a 0-d tensor (JAX's reverse scan
# in rlax's TD(lambda) does this): the collapse to 0-d has no reassociation group, so the
# kernel's read through the views had no index for the slice's dimension (an IndexError
# in the GPU pipeline), and vmap of the collapse made an invalid collapse_shape.
ELEMENT_AS_SCALAR = """
#scalar = affine_map<() -> ()>
func.func @discounted(%rewards: tensor<6xf64>, %gamma: tensor<f64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant dense<0.0> : tensor<f64>
  %empty = tensor.empty() : tensor<f64>
  %g = scf.for %t = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (tensor<f64>) {
    %row = tensor.extract_slice %rewards[%t] [1] [1] : tensor<6xf64> to tensor<1xf64>
    %r = tensor.collapse_shape %row [] : tensor<1xf64> into tensor<f64>
    %next = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar, #scalar], iterator_types = []}
        ins(%r, %acc, %gamma : tensor<f64>, tensor<f64>, tensor<f64>) outs(%empty : tensor<f64>) {
    ^bb0(%x: f64, %a: f64, %k: f64, %o: f64):
      %d = arith.mulf %a, %k : f64
      %s = arith.addf %d, %x : f64
      %q = arith.mulf %s, %s : f64
      linalg.yield %q : f64
    } -> tensor<f64>
    scf.yield %next : tensor<f64>
  }
  return %g : tensor<f64>
}
func.func @discounted_grad(%rewards: tensor<6xf64>, %gamma: tensor<f64>) -> (tensor<6xf64>, tensor<f64>) {
  %d:2 = autodiff.grad @discounted(%rewards, %gamma) : (tensor<6xf64>, tensor<f64>) -> (tensor<6xf64>, tensor<f64>)
  return %d#0, %d#1 : tensor<6xf64>, tensor<f64>
}
func.func @discounted_per_example(%rewards: tensor<3x6xf64>, %gamma: tensor<f64>) -> (tensor<3x6xf64>, tensor<3xf64>) {
  %d:2 = autodiff.vmap @discounted_grad(%rewards, %gamma) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0, 0>, size = 3 : i64}
      : (tensor<3x6xf64>, tensor<f64>) -> (tensor<3x6xf64>, tensor<3xf64>)
  return %d#0, %d#1 : tensor<3x6xf64>, tensor<3xf64>
}
"""


def test_an_element_at_the_loop_position_seen_as_a_0d_tensor():
    rng = np.random.default_rng(5)
    rewards, gamma = rng.uniform(-0.5, 0.5, (3, 6)), np.array(0.6)
    cpu = gradir.compile(ELEMENT_AS_SCALAR)
    gpu = gradir.compile(ELEMENT_AS_SCALAR, target="cuda")
    for example in range(3):  # the gradient against central differences, then the GPU against the CPU
        result = gradir.gradcheck(ELEMENT_AS_SCALAR, "discounted", inputs=[rewards[example], gamma])
        assert result.ok, result.report()
    want = cpu.discounted_per_example(rewards, gamma)
    for got in (gpu.emulate("discounted_per_example", rewards, gamma),
                [np.stack(parts) for parts in zip(*(cpu.discounted_grad(r, gamma) for r in rewards))]):
        for g, w in zip(got, want):
            assert np.max(np.abs(w)) > 0.05
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    for g, w in zip(gpu.emulate("discounted_grad", rewards[0], gamma), cpu.discounted_grad(rewards[0], gamma)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- while loops and affine loops

WHILE_ON_DEVICE_DATA = """
#id = affine_map<(i) -> (i)>
#all = affine_map<(i) -> ()>
func.func @grow(%x: tensor<4xf64>, %limit: f64) -> (tensor<4xf64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r:2 = scf.while (%t = %x, %n = %c0) : (tensor<4xf64>, index) -> (tensor<4xf64>, index) {
    %e = tensor.empty() : tensor<f64>
    %init = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
    %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
        ins(%t : tensor<4xf64>) outs(%init : tensor<f64>) {
    ^bb0(%v: f64, %acc: f64):
      %a = arith.addf %v, %acc : f64
      linalg.yield %a : f64
    } -> tensor<f64>
    %sum = tensor.extract %s[] : tensor<f64>
    %go = arith.cmpf olt, %sum, %limit : f64
    scf.condition(%go) %t, %n : tensor<4xf64>, index
  } do {
  ^bb0(%u: tensor<4xf64>, %m: index):
    %v = math.exp %u : tensor<4xf64>
    %k = arith.addi %m, %c1 : index
    scf.yield %v, %k : tensor<4xf64>, index
  }
  return %r#0, %r#1 : tensor<4xf64>, index
}
"""


def test_a_while_loop_stays_on_the_host_deciding_on_device_data():
    """The condition's sum is a device reduction, read back to the host each iteration; the
    body's kernels update the state in place."""
    program = gradir.compile(WHILE_ON_DEVICE_DATA, target="cuda")
    x = np.array([0.1, -0.3, 0.2, 0.05])
    expected, count = x.copy(), 0
    while expected.sum() < 30.0:
        expected, count = np.exp(expected), count + 1
    state, iterations = program.emulate("grow", x, 30.0)
    assert count == 3 and iterations == count
    np.testing.assert_allclose(state, expected, rtol=1e-14)


def test_random_program_88_runs_on_the_gpu():
    """Random program 88 of tests/property/standard_programs.py: its gradient has a buffer
    that an inner branch makes and an outer branch yields on. Placing the device buffer's
    free by walking up from that use aborted the process (an assertion in MLIR's bindings),
    then was a one-line error; the buffer is now allocated in front of the outer branch."""
    sys.path.insert(0, str(ROOT / "tests" / "property"))
    from standard_gpu import check_on_gpu

    assert check_on_gpu(88) == ("ok", "")


NESTED_BRANCHES = """
func.func @f(%x: tensor<4xf64>, %a: f64, %b: f64) -> tensor<4xf64> {
  %zero = arith.constant 0.0 : f64
  %p = arith.cmpf ogt, %a, %zero : f64
  %r = scf.if %p -> (tensor<4xf64>) {
    %q = arith.cmpf ogt, %b, %zero : f64
    %s = scf.if %q -> (tensor<4xf64>) {
      scf.yield %x : tensor<4xf64>
    } else {
      %e = math.exp %x : tensor<4xf64>
      scf.yield %e : tensor<4xf64>
    }
    scf.yield %s : tensor<4xf64>
  } else {
    scf.yield %x : tensor<4xf64>
  }
  %y = math.sin %r : tensor<4xf64>
  return %y : tensor<4xf64>
}
"""


@pytest.mark.parametrize("a, b", [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)])
def test_a_buffer_an_inner_branch_makes_and_an_outer_one_yields(a, b):
    """`exp(x)` is made in the inner branch and leaves both: its buffer is allocated in
    front of the outer `if` (`map_to_gpu._hoist_escaping_allocs`)."""
    program = gradir.compile(NESTED_BRANCHES, target="cuda")
    x = np.linspace(-1.0, 1.0, 4)
    want = np.sin(np.exp(x) if a > 0 and b <= 0 else x)
    np.testing.assert_allclose(program.emulate("f", x, a, b)[0], want, rtol=1e-15)


SIZE_COMPUTED_IN_A_BRANCH = """
func.func @f(%x: f32, %n: index, %p: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.if %p -> tensor<?xf32> {
    %m = arith.addi %n, %c1 : index
    %e = tensor.empty(%m) : tensor<?xf32>
    %t = linalg.fill ins(%x : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %t : tensor<?xf32>
  } else {
    %e2 = tensor.empty(%n) : tensor<?xf32>
    %h = arith.mulf %x, %x : f32
    %t2 = linalg.fill ins(%h : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %t2 : tensor<?xf32>
  }
  %last = arith.subi %n, %c1 : index
  %y = tensor.extract %r[%last] : tensor<?xf32>
  %z = math.exp %y : f32
  return %z : f32
}
"""


@pytest.mark.parametrize("p", [True, False])
def test_a_buffer_a_branch_sizes_by_integer_arithmetic_is_allocated_before_it(p):
    """`%n + 1` moves up with the allocation (`map_to_gpu._size_computation`); it was the
    error README's table now shows for a size read from data."""
    program = gradir.compile(SIZE_COMPUTED_IN_A_BRANCH, target="cuda")
    for n in (1, 5):
        got = program.emulate("f", np.float32(0.3), n, p)[0]
        np.testing.assert_allclose(got, np.exp(np.float32(0.3) if p else np.float32(0.09)), rtol=1e-6)
