// Source: pengmai/lagrad benchmarks/matmul/matmul_kernel.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/benchmarks/matmul/matmul_kernel.mlir
// What: linalg.matmul of two matrices into a zero-filled tensor.empty whose sizes come from tensor.dim of the operands (upstream: dynamically shaped tensor<?x?xf64>).
// Adaptations: made the dynamic shapes static (tensor<?x?xf64> -> A 3x4, B 4x2, result 3x2: gradir does not differentiate dynamically shaped tensors yet); so `linalg.init_tensor [%d1, %d2] : tensor<?x?xf64>` -> `tensor.empty() : tensor<3x2xf64>` (the two tensor.dim ops kept, now unused); old `linalg.fill(%zero, %space) : f64, tensor<?x?xf64> -> tensor<?x?xf64>` -> `linalg.fill ins(...) outs(...)`; `func` -> `func.func`; removed a commented-out line; dropped the wrapper @lagrad_matmul (lagrad.grad, wrt the first argument); added the gradir entry @vjp_matmul (autodiff.vjp wrt both arguments) below the marker.
// gradir-corpus: entry=matmul wrt=0,1 reference=lg_matmul inputs=signed

func.func @matmul(%A: tensor<3x4xf64>, %B: tensor<4x2xf64>) -> tensor<3x2xf64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %A, %c0 : tensor<3x4xf64>
  %d2 = tensor.dim %B, %c1 : tensor<4x2xf64>
  %space = tensor.empty() : tensor<3x2xf64>
  %init = linalg.fill ins(%zero : f64) outs(%space : tensor<3x2xf64>) -> tensor<3x2xf64>
  %res = linalg.matmul ins(%A, %B : tensor<3x4xf64>, tensor<4x2xf64>) outs(%init : tensor<3x2xf64>) -> tensor<3x2xf64>
  return %res : tensor<3x2xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matmul(%a: tensor<3x4xf64>, %b: tensor<4x2xf64>, %ct: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x4xf64>, tensor<4x2xf64>) {
  %r:3 = autodiff.vjp @matmul(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3x4xf64>, tensor<4x2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x4xf64>, tensor<4x2xf64>)
  return %r#0, %r#1, %r#2 : tensor<3x2xf64>, tensor<3x4xf64>, tensor<4x2xf64>
}
