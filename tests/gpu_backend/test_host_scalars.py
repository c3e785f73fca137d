"""Scalars between the host and the device (`map_to_gpu._scalars_across`): an element of device
data read on the host (a function returning a scalar, a gradient with respect to a scalar
argument) is copied there by a one-thread kernel, a host scalar written into device data is
stored by one, and scalar arithmetic on host values stays on the host. The kernels run
emulated on the CPU, against the derivatives written out."""
import numpy as np

import gradir

SCALE_AND_SUM = """
#id = affine_map<(i) -> (i)>
#all = affine_map<(i) -> ()>
func.func private @f(%s: f64, %x: tensor<5xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %sum = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%x : tensor<5xf64>) outs(%init : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %p = arith.mulf %v, %s : f64
    %q = arith.mulf %p, %v : f64
    %n = arith.addf %acc, %q : f64
    linalg.yield %n : f64
  } -> tensor<f64>
  %r = tensor.extract %sum[] : tensor<f64>
  %root = math.sqrt %s : f64
  %out = arith.mulf %r, %root : f64
  return %out : f64
}
func.func @f_vjp(%s: f64, %x: tensor<5xf64>, %ct: f64) -> (f64, f64, tensor<5xf64>) {
  %r:3 = autodiff.vjp @f(%s, %x, %ct) {wrt = array<i64: 0, 1>} : (f64, tensor<5xf64>, f64) -> (f64, f64, tensor<5xf64>)
  return %r#0, %r#1, %r#2 : f64, f64, tensor<5xf64>
}
"""


def test_a_scalar_result_and_a_scalar_gradient_come_back_to_the_host():
    """f(s, x) = sqrt(s) * s * sum(x^2): the sum is read back to the host, sqrt(s) stays
    there, and the gradient with respect to `s` is a device reduction read back too."""
    program = gradir.compile(SCALE_AND_SUM, target="cuda")
    assert any(k.endswith("element_to_host") for k in program.kernels_of("f_vjp"))
    s, ct = 1.7, 0.6
    x = np.linspace(-1.0, 1.5, 5)
    value, ds, dx = program.emulate("f_vjp", s, x, ct)
    squares = np.sum(x * x)
    np.testing.assert_allclose(value, s**1.5 * squares, rtol=1e-14)
    np.testing.assert_allclose(ds, ct * 1.5 * s**0.5 * squares, rtol=1e-14)
    np.testing.assert_allclose(dx, ct * s**1.5 * 2 * x, rtol=1e-14)


SCALAR_INTO_TENSOR = """
func.func @g(%a: f64, %b: f64, %x: tensor<3xf64>) -> tensor<3xf64> {
  %c1 = arith.constant 1 : index
  %p = arith.mulf %a, %b : f64
  %q = math.exp %p : f64
  %t = tensor.insert %q into %x[%c1] : tensor<3xf64>
  %y = math.tanh %t : tensor<3xf64>
  return %y : tensor<3xf64>
}
"""


def test_a_host_scalar_is_written_into_device_data():
    program = gradir.compile(SCALAR_INTO_TENSOR, target="cuda")
    assert any(k.endswith("element_from_host") for k in program.kernels_of("g"))
    x = np.array([0.3, -0.2, 0.9])
    expected = x.copy()
    expected[1] = np.exp(0.4 * -0.5)
    np.testing.assert_allclose(program.emulate("g", 0.4, -0.5, x)[0], np.tanh(expected), rtol=1e-14)
