// Source: pengmai/lagrad test/LAGrad/generic/generic_with_call.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/generic_with_call.mlir
// What: a linalg.generic whose body calls a scalar sigmoid function, inside an scf.for that accumulates its result three times.
// Adaptations: `func` -> `func.func` (two functions); `linalg.init_tensor [4]` -> `tensor.empty()`; old `linalg.fill(%z, %t) : f64, tensor<4xf64> -> tensor<4xf64>` -> `linalg.fill ins(%z : f64) outs(%t : tensor<4xf64>) -> tensor<4xf64>`; `call @sigmoid` inside the linalg.generic body -> `func.call @sigmoid` (MLIR 22 resolves a bare `call` only directly in a func.func body); dropped the driver @main and the print declaration; added the gradir entry @vjp_withcall (autodiff.vjp) below the marker.
// gradir-corpus: entry=withcall wrt=0 reference=withcall

func.func @sigmoid(%el: f64) -> f64 {
  %negel = arith.negf %el : f64
  %nexp = math.exp %negel : f64
  %one = arith.constant 1.0 : f64
  %denom = arith.addf %nexp, %one : f64
  %res = arith.divf %one, %denom : f64
  return %res : f64
}

#map0 = affine_map<(d0) -> (d0)>
func.func @withcall(%x: tensor<4xf64>) -> tensor<4xf64> {
  %zero = arith.constant dense<0.0> : tensor<4xf64>
  %z = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %outer_space = tensor.empty() : tensor<4xf64>
  %outer_init = linalg.fill ins(%z : f64) outs(%outer_space : tensor<4xf64>) -> tensor<4xf64>
  %outer_res = scf.for %iv = %c0 to %c3 step %c1 iter_args(%space = %outer_init) -> tensor<4xf64> {
    %res = linalg.generic
      {indexing_maps = [#map0, #map0], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>)
      outs(%zero : tensor<4xf64>) {
    ^bb0(%arg0: f64, %arg1: f64):
      %0 = func.call @sigmoid(%arg0) : (f64) -> f64
      linalg.yield %0 : f64
    } -> tensor<4xf64>
    %space_next = arith.addf %res, %space : tensor<4xf64>
    scf.yield %space_next : tensor<4xf64>
  }
  return %outer_res : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_withcall(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %r:2 = autodiff.vjp @withcall(%x, %ct) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<4xf64>, tensor<4xf64>
}
