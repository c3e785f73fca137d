// Source: llvm/llvm-project mlir/test/Dialect/Linalg/detensorize_while_impure_cf.mlir (commit 0a1569a400491e264060b8a6ff7b7f64e1865496), https://github.com/llvm/llvm-project/blob/0a1569a400491e264060b8a6ff7b7f64e1865496/mlir/test/Dialect/Linalg/detensorize_while_impure_cf.mlir
// What: a while loop written with cf.br/cf.cond_br carrying a 10-element tensor: its sum (a reduction generic) is compared with y; while smaller, the sum is broadcast back to 10 elements (a broadcast generic) and the loop goes on; the final sum is returned.
// Adaptations: i32 -> f32 throughout so that the loop is differentiable (tensor<10xi32> -> tensor<10xf32>, tensor<i32> -> tensor<f32>, arith.addi -> arith.addf, arith.cmpi slt -> arith.cmpf olt, the generics' block arguments i32 -> f32); the sum reduction accumulates into tensor.empty() upstream, whose contents are undefined: added a linalg.fill with 0.0 (%zero, %init0) as its init; dropped the RUN/CHECK lines; added the gradir entry @vjp_main (autodiff.vjp wrt both arguments) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=mlir_sum_times_ten_until inputs=mlir_sum_times_ten_until

#map0 = affine_map<() -> ()>
#map1 = affine_map<(i) -> ()>
#map2 = affine_map<(i) -> (i)>

#attrs = {
  indexing_maps = [#map0, #map0, #map0],
  iterator_types = []
}

#sum_reduction_attrs = {
  indexing_maps = [#map2, #map1],
  iterator_types = ["reduction"]
}


#broadcast_attrs = {
  indexing_maps = [#map1, #map2],
  iterator_types = ["parallel"]
}

func.func @main(%farg0: tensor<10xf32>, %farg1: tensor<f32>) -> tensor<f32> attributes {} {
  cf.br ^bb1(%farg0 : tensor<10xf32>)

^bb1(%0: tensor<10xf32>):  // 2 preds: ^bb0, ^bb2
  %1 = tensor.empty() : tensor<f32>
  %zero = arith.constant 0.0 : f32
  %init0 = linalg.fill ins(%zero : f32) outs(%1 : tensor<f32>) -> tensor<f32>
  %2 = linalg.generic #sum_reduction_attrs
    ins(%0: tensor<10xf32>)
    outs(%init0: tensor<f32>) {
      ^bb(%a: f32, %x: f32):
        %b = arith.addf %x, %a : f32
        linalg.yield %b : f32
  } -> tensor<f32>

  %3 = tensor.empty() : tensor<i1>
  %4 = linalg.generic #attrs
    ins(%2, %farg1 : tensor<f32>, tensor<f32>)
    outs(%3 : tensor<i1>) {
    ^bb0(%arg0: f32, %arg1: f32, %arg2: i1):
      %8 = arith.cmpf olt, %arg0, %arg1 : f32
      linalg.yield %8 : i1
  } -> tensor<i1>
  %5 = tensor.extract %4[] : tensor<i1>
  cf.cond_br %5, ^bb2(%2 : tensor<f32>), ^bb3(%2 : tensor<f32>)

^bb2(%6: tensor<f32>):  // pred: ^bb1
  %7 = tensor.empty() : tensor<10xf32>
  %9 = linalg.generic #broadcast_attrs
       ins(%6: tensor<f32>)
      outs(%7: tensor<10xf32>) {
    ^bb(%a: f32, %b: f32) :
      linalg.yield %a : f32
  } -> tensor<10xf32>

  cf.br ^bb1(%9 : tensor<10xf32>)

^bb3(%10: tensor<f32>):  // pred: ^bb1
  return %10 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%x: tensor<10xf32>, %y: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<10xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @main(%x, %y, %ct) {wrt = array<i64: 0, 1>} : (tensor<10xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<10xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<10xf32>, tensor<f32>
}
