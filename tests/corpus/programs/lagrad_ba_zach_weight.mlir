// Source: pengmai/lagrad benchmarks/ba/lagrad_ba.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/ba/lagrad_ba.mlir
// What: the ADBench bundle-adjustment weight error 1 - w^2 (scalar f64 in and out).
// Adaptations: kept only @mlir_compute_zach_weight_error of the template (the reprojection error is lagrad_ba_reproj; the function has no template parameters); `func` -> `func.func`; dropped the print declaration and the wrappers @lagrad_compute_reproj_error and @lagrad_compute_w_error (lagrad.grad); added the gradir entry @grad_w (autodiff.grad, as upstream's @lagrad_compute_w_error) below the marker.
// gradir-corpus: entry=mlir_compute_zach_weight_error wrt=0 reference=lg_zach inputs=signed

func.func @mlir_compute_zach_weight_error(%w: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %0 = arith.mulf %w, %w : f64
  %1 = arith.subf %one, %0 : f64
  return %1 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_w(%w: f64) -> f64 {
  %g = autodiff.grad @mlir_compute_zach_weight_error(%w) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
