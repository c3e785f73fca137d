"""`math.expm1` and `math.log1p` keep their digits near 0, on the CPU and in the GPU
pipeline's emulated host code.

MLIR 22 lowers them as `exp(x) - 1` and `log(1 + x)`: in f32 `expm1(1e-8)` and
`log1p(1e-8)` were 0 and 1e-7 was 19% off; in f64 1e-12 was 9e-5 off. These ops exist to
be accurate there (log-sigmoid, softplus, log-probabilities are written with them), and
their derivatives were right, so no gradient check could see it.
"""
import numpy as np
import pytest

import gradir
from gradir.gpu_backend.cuda_program import CudaProgram

X = [0.0, -0.0, 1e-12, -3e-10, 1e-8, 1e-7, -2e-6, 1e-5, 3e-4, -0.01, 0.1, 0.5, -0.75, 1.0, 5.0, -20.0, 60.0,
     np.inf, -np.inf, np.nan]  # fmt: skip
ULPS = {np.float32: 4 * np.finfo(np.float32).eps, np.float64: 4 * np.finfo(np.float64).eps}


def program(element: str, n: int) -> str:
    functions = []
    for name in ("expm1", "log1p"):
        functions.append(
            f"func.func @{name}(%x: tensor<{n}x{element}>) -> tensor<{n}x{element}> {{\n"
            f"  %y = math.{name} %x : tensor<{n}x{element}>\n  return %y : tensor<{n}x{element}>\n}}\n"
            f"func.func @{name}_scalar(%x: {element}) -> {element} {{\n"
            f"  %y = math.{name} %x : {element}\n  return %y : {element}\n}}\n"
        )
    return "".join(functions)


def expected(name: str, x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return getattr(np, name)(x.astype(np.float64)).astype(x.dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("backend", ["cpu", "gpu-emulated"])
def test_near_zero_and_at_the_special_values(dtype, backend):
    element = "f32" if dtype == np.float32 else "f64"
    x = np.array(X, dtype)
    log1p_x = np.concatenate([x[np.isnan(x) | (x > -1)], np.array([-1.0, -1.5], dtype)])  # the pole, outside
    text = program(element, len(x))
    if backend == "cpu":
        call = gradir.compile(text, target="cpu").call
    else:
        emulated = CudaProgram(text)
        call = emulated.emulate
    for name, points in (("expm1", x), ("log1p", log1p_x)):
        if len(points) != len(x):
            points = np.resize(points, len(x))
        want = expected(name, points)
        (got,) = call(name, points)
        scalars = np.array([call(f"{name}_scalar", value)[0] for value in points], dtype)
        for result in (got, scalars):
            np.testing.assert_allclose(result, want, rtol=ULPS[dtype], atol=0, err_msg=f"{name} {element} {backend}")
            np.testing.assert_array_equal(np.signbit(result[points == 0]), np.signbit(points[points == 0]))
