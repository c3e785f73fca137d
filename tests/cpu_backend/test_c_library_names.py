"""User functions named like C library functions (`log2`, `atan`, `memcpy`) run on the CPU.

LLVM lowers math ops and copies to calls of the C library; a function body
keeping the user's name would be called instead (`@log2` computing `math.log2`
called itself forever). The calls run in a subprocess so a regression fails
on its timeout instead of hanging the suite.
"""
import math
import textwrap

import numpy as np

from child_process import run_python
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm_text
from gradir.mlir_bridge.host_execution import IMPLEMENTATION_PREFIX

PROGRAM = """
func.func @log2(%x: f64) -> f64 {
  %y = math.log2 %x : f64
  return %y : f64
}
func.func @atan(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = math.atan %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @memcpy(%x: tensor<64xf64>) -> (tensor<64xf64>, tensor<64xf64>) {
  return %x, %x : tensor<64xf64>, tensor<64xf64>
}
"""


def test_function_bodies_get_a_prefix_and_the_c_wrappers_keep_the_name():
    text = lower_to_llvm_text(PROGRAM)
    for name in ("log2", "atan", "memcpy"):
        assert f"llvm.func @{IMPLEMENTATION_PREFIX}{name}(" in text
        assert f"llvm.func @_mlir_ciface_{name}(" in text
        assert f"llvm.func @{name}(" not in text


def test_functions_named_like_the_c_library_compute_their_own_results(tmp_path):
    script = textwrap.dedent(
        f"""
        import numpy as np, gradir
        exe = gradir.compile({PROGRAM!r}, target="cpu")
        x = np.linspace(0.5, 2.0, 64)
        print(float(exe.call("log2", np.float64(0.7))[0]))
        print(*exe.call("atan", x[:3])[0])
        a, b = exe.call("memcpy", x)
        print(float(np.abs(a - x).max() + np.abs(b - x).max()))
        """
    )
    log2, atan, copy_error = run_python(script, tmp_path, timeout=120).strip().splitlines()
    assert float(log2) == np.log2(0.7)
    np.testing.assert_allclose([float(v) for v in atan.split()], np.arctan(np.linspace(0.5, 2.0, 64)[:3]), rtol=1e-14)
    assert float(copy_error) == 0.0


# `convert-math-to-libm` makes math.erf a call of `@erf`, reusing the module's own function of
# that name: a user's @erf(x) = 2x computed every math.erf (a wrong value, no error), and
# @asinh computing math.asinh called itself forever (Enzyme-MLIR's math tests name each
# function after its op). On the CPU and in the GPU pipeline's host code (emulated).
LIBM_PROGRAM = """
func.func @erf(%x: f64) -> f64 {
  %two = arith.constant 2.0 : f64
  %y = arith.mulf %x, %two : f64
  return %y : f64
}
func.func @uses_math_erf(%x: f64) -> f64 {
  %y = math.erf %x : f64
  return %y : f64
}
func.func @asinh(%x: f64) -> f64 {
  %y = math.asinh %x : f64
  return %y : f64
}
func.func @cbrt(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = math.cbrt %x : tensor<3xf32>
  return %y : tensor<3xf32>
}
"""


def test_functions_named_like_libm_functions_do_not_replace_them(tmp_path):
    script = textwrap.dedent(
        f"""
        import numpy as np, gradir
        from gradir.gpu_backend.cuda_program import CudaProgram
        cpu = gradir.compile({LIBM_PROGRAM!r}, target="cpu")
        gpu = CudaProgram({LIBM_PROGRAM!r})
        for call in (cpu.call, gpu.emulate):
            print(float(call("erf", np.float64(0.5))[0]), float(call("uses_math_erf", np.float64(0.5))[0]),
                  float(call("asinh", np.float64(0.5))[0]), *call("cbrt", np.array([8, 27, 2], np.float32))[0])
        """
    )
    lines = run_python(script, tmp_path, timeout=240).strip().splitlines()
    assert len(lines) == 2
    for line in lines:
        doubled, erf, asinh, *cbrt = map(float, line.split())
        assert doubled == 1.0
        assert abs(erf - math.erf(0.5)) < 1e-15
        assert abs(asinh - math.asinh(0.5)) < 1e-15
        np.testing.assert_allclose(cbrt, [2.0, 3.0, 2.0 ** (1 / 3)], rtol=1e-6)
