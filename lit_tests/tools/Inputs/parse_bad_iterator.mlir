#id = affine_map<(i) -> (i)>
func.func @iterator(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["beduction"]} ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
