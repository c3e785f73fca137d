// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-padtensor.mlir (commit 00ce9bbbade92ce4178411edb15d946a111ea28d), https://github.com/llvm/llvm-project/blob/00ce9bbbade92ce4178411edb15d946a111ea28d/mlir/test/Integration/Dialect/Linalg/CPU/test-padtensor.mlir
// What: tensor.pad with SSA-valued low/high amounts (2 rows before, 2 columns after) and a constant padding value 2.3 yielded by its region.
// Adaptations: the body of upstream's @main turned into a function @pad: the constant %const became its argument (same shape); dropped the tensor.cast to tensor<1x?x3xf32> (the pad reads the static tensor) and wrote the pad's result type static (tensor<1x?x?xf32> -> tensor<1x4x5xf32>, the sizes upstream's CHECK lines print); dropped the printing (tensor.cast, call to @printMemrefF32), its declaration and the RUN/CHECK lines; added the gradir entry @vjp_pad (autodiff.vjp) below the marker.
// gradir-corpus: entry=pad wrt=0 reference=mlir_pad_2_3 inputs=signed

func.func @pad(%const: tensor<1x2x3xf32>) -> tensor<1x4x5xf32> {
  %offset = arith.constant 2 : index
  %cst = arith.constant 2.3 : f32
  %c0 = arith.constant 0 : index
  %out = tensor.pad %const low[%c0, %offset, %c0] high[%c0, %c0, %offset]  {
  ^bb0(%gen_arg1: index, %gen_arg2: index, %gen_arg3: index):
    tensor.yield %cst : f32
  } : tensor<1x2x3xf32> to tensor<1x4x5xf32>
  return %out : tensor<1x4x5xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pad(%x: tensor<1x2x3xf32>, %ct: tensor<1x4x5xf32>) -> (tensor<1x4x5xf32>, tensor<1x2x3xf32>) {
  %r:2 = autodiff.vjp @pad(%x, %ct) {wrt = array<i64: 0>} : (tensor<1x2x3xf32>, tensor<1x4x5xf32>) -> (tensor<1x4x5xf32>, tensor<1x2x3xf32>)
  return %r#0, %r#1 : tensor<1x4x5xf32>, tensor<1x2x3xf32>
}
