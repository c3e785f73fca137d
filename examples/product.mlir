// f(a, b) = a*b*a + b and its gradient: the README's worked example.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %loss = autodiff.sum %y : tensor<4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
func.func @df(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ga, %gb = autodiff.grad @f(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %ga, %gb : tensor<4xf32>, tensor<4xf32>
}
