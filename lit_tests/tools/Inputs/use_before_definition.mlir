// %m is used one line before the op that defines it.
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %a = autodiff.add %x, %m : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %m = autodiff.exp %x : tensor<3xf64>
  return %a : tensor<3xf64>
}
