func.func @twice(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

func.func @twice(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
