// Source: pengmai/lagrad test/LAGrad/sparse/adjoint_err_nest.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/sparse/adjoint_err_nest.mlir
// What: LAGrad's generated adjoint of Hand's residual loop, as a program: nested scf.for walking rows and columns backwards (subi from the bounds), each step reading an element of one carried tensor and overwriting it with 0.0 by tensor.insert, and scatter-subtracting it into a second carried tensor at a row read from an i32 index tensor (index_cast); scf.for and tensor.extract ops carry string unit attributes.
// Adaptations: made the dynamic shapes static (tensor<?x3xf64, "onehot"> -> tensor<2x3xf64>, tensor<?xi32> -> tensor<2xi32>: gradir does not differentiate dynamically shaped tensors yet; the tensor.dim kept, now of a static dimension) and dropped the LAGrad tensor encoding `"onehot"`; shapes reduced: 544 vertices -> 8; `func` -> `func.func`; `linalg.init_tensor [544, 3]` -> `tensor.empty()`; old `linalg.fill(%cst_0, %10) {"gradient space for %vertex_positions"} : f64, T -> T` -> `linalg.fill ins(...) outs(...) -> T` (its string unit attribute dropped); removed a commented-out line; added the gradir entry @vjp_onehot_adjoint_err_nest (autodiff.vjp wrt the first argument) below the marker.
// gradir-corpus: entry=onehot_adjoint_err_nest wrt=0 reference=lg_adjoint_err_nest inputs=lg_adjoint_err_nest

func.func @onehot_adjoint_err_nest(%arg8: tensor<2x3xf64>, %arg6: tensor<2xi32>) -> tensor<8x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %cst_0 = arith.constant 0.000000e+00 : f64
  %9 = tensor.dim %arg8, %c0 : tensor<2x3xf64>
  %10 = tensor.empty() : tensor<8x3xf64>
  %11 = linalg.fill ins(%cst_0 : f64) outs(%10 : tensor<8x3xf64>) -> tensor<8x3xf64>
  %12:2 = scf.for %arg9 = %c0 to %9 step %c1 iter_args(%arg10 = %arg8, %arg11 = %11) -> (tensor<2x3xf64>, tensor<8x3xf64>) {
    %38 = arith.subi %9, %arg9 : index
    %39 = arith.subi %38, %c1 : index
    %40:2 = scf.for %arg12 = %c0 to %c3 step %c1 iter_args(%arg13 = %arg10, %arg14 = %arg11) -> (tensor<2x3xf64>, tensor<8x3xf64>) {
      %41 = arith.subi %c2, %arg12 : index
      %42 = tensor.extract %arg6[%39] {"cloned %i_0"} : tensor<2xi32>
      %43 = arith.index_cast %42 {"cloned %i"} : i32 to index
      %44 = tensor.extract %arg13[%39, %41] : tensor<2x3xf64>
      %45 = tensor.insert %cst_0 into %arg13[%39, %41] : tensor<2x3xf64>
      %46 = arith.negf %44 : f64
      %47 = tensor.extract %arg14[%43, %41] : tensor<8x3xf64>
      %48 = arith.addf %47, %46 : f64
      %49 = tensor.insert %48 into %arg14[%43, %41] : tensor<8x3xf64>
      scf.yield %45, %49 : tensor<2x3xf64>, tensor<8x3xf64>
    } {"adjoint of %err_partial"}
    scf.yield %40#0, %40#1 : tensor<2x3xf64>, tensor<8x3xf64>
  } {"adjoint of %err"}
  return %12#1 : tensor<8x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_onehot_adjoint_err_nest(%a: tensor<2x3xf64>, %i: tensor<2xi32>, %ct: tensor<8x3xf64>) -> (tensor<8x3xf64>, tensor<2x3xf64>) {
  %r:2 = autodiff.vjp @onehot_adjoint_err_nest(%a, %i, %ct) {wrt = array<i64: 0>} : (tensor<2x3xf64>, tensor<2xi32>, tensor<8x3xf64>) -> (tensor<8x3xf64>, tensor<2x3xf64>)
  return %r#0, %r#1 : tensor<8x3xf64>, tensor<2x3xf64>
}
