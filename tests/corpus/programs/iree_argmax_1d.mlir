// Source: iree-org/iree tests/e2e/linalg/argmax.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/linalg/argmax.mlir
// What: max and argmax of a vector as one two-result reduction generic into 0-d tensors: arith.maximumf for the value from -inf, and `cmpf ogt` of the same accumulator + select of linalg.index cast to i32 for the index.
// Adaptations: the body of @argmax_1d turned into a function of the vector: the input built upstream from constants (%seven = 7.0 filled by linalg.fill into %input_filled, then %large = 53.0 put at %index 131071 by tensor.insert) became the argument %input, so those five lines went; size reduced (131072 -> 8); the function returns the max %result#0 instead of the two check.expect_*_const (the index %result#1 is still computed but not returned: the corpus gradchecks float results only); added the gradir entry @vjp_argmax_1d (autodiff.vjp) below the marker.
// gradir-corpus: entry=argmax_1d wrt=0 reference=iree_argmax_1d inputs=signed

func.func @argmax_1d(%input: tensor<8xf32>) -> tensor<f32> {
  %neg_inf = arith.constant 0xFF800000 : f32  // -inf
  %c0_i32 = arith.constant 0 : i32
  %init_val_buf = tensor.empty() : tensor<f32>
  %init_idx_buf = tensor.empty() : tensor<i32>
  %init_val = linalg.fill ins(%neg_inf : f32) outs(%init_val_buf : tensor<f32>) -> tensor<f32>
  %init_idx = linalg.fill ins(%c0_i32 : i32) outs(%init_idx_buf : tensor<i32>) -> tensor<i32>

  %result:2 = linalg.generic {
      indexing_maps = [
        affine_map<(d0) -> (d0)>,
        affine_map<(d0) -> ()>,
        affine_map<(d0) -> ()>
      ],
      iterator_types = ["reduction"]
    } ins(%input : tensor<8xf32>)
      outs(%init_val, %init_idx : tensor<f32>, tensor<i32>) {
    ^bb0(%in: f32, %val: f32, %idx: i32):
      %i = linalg.index 0 : index
      %i_cast = arith.index_cast %i : index to i32
      %maxval = arith.maximumf %in, %val : f32
      %cmp = arith.cmpf ogt, %in, %val : f32
      %sel_idx = arith.select %cmp, %i_cast, %idx : i32
      linalg.yield %maxval, %sel_idx : f32, i32
  } -> (tensor<f32>, tensor<i32>)

  return %result#0 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_argmax_1d(%x: tensor<8xf32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<8xf32>) {
  %r:2 = autodiff.vjp @argmax_1d(%x, %ct) {wrt = array<i64: 0>} : (tensor<8xf32>, tensor<f32>) -> (tensor<f32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<8xf32>
}
