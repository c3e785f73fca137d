// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/ArmSME/matmul-transpose-a.mlir (commit 13a3884594afb765ba9e0aa34db4d2cc4e71c173), https://github.com/llvm/llvm-project/blob/13a3884594afb765ba9e0aa34db4d2cc4e71c173/mlir/test/Integration/Dialect/Linalg/CPU/ArmSME/matmul-transpose-a.mlir
// What: A^T B as a matmul with a transposed left operand, called (as upstream's @main does) with the same tensor as both operands: A^T A accumulated into the init.
// Adaptations: linalg.matmul_transpose_a no longer exists in MLIR 22: written as linalg.matmul with indexing_maps [(d0, d1, d2) -> (d2, d0), (d2, d1), (d0, d1)] (MLIR's replacement of the op); @matmul_transpose_a returns the product instead of printing it (dropped its tensor.cast and call to @printMemrefF32); dynamic shapes made static at upstream's sizes (A 13x7, C 7x7); the body of upstream's @main turned into @main_ata(%A, %C), the constant A and the zero-filled bufferization.alloc_tensor C (fill with an i32 0 upstream) becoming its arguments; dropped the transform schedule (SME tiling), the print declaration and the RUN/CHECK lines; added the gradir entry @vjp_main_ata (autodiff.vjp) below the marker.
// gradir-corpus: entry=main_ata wrt=0,1 reference=mlir_ata_acc inputs=signed

func.func @matmul_transpose_a(%A : tensor<13x7xf32>, %B : tensor<13x7xf32>, %C : tensor<7x7xf32>) -> tensor<7x7xf32> {
  %res = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                        affine_map<(d0, d1, d2) -> (d2, d1)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>]
                       ins(%A, %B: tensor<13x7xf32>, tensor<13x7xf32>)
                       outs(%C: tensor<7x7xf32>) -> tensor<7x7xf32>
  return %res : tensor<7x7xf32>
}

func.func @main_ata(%A : tensor<13x7xf32>, %C : tensor<7x7xf32>) -> tensor<7x7xf32> {
  %0 = call @matmul_transpose_a(%A, %A, %C) : (tensor<13x7xf32>, tensor<13x7xf32>, tensor<7x7xf32>) -> tensor<7x7xf32>
  return %0 : tensor<7x7xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main_ata(%a: tensor<13x7xf32>, %c: tensor<7x7xf32>, %ct: tensor<7x7xf32>) -> (tensor<7x7xf32>, tensor<13x7xf32>, tensor<7x7xf32>) {
  %r:3 = autodiff.vjp @main_ata(%a, %c, %ct) {wrt = array<i64: 0, 1>} : (tensor<13x7xf32>, tensor<7x7xf32>, tensor<7x7xf32>) -> (tensor<7x7xf32>, tensor<13x7xf32>, tensor<7x7xf32>)
  return %r#0, %r#1, %r#2 : tensor<7x7xf32>, tensor<13x7xf32>, tensor<7x7xf32>
}
