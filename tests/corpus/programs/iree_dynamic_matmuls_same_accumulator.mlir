// Source: iree-org/iree tests/e2e/regression/dynamic_matmuls_on_same_accumulator_issue_12060.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/dynamic_matmuls_on_same_accumulator_issue_12060.mlir
// What: three linalg.matmul on tensors of dynamic shape (tensor<?x?>) chained through their accumulator: acc + 3 (lhs rhs).
// Adaptations: kept only @matmul_i8 (dropped the comment line and the rest of the file, which builds inputs and checks); element types made float to make it differentiable (lhs and rhs tensor<?x?xi8> -> tensor<?x?xf32>, the accumulator and result tensor<?x?xi32> -> tensor<?x?xf32>; the name @matmul_i8 kept); added the gradir entry @vjp_matmul_i8 (autodiff.vjp wrt all three) below the marker.
// gradir-corpus: entry=matmul_i8 wrt=0,1,2 reference=iree_dynamic_matmuls_same_accumulator inputs=iree_dynamic_matmuls_same_accumulator

func.func @matmul_i8(%lhs: tensor<?x?xf32>, %rhs: tensor<?x?xf32>, %acc: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %result1 = linalg.matmul ins(%lhs, %rhs: tensor<?x?xf32>, tensor<?x?xf32>) outs(%acc: tensor<?x?xf32>) -> tensor<?x?xf32>
  %result2 = linalg.matmul ins(%lhs, %rhs: tensor<?x?xf32>, tensor<?x?xf32>) outs(%result1: tensor<?x?xf32>) -> tensor<?x?xf32>
  %result3 = linalg.matmul ins(%lhs, %rhs: tensor<?x?xf32>, tensor<?x?xf32>) outs(%result2: tensor<?x?xf32>) -> tensor<?x?xf32>
  return %result3: tensor<?x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matmul_i8(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>, %ct: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %r:4 = autodiff.vjp @matmul_i8(%a, %b, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
