// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/matmul-vs-matvec.mlir (commit 5561e174117ff395d65b6978d04b62c1a1275138), https://github.com/llvm/llvm-project/blob/5561e174117ff395d65b6978d04b62c1a1275138/mlir/test/Integration/Dialect/Linalg/CPU/matmul-vs-matvec.mlir
// What: a matrix product computed column by column: scf.for over the columns of B, linalg.matvec of A with each column, the result column written into C.
// Adaptations: memref -> tensor rewrite of upstream's @matvec: memref.alloc + linalg.fill -> tensor.empty + linalg.fill; memref.subview of B and C -> tensor.extract_slice of B, and the matvec's out-parameter subview of C -> a tensor.extract_slice of the C iter_arg plus tensor.insert_slice of the result (C became an scf.for iter_arg); memref.dim -> static sizes (A 5x3, B 3x2, as upstream's @main); dropped @matmul, @main and the print declaration; added the gradir entry @vjp_matvec (autodiff.vjp) below the marker.
// gradir-corpus: entry=matvec wrt=0,1 reference=matmul_cols inputs=signed

func.func @matvec(%A: tensor<5x3xf32>, %B: tensor<3x2xf32>) -> (tensor<5x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f0 = arith.constant 0.0 : f32
  %n = arith.constant 2 : index
  %C0 = tensor.empty() : tensor<5x2xf32>
  %C = linalg.fill ins(%f0 : f32) outs(%C0 : tensor<5x2xf32>) -> tensor<5x2xf32>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%Ci = %C) -> (tensor<5x2xf32>) {
    %b = tensor.extract_slice %B[0, %i][3, 1][1, 1] : tensor<3x2xf32> to tensor<3xf32>
    %c = tensor.extract_slice %Ci[0, %i][5, 1][1, 1] : tensor<5x2xf32> to tensor<5xf32>
    %cn = linalg.matvec ins(%A, %b: tensor<5x3xf32>, tensor<3xf32>)
                  outs(%c: tensor<5xf32>) -> tensor<5xf32>
    %Cn = tensor.insert_slice %cn into %Ci[0, %i][5, 1][1, 1] : tensor<5xf32> into tensor<5x2xf32>
    scf.yield %Cn : tensor<5x2xf32>
  }
  return %res : tensor<5x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matvec(%a: tensor<5x3xf32>, %b: tensor<3x2xf32>, %ct: tensor<5x2xf32>) -> (tensor<5x2xf32>, tensor<5x3xf32>, tensor<3x2xf32>) {
  %r:3 = autodiff.vjp @matvec(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<5x3xf32>, tensor<3x2xf32>, tensor<5x2xf32>) -> (tensor<5x2xf32>, tensor<5x3xf32>, tensor<3x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<5x2xf32>, tensor<5x3xf32>, tensor<3x2xf32>
}
