"""The branch-free f32 sin and cos of `cpu_math_approximation`, over the whole f32 range.

The reference is NumPy's float64 sin/cos (glibc: correctly reduced for every
double), rounded to f32 only when measuring the spacing. Errors are in units
in the last place of the f32 result, with no floor: an argument that is
almost a multiple of pi/2 must still give a result with f32 relative accuracy.
"""
import numpy as np
import pytest

from gradir.cpu_backend.cpu_pipeline import lower_to_llvm_text
from gradir.cpu_backend.cpu_runtime import CpuExecutable

TRIGONOMETRIC = """
func.func @f(%x: tensor<Nxf32>) -> (tensor<Nxf32>, tensor<Nxf32>) {
  %s = math.sin %x : tensor<Nxf32>
  %c = math.cos %x : tensor<Nxf32>
  return %s, %c : tensor<Nxf32>, tensor<Nxf32>
}
"""

# The f32 arguments closest to a multiple of pi/2 (x = m * 2^e, m a 24-bit
# integer), found by an exhaustive search over every m for each e: they leave a
# reduced argument down to 2^-29.9 (times pi/2), where a reduction with too few
# bits of pi/2 loses all precision.
HARD_ARGUMENTS = [
    (16367173, 72), (10741887, 11), (16367173, 73), (10741887, 12), (16573937, -16),
    (16367173, 74), (10057457, 62), (11617958, 17), (9012376, 53), (14173733, 88),
]


def sin_cos(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    exe = CpuExecutable(TRIGONOMETRIC.replace("N", str(x.size)))
    return exe.f(x)


def ulp_error(actual: np.ndarray, exact: np.ndarray) -> float:
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return float(np.max(np.abs(actual.astype(np.float64) - exact) / spacing))


def signed(magnitudes: np.ndarray) -> np.ndarray:
    return np.concatenate([magnitudes, -magnitudes]).astype(np.float32)


@pytest.mark.parametrize(
    "name, magnitudes",
    [
        ("up to 1e4", np.random.default_rng(0).uniform(0.0, 1e4, 100_000)),
        ("small", np.geomspace(1e-38, 1.0, 4000)),
        ("1e4 to 3e38", np.geomspace(1e4, 3.4e38, 100_000)),
        ("near multiples of pi/2", np.arange(1, 100_000) * (np.pi / 2)),
        ("hardest to reduce", np.array([m * 2.0**e for m, e in HARD_ARGUMENTS])),
    ],
)
def test_sin_cos_are_within_two_ulp(name, magnitudes):
    x = signed(magnitudes)
    sin, cos = sin_cos(x)
    exact = x.astype(np.float64)
    assert ulp_error(sin, np.sin(exact)) <= 2, name
    assert ulp_error(cos, np.cos(exact)) <= 2, name


def test_sin_cos_of_special_values():
    largest = np.finfo(np.float32).max
    smallest = np.finfo(np.float32).smallest_subnormal
    x = np.array([0.0, -0.0, smallest, -smallest, largest, -largest, np.inf, -np.inf, np.nan], np.float32)
    sin, cos = sin_cos(x)
    np.testing.assert_array_equal(sin[:4], x[:4])  # sin x == x, sign of zero included
    assert not np.signbit(sin[0]) and np.signbit(sin[1])
    np.testing.assert_array_equal(cos[:4], np.ones(4, np.float32))
    exact = x[4:6].astype(np.float64)
    assert ulp_error(sin[4:6], np.sin(exact)) <= 2 and ulp_error(cos[4:6], np.cos(exact)) <= 2
    assert np.all(np.isnan(sin[6:])) and np.all(np.isnan(cos[6:]))


def test_f32_sin_cos_call_no_libm_and_f64_keeps_it():
    """A libm call in the loop body would stop LLVM's loop vectoriser."""
    source = """
    func.func @f(%x: tensor<64xf32>, %y: tensor<64xf64>) -> (tensor<64xf32>, tensor<64xf64>) {
      %s = math.sin %x : tensor<64xf32>
      %c = math.cos %s : tensor<64xf32>
      %d = math.sin %y : tensor<64xf64>
      return %c, %d : tensor<64xf32>, tensor<64xf64>
    }
    """
    calls = [line for line in lower_to_llvm_text(source).splitlines() if "sin" in line or "cos" in line]
    assert len(calls) == 1 and "llvm.intr.sin" in calls[0] and "(f64) -> f64" in calls[0]
