"""Values computed into their destinations on the GPU (`mlir_bridge.destinations`), and the
MLIR 22 miscompile that replaced `eliminate-empty-tensors` there.

A loop inserting into a tensor defined before it (a reverse loop adding one slice's gradient
into a zero tensor, or a user's scatter into a precomputed tensor) was silently wrong on the
GPU pipeline: with `eliminate-empty-tensors`, the loop-invariant tensor was written in place,
so iteration i saw every earlier iteration's slice. The kernels run emulated on the CPU give
the values the GPU would compute. What the pass did that saved kernels is done by
`compute_into_destinations` instead; the tests count the copies it saves."""
import pathlib
import sys

import numpy as np
import pytest

import gradir
import gradir.gpu_backend.gpu_pipeline as gpu_pipeline

INSERT_INTO_OUTSIDE = """
#row = affine_map<(j) -> (j)>
#all = affine_map<(i, j) -> (i, j)>
func.func @f(%a: tensor<4x3xf64>, %v: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x3xf64>
  %outside = DESTINATION
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<4x3xf64>) -> tensor<4x3xf64>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (tensor<4x3xf64>) {
    %vi = tensor.extract_slice %v[%i, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
    %e3 = tensor.empty() : tensor<3xf64>
    %sq = linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel"]}
        ins(%vi : tensor<3xf64>) outs(%e3 : tensor<3xf64>) {
    ^bb0(%x: f64, %o: f64):
      %y = arith.mulf %x, %x : f64
      linalg.yield %y : f64
    } -> tensor<3xf64>
    %inserted = tensor.insert_slice %sq into %outside[%i, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<4x3xf64>
    %e4 = tensor.empty() : tensor<4x3xf64>
    %sum = linalg.generic {indexing_maps = [#all, #all, #all], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %inserted : tensor<4x3xf64>, tensor<4x3xf64>) outs(%e4 : tensor<4x3xf64>) {
    ^bb0(%x: f64, %y: f64, %o: f64):
      %s = arith.addf %x, %y : f64
      linalg.yield %s : f64
    } -> tensor<4x3xf64>
    scf.yield %sum : tensor<4x3xf64>
  }
  return %r : tensor<4x3xf64>
}
"""

DESTINATIONS = {
    # How a reverse loop adds one slice's gradient: into a zero tensor made before the loop.
    "zeros": ("linalg.fill ins(%zero : f64) outs(%e : tensor<4x3xf64>) -> tensor<4x3xf64>", np.zeros_like),
    "computed": (
        "linalg.generic {indexing_maps = [#all, #all], iterator_types = [\"parallel\", \"parallel\"]}"
        " ins(%a : tensor<4x3xf64>) outs(%e : tensor<4x3xf64>) {\n"
        "  ^bb0(%x: f64, %o: f64):\n    %y = math.exp %x : f64\n    linalg.yield %y : f64\n  } -> tensor<4x3xf64>",
        np.exp,
    ),
}


@pytest.mark.parametrize("destination", DESTINATIONS)
def test_a_loop_inserting_into_a_tensor_from_outside_it(destination):
    text, outside = DESTINATIONS[destination]
    source = INSERT_INTO_OUTSIDE.replace("DESTINATION", text)
    rng = np.random.default_rng(0)
    a, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3)) + 1.0
    expected = np.zeros((4, 3))
    for i in range(4):
        inserted = outside(a)
        inserted[i] = v[i] ** 2
        expected += inserted
    np.testing.assert_allclose(gradir.compile(source, target="cuda").emulate("f", a, v)[0], expected, rtol=1e-13)
    np.testing.assert_allclose(gradir.compile(source).f(a, v), expected, rtol=1e-13)


ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lstm():
    """The ADBench LSTM gradient (examples/lstm), 1 layer, 4 steps, width 3: a forward loop
    pushing each step's values onto tapes, a reverse loop carrying the gradient states."""
    sys.path.insert(0, str(ROOT / "examples" / "lstm"))
    from lstm import lstm_program

    return lstm_program(1, 4, 3)


def _compiled(lstm, monkeypatch, rewrite: bool):
    with monkeypatch.context() as patch:
        if not rewrite:
            patch.setattr(gpu_pipeline, "compute_into_destinations", lambda module: None)
        return gradir.compile(lstm, target="cuda")


def test_states_and_tape_entries_are_computed_in_place(lstm, monkeypatch):
    """Tape entries and loop states computed in their destinations: 13 copy kernels of the
    80 are gone (the count `eliminate-empty-tensors` got), and the gradient is the same."""
    copied = _compiled(lstm, monkeypatch, rewrite=False)
    in_place = _compiled(lstm, monkeypatch, rewrite=True)
    assert len(in_place.kernels_of("lstm_gradient")) <= len(copied.kernels_of("lstm_gradient")) - 13
    cpu = gradir.compile(lstm)
    rng = np.random.default_rng(1)
    arguments = [rng.uniform(-0.5, 0.5, s.shape).astype(s.dtype) for s in cpu.signatures["lstm_gradient"].arguments]
    expected = cpu.call("lstm_gradient", *arguments)
    for got, without, want in zip(
        in_place.emulate("lstm_gradient", *arguments), copied.emulate("lstm_gradient", *arguments), expected
    ):
        assert np.max(np.abs(want)) > 1e-3
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(without, want, rtol=1e-12, atol=1e-14)


PIECEWISE = """
func.func @branch(%x: tensor<5xf32>, %flag: i1) -> tensor<5xf32> {
  %r = scf.if %flag -> (tensor<5xf32>) {
    %e = math.exp %x : tensor<5xf32>
    scf.yield %e : tensor<5xf32>
  } else {
    %s = math.sin %x : tensor<5xf32>
    scf.yield %s : tensor<5xf32>
  }
  return %r : tensor<5xf32>
}
"""


def test_a_branch_computes_its_result_in_the_shared_destination(monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(gpu_pipeline, "compute_into_destinations", lambda module: None)
        copied = gradir.compile(PIECEWISE, target="cuda")
    program = gradir.compile(PIECEWISE, target="cuda")
    assert len(program.kernels_of("branch")) == len(copied.kernels_of("branch")) - 2
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    np.testing.assert_allclose(program.emulate("branch", x, True)[0], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(program.emulate("branch", x, False)[0], np.sin(x), rtol=1e-6)
