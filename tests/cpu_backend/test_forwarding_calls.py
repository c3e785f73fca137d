"""A public function that only calls another keeps the call (mlir_bridge/forwarding_calls.py).

`autodiff-reverse` makes `f_vjp_0`, `f_grad_0` (seeding 1) and the entry `g`
(a call of `f_grad_0`) public; inlined, each held a copy of the backward pass.
`g` forwards to `f_grad_0` and keeps its call; `f_grad_0` keeps its inlined
copy, where the value of `f` is dead code.
"""
import numpy as np

import gradir
from gradir.compilation import lower_to_linalg
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm_text

PROGRAM = """
func.func @f(%x: tensor<16xf32>) -> tensor<f32> {
  %s = math.sin %x : tensor<16xf32>
  %p = arith.mulf %s, %x : tensor<16xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%p : tensor<16xf32>) outs(%zero : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
func.func @g(%x: tensor<16xf32>) -> tensor<16xf32> {
  %d = autodiff.grad @f(%x) {wrt = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
  return %d : tensor<16xf32>
}
"""


def _body(text: str, name: str) -> str:
    start = text.index(f"llvm.func @{name}(")
    end = text.find("llvm.func @", start + 1)
    return text[start : end if end > 0 else len(text)]


def test_a_forwarder_calls_its_callee_instead_of_copying_it():
    text = lower_to_llvm_text(lower_to_linalg(PROGRAM))
    entry = _body(text, "__gradir_g")
    assert "llvm.call @__gradir_f_grad_0(" in entry
    assert "llvm.cond_br" not in entry  # no loop: the backward pass is not in it
    assert "llvm.call @_mlir_memref_copy" not in entry and "memcpy" not in entry  # results written in place
    assert "llvm.cond_br" in _body(text, "__gradir_f_grad_0")  # seeded and inlined


def test_the_three_public_functions_compute_the_gradient():
    executable = gradir.compile(PROGRAM, target="cpu")
    x = np.linspace(-2.0, 2.0, 16, dtype=np.float32)
    expected = np.cos(x) * x + np.sin(x)
    np.testing.assert_allclose(executable.g(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(executable.f_grad_0(x), expected, rtol=1e-5, atol=1e-6)
    loss, gradient = executable.f_vjp_0(x, np.float32(2.0))
    np.testing.assert_allclose(loss, np.sum(np.sin(x) * x), rtol=1e-5)
    np.testing.assert_allclose(gradient, 2.0 * expected, rtol=1e-5, atol=1e-6)
