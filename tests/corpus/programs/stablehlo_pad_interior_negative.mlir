// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.pad with interior padding 1 and negative edge padding (low [4, -1], high [-2, 3]) as emitted: a fill with the padding value, a strided tensor.insert_slice ([4, 0] [12, 4] [2, 2]) of the operand, and a tensor.extract_slice ([0, 1] [25, 9]) for the negative edges.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @pad_interior_negative only; element type ui32 -> f32 (the unrealized_conversion_casts of the unsigned form dropped) so that it has a gradient; the padding value's tensor.extract and the fill are those of @pad_interior's CHECK lines (the same emitter); added the gradir entry @vjp_pad_interior_negative (autodiff.vjp) below the marker.
// gradir-corpus: entry=pad_interior_negative wrt=0,1 reference=stablehlo_pad_interior_negative inputs=signed

func.func @pad_interior_negative(%arg0: tensor<12x4xf32>, %arg1: tensor<f32>) -> tensor<25x9xf32> {
  %extracted = tensor.extract %arg1[] : tensor<f32>
  %0 = tensor.empty() : tensor<29x10xf32>
  %1 = linalg.fill ins(%extracted : f32) outs(%0 : tensor<29x10xf32>) -> tensor<29x10xf32>
  %inserted_slice = tensor.insert_slice %arg0 into %1[4, 0] [12, 4] [2, 2] : tensor<12x4xf32> into tensor<29x10xf32>
  %extracted_slice = tensor.extract_slice %inserted_slice[0, 1] [25, 9] [1, 1] : tensor<29x10xf32> to tensor<25x9xf32>
  return %extracted_slice : tensor<25x9xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pad_interior_negative(%a0: tensor<12x4xf32>, %a1: tensor<f32>, %c0: tensor<25x9xf32>) -> (tensor<25x9xf32>, tensor<12x4xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @pad_interior_negative(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<12x4xf32>, tensor<f32>, tensor<25x9xf32>) -> (tensor<25x9xf32>, tensor<12x4xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<25x9xf32>, tensor<12x4xf32>, tensor<f32>
}
