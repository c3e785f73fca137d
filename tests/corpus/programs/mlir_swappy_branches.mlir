// Source: llvm/llvm-project mlir/test/Dialect/Bufferization/Transforms/one-shot-module-bufferize-invalid.mlir (commit 1e65231a781550c81d89d69f7d77709bc9ce450c), https://github.com/llvm/llvm-project/blob/1e65231a781550c81d89d69f7d77709bc9ce450c/mlir/test/Dialect/Bufferization/Transforms/one-shot-module-bufferize-invalid.mlir
// What: a function with two return ops behind a cf.cond_br, one of them after an scf.if that yields its two 0-d tensor arguments in either order: (t1, t2) or (t2, t1).
// Adaptations: kept only @swappy of the split file (dropped the expected-error lines and the other splits); added the gradir entry @vjp_swappy (autodiff.vjp wrt both tensors; the conditions are i1) below the marker.
// gradir-corpus: entry=swappy wrt=2,3 reference=mlir_swappy inputs=mlir_swappy

func.func @swappy(%cond1 : i1, %cond2 : i1, %t1 : tensor<f32>, %t2 : tensor<f32>)
    -> (tensor<f32>, tensor<f32>)
{
  cf.cond_br %cond1, ^bb1, ^bb2

  ^bb1:
    %T:2 = scf.if %cond2 -> (tensor<f32>, tensor<f32>) {
      scf.yield %t1, %t2 : tensor<f32>, tensor<f32>
    } else {
      scf.yield %t2, %t1 : tensor<f32>, tensor<f32>
    }
    return %T#0, %T#1 : tensor<f32>, tensor<f32>
  ^bb2:
    return %t2, %t1 : tensor<f32>, tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_swappy(%c1: i1, %c2: i1, %t1: tensor<f32>, %t2: tensor<f32>, %d0: tensor<f32>, %d1: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:4 = autodiff.vjp @swappy(%c1, %c2, %t1, %t2, %d0, %d1) {wrt = array<i64: 2, 3>} : (i1, i1, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
