// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/linalg.mlir (commit 407a5ca4670dd1d6bba9e82d95774ae28fc87b56), https://github.com/EnzymeAD/Enzyme/blob/407a5ca4670dd1d6bba9e82d95774ae28fc87b56/enzyme/test/MLIR/ForwardMode/linalg.mlir
// What: elementwise addition as a linalg.generic writing into tensor.empty.
// Adaptations: removed the explicit `module {...}`, the @dadd wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_elementwise_add (autodiff.jvp, as upstream's fwddiff) and @vjp_elementwise_add (autodiff.vjp) below the marker.
// gradir-corpus: entry=elementwise_add wrt=0,1 reference=elementwise_add

  // Example 1: Element-wise addition (C = A + B)
  func.func @elementwise_add(
      %A: tensor<4xf32>,
      %B: tensor<4xf32>) -> tensor<4xf32> {
    
    %empty = tensor.empty() : tensor<4xf32>
    
    %result = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>,    // Input A mapping
                       affine_map<(d0) -> (d0)>,    // Input B mapping  
                       affine_map<(d0) -> (d0)>],   // Output mapping
      iterator_types = ["parallel"]                 // Parallel iteration
    } ins(%A, %B : tensor<4xf32>, tensor<4xf32>) 
      outs(%empty : tensor<4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):               // Block arguments
      %sum = arith.addf %a, %b : f32               // Element operation
      linalg.yield %sum : f32                      // Yield result
    } -> tensor<4xf32>
    
    func.return %result : tensor<4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_elementwise_add(%a: tensor<4xf32>, %b: tensor<4xf32>, %da: tensor<4xf32>, %db: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = autodiff.jvp @elementwise_add(%a, %b, %da, %db) {wrt = array<i64: 0, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

func.func @vjp_elementwise_add(%a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:3 = autodiff.vjp @elementwise_add(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
