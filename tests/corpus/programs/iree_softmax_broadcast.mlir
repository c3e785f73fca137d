// Source: iree-org/iree compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir
// What: softmax over the last dimension written out in generics the way a frontend emits it: a maximumf reduction from -inf (0xFF800000), explicit broadcast generics (yield of the input) for the max and the sum, subtract, exp, an addf reduction from -0.0, and an elementwise divf.
// Adaptations: kept only @softmax_broadcast of the file (dropped the RUN/CHECK lines and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (12x128x128 -> 2x3x4, 12x128 -> 2x3); added the gradir entry @vjp_softmax_broadcast (autodiff.vjp) below the marker.
// gradir-corpus: entry=softmax_broadcast wrt=0 reference=iree_softmax_last inputs=signed

func.func @softmax_broadcast(%93 : tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>) {
  %cst_16 = arith.constant 0xFF800000 : f32
  %cst_18 = arith.constant -0.000000e+00 : f32
  %94 = tensor.empty() : tensor<2x3xf32>
  %95 = linalg.fill ins(%cst_16 : f32) outs(%94 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %96 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%93 : tensor<2x3x4xf32>) outs(%95 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2460 = arith.maximumf %out, %in : f32
    linalg.yield %2460 : f32
  } -> tensor<2x3xf32>
  %97 = tensor.empty() : tensor<2x3x4xf32>
  %98 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%96 : tensor<2x3xf32>) outs(%97 : tensor<2x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x4xf32>
  %99 = tensor.empty() : tensor<2x3x4xf32>
  %100 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%93, %98 : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%99 : tensor<2x3x4xf32>) {
  ^bb0(%in: f32, %in_261: f32, %out: f32):
    %2460 = arith.subf %in, %in_261 : f32
    linalg.yield %2460 : f32
  } -> tensor<2x3x4xf32>
  %101 = tensor.empty() : tensor<2x3x4xf32>
  %102 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%100 : tensor<2x3x4xf32>) outs(%101 : tensor<2x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2460 = math.exp %in : f32
    linalg.yield %2460 : f32
  } -> tensor<2x3x4xf32>
  %103 = tensor.empty() : tensor<2x3xf32>
  %104 = linalg.fill ins(%cst_18 : f32) outs(%103 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %105 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%102 : tensor<2x3x4xf32>) outs(%104 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2460 = arith.addf %out, %in : f32
    linalg.yield %2460 : f32
  } -> tensor<2x3xf32>
  %106 = tensor.empty() : tensor<2x3x4xf32>
  %107 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%105 : tensor<2x3xf32>) outs(%106 : tensor<2x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x4xf32>
  %108 = tensor.empty() : tensor<2x3x4xf32>
  %109 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%102, %107 : tensor<2x3x4xf32>, tensor<2x3x4xf32>) outs(%108 : tensor<2x3x4xf32>) {
  ^bb0(%in: f32, %in_261: f32, %out: f32):
    %2460 = arith.divf %in, %in_261 : f32
    linalg.yield %2460 : f32
  } -> tensor<2x3x4xf32>
  return %109 : tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_softmax_broadcast(%x: tensor<2x3x4xf32>, %ct: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:2 = autodiff.vjp @softmax_broadcast(%x, %ct) {wrt = array<i64: 0>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
