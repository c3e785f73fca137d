// Source: pengmai/lagrad test/LAGrad/scf/selectdifferenttype.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/selectdifferenttype.mlir
// What: scalar argument, tensor result: a generic fills tensor<3xf64> with exp(x) (captured argument), then a tensor-typed select with a scalar i1 condition (`x >= 0`) picks it or a zero constant.
// Adaptations: `func` -> `func.func`; `select` -> `arith.select`; dropped the driver @main (lagrad.grad with a scalar result type), the helper @print and the print declaration; added the gradir entry @vjp_ifdifferenttype (autodiff.vjp) below the marker.
// gradir-corpus: entry=ifdifferenttype wrt=0 reference=lg_ifdifferenttype inputs=signed

func.func @ifdifferenttype(%arg0: f64) -> tensor<3xf64> {
  %cst = arith.constant dense<0.0> : tensor<3xf64>
  %cst_0 = arith.constant 0.0 : f64
  %0 = arith.cmpf "oge", %arg0, %cst_0 : f64

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
  %1 = arith.select %0, %2, %cst : tensor<3xf64>
  return %1 : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_ifdifferenttype(%x: f64, %ct: tensor<3xf64>) -> (tensor<3xf64>, f64) {
  %r:2 = autodiff.vjp @ifdifferenttype(%x, %ct) {wrt = array<i64: 0>} : (f64, tensor<3xf64>) -> (tensor<3xf64>, f64)
  return %r#0, %r#1 : tensor<3xf64>, f64
}
