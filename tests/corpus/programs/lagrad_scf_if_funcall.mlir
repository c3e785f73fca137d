// Source: pengmai/lagrad test/LAGrad/scf/if_funcall.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/if_funcall.mlir
// What: scf.if on `arith.cmpf "oeq"` of an extracted element; the then-branch computes sin of it, captures it in a linalg.generic and calls a private helper.
// Adaptations: `func private` -> `func.func private`; `linalg.init_tensor [3]` -> `tensor.empty()`; `call @mymul` inside the scf.if region -> `func.call @mymul` (MLIR 22 resolves a bare `call` only directly in a func.func body); dropped the driver @main and the print declaration; dropped `private` on @myfunc so that it can be called directly; added the gradir entry @vjp_myfunc (autodiff.vjp) below the marker.
// gradir-corpus: entry=myfunc wrt=0,1 reference=if_funcall

func.func private @mymul(%arg0: tensor<3xf64>, %arg1: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.mulf %arg0, %arg1 : tensor<3xf64>
  return %0 : tensor<3xf64>
}

func.func @myfunc(%arg0: tensor<3xf64>, %arg1: tensor<3xf64>) -> tensor<3xf64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %el = tensor.extract %arg0[%c0] : tensor<3xf64>
  %p = arith.cmpf "oeq", %el, %zero : f64
  %arg1el_space = tensor.empty() : tensor<3xf64>
  %final = scf.if %p -> tensor<3xf64> {
    %sinel = math.sin %el : f64
    %arg1el = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%arg1 : tensor<3xf64>) outs(%arg1el_space : tensor<3xf64>) {
    ^bb0(%arg2: f64, %arg3: f64):
      %0 = arith.mulf %arg2, %sinel : f64
      linalg.yield %0 : f64
    } -> tensor<3xf64>
    %res = func.call @mymul(%arg0, %arg1el) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %res : tensor<3xf64>
  } else {
    scf.yield %arg0 : tensor<3xf64>
  }
  return %final : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_myfunc(%a: tensor<3xf64>, %b: tensor<3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %r:3 = autodiff.vjp @myfunc(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1, %r#2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}
