// Source: llvm/llvm-project mlir/test/Dialect/Linalg/roundtrip.mlir (commit 8e1dd3ca69f6186ea05d264d26454214ca50efc3), https://github.com/llvm/llvm-project/blob/8e1dd3ca69f6186ea05d264d26454214ca50efc3/mlir/test/Dialect/Linalg/roundtrip.mlir
// What: a variadic linalg.reduce over dimension 1 summing an f32 tensor and an i64 tensor together (two inputs, two inits, two results of different element types).
// Adaptations: kept only @variadic_reduce of the split file (dropped the CHECK lines and the other splits); shapes reduced (inputs 16x32x64 -> 2x3x4, inits and results 16x64 -> 2x4); added the gradir entry @vjp_variadic_reduce (autodiff.vjp wrt the f32 input and the f32 init; the i64 operands from the default generator) below the marker.
// gradir-corpus: entry=variadic_reduce wrt=0,1 reference=mu_variadic_reduce inputs=signed

func.func @variadic_reduce(%input1: tensor<2x3x4xf32>,
    %init1: tensor<2x4xf32>, %input2: tensor<2x3x4xi64>,
    %init2: tensor<2x4xi64>)  -> (tensor<2x4xf32>, tensor<2x4xi64>) {
  %reduce, %reduce2 = linalg.reduce
      ins(%input1, %input2 : tensor<2x3x4xf32>, tensor<2x3x4xi64>)
      outs(%init1, %init2 : tensor<2x4xf32>, tensor<2x4xi64>)
      dimensions = [1]
      (%in1: f32, %in2: i64, %out1: f32, %out2: i64) {
        %0 = arith.addf %in1, %out1: f32
        %1 = arith.addi %in2, %out2: i64
        linalg.yield %0, %1: f32, i64
      }
  func.return %reduce, %reduce2 : tensor<2x4xf32>, tensor<2x4xi64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_variadic_reduce(%a0: tensor<2x3x4xf32>, %a1: tensor<2x4xf32>, %a2: tensor<2x3x4xi64>, %a3: tensor<2x4xi64>, %c0: tensor<2x4xf32>, %c1: tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x3x4xf32>, tensor<2x4xf32>) {
  %r:4 = autodiff.vjp @variadic_reduce(%a0, %a1, %a2, %a3, %c0, %c1) {wrt = array<i64: 0, 1>} : (tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x3x4xi64>, tensor<2x4xi64>, tensor<2x4xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x3x4xf32>, tensor<2x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x3x4xf32>, tensor<2x4xf32>
}
