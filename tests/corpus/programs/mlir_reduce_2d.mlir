// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/ArmSVE/reduce_2d.mlir (commit 43cfbab639e430bb61d99f64b438f213c5e3d4ae), https://github.com/llvm/llvm-project/blob/43cfbab639e430bb61d99f64b438f213c5e3d4ae/mlir/test/Integration/Dialect/Linalg/CPU/ArmSVE/reduce_2d.mlir
// What: linalg.reduce (addf) of a 2-d tensor over its second dimension into a zero-filled init.
// Adaptations: the body of upstream's @reduce_2d_f32 turned into a function @reduce_2d: the input (upstream: bufferization.alloc_tensor filled with 3.1416) became its argument, the result its result; dynamic sizes made static and smaller (16x1000 -> 4x6; the init tensor<?xf32> from bufferization.alloc_tensor -> tensor.empty() : tensor<4xf32>, filled with 0.0 as upstream); dropped the vector.print/printing tail, @generic_reduce_2d_f32, @generic_reduce_2d_i32, the transform schedule (SVE tiling), the print declarations and the RUN/CHECK lines; added the gradir entry @vjp_reduce_2d (autodiff.vjp) below the marker.
// gradir-corpus: entry=reduce_2d wrt=0 reference=mlir_row_sum inputs=signed

func.func @reduce_2d(%A_in: tensor<4x6xf32>) -> tensor<4xf32> {
  %c0_f32 = arith.constant 0.0 : f32

  %C_alloc = tensor.empty() : tensor<4xf32>
  %C_in = linalg.fill ins(%c0_f32 : f32) outs(%C_alloc : tensor<4xf32>) -> tensor<4xf32>

  // Reduce
  %C_out = linalg.reduce ins(%A_in : tensor<4x6xf32>) outs(%C_in: tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %C_out : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_reduce_2d(%a: tensor<4x6xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x6xf32>) {
  %r:2 = autodiff.vjp @reduce_2d(%a, %ct) {wrt = array<i64: 0>} : (tensor<4x6xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4x6xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x6xf32>
}
