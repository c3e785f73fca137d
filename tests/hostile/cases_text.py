"""Hostile program text, through all three CLIs (see `contract.CliCase`): malformed
syntax, deep nesting, types too large for MLIR's 64-bit sizes, constants out of range.
Each must be one located line."""
from __future__ import annotations

from .contract import CliCase


def _nested_regions(levels: int) -> str:
    return (
        "func.func @f() {\n"
        + "  scf.execute_region {\n" * levels
        + "  scf.yield\n  }\n" * levels
        + "  return\n}\n"
    )


def _constant(text: str, type_: str = "index") -> str:
    return f"func.func @f() -> {type_} {{\n  %c = arith.constant {text}\n  return %c : {type_}\n}}\n"


def _argument(type_: str) -> str:
    return f"func.func @f(%x: {type_}) -> {type_} {{\n  return %x : {type_}\n}}\n"


TEXTS = [
    # (name, program, location regex, expected message)
    ("nested-10k-modules", "builtin.module {\n" * 10_000 + "}\n" * 10_000, r"p\.mlir:\d+:\d+", "nesting too deep"),
    ("nested-3k-regions", _nested_regions(3000), r"p\.mlir:\d+:\d+", "nesting too deep"),
    ("nested-101-regions", _nested_regions(101), r"p\.mlir:\d+:3", "nested 101 ops deep; gradir handles at most 100"),
    ("attribute-100k-deep", "func.func @f() attributes {a = " + "[" * 100_000 + "]" * 100_000 + "} {\n  return\n}\n",
     r"p\.mlir:1:\d+", "nesting too deep to parse"),
    ("dictionary-50k-deep", "func.func @f() attributes {a = " + "{b = " * 50_000 + "1" + "}" * 50_000 + "} {\n  return\n}\n",
     r"p\.mlir:1:\d+", "nesting too deep to parse"),
    ("type-5k-deep", _argument("tensor<4x" * 5000 + "f32" + ">" * 5000), r"p\.mlir:1:\d+", "nesting too deep to parse"),
    ("tuple-type-5k-deep", _argument("tuple<" * 5000 + "f32" + ">" * 5000), r"p\.mlir:1:\d+", "nesting too deep to parse"),
    ("shape-2-to-96-elements", _argument("tensor<4294967296x4294967296x4294967296xf32>"), r"p\.mlir:1:1",
     "is too large: 79228162514264337593543950336 elements"),
    ("shape-2-to-62-f64", _argument("tensor<4611686018427387904xf64>"), r"p\.mlir:1:1", "MLIR counts sizes in 64-bit"),
    ("memref-too-large", _argument("memref<4294967296x4294967296xf64>"), r"p\.mlir:1:1", "is too large"),
    ("index-2-to-64", _constant("18446744073709551616 : index"), r"p\.mlir:2:3", "out of range for type index"),
    ("index-2-to-64-minus-1", _constant("18446744073709551615 : index"), r"p\.mlir:2:3", "out of range for type index"),
    ("index-minus-2-to-64", _constant("-18446744073709551616 : index"), r"p\.mlir:2:3", "out of range for type index"),
    ("i64-2-to-64", _constant("18446744073709551616 : i64", "i64"), r"p\.mlir:2:3", "out of range for type i64"),
    ("i32-2-to-40", _constant("1099511627776 : i32", "i32"), r"p\.mlir:2:3", "out of range for type i32"),
    ("i1-two", _constant("2 : i1", "i1"), r"p\.mlir:2:3", "out of range for type i1"),
    ("dense-2-to-128", _constant("dense<[1, 340282366920938463463374607431768211456]> : tensor<2xi64>", "tensor<2xi64>"),
     r"p\.mlir:2:3", "out of range for type i64"),
    ("float-1e400", _constant("1e400 : f32", "f32"), r"p\.mlir:2:\d+", ""),
    ("loop-bound-2-to-64",
     "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %c0 = arith.constant 0 : index\n"
     "  %c1 = arith.constant 1 : index\n  %n = arith.constant 18446744073709551617 : index\n"
     "  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<4xf32> {\n"
     "    scf.yield %a : tensor<4xf32>\n  }\n  return %r : tensor<4xf32>\n}\n",
     r"p\.mlir:4:3", "out of range for type index"),
    ("syntax-unclosed-paren", "func.func @f( {\n", r"p\.mlir:1:15", "Expected argument or type"),
    ("syntax-unclosed-string", 'func.func @f"%a, %b) : (tensor<4xf32>) -> tensor<4xf32>\n', r"p\.mlir:1:\d+", ""),
    ("syntax-stray-brace", "}\n", r"p\.mlir:1:1", ""),
    ("syntax-unknown-op", "func.func @f() {\n  autodiff.frobnicate\n  return\n}\n", r"p\.mlir:[23]:3", "autodiff.frobnicate"),
    ("syntax-undefined-value", "func.func @f() -> f32 {\n  return %x : f32\n}\n", r"p\.mlir:\d+:\d+", "%x"),
    ("syntax-nul-bytes", "func.func @f() {\x00\x00\n  return\n}\n", r"p\.mlir:1:\d+", ""),
    ("syntax-only-at", "@\n", r"p\.mlir:1:1", ""),
    ("syntax-huge-dim", _argument("tensor<99999999999999999999999999xf32>"), r"p\.mlir:1:\d+", ""),
    ("syntax-negative-dim", _argument("tensor<-4xf32>"), r"p\.mlir:1:\d+", ""),
    ("syntax-zero-width", _argument("i0x"), r"p\.mlir:1:\d+", ""),
    ("verifier-matmul", "func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {\n"
     "  %0 = autodiff.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>\n"
     "  return %0 : tensor<2x5xf32>\n}\n", r"p\.mlir:2:3", "contraction dimensions do not match"),
    ("redefined-symbol", "func.func @f() {\n  return\n}\nfunc.func @f() {\n  return\n}\n", r"p\.mlir:\d+:1",
     "Redefinition of symbol"),
    # Found by `bash scripts/fuzz` (2026-11-25): internal errors, and an invalid gather the
    # verifier let through to reverse mode.
    ("fuzz-i65-array", "func.func @f() attributes {a = array<i65: 1, 2>} {\n  return\n}\n", r"p\.mlir:1:1",
     "Format not implemented for i65"),
    ("fuzz-generic-unit-maps", "func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
     "  %r = linalg.generic {indexing_maps}= [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], "
     "iterator_types = [\"parallel\"]}\n      ins(%x : tensor<3xf32>) outs(%x : tensor<3xf32>) {\n"
     "  ^bb0(%u: f32, %o: f32):\n    linalg.yield %u : f32\n  } -> tensor<3xf32>\n  return %r : tensor<3xf32>\n}\n",
     r"p\.mlir:2:3", "malformed op (AssertionError in xDSL's parser)"),
    ("fuzz-expand-shape-2-to-63", "func.func @f(%x: tensor<2x6xf32>) -> tensor<2x2x3xf32> {\n"
     "  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 9223372036854775808] : tensor<2x6xf32> "
     "into tensor<2x2x3xf32>\n  return %e : tensor<2x2x3xf32>\n}\n", r"p\.mlir:2:3",
     "'tensor.expand_shape' output_shape [2, 2, -9223372036854775808] does not match its result type"),
    ("fuzz-gather-result-shape", "func.func @f(%x: tensor<4x3xf32>, %i: tensor<5x1xindex>) -> tensor<5x1x3xf32> {\n"
     "  %g = tensor.gather %x[%i] gather_dims([1]) : (tensor<4x3xf32>, tensor<5x1xindex>) -> tensor<5x1x3xf32>\n"
     "  return %g : tensor<5x1x3xf32>\n}\n", r"p\.mlir:2:3",
     "'tensor.gather' op result has shape 5x1x3; its gather_dims make it 5x4x1 (or 5x4 rank-reduced)"),
    ("fuzz-scatter-source-shape", "func.func @f(%s: tensor<5x2x3xf32>, %x: tensor<4x3xf32>, %i: tensor<5x1xindex>) -> tensor<4x3xf32> {\n"
     "  %r = tensor.scatter %s into %x[%i] scatter_dims([0]) unique : (tensor<5x2x3xf32>, tensor<4x3xf32>, tensor<5x1xindex>) -> tensor<4x3xf32>\n"
     "  return %r : tensor<4x3xf32>\n}\n", r"p\.mlir:2:3", "'tensor.scatter' op source has shape 5x2x3; its scatter_dims make it 5x1x3"),
    ("fuzz-grad-of-control-bytes", "func.func @f(%g: tensor<4xf32>) -> tensor<4xf32> {\n"
     "  %d = autodiff.grad_of \"au\x07\u00e9todiff.exp\" (%g) : (tensor<4xf32>) -> (tensor<4xf32>) {\n"
     "  ^bb0(%x: tensor<4xf32>):\n    autodiff.yield %x : tensor<4xf32>\n  }\n  return %d : tensor<4xf32>\n}\n",
     r"p\.mlir:2:3", "which is not an op name (dialect.op)"),
    ("fuzz-affine-for-bound-2-to-63", "func.func @f(%x: f64) -> f64 {\n"
     "  %p = affine.for %i = 9223372036854775808 to 8 iter_args(%a = %x) -> (f64) {\n"
     "    affine.yield %a : f64\n  }\n  return %p : f64\n}\n", r"p\.mlir:2:3",
     "Integer value 9223372036854775808 is out of range for type index"),
    ("fuzz-affine-apply-2-to-64", "func.func @f(%i: index) -> index {\n"
     "  %k = affine.apply affine_map<(d0) -> (d0 * 18446744073709551616)>(%i)\n  return %k : index\n}\n",
     r"p\.mlir:2:3", "Integer value 18446744073709551616 is out of range for type index"),
    ("fuzz-gather-negative-dim", "func.func @f(%x: tensor<4x3xf32>, %i: tensor<5x1xindex>) -> tensor<5x1x3xf32> {\n"
     "  %g = tensor.gather %x[%i] gather_dims([-1]) : (tensor<4x3xf32>, tensor<5x1xindex>) -> tensor<5x1x3xf32>\n"
     "  return %g : tensor<5x1x3xf32>\n}\n", r"p\.mlir:2:3", "gather_dims [-1] must be dims of a rank-2 tensor"),
    ("fuzz-gather-dims-unsorted", "func.func @f(%x: tensor<4x3xf32>, %i: tensor<5x2xindex>) -> tensor<5x1x1xf32> {\n"
     "  %g = tensor.gather %x[%i] gather_dims([1, 0]) : (tensor<4x3xf32>, tensor<5x2xindex>) -> tensor<5x1x1xf32>\n"
     "  return %g : tensor<5x1x1xf32>\n}\n", r"p\.mlir:2:3", "gather_dims [1, 0] must be strictly increasing"),
    ("fuzz-gather-coordinates", "func.func @f(%x: tensor<4x3xf32>, %i: tensor<5x2xindex>) -> tensor<5x1x3xf32> {\n"
     "  %g = tensor.gather %x[%i] gather_dims([0]) : (tensor<4x3xf32>, tensor<5x2xindex>) -> tensor<5x1x3xf32>\n"
     "  return %g : tensor<5x1x3xf32>\n}\n", r"p\.mlir:2:3", "has 1 dims but the indices' last dim holds 2"),
]  # fmt: skip


def _texts() -> list[CliCase]:
    cases = []
    for name, text, location, expect in TEXTS:
        files = {"p.mlir": text}
        # A type too large reached MLIR, whose size assertion ended the process: apart.
        compiled_apart = name.startswith(("shape-", "memref-"))
        cases.append(CliCase(f"opt-text-{name}", "opt", ("p.mlir", "-o", "out.mlir"), expect, location, files,
                             absent=("out.mlir",)))
        cases.append(CliCase(f"run-text-{name}", "run", ("p.mlir", "--entry", "f", "--output", "o.npz"), expect,
                             location, files, absent=("o.npz",), isolated=compiled_apart))
        cases.append(CliCase(f"gradcheck-text-{name}", "gradcheck", ("p.mlir", "--entry", "f"), expect, location,
                             files, isolated=compiled_apart))
    return cases  # fmt: skip


TEXT_CASES: list[CliCase] = _texts()
