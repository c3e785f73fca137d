// Bad input reaches the user as one located line on stderr, exit status 1, nothing on stdout.
// RUN: not autodiff-opt %s 2>%t.err >%t.out; filecheck %s --check-prefix=VERIFY < %t.err; not grep . %t.out
// RUN: not autodiff-opt %s --debug 2>&1 | filecheck %s --check-prefix=DEBUG
// RUN: not autodiff-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not autodiff-opt %s --pipeline no-such-pipeline 2>&1 | filecheck %s --check-prefix=PIPELINE
// RUN: not autodiff-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not autodiff-opt %S/does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not autodiff-opt %S/Inputs/syntax_error.mlir 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not autodiff-opt %S/Inputs/unknown_op.mlir 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: autodiff-opt --version | filecheck %s --check-prefix=VERSION
// RUN: not autodiff-opt %s --gpu-stop-after map 2>&1 | filecheck %s --check-prefix=GPU-ONLY
// RUN: not autodiff-opt %s --pipeline cpu --gpu-chip sm_80 2>&1 | filecheck %s --check-prefix=GPU-CHIP
// RUN: not autodiff-opt %s --pipeline gpu --gpu-stop-after map --emit ptx 2>&1 | filecheck %s --check-prefix=BEFORE-PTX

// VERIFY: autodiff_opt_errors.mlir:[[# @LINE + 3]]:3: error: 'autodiff.matmul' op contraction dimensions do not match: lhs 2x3 has K=3, rhs 4x5 has K=4
// VERIFY-NOT: {{.}}
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = autodiff.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// DEBUG: Traceback
// DEBUG: error: 'autodiff.matmul' op contraction dimensions do not match

// PASS: error: Unrecognized passes: ['no-such-pass'] (see --help for the available passes)

// PIPELINE: error: unknown pipeline 'no-such-pipeline' (valid pipelines: grad, linalg, cpu, gpu)

// FLAG: error: unrecognized arguments: --no-such-flag (see --help)

// MISSING: error: [Errno 2] No such file or directory: '{{.*}}does-not-exist.mlir'

// SYNTAX: syntax_error.mlir:3:13: error: Expected ':'
// SYNTAX-NOT: Traceback

// UNKNOWN: unknown_op.mlir:2:8: error: Operation autodiff.frobnicate is not registered

// VERSION: autodiff-opt (gradir {{.*}}) built from xdsl version 0.74.0

// Options of the GPU pipeline are errors where they do not apply, before any input is read.
// GPU-ONLY: error: --gpu-stop-after only applies with --pipeline gpu
// GPU-ONLY-NOT: {{.}}
// GPU-CHIP: error: --gpu-chip only applies with --pipeline gpu
// GPU-CHIP-NOT: {{.}}
// BEFORE-PTX: error: --emit ptx only applies to the nvvm stage, and --gpu-stop-after map stops before it
// BEFORE-PTX-NOT: {{.}}
