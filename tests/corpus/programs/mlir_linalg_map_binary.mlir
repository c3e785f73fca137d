// Source: llvm/llvm-project mlir/test/Dialect/Linalg/roundtrip.mlir (commit 8e1dd3ca69f6186ea05d264d26454214ca50efc3), https://github.com/llvm/llvm-project/blob/8e1dd3ca69f6186ea05d264d26454214ca50efc3/mlir/test/Dialect/Linalg/roundtrip.mlir
// What: linalg.map with two inputs (elementwise sum of two 1-d tensors) into an init tensor.
// Adaptations: kept only @map_binary of the split file (dropped the CHECK lines and the other splits); shapes reduced (64 -> 5); the body takes the init element as a third block argument (%init_elem, unused), as MLIR 22's linalg.map requires; added the gradir entry @vjp_map_binary (autodiff.vjp wrt both inputs and the unused init) below the marker.
// gradir-corpus: entry=map_binary wrt=0,1,2 reference=mu_map_binary inputs=signed

func.func @map_binary(%lhs: tensor<5xf32>, %rhs: tensor<5xf32>,
                      %init: tensor<5xf32>) -> tensor<5xf32> {
   %add = linalg.map
          ins(%lhs, %rhs: tensor<5xf32>, tensor<5xf32>)
          outs(%init:tensor<5xf32>)
          (%lhs_elem: f32, %rhs_elem: f32, %init_elem: f32) {
            %0 = arith.addf %lhs_elem, %rhs_elem: f32
            linalg.yield %0: f32
          }
  func.return %add : tensor<5xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_map_binary(%a0: tensor<5xf32>, %a1: tensor<5xf32>, %a2: tensor<5xf32>, %c0: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %r:4 = autodiff.vjp @map_binary(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1, 2>} : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
