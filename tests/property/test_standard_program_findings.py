"""What the random standard-MLIR programs (`test_standard_programs.py`) found,
each minimised to a small program: a regression test per fixed bug, a strict
xfail per open one (it turns red the day the bug is fixed, so the mark is
removed then)."""
import numpy as np
import pytest

import gradir
from exercised import assert_exercised
from gradir.source import load_module

# ---- fixed: a linalg.generic with several results did not read back ----------------------------

TWO_RESULTS = """
func.func @f(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %low = arith.constant dense<-5.0> : tensor<3xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%zero, %low : tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %sum: f32, %max: f32):
    %s = math.sin %a : f32
    %t = arith.addf %sum, %s : f32
    %m = arith.maximumf %s, %max : f32
    linalg.yield %t, %m : f32, f32
  } -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_a_generic_with_two_results_reads_back_and_gradchecks():
    """xDSL 0.74 prints `-> (t1, t2)` (as MLIR does) but parsed only `-> t1, t2`:
    `gradir.gradcheck`, which reparses the program it promotes to f64, failed on
    every generic with two results ("Expected '->'", at the line after it)."""
    module = load_module(TWO_RESULTS)
    assert "-> (tensor<3xf32>, tensor<3xf32>)" in str(module)
    assert str(load_module(str(module))) == str(module)
    x = np.array([[0.1, 0.9, -0.4, 0.3], [1.2, -0.2, 0.5, 0.05], [-0.7, 0.6, 0.2, 1.0]])
    result = gradir.gradcheck(TWO_RESULTS, "f", inputs=[x])
    assert result.ok, result.report()


# ---- fixed: fusion read a broadcast producer's init after writing it (a wrong value, no error) ----

READ_INIT_THEN_BROADCAST = """
func.func @f(%x: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<3xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<4xf32>) outs(%zero : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
"""
X, C = np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([0.5, 0.25, 1.0, 2.0], np.float32)


def test_a_producer_that_reads_its_init_fuses_into_a_broadcasting_consumer():
    """p = x + c written into x's place (the body reads its init), then
    r[i] = sum_j p[j]: MLIR 22's elementwise fusion kept the init as an output of
    the fused loop nest, indexed by j only, so each i read the p of the previous
    one: r = [8, 12, 16] for x = c = ones(4). Now the init is made an input first
    (`mlir_bridge.tensor_stage.move_read_inits_to_inputs`)."""
    r = gradir.compile(READ_INIT_THEN_BROADCAST).f(X, C)
    np.testing.assert_allclose(r, np.full(3, (X + C).sum()), rtol=1e-6)


def test_the_same_on_the_gpu_pipeline():
    """The GPU pipeline fuses the same way (before the fix: a Python ValueError
    while mapping the fused reduction)."""
    (r,) = gradir.compile(READ_INIT_THEN_BROADCAST, target="cuda").emulate("f", X, C)
    np.testing.assert_allclose(r, np.full(3, (X + C).sum()), rtol=1e-6)


# Where the property test met it: reverse mode writes the gradient of a reduction's
# input as `zero + cotangent` into a `dense<0.0>` init (a body that reads its init),
# consumed by the reverse of `y[j] = sum_i tanh(x[i])`: x[i]'s gradient came out
# (i + 1) times too large, jvp right.
BROADCAST_SUM_THEN_SUM = """
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<3xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    %s = arith.addf %o, %t : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %init = arith.constant dense<0.5> : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%y : tensor<4xf32>) outs(%init : tensor<f32>) {
  ^bb0(%b: f32, %acc: f32):
    %n = arith.addf %acc, %b : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
"""


def test_the_gradient_through_a_broadcast_reduction_and_a_sum():
    x = np.array([-0.5, 0.2, 0.6])
    result = gradir.gradcheck(BROADCAST_SUM_THEN_SUM, "f", inputs=[x])
    assert result.ok, result.report()
    exe = gradir.compile(BROADCAST_SUM_THEN_SUM + """
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %d = autodiff.grad @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}""")
    gradient = exe.g(x.astype(np.float32))
    np.testing.assert_allclose(gradient, 4 * (1 - np.tanh(x) ** 2), rtol=1e-5)


# ---- fixed: contracting a max reduction's candidates made its gradient NaN ---------------------

ROW_MAX = """
func.func @f(%x: tensor<64x3xf64>, %w: tensor<64x3xf64>) -> tensor<64xf64> {
  %init = arith.constant dense<-6.0> : tensor<64xf64>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<64x3xf64>, tensor<64x3xf64>) outs(%init : tensor<64xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %s = math.sin %a : f64
    %p = arith.mulf %s, %b : f64
    %q = arith.addf %p, %b : f64
    %n = arith.maximumf %q, %acc : f64
    linalg.yield %n : f64
  } -> tensor<64xf64>
  return %m : tensor<64xf64>
}
func.func @g(%x: tensor<64x3xf64>, %w: tensor<64x3xf64>) -> (tensor<64x3xf64>, tensor<64x3xf64>) {
  %ct = arith.constant dense<1.0> : tensor<64xf64>
  %r:3 = autodiff.vjp @f(%x, %w, %ct) : (tensor<64x3xf64>, tensor<64x3xf64>, tensor<64xf64>) -> (tensor<64xf64>, tensor<64x3xf64>, tensor<64x3xf64>)
  return %r#1, %r#2 : tensor<64x3xf64>, tensor<64x3xf64>
}
"""


def test_a_max_reduction_of_products_has_finite_gradients():
    """The CPU pipeline marked every addf/mulf of a reduction body `contract`,
    so LLVM fused `sin(a) * b + b` into an FMA in the forward max, 1 ulp from
    the same candidate recomputed (uncontracted) by reverse mode, which then
    counted no candidate equal to the maximum and divided the cotangent by
    zero: 21 of these 64 rows had NaN gradients. Only combiners (and a product
    feeding one) are marked now."""
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-1, 1, (64, 3)), rng.uniform(-1, 1, (64, 3))
    dx, dw = gradir.compile(ROW_MAX).g(x, w)
    winner = np.argmax(np.sin(x) * w + w, axis=1)
    expected_dx = np.zeros_like(x)
    expected_dx[np.arange(64), winner] = (np.cos(x) * w)[np.arange(64), winner]
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-12, atol=1e-14)
    expected_dw = np.zeros_like(w)
    expected_dw[np.arange(64), winner] = (np.sin(x) + 1)[np.arange(64), winner]
    np.testing.assert_allclose(dw, expected_dw, rtol=1e-12, atol=1e-14)


# ---- fixed: a gather inside a branch of a generic body was refused (hoist_branch_gathers) ----------

GATHER_IN_A_BRANCH = """
func.func @f(%x: tensor<3xf32>, %t: tensor<2xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %a, %zero : f32
    %r = scf.if %positive -> (f32) {
      scf.yield %a : f32
    } else {
      %c1 = arith.constant 1 : index
      %s = tensor.extract %t[%c1] : tensor<2xf32>
      %m = arith.mulf %a, %s : f32
      scf.yield %m : f32
    }
    linalg.yield %r : f32
  } -> tensor<3xf32>
  return %y : tensor<3xf32>
}
"""


def test_a_gather_inside_a_branch_of_a_body():
    """Refused ("only tensor.extract directly in the body is supported") until gathers in body
    branches were moved to the body's top level before differentiation (hoist_branch_gathers)."""
    inputs = [np.array([0.5, -0.7, 0.9]), np.array([0.3, 1.2])]
    result = gradir.gradcheck(GATHER_IN_A_BRANCH, "f", inputs=inputs)
    assert result.ok, result.report()


# ---- fixed: a loop yielding one value for two states, inside a loop, did not bufferize ------------
# ("cannot avoid RaW conflict" after eliminate-empty-tensors, the primal alone; cpu_pipeline.bufferize)

SAME_VALUE_FOR_TWO_STATES = """
func.func @f(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %t = tensor.extract_slice %x[0, 0] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3xf32>
  %outer = scf.for %j = %c0 to %c2 step %c1 iter_args(%s = %t) -> (tensor<3xf32>) {
    %r:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %s, %b = %t) -> (tensor<3xf32>, tensor<3xf32>) {
      %m = arith.mulf %a, %b : tensor<3xf32>
      %u = math.sin %m : tensor<3xf32>
      scf.yield %u, %u : tensor<3xf32>, tensor<3xf32>
    }
    scf.yield %r#0 : tensor<3xf32>
  }
  return %outer : tensor<3xf32>
}
"""


def test_a_loop_yielding_one_value_for_two_states():
    x = np.linspace(0.1, 1.2, 12).reshape(3, 4)
    got = gradir.compile(SAME_VALUE_FOR_TWO_STATES).f(x.astype(np.float32))
    t = s = x[:, 0]
    for _ in range(2):
        a, b = s, t
        for _ in range(2):
            a = b = np.sin(a * b)
        s = a
    np.testing.assert_allclose(got, s, rtol=1e-5)
    result = gradir.gradcheck(SAME_VALUE_FOR_TWO_STATES, "f", inputs=[x])
    assert result.ok, result.report()


# ---- fixed: reverse mode of a loop whose branch yields an unused tensor failed to bufferize, at random --
# (MLIR 22's eliminate-empty-tensors chose differently from run to run; cpu_pipeline.bufferize reruns
# the stage without it where it fails)

BRANCH_IN_A_CACHED_LOOP = """
func.func @f(%x: tensor<3xf32>, %w: tensor<3xf32>, %t: tensor<3x4xf32>, %s0: f32) -> (tensor<3xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a0 = arith.mulf %x, %w : tensor<3xf32>
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %a0, %s = %s0) -> (tensor<3xf32>, f32) {
    %k = arith.constant -0.25 : f32
    %p = arith.cmpf ole, %s, %k : f32
    %b:2 = scf.if %p -> (tensor<3xf32>, tensor<3xf32>) {
      %c = arith.constant dense<2.5> : tensor<3xf32>
      %d = arith.addf %a, %c : tensor<3xf32>
      %l = math.log %d : tensor<3xf32>
      %m = arith.mulf %a0, %w : tensor<3xf32>
      scf.yield %l, %m : tensor<3xf32>, tensor<3xf32>
    } else {
      %sl = tensor.extract_slice %t[0, %i] [3, 1] [1, 1] : tensor<3x4xf32> to tensor<3xf32>
      scf.yield %sl, %a0 : tensor<3xf32>, tensor<3xf32>
    }
    %n = math.tanh %b#0 : tensor<3xf32>
    %s2 = math.sin %s : f32
    scf.yield %n, %s2 : tensor<3xf32>, f32
  }
  return %r#0, %r#1 : tensor<3xf32>, f32
}
func.func @g(%x: tensor<3xf32>, %w: tensor<3xf32>, %t: tensor<3x4xf32>, %s0: f32, %ca: tensor<3xf32>, %cs: f32) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, f32) {
  %r:6 = autodiff.vjp @f(%x, %w, %t, %s0, %ca, %cs) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, f32, tensor<3xf32>, f32) -> (tensor<3xf32>, f32, tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, f32)
  return %r#2, %r#3, %r#4, %r#5 : tensor<3xf32>, tensor<3xf32>, tensor<3x4xf32>, f32
}
"""


def test_reverse_mode_of_a_branch_in_a_cached_loop_compiles_every_time():
    from gradir.cpu_backend.cpu_runtime import clear_cache

    for _ in range(8):  # before the fix, all 8 succeeded by chance with probability ~ 0.25 ** 8
        clear_cache()
        gradir.compile(BRANCH_IN_A_CACHED_LOOP)
    x, w = np.array([0.4, 0.9, 1.3]), np.array([0.7, -0.2, 1.1])
    t = np.linspace(-0.8, 0.9, 12).reshape(3, 4)
    for s0 in (-0.5, 0.3):  # every iteration takes the then branch, then every one the else branch
        result = gradir.gradcheck(BRANCH_IN_A_CACHED_LOOP, "f", inputs=[x, w, t, np.float64(s0)], allow_vacuous=True)  # a branch not taken: zeros
        assert_exercised(result)


WRITE_TO_AN_ARGUMENT_IN_A_BRANCH = """
func.func @f(%arg0: tensor<4xf64>, %arg2: tensor<4xf64>, %s: f64) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %k = arith.constant -0.5 : f64
  %r = scf.for %iv = %c0 to %c3 step %c1 iter_args(%st = %arg2) -> (tensor<4xf64>) {
    %p = arith.cmpf oge, %s, %k : f64
    %t = scf.if %p -> (tensor<4xf64>) {
      scf.yield %st : tensor<4xf64>
    } else {
      %i = tensor.insert %s into %arg0[%iv] : tensor<4xf64>
      scf.yield %i : tensor<4xf64>
    }
    %u = arith.addf %t, %arg0 : tensor<4xf64>
    scf.yield %u : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
"""
"""Seed 626762 (fuzz run of 2026-11-25), cut down: a `tensor.insert` into a read-only argument
inside a branch of a loop whose state is updated in place; one-shot bufferization refused it
("cannot avoid RaW conflict") until the write got an explicit copy (`written_arguments`)."""


@pytest.mark.parametrize("s", [-1.0, 1.0], ids=["insert-branch", "state-branch"])
def test_a_write_into_an_argument_inside_a_branch_of_a_loop_compiles(s):
    x, state = np.arange(1.0, 5.0), np.full(4, 0.5)
    result = gradir.compile(WRITE_TO_AN_ARGUMENT_IN_A_BRANCH).f(x, state, s)
    expected = state.copy()
    for iv in range(3):
        taken = expected if s >= -0.5 else np.where(np.arange(4) == iv, s, x)
        expected = taken + x
    np.testing.assert_allclose(result, expected)


@pytest.mark.parametrize("s", [-1.0, 1.0], ids=["insert-branch", "state-branch"])
def test_the_gradient_of_a_write_into_an_argument_inside_a_branch_of_a_loop(s):
    """Its reverse mode zeroes one element of the adjoint loop's state inside a branch:
    "cannot avoid RaW conflict" again, until `cpu_pipeline.bufferize` learned to retry
    with that write copied (`copy_written_loop_states`)."""
    inputs = [np.arange(1.0, 5.0), np.full(4, 0.5), np.float64(s)]
    result = gradir.gradcheck(WRITE_TO_AN_ARGUMENT_IN_A_BRANCH, "f", inputs=inputs, allow_vacuous=True)
    assert_exercised(result)  # s = -1: the state is overwritten (gradient 0); s = 1: s is unused


def test_seed_626762_is_gradchecked():
    """The generated program itself, gradient included."""
    from standard_programs import generate

    program = generate(626762)
    result = gradir.gradcheck(program.text, "program_626762", allow_vacuous=True)
    assert_exercised(result)


def test_seed_918032_is_gradchecked():
    """Fuzz run of 2026-11-30: a reversed inner loop accumulates into gradients its reversed
    outer loop carries and reads again after it; forced in place, that loop's state met
    "'scf.for' op not bufferizable under the given constraints: cannot avoid RaW conflict"
    (vjp only, with or without checkpointing) until `cpu_pipeline.bufferize` learned a last
    attempt with the loop states not forced in place (`loop_states.drop_in_place_states`).
    Not cut down: hand-written loops of the same shape bufferize at the first attempt."""
    from standard_programs import generate

    program = generate(918032)
    for checkpoint_every in (0, 2):
        result = gradir.gradcheck(program.text, "program_918032", allow_vacuous=True, checkpoint_every=checkpoint_every)
        assert_exercised(result)


def test_seed_626941_reference_holds_the_f32_constants_of_the_program():
    """Not a gradir bug, a generator one: its NumPy reference evaluated `0.003906 : f32` as
    0.003906, where the program (and gradir, promoting it to f64) holds the nearest f32,
    0.00390599994; after three loop iterations the forward value was 3.6e-9 relative off,
    over `FORWARD_RTOL` (hour-long fuzz run of 2026-11-25)."""
    from standard_gradcheck import run_batch_in_child

    results, crash = run_batch_in_child([626941], cpu_seconds=120)
    assert not crash, crash
    assert [r["status"] for r in results] == ["ok"], results


def test_seed_7038_draws_inputs_whose_reference_does_not_underflow():
    """A generator bug, not a gradir one: its NumPy reference runs under `np.errstate(all="raise")`
    to turn away inputs that blow up, and a product that underflowed to 0 (harmless) raised out of
    `generate`, crashing a whole batch of seeds (sweep of 2026-11-30). Underflow is allowed now, and
    inputs that overflow are drawn again rather than raised."""
    from standard_gradcheck import run_batch_in_child

    results, crash = run_batch_in_child([7038], cpu_seconds=120)
    assert not crash, crash
    assert [r["status"] for r in results] == ["ok"], results


# ---- fixed: a loop's reverse read its cache at an index it had erased (IR that did not verify) ----

STATE_READ_ONLY_IN_DEAD_CODE = """
func.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>, %s: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%state = %s) -> (f64) {
    %first = tensor.extract %x[%c0] : tensor<3xf64>
    %low = arith.constant -0.5 : f64
    %p = arith.cmpf olt, %first, %low : f64
    %t = scf.if %p -> (tensor<3xf64>) {
      %unused = math.sin %state : f64
      %m = arith.maximumf %y, %x : tensor<3xf64>
      scf.yield %m : tensor<3xf64>
    } else {
      %m = arith.mulf %x, %y : tensor<3xf64>
      scf.yield %m : tensor<3xf64>
    }
    %e = tensor.extract %t[%c1] : tensor<3xf64>
    %v = math.sin %e : f64
    %next = arith.addf %state, %v : f64
    scf.yield %next : f64
  }
  return %r : f64
}
"""


@pytest.mark.parametrize("first", [-0.8, 0.3], ids=["then", "else"])
def test_a_branch_reading_the_loop_state_only_in_dead_code(first):
    """The branch's results count as depending on the loop state (its unused `sin` reads it), so
    the reverse loop caches the value extracted from them; the stack index it reads them at had
    been erased as dead just before (random program seed 7120: 'using value defined out of its
    IsolatedFromAbove parent' after autodiff-reverse)."""
    inputs = [np.array([first, 0.4, -0.2]), np.array([0.5, 0.9, -0.7]), np.array(0.3)]
    result = gradir.gradcheck(STATE_READ_ONLY_IN_DEAD_CODE, "f", inputs=inputs, allow_vacuous=True)
    assert_exercised(result)  # then: max picks y, so x's gradient is 0


def test_seed_7120_is_gradchecked():
    from standard_gradcheck import run_batch_in_child

    results, crash = run_batch_in_child([7120], cpu_seconds=120)
    assert not crash, crash
    assert [r["status"] for r in results] == ["ok"], results
