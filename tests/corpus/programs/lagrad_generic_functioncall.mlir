// Source: pengmai/lagrad test/LAGrad/generic/functioncall.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/functioncall.mlir
// What: log(rowsum(A)) * rowsum(A), rowsum a reduction generic in a helper called twice (func.call on tensors, math.log on a tensor).
// Adaptations: `func` -> `func.func` (two functions); dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_outer (autodiff.vjp) below the marker.
// gradir-corpus: entry=outer wrt=0 reference=generic_functioncall

func.func @rowsum(%arg0: tensor<4x4xf64>) -> tensor<4xf64> {
  %res_init = arith.constant dense<0.0> : tensor<4xf64>
  %res = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%arg0 : tensor<4x4xf64>)
    outs(%res_init : tensor<4xf64>) {
  ^bb0(%arg1: f64, %arg2: f64):
    %0 = arith.addf %arg1, %arg2 : f64
    linalg.yield %0 : f64
  } -> tensor<4xf64>
  return %res : tensor<4xf64>
}

func.func @outer(%arg0: tensor<4x4xf64>) -> tensor<4xf64> {
  %0 = call @rowsum(%arg0) : (tensor<4x4xf64>) -> tensor<4xf64>
  %1 = math.log %0 : tensor<4xf64>
  %2 = call @rowsum(%arg0) : (tensor<4x4xf64>) -> tensor<4xf64>
  %3 = arith.mulf %1, %2 : tensor<4xf64>
  return %3 : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_outer(%a: tensor<4x4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>) {
  %r:2 = autodiff.vjp @outer(%a, %ct) {wrt = array<i64: 0>} : (tensor<4x4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>)
  return %r#0, %r#1 : tensor<4xf64>, tensor<4x4xf64>
}
