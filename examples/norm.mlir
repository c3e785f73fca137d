// The Euclidean norm |x| = sqrt(sum(x * x)) and its gradient x / |x|, which is 0 / 0 at
// x = 0: a NaN gradient from a finite function (JAX's FAQ example). README's "NaN, Inf
// and unused arguments" finds where it starts with check_numerics.
func.func @norm(%x: tensor<3xf64>) -> tensor<f64> {
  %squares = autodiff.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %total = autodiff.sum %squares : tensor<3xf64> -> tensor<f64>
  %n = autodiff.sqrt %total : tensor<f64>
  return %n : tensor<f64>
}

func.func @norm_grad(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @norm(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
