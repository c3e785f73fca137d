// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/pointwise.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/pointwise.mlir
// What: stablehlo.clamp with 0-d bounds around a dynamic 1-d tensor emitted with primitive ops: the two bounds extracted as scalars outside a linalg.map whose body (arith.maximumf with the lower bound, arith.minimumf with the upper) captures them.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg="enable-primitive-ops=true" --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK-PRIMITIVE lines (upstream stablehlo input and CHECK lines themselves not copied); @clamp_scalar only; the tensor.empty sized by a tensor.dim (the CHECK line gives only tensor.empty); added the gradir entry @vjp_clamp_scalar (autodiff.vjp wrt both bounds and the tensor) below the marker; run with bounds -0.5 and 0.5 and six values on both sides of both.
// gradir-corpus: entry=clamp_scalar wrt=0,1,2 reference=stablehlo_clamp_scalar inputs=stablehlo_clamp_scalar

func.func @clamp_scalar(%arg0: tensor<f32>, %arg1: tensor<?xf32>, %arg2: tensor<f32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg1, %c0 : tensor<?xf32>
  %0 = tensor.empty(%dim) : tensor<?xf32>
  %extracted = tensor.extract %arg0[] : tensor<f32>
  %extracted_0 = tensor.extract %arg2[] : tensor<f32>
  %mapped = linalg.map ins(%arg1 : tensor<?xf32>) outs(%0 : tensor<?xf32>)
    (%in: f32, %out: f32) {
      %1 = arith.maximumf %extracted, %in : f32
      %2 = arith.minimumf %1, %extracted_0 : f32
      linalg.yield %2 : f32
    }
  return %mapped : tensor<?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_clamp_scalar(%a0: tensor<f32>, %a1: tensor<?xf32>, %a2: tensor<f32>, %c0: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>, tensor<?xf32>, tensor<f32>) {
  %r:4 = autodiff.vjp @clamp_scalar(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1, 2>} : (tensor<f32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>, tensor<?xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?xf32>, tensor<f32>, tensor<?xf32>, tensor<f32>
}
