// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-one-shot-bufferize.mlir (commit 1c6e71b33dbd177590cb517a84fc1dc802911bf8), https://github.com/llvm/llvm-project/blob/1c6e71b33dbd177590cb517a84fc1dc802911bf8/mlir/test/Integration/Dialect/Linalg/CPU/test-one-shot-bufferize.mlir
// What: a dot product of two 64-vectors done the packed way: two scf.for loops copy each vector, 2 elements at a time (extract_slice, tensor.cast to tensor<?xf32>, a zero tensor.pad back to tensor<2xf32>), into the rows of a tensor<?x2xf32> (bufferization.alloc_tensor sized by affine.apply), and a third loop accumulates linalg.dot of matching rows into a filled 0-d tensor.
// Adaptations: kept only @init_and_dot (dropped @main, the print declaration, the commented-out prints and the RUN/CHECK lines); added the gradir entry @vjp_dot (autodiff.vjp) below the marker.
// gradir-corpus: entry=init_and_dot wrt=0,1,2 reference=mlir_init_and_dot inputs=signed

#map0 = affine_map<(d0, d1)[s0] -> ((d1 - d0) ceildiv s0)>
#map1 = affine_map<(d0, d1)[s0] -> ((d0 - d1) ceildiv s0)>

func.func @init_and_dot(%arg0: tensor<64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<f32>) -> tensor<f32> {
  %c64 = arith.constant 64 : index
  %cst = arith.constant 0.000000e+00 : f32
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %0 = linalg.fill ins(%cst : f32) outs(%arg2 : tensor<f32>) -> tensor<f32>
  %1 = affine.apply #map0(%c0, %c64)[%c2]
  %2 = bufferization.alloc_tensor(%1) : tensor<?x2xf32>
  %3 = scf.for %arg3 = %c0 to %c64 step %c2 iter_args(%arg4 = %2) -> (tensor<?x2xf32>) {
    %8 = affine.apply #map1(%arg3, %c0)[%c2]
    %9 = tensor.extract_slice %arg1[%arg3] [2] [1] : tensor<64xf32> to tensor<2xf32>
    %10 = tensor.cast %9 : tensor<2xf32> to tensor<?xf32>
    %11 = tensor.pad %10 low[%c0] high[%c0]  {
    ^bb0(%arg5: index):
      tensor.yield %cst : f32
    } : tensor<?xf32> to tensor<2xf32>
    %12 = tensor.insert_slice %11 into %arg4[%8, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<?x2xf32>
    scf.yield %12 : tensor<?x2xf32>
  }

  %4 = affine.apply #map0(%c0, %c64)[%c2]
  %5 = bufferization.alloc_tensor(%4) : tensor<?x2xf32>
  %6 = scf.for %arg3 = %c0 to %c64 step %c2 iter_args(%arg4 = %5) -> (tensor<?x2xf32>) {
    %8 = affine.apply #map1(%arg3, %c0)[%c2]
    %9 = tensor.extract_slice %arg0[%arg3] [2] [1] : tensor<64xf32> to tensor<2xf32>
    %10 = tensor.cast %9 : tensor<2xf32> to tensor<?xf32>
    %11 = tensor.pad %10 low[%c0] high[%c0]  {
    ^bb0(%arg5: index):
      tensor.yield %cst : f32
    } : tensor<?xf32> to tensor<2xf32>
    %12 = tensor.insert_slice %11 into %arg4[%8, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<?x2xf32>
    scf.yield %12 : tensor<?x2xf32>
  }

  %7 = scf.for %arg3 = %c0 to %c64 step %c2 iter_args(%arg4 = %0) -> (tensor<f32>) {
    %8 = tensor.extract_slice %arg0[%arg3] [2] [1] : tensor<64xf32> to tensor<2xf32>
    %9 = tensor.cast %8 : tensor<2xf32> to tensor<?xf32>
    %10 = tensor.extract_slice %arg1[%arg3] [2] [1] : tensor<64xf32> to tensor<2xf32>
    %11 = tensor.cast %10 : tensor<2xf32> to tensor<?xf32>
    %12 = affine.apply #map1(%arg3, %c0)[%c2]
    %13 = tensor.extract_slice %6[%12, 0] [1, 2] [1, 1] : tensor<?x2xf32> to tensor<2xf32>
    %14 = affine.apply #map1(%arg3, %c0)[%c2]
    %15 = tensor.extract_slice %3[%14, 0] [1, 2] [1, 1] : tensor<?x2xf32> to tensor<2xf32>
    %16 = linalg.dot ins(%13, %15 : tensor<2xf32>, tensor<2xf32>) outs(%arg4 : tensor<f32>) -> tensor<f32>
    scf.yield %16 : tensor<f32>
  }
  return %7 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dot(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>) {
  %r:4 = autodiff.vjp @init_and_dot(%a, %b, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<64xf32>, tensor<64xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<f32>, tensor<64xf32>, tensor<64xf32>, tensor<f32>
}
