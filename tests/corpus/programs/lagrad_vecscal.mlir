// Source: pengmai/lagrad benchmarks/mlir/templates/microbenchmark.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/mlir/templates/microbenchmark.mlir
// What: vector times scalar: a generic whose body multiplies its input element by the scalar f64 function argument it captures; upstream differentiates wrt the scalar with a gradient signal (a vjp).
// Adaptations: kept only @mvectorscalar of the template's functions (@dot, @arrmax, @vecadd and @matmul are near-duplicates of programs already in the corpus); instantiated n = 4; `func` -> `func.func`; dropped the wrapper @lagrad_vecscal (std `constant`, `standalone.grad {of = [1], grad_signal = true}`, `call_indirect`) and the commented-out hand-written adjoint; added the gradir entry @vjp_vecscal (autodiff.vjp wrt both arguments; upstream asks for the scalar) below the marker.
// gradir-corpus: entry=mvectorscalar wrt=0,1 reference=lg_vecscal inputs=signed

#map = affine_map<(d0) -> (d0)>

func.func @mvectorscalar(%arg0: tensor<4xf64>, %arg1: f64) -> tensor<4xf64> {
  %space = arith.constant dense<0.0> : tensor<4xf64>
  %res = linalg.generic
    {
      indexing_maps = [#map, #map],
      iterator_types = ["parallel"]
    }
    ins(%arg0 : tensor<4xf64>)
    outs(%space : tensor<4xf64>) {
  ^bb0(%arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg2, %arg1 : f64
    linalg.yield %0 : f64
  } -> tensor<4xf64>
  return %res : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_vecscal(%x: tensor<4xf64>, %s: f64, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, f64) {
  %r:3 = autodiff.vjp @mvectorscalar(%x, %s, %ct) {wrt = array<i64: 0, 1>} : (tensor<4xf64>, f64, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, f64)
  return %r#0, %r#1, %r#2 : tensor<4xf64>, tensor<4xf64>, f64
}
