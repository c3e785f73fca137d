"""gradir from several threads at once (issue 18's hostile suite: threads). xDSL 0.74's
implicit builders patched a class attribute shared by all threads, so concurrent
lowerings added ops twice or lost them (`gradir/xdsl_threads.py`)."""
from __future__ import annotations

import threading

import numpy as np

import gradir
from gradir.compilation import lower_to_linalg

from .files import PRODUCT

ELEMENTWISE = """\
func.func @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %0 = autodiff.mul %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %1 = autodiff.sigmoid %0 : tensor<8xf32>
  %2 = autodiff.exp %1 : tensor<8xf32>
  %3 = autodiff.add %2, %a : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %4 = autodiff.tanh %3 : tensor<8xf32>
  %5 = autodiff.sum %4 : tensor<8xf32> -> tensor<f32>
  return %5 : tensor<f32>
}
func.func @df(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %ga, %gb = autodiff.grad @f(%a, %b) : (tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  return %ga, %gb : tensor<8xf32>, tensor<8xf32>
}
"""


def _in_threads(work, threads: int = 8) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(threads)

    def run(index: int) -> None:
        try:
            barrier.wait()
            work(index)
        except BaseException as error:  # noqa: BLE001 -- collected and reported
            errors.append(error)

    pool = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return errors


def test_lowering_from_eight_threads_at_once():
    reference = str(lower_to_linalg(ELEMENTWISE))
    results: dict[int, str] = {}

    def work(index: int) -> None:
        for _ in range(4):
            results[index] = str(lower_to_linalg(ELEMENTWISE))

    errors = _in_threads(work)
    assert not errors, errors[:2]
    assert set(results.values()) == {reference}


def test_compiling_and_calling_from_eight_threads_at_once():
    def work(index: int) -> None:
        exe = gradir.compile(PRODUCT)
        for _ in range(10):
            ga, gb = exe.df(np.full(4, index, np.float32), np.full(4, 2, np.float32))
            np.testing.assert_allclose(ga, 4 * index)  # d/da sum(a*b*a + b) = 2ab
            np.testing.assert_allclose(gb, index * index + 1)

    errors = _in_threads(work)
    assert not errors, errors[:2]


def test_errors_from_eight_threads_stay_their_own():
    """Each thread gets its own one-line error, naming its own bad argument."""
    exe = gradir.compile(PRODUCT)
    messages: dict[int, str] = {}

    def work(index: int) -> None:
        try:
            exe.df(np.ones(index + 1, np.float32), np.ones(4, np.float32))
        except gradir.ArgumentError as error:
            messages[index] = str(error)

    assert not _in_threads(work)
    for index in range(8):
        expected = "df: argument 0 has shape" if index != 3 else None
        if expected:
            assert messages[index].startswith(f"error: {expected} ({index + 1},)"), messages[index]
    assert 3 not in messages  # shape (4,) is right
