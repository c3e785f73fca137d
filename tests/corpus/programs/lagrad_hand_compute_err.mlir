// Source: pengmai/lagrad test/LAGrad/hand/compute_err_simple.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/hand/compute_err_simple.mlir
// What: ADBench Hand residuals: nested scf.for over points and coordinates with tensor.extract/insert, the vertex row chosen by an i32 correspondence converted with arith.index_cast.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [2, 3]` -> `tensor.empty()`; shapes reduced to keep the corpus fast (544 vertices -> 5); dropped the driver @main and the print declaration; added the gradir entry @vjp_compute_err (autodiff.vjp) below the marker.
// gradir-corpus: entry=compute_err wrt=0,1 reference=compute_err inputs=compute_err

func.func @compute_err(%vertex_positions: tensor<5x3xf64>, %points: tensor<2x3xf64>, %correspondences: tensor<2xi32>) -> tensor<2x3xf64> { 
  %err_init = tensor.empty() : tensor<2x3xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cpts = arith.constant 2 : index
  %err = scf.for %iv = %c0 to %cpts step %c1 iter_args(%e_outer = %err_init) -> tensor<2x3xf64> {
    %err_partial = scf.for %jv = %c0 to %c3 step %c1 iter_args(%e_inner = %e_outer) -> tensor<2x3xf64> {
      %arg0 = tensor.extract %points[%iv, %jv] : tensor<2x3xf64>
      %i_0 = tensor.extract %correspondences[%iv] : tensor<2xi32>
      %i = arith.index_cast %i_0 : i32 to index
      %vp = tensor.extract %vertex_positions[%i, %jv] : tensor<5x3xf64>
      %0 = arith.subf %arg0, %vp : f64
      %e_next = tensor.insert %0 into %e_inner[%iv, %jv] : tensor<2x3xf64>
      scf.yield %e_next : tensor<2x3xf64>
    }
    scf.yield %err_partial : tensor<2x3xf64>
  }
  return %err : tensor<2x3xf64>
}


// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_compute_err(%v: tensor<5x3xf64>, %pts: tensor<2x3xf64>, %c: tensor<2xi32>, %ct: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<5x3xf64>, tensor<2x3xf64>) {
  %r:3 = autodiff.vjp @compute_err(%v, %pts, %c, %ct) {wrt = array<i64: 0, 1>} : (tensor<5x3xf64>, tensor<2x3xf64>, tensor<2xi32>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<5x3xf64>, tensor<2x3xf64>)
  return %r#0, %r#1, %r#2 : tensor<2x3xf64>, tensor<5x3xf64>, tensor<2x3xf64>
}
