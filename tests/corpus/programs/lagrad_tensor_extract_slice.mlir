// Source: pengmai/lagrad test/LAGrad/tensor_extract_slice.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/tensor_extract_slice.mlir
// What: two column slices (tensor.extract_slice to 2x1), a generic scaling one by a captured constant, a tensor add and a full-reduction generic to a 0-d tensor.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @grad_slice_add_nocollapse (autodiff.grad) below the marker.
// gradir-corpus: entry=slice_add_nocollapse wrt=0 reference=slice_add_nocollapse

func.func @slice_add_nocollapse(%arg0: tensor<2x2xf64>) -> tensor<f64> {
  %0 = tensor.extract_slice %arg0[0, 1] [2, 1] [1, 1] : tensor<2x2xf64> to tensor<2x1xf64>
  %1 = tensor.extract_slice %arg0[0, 0] [2, 1] [1, 1] : tensor<2x2xf64> to tensor<2x1xf64>
  %cst = arith.constant dense<0.0> : tensor<2x1xf64>
  %cst_1 = arith.constant 2.0 : f64
  %3 = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]
    }
    ins(%0 : tensor<2x1xf64>)
    outs(%cst : tensor<2x1xf64>) {
  ^bb0(%arg1: f64, %arg2: f64):
    %7 = arith.mulf %arg1, %cst_1 : f64
    linalg.yield %7 : f64
  } -> tensor<2x1xf64>
  %5 = arith.addf %3, %1 : tensor<2x1xf64>
  %cst_2 = arith.constant dense<0.0> : tensor<f64>
  %6 = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>],
      iterator_types = ["reduction", "reduction"]
    }
    ins(%5 : tensor<2x1xf64>)
    outs(%cst_2 : tensor<f64>) {
  ^bb0(%arg1: f64, %arg2: f64):
    %7 = arith.addf %arg1, %arg2 : f64
    linalg.yield %7 : f64
  } -> tensor<f64>
  return %6 : tensor<f64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_slice_add_nocollapse(%a: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %g = autodiff.grad @slice_add_nocollapse(%a) {wrt = array<i64: 0>} : (tensor<2x2xf64>) -> tensor<2x2xf64>
  return %g : tensor<2x2xf64>
}
