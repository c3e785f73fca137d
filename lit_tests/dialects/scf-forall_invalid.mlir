// Malformed scf.forall programs are located errors.
// RUN: not autodiff-opt %s --split-input-file 2>&1 | filecheck %s

// CHECK: scf-forall_invalid.mlir:6:{{[0-9]+}}: error: {{.*}}'tensor.parallel_insert_slice' must write into a shared output of its 'scf.forall'
func.func @not_shared(%x: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%s = %o) -> (tensor<4xf32>) {
    %e = tensor.extract_slice %x[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %e into %x[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  return %r : tensor<4xf32>
}

// -----

// CHECK: scf-forall_invalid.mlir:20:{{[0-9]+}}: error: 'scf.forall.in_parallel' op may hold only 'tensor.parallel_insert_slice', not 'math.exp'
func.func @other_op(%x: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%s = %o) -> (tensor<4xf32>) {
    scf.forall.in_parallel {
      %y = math.exp %x : tensor<4xf32>
    }
  }
  return %r : tensor<4xf32>
}

// -----

// CHECK: scf-forall_invalid.mlir:31:{{[0-9]+}}: error: {{.*}}'scf.forall' has 1 shared outputs but 2 result types
func.func @result_count(%o: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%s = %o) -> (tensor<4xf32>, tensor<4xf32>) {
  }
  return %r : tensor<4xf32>
}

// -----

// CHECK: scf-forall_invalid.mlir:41:{{[0-9]+}}: error: {{.*}}'gpu.thread' expects one of x, y, z, linear_dim_0, ..., not 'w'
func.func @mapping(%o: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%s = %o) -> (tensor<4xf32>) {
  } {mapping = [#gpu.thread<w>]}
  return %r : tensor<4xf32>
}
