// Source: pengmai/lagrad test/LAGrad/bufferize/grad_collapse_shape_2d.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/bufferize/grad_collapse_shape_2d.mlir
// What: the third 4x4 plane of a 4x4x4 tensor taken by a rank-reducing tensor.extract_slice ([1, 4, 4] sizes to tensor<4x4xf64>).
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_collapsed (autodiff.vjp) below the marker.
// gradir-corpus: entry=collapsed wrt=0 reference=lg_plane2 inputs=signed

func.func @collapsed(%arg0: tensor<4x4x4xf64>) -> tensor<4x4xf64> {
  %0 = tensor.extract_slice %arg0 [2, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4x4xf64> to tensor<4x4xf64>
  return %0 : tensor<4x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_collapsed(%a: tensor<4x4x4xf64>, %ct: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4x4xf64>) {
  %r:2 = autodiff.vjp @collapsed(%a, %ct) {wrt = array<i64: 0>} : (tensor<4x4x4xf64>, tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4x4xf64>)
  return %r#0, %r#1 : tensor<4x4xf64>, tensor<4x4x4xf64>
}
