// Source: llvm/llvm-project mlir/test/Dialect/Linalg/detensorize_while.mlir (commit 5d7d8257a27b5baeb076b20a754ebaafd5c28663), https://github.com/llvm/llvm-project/blob/5d7d8257a27b5baeb076b20a754ebaafd5c28663/mlir/test/Dialect/Linalg/detensorize_while.mlir
// What: a while loop written with cf.br/cf.cond_br whose state is a 0-d tensor: while x < y, x <- x + x (both the compare and the add are 0-d linalg.generic ops; the condition is tensor.extract-ed).
// Adaptations: i32 -> f32 throughout so that the loop is differentiable (tensor<i32> -> tensor<f32>, arith.cmpi slt -> arith.cmpf olt, arith.addi -> arith.addf, the generics' block arguments i32 -> f32); dropped the RUN/CHECK lines; added the gradir entry @vjp_main (autodiff.vjp wrt both arguments) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=mlir_double_until inputs=mlir_double_until

#map0 = affine_map<() -> ()>

#attrs = {
  indexing_maps = [#map0, #map0, #map0],
  iterator_types = []
}

func.func @main(%farg0: tensor<f32>, %farg1: tensor<f32>) -> tensor<f32> attributes {} {
  cf.br ^bb1(%farg0 : tensor<f32>)

^bb1(%0: tensor<f32>):  // 2 preds: ^bb0, ^bb2
  %1 = tensor.empty() : tensor<i1>
  %2 = linalg.generic #attrs
    ins(%0, %farg1 : tensor<f32>, tensor<f32>)
    outs(%1 : tensor<i1>) {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: i1):
      %8 = arith.cmpf olt, %arg0, %arg1 : f32
      linalg.yield %8 : i1
  } -> tensor<i1>
  %3 = tensor.extract %2[] : tensor<i1>
  cf.cond_br %3, ^bb2(%0 : tensor<f32>), ^bb3(%0 : tensor<f32>)

^bb2(%4: tensor<f32>):  // pred: ^bb1
  %5 = tensor.empty() : tensor<f32>
  %6 = linalg.generic #attrs
    ins(%4, %4 : tensor<f32>, tensor<f32>)
    outs(%5 : tensor<f32>) {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
      %8 = arith.addf %arg0, %arg1 : f32
      linalg.yield %8 : f32
  } -> tensor<f32>
  cf.br ^bb1(%6 : tensor<f32>)

^bb3(%7: tensor<f32>):  // pred: ^bb1
  return %7 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%x: tensor<f32>, %y: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:3 = autodiff.vjp @main(%x, %y, %ct) {wrt = array<i64: 0, 1>} : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<f32>
}
