// Source: pengmai/lagrad test/LAGrad/ifdifferenttype.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/ifdifferenttype.mlir
// What: scalar argument, tensor result: scf.if on `x >= 0` yields a generic filling tensor<3xf64> with exp(x) (the body ignores its block arguments and captures the function argument) or a zero constant.
// Adaptations: `func` -> `func.func`; dropped the driver @main (which called lagrad.grad with a scalar result type on this tensor-valued function), the helper @print and the print declaration; added the gradir entry @vjp_ifdifferenttype (autodiff.vjp, the function returns a tensor) below the marker.
// gradir-corpus: entry=ifdifferenttype wrt=0 reference=lg_ifdifferenttype inputs=signed

func.func @ifdifferenttype(%arg0: f64) -> tensor<3xf64> {
  %cst = arith.constant dense<0.0> : tensor<3xf64>
  %cst_0 = arith.constant 0.0 : f64
  %0 = arith.cmpf "oge", %arg0, %cst_0 : f64
  %1 = scf.if %0 -> tensor<3xf64> {
    %2 = linalg.generic
      {
        indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
       iterator_types = ["parallel"]
      }
      ins(%cst : tensor<3xf64>)
      outs(%cst : tensor<3xf64>) {
    ^bb0(%arg1: f64, %arg2: f64):
      %3 = math.exp %arg0 : f64
      linalg.yield %3 : f64
    } -> tensor<3xf64>
    scf.yield %2 : tensor<3xf64>
  } else {
    scf.yield %cst : tensor<3xf64>
  }
  return %1 : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_ifdifferenttype(%x: f64, %ct: tensor<3xf64>) -> (tensor<3xf64>, f64) {
  %r:2 = autodiff.vjp @ifdifferenttype(%x, %ct) {wrt = array<i64: 0>} : (f64, tensor<3xf64>) -> (tensor<3xf64>, f64)
  return %r#0, %r#1 : tensor<3xf64>, f64
}
