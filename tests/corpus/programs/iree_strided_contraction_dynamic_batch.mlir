// Source: iree-org/iree compiler/src/iree/compiler/GlobalOptimization/test/strided_contraction_to_contraction.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/GlobalOptimization/test/strided_contraction_to_contraction.mlir
// What: a stride-2 1x1 convolution as a contraction generic with the strided input map (d0, d1 * 2, d2 * 2, d4) on a dynamic batch (tensor<?x...>, the zero-filled output sized by tensor.dim): bf16 operands widened by arith.extf, accumulated in f32.
// Adaptations: kept only @strided_from_output_dynamic_batch of the file (dropped the RUN/CHECK lines and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (input ?x118x182x448 -> ?x4x4x2, filter 896x448 -> 3x2, result ?x59x91x896 -> ?x2x2x3); added the gradir entry @vjp_strided_from_output_dynamic_batch (autodiff.vjp wrt both) below the marker.
// gradir-corpus: entry=strided_from_output_dynamic_batch wrt=0,1 reference=iree_strided_contraction_output inputs=iree_strided_contraction_dynamic_batch

func.func @strided_from_output_dynamic_batch(%input: tensor<?x4x4x2xbf16>, %filter: tensor<3x2xbf16>) -> tensor<?x2x2x3xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %input, %c0 : tensor<?x4x4x2xbf16>
  %0 = tensor.empty(%dim) : tensor<?x2x2x3xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?x2x2x3xf32>) -> tensor<?x2x2x3xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 * 2, d2 * 2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%input, %filter : tensor<?x4x4x2xbf16>, tensor<3x2xbf16>) outs(%1 : tensor<?x2x2x3xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %3 = arith.extf %in : bf16 to f32
    %4 = arith.extf %in_0 : bf16 to f32
    %5 = arith.mulf %3, %4 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<?x2x2x3xf32>
  return %2 : tensor<?x2x2x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_strided_from_output_dynamic_batch(%x: tensor<?x4x4x2xbf16>, %w: tensor<3x2xbf16>, %ct: tensor<?x2x2x3xf32>) -> (tensor<?x2x2x3xf32>, tensor<?x4x4x2xbf16>, tensor<3x2xbf16>) {
  %r:3 = autodiff.vjp @strided_from_output_dynamic_batch(%x, %w, %ct) {wrt = array<i64: 0, 1>} : (tensor<?x4x4x2xbf16>, tensor<3x2xbf16>, tensor<?x2x2x3xf32>) -> (tensor<?x2x2x3xf32>, tensor<?x4x4x2xbf16>, tensor<3x2xbf16>)
  return %r#0, %r#1, %r#2 : tensor<?x2x2x3xf32>, tensor<?x4x4x2xbf16>, tensor<3x2xbf16>
}
