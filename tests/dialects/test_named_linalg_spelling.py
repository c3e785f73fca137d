"""The named linalg ops front ends emit parse and print as MLIR 22 prints them (issue
"Real MLIR II"): MLIR's own custom and generic forms of each op parse in gradir and
print back as MLIR's custom form (SSA names aside: MLIR names results after the op,
`%mapped`, `%reduced:2`), and gradir's generic form is MLIR's op, which MLIR parses and
verifies. A front end's output therefore goes through `autodiff-opt` unchanged."""
import re

import pytest
from mlir import ir
from xdsl.printer import Printer
from io import StringIO

from gradir.source import load_module

SNIPPETS = {
"dot": """func.func @f(%a: tensor<5xf32>, %b: tensor<5xf32>, %c: tensor<f32>) -> tensor<f32> {
  %0 = linalg.dot ins(%a, %b : tensor<5xf32>, tensor<5xf32>) outs(%c : tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}""",
"matvec": """func.func @f(%a: tensor<3x5xf32>, %b: tensor<5xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %0 = linalg.matvec ins(%a, %b : tensor<3x5xf32>, tensor<5xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}""",
"vecmat": """func.func @f(%a: tensor<5xf32>, %b: tensor<5x3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %0 = linalg.vecmat ins(%a, %b : tensor<5xf32>, tensor<5x3xf32>) outs(%c : tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}""",
"batch_matvec": """func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<2x5xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.batch_matvec ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5xf32>) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}""",
"batch_vecmat": """func.func @f(%a: tensor<2x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = linalg.batch_vecmat ins(%a, %b : tensor<2x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}""",
"batch_mmt4d": """func.func @f(%a: tensor<2x2x3x4x5xf32>, %b: tensor<2x6x3x7x5xf32>, %c: tensor<2x2x6x4x7xf32>) -> tensor<2x2x6x4x7xf32> {
  %0 = linalg.batch_mmt4d ins(%a, %b : tensor<2x2x3x4x5xf32>, tensor<2x6x3x7x5xf32>) outs(%c : tensor<2x2x6x4x7xf32>) -> tensor<2x2x6x4x7xf32>
  return %0 : tensor<2x2x6x4x7xf32>
}""",
"batch_matmul": """func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}""",
"batch_matmul_transposed": """func.func @f(%a: tensor<2x5x3xf32>, %b: tensor<2x4x5xf32>, %c: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a, %b : tensor<2x5x3xf32>, tensor<2x4x5xf32>) outs(%c : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}""",
"matmul_broadcast": """func.func @f(%a: tensor<5xf32>, %b: tensor<5x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"matmul_cast": """func.func @f(%a: tensor<3x5xf16>, %b: tensor<5x4xf16>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<3x5xf16>, tensor<5x4xf16>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"mmt4d": """func.func @f(%a: tensor<2x3x4x5xf32>, %b: tensor<6x3x7x5xf32>, %c: tensor<2x6x4x7xf32>) -> tensor<2x6x4x7xf32> {
  %0 = linalg.mmt4d ins(%a, %b : tensor<2x3x4x5xf32>, tensor<6x3x7x5xf32>) outs(%c : tensor<2x6x4x7xf32>) -> tensor<2x6x4x7xf32>
  return %0 : tensor<2x6x4x7xf32>
}""",
"contract": """func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<5x4xf32>, %c: tensor<3x4x2xf32>) -> tensor<3x4x2xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, d0)>] ins(%a, %b : tensor<2x3x5xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}""",
"elementwise_unary": """func.func @f(%a: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a : tensor<3x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"elementwise_broadcast": """func.func @f(%a: tensor<3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<mul> indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %b : tensor<3x4xf32>, tensor<4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"softmax": """func.func @f(%a: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.softmax dimension(1) ins(%a : tensor<3x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"map_short": """func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %mapped = linalg.map { arith.mulf } ins(%a, %b : tensor<3x4xf32>, tensor<3x4xf32>) outs(%c : tensor<3x4xf32>)
  return %mapped : tensor<3x4xf32>
}""",
"map_body": """func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %mapped = linalg.map ins(%a, %b : tensor<3x4xf32>, tensor<3x4xf32>) outs(%c : tensor<3x4xf32>)
    (%in: f32, %in_0: f32, %init: f32) {
      %0 = math.sin %in : f32
      %1 = arith.mulf %0, %in_0 : f32
      linalg.yield %1 : f32
    }
  return %mapped : tensor<3x4xf32>
}""",
"reduce_short": """func.func @f(%a: tensor<3x4xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  %reduced = linalg.reduce { arith.maximumf } ins(%a : tensor<3x4xf32>) outs(%c : tensor<3xf32>) dimensions = [1] 
  return %reduced : tensor<3xf32>
}""",
"reduce_body": """func.func @f(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %reduced:2 = linalg.reduce ins(%a, %b : tensor<3x4xf32>, tensor<3x4xf32>) outs(%c, %d : tensor<4xf32>, tensor<4xf32>) dimensions = [0] 
    (%in: f32, %in_0: f32, %init: f32, %init_1: f32) {
      %0 = arith.mulf %in, %in_0 : f32
      %1 = arith.addf %0, %init : f32
      %2 = arith.maximumf %in, %init_1 : f32
      linalg.yield %1, %2 : f32, f32
    }
  return %reduced#0, %reduced#1 : tensor<4xf32>, tensor<4xf32>
}""",
"transpose": """func.func @f(%a: tensor<3x4x5xf32>, %c: tensor<5x3x4xf32>) -> tensor<5x3x4xf32> {
  %transposed = linalg.transpose ins(%a : tensor<3x4x5xf32>) outs(%c : tensor<5x3x4xf32>) permutation = [2, 0, 1] 
  return %transposed : tensor<5x3x4xf32>
}""",
"broadcast": """func.func @f(%a: tensor<4xf32>, %c: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  %broadcasted = linalg.broadcast ins(%a : tensor<4xf32>) outs(%c : tensor<3x4x5xf32>) dimensions = [0, 2] 
  return %broadcasted : tensor<3x4x5xf32>
}""",
}

for _name in ("abs", "ceil", "erf", "floor", "negf", "reciprocal", "round", "rsqrt", "square", "tanh"):
    SNIPPETS[_name] = f"""func.func @f(%a: tensor<3x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {{
  %0 = linalg.{_name} ins(%a : tensor<3x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}}"""
SNIPPETS.update({
"div": """func.func @f(%a: tensor<3x4xf64>, %b: tensor<3x4xf64>, %c: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %0 = linalg.div {fastmath_note = "kept"} ins(%a, %b : tensor<3x4xf64>, tensor<3x4xf64>) outs(%c : tensor<3x4xf64>) -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}""",
"div_integers": """func.func @f(%a: tensor<3x4xi32>, %b: tensor<3x4xi32>, %c: tensor<3x4xi32>) -> (tensor<3x4xi32>, tensor<3x4xi32>) {
  %0 = linalg.div ins(%a, %b : tensor<3x4xi32>, tensor<3x4xi32>) outs(%c : tensor<3x4xi32>) -> tensor<3x4xi32>
  %1 = linalg.div_unsigned ins(%a, %b : tensor<3x4xi32>, tensor<3x4xi32>) outs(%c : tensor<3x4xi32>) -> tensor<3x4xi32>
  return %0, %1 : tensor<3x4xi32>, tensor<3x4xi32>
}""",
"powf_scalar_exponent": """func.func @f(%a: tensor<3x4xf32>, %b: f32, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.powf ins(%a, %b : tensor<3x4xf32>, f32) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"batch_reduce_matmul": """func.func @f(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"batch_reduce_matmul_maps": """func.func @f(%a: tensor<2x5x3xf16>, %b: tensor<5x4xf16>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<2x5x3xf16>, tensor<5x4xf16>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"pack": """func.func @f(%a: tensor<5x4xf32>, %p: f32, %d: tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32> {
  %pack = linalg.pack %a padding_value(%p : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [3, 2] into %d : tensor<5x4xf32> -> tensor<2x3x3x2xf32>
  return %pack : tensor<2x3x3x2xf32>
}""",
"pack_full_tiles": """func.func @f(%a: tensor<4x6xf64>, %d: tensor<2x6x2xf64>) -> tensor<2x6x2xf64> {
  %pack = linalg.pack %a inner_dims_pos = [0] inner_tiles = [2] into %d {note = 1 : i64} : tensor<4x6xf64> -> tensor<2x6x2xf64>
  return %pack : tensor<2x6x2xf64>
}""",
"unpack": """func.func @f(%a: tensor<2x3x3x2xf32>, %d: tensor<5x4xf32>) -> tensor<5x4xf32> {
  %unpack = linalg.unpack %a outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [3, 2] into %d : tensor<2x3x3x2xf32> -> tensor<5x4xf32>
  return %unpack : tensor<5x4xf32>
}""",
"fill_rng_2d": """func.func @f(%lo: f64, %hi: f64, %seed: i32, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.fill_rng_2d ins(%lo, %hi, %seed : f64, f64, i32) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"quantized_matmul_floats": """func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %z: f32, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.quantized_matmul ins(%a, %b, %z, %z : tensor<3x5xf32>, tensor<5x4xf32>, f32, f32) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}""",
"tanh_on_buffers": """func.func @f(%a: memref<3x4xf32>, %c: memref<3x4xf32>) {
  linalg.tanh ins(%a : memref<3x4xf32>) outs(%c : memref<3x4xf32>)
  return
}""",
})


def _expand_aliases(text: str) -> str:
    """MLIR's text with its `#map` aliases written out, as gradir prints them."""
    aliases = dict(re.findall(r"^(#\w+) = (.*)$", text, re.M))
    body = "\n".join(line for line in text.splitlines() if not re.match(r"^#\w+ = ", line))
    for name in sorted(aliases, key=len, reverse=True):
        body = re.sub(re.escape(name) + r"\b", lambda _: aliases[name], body)
    return body


def _without_ssa_names(text: str) -> str:
    text = text.replace("builtin.module", "module").replace("func.return", "return")
    text = re.sub(r"%[\w$.-]+:(\d+)", lambda m: ", ".join(["%_"] * int(m.group(1))), text)
    return re.sub(r"%[\w$.-]+(#\d+)?", "%_", text).strip()


def _mlir_forms(text: str) -> tuple[str, str]:
    with ir.Context():
        module = ir.Module.parse(text)
        assert module.operation.verify()
        return _expand_aliases(str(module)), module.operation.get_asm(print_generic_op_form=True)


@pytest.mark.parametrize("name", SNIPPETS)
def test_mlir_custom_form_prints_back_unchanged(name):
    custom, _ = _mlir_forms(SNIPPETS[name])
    assert _without_ssa_names(str(load_module(custom))) == _without_ssa_names(custom)


@pytest.mark.parametrize("name", SNIPPETS)
def test_mlir_generic_form_prints_as_mlir_custom_form(name):
    custom, generic = _mlir_forms(SNIPPETS[name])
    assert _without_ssa_names(str(load_module(generic))) == _without_ssa_names(custom)


@pytest.mark.parametrize("name", SNIPPETS)
def test_gradir_generic_form_is_mlirs_op(name):
    module = load_module(SNIPPETS[name])
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    custom, _ = _mlir_forms(SNIPPETS[name])
    with ir.Context():
        parsed = ir.Module.parse(stream.getvalue())
        assert parsed.operation.verify()
        assert _without_ssa_names(_expand_aliases(str(parsed))) == _without_ssa_names(custom)
