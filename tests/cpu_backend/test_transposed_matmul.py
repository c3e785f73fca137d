"""A `linalg.matmul` whose `indexing_maps` read an operand transposed (as MLIR names
a gradient's generic again, or a front end writes it) runs right on the CPU. The
schedule's register-blocked vectorisation of it crashed the process at run time
from about 256x256x256 (f32, B transposed), so such matmuls are left to the loops
(`cpu_schedule._default_matmul_maps`); each case runs in a child process so that a
crash is a failed test, not a dead test run."""

import pytest

from child_process import run_python

MAPS = {
    "a": ("affine_map<(d0, d1, d2) -> (d2, d0)>", "affine_map<(d0, d1, d2) -> (d2, d1)>"),
    "b": ("affine_map<(d0, d1, d2) -> (d0, d2)>", "affine_map<(d0, d1, d2) -> (d1, d2)>"),
}

PROGRAM = """
import numpy as np, gradir
n, element, transposed = {n}, "{element}", "{transposed}"
t = f"tensor<{{n}}x{{n}}x{{element}}>"
a_map, b_map = {maps!r}
source = f'''
func.func @f(%a: {{t}}, %b: {{t}}) -> {{t}} {{{{
  %zero = arith.constant 0.0 : {{element}}
  %e = tensor.empty() : {{t}}
  %c = linalg.fill ins(%zero : {{element}}) outs(%e : {{t}}) -> {{t}}
  %m = linalg.matmul indexing_maps = [{{a_map}}, {{b_map}}, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : {{t}}, {{t}}) outs(%c : {{t}}) -> {{t}}
  return %m : {{t}}
}}}}'''
rng = np.random.default_rng(0)
dtype = np.float32 if element == "f32" else np.float64
a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
result = gradir.compile(source, target="cpu").f(a, b)
expected = (a.T if transposed == "a" else a) @ (b.T if transposed == "b" else b)
np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-3)
print("ok")
"""


@pytest.mark.parametrize("transposed", ["a", "b"])
@pytest.mark.parametrize("n, element", [(256, "f32"), (48, "f64")])
def test_transposed_matmul_runs(n, element, transposed, tmp_path):
    code = PROGRAM.format(n=n, element=element, transposed=transposed, maps=MAPS[transposed])
    assert run_python(code, tmp_path).strip() == "ok"
