"""Random-argument fuzzing of the Python API and the CPU runtime (issue 18): compiled
functions called with arrays of random shapes, dtypes, layouts and values, Python
scalars and other objects; `gradir.gradcheck` and `gradir.compile` with random keyword
values. Every call must return (correct values, for well-formed calls) or raise a
`GradirError` with a one-line message: never another exception, never a crash.

`GRADIR_FUZZ_API_CALLS` sets the budget (CI's default is small; `scripts/fuzz` raises
it), `GRADIR_FUZZ_SEED` the seed."""
from __future__ import annotations

import os
import random

import numpy as np
import pytest

import gradir
from gradir.errors import GradirError, InternalError

CALLS = int(os.environ.get("GRADIR_FUZZ_API_CALLS", 300))
SEED = int(os.environ.get("GRADIR_FUZZ_SEED", 0))

PROGRAM = """\
func.func @f(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %0 = autodiff.mul %x, %y : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = autodiff.tanh %0 : tensor<3x4xf32>
  %2 = autodiff.sum %1 : tensor<3x4xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
func.func @df(%x: tensor<3x4xf32>, %y: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>) {
  %gx, %gy = autodiff.grad @f(%x, %y) : (tensor<3x4xf32>, tensor<4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  return %gx, %gy : tensor<3x4xf32>, tensor<4xf32>
}
func.func @s(%a: f64, %n: i32, %i: index, %b: i1, %t: tensor<2xi16>) -> f64 {
  return %a : f64
}
"""

DTYPES = (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.uint64, np.bool_, np.complex64, object, "U3", "V4")  # fmt: skip
SPECIAL = (np.nan, np.inf, -np.inf, 0.0, -0.0, 1e38, 1e39, 2**31, 2**63, 2**64, -(2**63) - 1, 2.5, True)


def _random_array(rng: random.Random, shape_hint: tuple[int, ...]) -> object:
    roll = rng.random()
    if roll < 0.35:
        shape = shape_hint  # the right shape: dtype and values vary
    elif roll < 0.5:
        shape = tuple(rng.choice((0, 1, 2, 3, 4, 5)) for _ in range(rng.randint(0, 3)))
    else:
        shape = tuple(max(0, d + rng.choice((-1, 0, 1))) for d in shape_hint)
    dtype = rng.choice(DTYPES)
    try:
        array = np.zeros(shape, dtype=dtype)
    except (TypeError, ValueError):
        return rng.choice(SPECIAL)
    if array.dtype.kind in "fiub" and array.size:
        with np.errstate(all="ignore"):
            flat = array.reshape(-1)
            for k in range(flat.size):
                try:
                    flat[k] = rng.choice(SPECIAL) if rng.random() < 0.2 else rng.uniform(-3, 3)
                except (OverflowError, ValueError, TypeError):
                    pass
    if rng.random() < 0.15 and array.ndim >= 1 and array.shape[0] > 1:
        array = array[::-1]  # negative strides
    if rng.random() < 0.1:
        array = np.asfortranarray(array)
    if rng.random() < 0.1:
        array.setflags(write=False)
    return array


def _random_argument(rng: random.Random, shape_hint: tuple[int, ...]) -> object:
    roll = rng.random()
    if roll < 0.7:
        return _random_array(rng, shape_hint)
    if roll < 0.85:
        return rng.choice(SPECIAL)
    return rng.choice((None, "x", [1, 2], {"a": 1}, object(), b"\x00", 1j, range(3)))


SIGNATURES = {"f": ((3, 4), (4,)), "df": ((3, 4), (4,)), "s": ((), (), (), (), (2,))}


def _check(call) -> object:
    try:
        return call()
    except InternalError as error:  # a GradirError too, but one that says gradir has a bug
        raise AssertionError(f"an internal error: {error}") from error
    except GradirError as error:
        message = str(error)
        assert "\n" not in message and message.startswith(("error: ", "<")) or ": error: " in message, message
        return error


@pytest.fixture(scope="module")
def exe():
    return gradir.compile(PROGRAM)


def test_calls_with_random_arguments(exe):
    rng = random.Random(SEED)
    returned = refused = 0
    for _ in range(CALLS):
        name = rng.choice(list(SIGNATURES))
        hints = list(SIGNATURES[name])
        if rng.random() < 0.05:
            name = rng.choice((None, 3, "nope", "", "_mlir_ciface_f", "f_vjp_0_1", b"f", ["f"]))
        count = len(hints) + (rng.choice((-1, 1)) if rng.random() < 0.1 else 0)
        arguments = [_random_argument(rng, hints[i] if i < len(hints) else (2,)) for i in range(max(0, count))]
        outcome = _check(lambda: exe.call(name, *arguments))
        if isinstance(outcome, GradirError):
            refused += 1
        else:
            returned += 1
    assert returned + refused == CALLS


def test_well_formed_random_values_give_right_gradients(exe):
    rng = np.random.default_rng(SEED)
    for _ in range(max(1, CALLS // 30)):
        x = rng.standard_normal((3, 4)).astype(np.float32)
        y = rng.standard_normal(4).astype(np.float32)
        gx, gy = exe.df(x, y)
        d = 1 - np.tanh(x * y) ** 2
        np.testing.assert_allclose(gx, d * y, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(gy, (d * x).sum(0), rtol=1e-4, atol=1e-5)


def test_gradcheck_and_compile_with_random_keyword_values():
    rng = random.Random(SEED + 1)
    values = (None, 0, -1, 1, 2, 0.5, -1e-6, 1e-6, float("nan"), float("inf"), True, "1e-6", "vjp",
              ("vjp",), ("bogus",), (), [0], [0.5], [1, 1], [9], object(), 2**70)  # fmt: skip
    keywords = ("eps", "atol", "rtol", "seed", "modes", "wrt", "checkpoint_every", "max_entries")
    for _ in range(max(1, CALLS // 10)):
        chosen = {k: rng.choice(values) for k in rng.sample(keywords, rng.randint(1, 3))}
        _check(lambda: gradir.gradcheck(PROGRAM, "f", **chosen))
    for _ in range(max(1, CALLS // 30)):
        chosen = {k: rng.choice(values) for k in rng.sample(("target", "checkpoint_every", "opt_level"), 2)}
        _check(lambda: gradir.compile(PROGRAM, **chosen))
