// A piecewise function chosen by scf.if: sum(exp(x)) where sum(x) > 0,
// sum(x * x) elsewhere.
func.func @piecewise(%x: tensor<5xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %total = autodiff.sum %x : tensor<5xf32> -> tensor<f32>
  %t = tensor.extract %total[] : tensor<f32>
  %positive = arith.cmpf ogt, %t, %zero : f32
  %y = scf.if %positive -> (tensor<5xf32>) {
    %e = autodiff.exp %x : tensor<5xf32>
    scf.yield %e : tensor<5xf32>
  } else {
    %sq = autodiff.mul %x, %x : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
    scf.yield %sq : tensor<5xf32>
  }
  %loss = autodiff.sum %y : tensor<5xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
