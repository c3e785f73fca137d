func.func @first(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
