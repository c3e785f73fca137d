// Source: iree-org/iree compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir
// What: a transpose written as a gather in a linalg.generic body: an output-only generic whose body reads tensor.extract %A[linalg.index 1, linalg.index 0] (the init %B only provides the shape).
// Adaptations: kept only @test_extract_to_transpose of the file (dropped the RUN/CHECK lines and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (64x64 -> 3x3); added the gradir entry @vjp_test_extract_to_transpose (autodiff.vjp wrt %A and %B) below the marker.
// gradir-corpus: entry=test_extract_to_transpose wrt=0,1 reference=iree_extract_to_transpose inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @test_extract_to_transpose(%A : tensor<3x3xf32>, %B : tensor<3x3xf32>) -> tensor<3x3xf32> {
  %c0 = arith.constant 0 : index
  %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%B : tensor<3x3xf32>) {
  ^bb0(%out: f32):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %extracted = tensor.extract %A[%i1, %i0] : tensor<3x3xf32>
    linalg.yield %extracted : f32
  } -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_test_extract_to_transpose(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>, %ct: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) {
  %r:3 = autodiff.vjp @test_extract_to_transpose(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>
}
