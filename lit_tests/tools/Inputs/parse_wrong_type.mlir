func.func @scalar_for_tensor(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autodiff.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> f32
  return %0 : tensor<4xf32>
}
