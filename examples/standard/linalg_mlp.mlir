// A one-hidden-layer MLP in plain linalg: linalg.matmul, a linalg.generic
// adding the bias and applying math.tanh, and a sum-of-squares reduction
// written as a linalg.generic.
#rows = affine_map<(i, j) -> (i, j)>
#bias = affine_map<(i, j) -> (j)>
#all = affine_map<(i, j) -> ()>
func.func @mlp_loss(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<32xf32>,
                    %w2: tensor<32x4xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a1 = linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %b1 : tensor<8x32xf32>, tensor<32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%h: f32, %b: f32, %o: f32):
    %z = arith.addf %h, %b : f32
    %t = math.tanh %z : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %h2 = linalg.matmul ins(%a1, %w2 : tensor<8x32xf32>, tensor<32x4xf32>) outs(%f2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#rows, #all], iterator_types = ["reduction", "reduction"]}
      ins(%h2 : tensor<8x4xf32>) outs(%f3 : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
