// Regressions from the mutation fuzzer: well-formed tokens with the wrong
// contents made xDSL raise while building an op or attribute, and a redefined
// symbol was reported without a location. Each is now one line located at the
// op, exit status 1, nothing on stdout.
// RUN: not autodiff-opt %S/Inputs/parse_wrong_type.mlir 2>&1 >%t.out | filecheck %s --check-prefix=TYPE; not grep . %t.out
// RUN: not autodiff-opt %S/Inputs/parse_bad_iterator.mlir 2>&1 | filecheck %s --check-prefix=ITERATOR
// RUN: not autodiff-opt %S/Inputs/parse_out_of_range.mlir 2>&1 | filecheck %s --check-prefix=RANGE
// RUN: not autodiff-opt %S/Inputs/redefined_symbol.mlir 2>&1 | filecheck %s --check-prefix=SYMBOL
// RUN: not autodiff-opt %S/Inputs/bad_permutation.mlir 2>&1 | filecheck %s --check-prefix=PERMUTATION
// RUN: not autodiff-opt %S/Inputs/use_before_definition.mlir -p autodiff-reverse 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not autodiff-opt %S/Inputs/use_before_definition_nested.mlir 2>&1 | filecheck %s --check-prefix=NESTED
// RUN: not autodiff-opt %S/Inputs/parse_not_semi_affine.mlir 2>&1 | filecheck %s --check-prefix=AFFINE

// TYPE: parse_wrong_type.mlir:2:3: error: f32 should be of base attribute tensor
// TYPE-NOT: {{.}}
// ITERATOR: parse_bad_iterator.mlir:3:3: error: 'beduction' is not a valid IteratorType
// RANGE: parse_out_of_range.mlir:2:43: error: Integer value 18446744073709551616 is out of range for type i64
// SYMBOL: redefined_symbol.mlir:5:1: error: 'builtin.module' op Redefinition of symbol "twice"
// PERMUTATION: bad_permutation.mlir:5:3: error: 'linalg.transpose' op permutation is not valid
// PERMUTATION-NOT: Traceback
// ORDER: use_before_definition.mlir:3:3: error: 'autodiff.add' op operand %m is used before it is defined
// NESTED: use_before_definition_nested.mlir:7:5: error: 'autodiff.add' op operand %m is used before it is defined
// AFFINE: parse_not_semi_affine.mlir:2:48: error: non-affine expression: the right operand of `ceildiv` must be a constant or symbolic
