// Source: llvm/llvm-project mlir/test/Dialect/Linalg/decompose-ops.mlir (commit 34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4), https://github.com/llvm/llvm-project/blob/34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4/mlir/test/Dialect/Linalg/decompose-ops.mlir
// What: a linalg.generic reading an f32 tensor and an i32 vector broadcast along rows and writing the transposed f64 sum sitofp(i) + extf(x).
// Adaptations: kept only @multi_statement of the split file (dropped the CHECK lines and the other splits); added the gradir entry @vjp_multi (autodiff.vjp wrt the f32 argument) below the marker.
// gradir-corpus: entry=multi_statement wrt=0 reference=mlir_generic_multi_statement inputs=signed

#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1, d0)>
func.func @multi_statement(%arg0 : tensor<10x20xf32>, %arg1 : tensor<10xi32>) -> tensor<20x10xf64> {
  %init = tensor.empty() : tensor<20x10xf64>
  %0 = linalg.generic {
    indexing_maps = [#map0, #map1, #map2],
    iterator_types = ["parallel", "parallel"]}
    ins(%arg0, %arg1 : tensor<10x20xf32>, tensor<10xi32>)
    outs(%init : tensor<20x10xf64>) {
    ^bb0(%b0 : f32, %b1 : i32, %b2 : f64):
      %1 = arith.sitofp %b1 : i32 to f64
      %2 = arith.extf %b0 : f32 to f64
      %3 = arith.addf %1, %2 : f64
      linalg.yield %3 : f64
    } -> tensor<20x10xf64>
  return %0 : tensor<20x10xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_multi(%x: tensor<10x20xf32>, %i: tensor<10xi32>, %ct: tensor<20x10xf64>) -> (tensor<20x10xf64>, tensor<10x20xf32>) {
  %r:2 = autodiff.vjp @multi_statement(%x, %i, %ct) {wrt = array<i64: 0>} : (tensor<10x20xf32>, tensor<10xi32>, tensor<20x10xf64>) -> (tensor<20x10xf64>, tensor<10x20xf32>)
  return %r#0, %r#1 : tensor<20x10xf64>, tensor<10x20xf32>
}
