// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.concatenate of three dynamic 2-d tensors along dimension 1 as emitted without primitive ops: tensor.dim/addi for the result size, then an outs-only generic whose body picks the source with linalg.index, cmpi ult and nested scf.if, reading it with tensor.extract at computed (subi) column indices.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @concatenate only; element type i32 -> f32 so that it has a gradient; added the gradir entry @vjp_concatenate (autodiff.vjp) below the marker; run with the three inputs 2x3, 2x1 and 2x2.
// gradir-corpus: entry=concatenate wrt=0,1,2 reference=stablehlo_concatenate inputs=stablehlo_concatenate

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @concatenate(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  %dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
  %dim_1 = tensor.dim %arg1, %c1 : tensor<?x?xf32>
  %dim_2 = tensor.dim %arg2, %c1 : tensor<?x?xf32>
  %0 = arith.addi %dim_0, %dim_1 : index
  %1 = arith.addi %0, %dim_2 : index
  %2 = tensor.empty(%dim, %1) : tensor<?x?xf32>
  %3 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%2 : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %4 = linalg.index 0 : index
    %5 = linalg.index 1 : index
    %dim_3 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %6 = arith.cmpi ult, %5, %dim_3 : index
    %7 = scf.if %6 -> (f32) {
      %extracted = tensor.extract %arg0[%4, %5] : tensor<?x?xf32>
      scf.yield %extracted : f32
    } else {
      %dim_4 = tensor.dim %arg1, %c1 : tensor<?x?xf32>
      %8 = arith.addi %dim_3, %dim_4 : index
      %9 = arith.cmpi ult, %5, %8 : index
      %10 = scf.if %9 -> (f32) {
        %11 = arith.subi %5, %dim_3 : index
        %extracted = tensor.extract %arg1[%4, %11] : tensor<?x?xf32>
        scf.yield %extracted : f32
      } else {
        %11 = arith.subi %5, %8 : index
        %extracted = tensor.extract %arg2[%4, %11] : tensor<?x?xf32>
        scf.yield %extracted : f32
      }
      scf.yield %10 : f32
    }
    linalg.yield %7 : f32
  } -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_concatenate(%a0: tensor<?x?xf32>, %a1: tensor<?x?xf32>, %a2: tensor<?x?xf32>, %c0: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %r:4 = autodiff.vjp @concatenate(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1, 2>} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
