// Source: pengmai/lagrad test/LAGrad/generic/three_args.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/three_args.mlir
// What: two chained generics from the GMM: a 4-d-iteration reduction contracting a dense 2.3 constant (k x d x d) with x (n x k x d), then a 3-input elementwise generic Qdiags[k, d] * x + that intermediate; differentiated wrt x only (x feeds both generics).
// Adaptations: upstream is a Jinja template: instantiated with k = 2, d = 3, n = 2 (the main's `{{Qdiags}}`/`{{xcentered}}` data dropped with it); `func` -> `func.func`; dropped the driver @main (lagrad.grad {of = [1]}, commented-out calls) and the print declaration; added the gradir entry @vjp_generic_three_args (autodiff.vjp, same wrt) below the marker.
// gradir-corpus: entry=generic_three_args wrt=1 reference=lg_three_args inputs=signed

func.func @generic_three_args(
  %Qdiags: tensor<2x3xf64>,
  %xcentered: tensor<2x2x3xf64>
) -> tensor<2x2x3xf64> {
  %Lxcentered_shape = arith.constant dense<0.0> : tensor<2x2x3xf64>
  %cst = arith.constant dense<2.3> : tensor<2x3x3xf64>
  %Lxcentered_intermediate_init = arith.constant dense<0.0> : tensor<2x2x3xf64>
  %Lxcentered_intermediate = linalg.generic
    {
      indexing_maps = [
        affine_map<(n, k, d1, d2) -> (k, d1, d2)>,
        affine_map<(n, k, d1, d2) -> (n, k, d2)>,
        affine_map<(n, k, d1, d2) -> (n, k, d1)>
      ],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
    }
    ins(%cst, %xcentered : tensor<2x3x3xf64>, tensor<2x2x3xf64>)
    outs(%Lxcentered_intermediate_init : tensor<2x2x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    linalg.yield %1 : f64
  } -> tensor<2x2x3xf64>

  %Lxcentered = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0, d1, d2) -> (d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
        affine_map<(d0, d1, d2) -> (d0, d1, d2)>
      ],
      iterator_types = ["parallel", "parallel", "parallel"]
    }
    ins(
      %Qdiags, %xcentered, %Lxcentered_intermediate :
      tensor<2x3xf64>,
      tensor<2x2x3xf64>,
      tensor<2x2x3xf64>
    )
    outs(%Lxcentered_shape : tensor<2x2x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64, %arg2: f64, %arg3: f64):
    %0 = arith.mulf %arg0, %arg1 : f64
    %1 = arith.addf %0, %arg2 : f64
    linalg.yield %1 : f64
  } -> tensor<2x2x3xf64>
  return %Lxcentered : tensor<2x2x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_generic_three_args(%q: tensor<2x3xf64>, %x: tensor<2x2x3xf64>, %ct: tensor<2x2x3xf64>) -> (tensor<2x2x3xf64>, tensor<2x2x3xf64>) {
  %r:2 = autodiff.vjp @generic_three_args(%q, %x, %ct) {wrt = array<i64: 1>} : (tensor<2x3xf64>, tensor<2x2x3xf64>, tensor<2x2x3xf64>) -> (tensor<2x2x3xf64>, tensor<2x2x3xf64>)
  return %r#0, %r#1 : tensor<2x2x3xf64>, tensor<2x2x3xf64>
}
