// autodiff-opt follows mlir-opt's conventions where they differ from xDSL's driver.
//
// --split-input-file: every chunk runs; the chunks that worked print, joined by separators,
// each chunk that failed is one located line on stderr, and the exit status is 1.
// RUN: not autodiff-opt %s --split-input-file 2>%t.err >%t.out
// RUN: filecheck %s --check-prefix=SPLIT-OUT < %t.out
// RUN: filecheck %s --check-prefix=SPLIT-ERR < %t.err
//
// `-` is standard input.
// RUN: cat %S/Inputs/identity.mlir | autodiff-opt - | filecheck %s --check-prefix=STDIN
//
// --print-op-generic applies to the lowered MLIR of --pipeline cpu and gpu, and is an error
// with output that is not MLIR.
// RUN: cat %S/Inputs/identity.mlir | autodiff-opt - --pipeline cpu --print-op-generic | filecheck %s --check-prefix=CPU-GENERIC
// RUN: cat %S/Inputs/identity.mlir | not autodiff-opt - --pipeline gpu --emit ptx --print-op-generic 2>&1 | filecheck %s --check-prefix=PTX-GENERIC

// SPLIT-OUT: func.func @first
// SPLIT-OUT: {{^}}// {{-----}}
// SPLIT-OUT-NEXT: {{^}}// {{-----}}
// SPLIT-OUT: func.func @third
// SPLIT-ERR: autodiff_opt_conventions.mlir:[[# @LINE + 10]]:3: error: 'autodiff.matmul' op contraction dimensions do not match
// SPLIT-ERR-NOT: error
// STDIN: func.func @first
// CPU-GENERIC: "llvm.func"() <{
// PTX-GENERIC: error: --print-op-generic only applies to MLIR output, not to --emit ptx
func.func @first(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
// -----
func.func @second(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = autodiff.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
// -----
func.func @third(%a: tensor<3xf32>) -> tensor<3xf32> {
  return %a : tensor<3xf32>
}
