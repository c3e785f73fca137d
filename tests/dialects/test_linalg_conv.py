"""gradir's convolution and pooling ops (`dialects/linalg_conv.py`) denote what
MLIR 22's do: the same indexing maps, iterator types and body as MLIR's own
generalisation of each op, custom and generic forms that MLIR parses, and
MLIR's printed form parses back."""
from __future__ import annotations

import pytest
from mlir import ir, passmanager

from gradir.dialects.linalg_conv import WINDOW_OPS_BY_NAME, WINDOW_SPECS
from gradir.mlir_bridge import generic_text
from gradir.source import parse_module
from window_programs import case, strided_case

NAMES = [spec.name for spec in WINDOW_SPECS]


def _mlir_generalized(text: str) -> ir.Operation:
    """The single linalg.generic MLIR makes of the module's conv/pool op (the
    module is kept alive on the function: a freed module frees its ops)."""
    module = ir.Module.parse(text)
    _mlir_generalized.kept = module
    assert module.operation.verify()
    passmanager.PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))").run(module.operation)
    function = module.body.operations[0]
    (generic,) = [op for op in function.regions[0].blocks[0].operations if op.name == "linalg.generic"]
    return generic


@pytest.mark.parametrize("name", NAMES)
def test_maps_iterators_and_body_are_mlirs(ctx, name):
    window = strided_case(name)
    module = parse_module(ctx, window.function(), "conv.mlir")
    (op,) = [op for op in module.walk() if op.name == f"linalg.{name}"]
    with ir.Context():
        # MLIR's own body comes from the custom form (from gradir's generic form MLIR
        # would keep gradir's body, and the comparison would prove nothing).
        assert ir.Module.parse(generic_text(module)).operation.verify()
        generic = _mlir_generalized(window.function())
        mlir_maps = [str(m) for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]
        mlir_iterators = [str(i) for i in ir.ArrayAttr(generic.attributes["iterator_types"])]
        mlir_body = [body_op.name for body_op in generic.regions[0].blocks[0].operations]
        ours = [str(ir.Attribute.parse(str(m))) for m in op.get_indexing_maps().data]  # MLIR's spelling
    assert ours == mlir_maps
    assert [f"#linalg.iterator_type<{i.data.value}>" for i in op.get_iterator_types().data] == mlir_iterators
    assert [body_op.name for body_op in op.body.block.ops] == mlir_body


@pytest.mark.parametrize("name", NAMES)
def test_mlir_custom_form_parses_back(ctx, name):
    """MLIR's own printing of the op (custom form) reads back identically."""
    window = strided_case(name, element="f32")
    with ir.Context():
        printed = str(ir.Module.parse(window.function()))
    module = parse_module(ctx, printed, "mlir.mlir")
    again = parse_module(ctx, str(module), "again.mlir")
    assert str(again) == str(module)
    (op,) = [op for op in module.walk() if op.name == f"linalg.{name}"]
    assert isinstance(op, WINDOW_OPS_BY_NAME[f"linalg.{name}"])


def test_defaults_and_mixed_precision(ctx):
    """No strides/dilations means 1; an f16 input into an f32 accumulator is
    extended in the body, as MLIR does."""
    text = """
func.func @f(%x: tensor<1x5x5x2xf16>, %w: tensor<3x3x2x4xf16>, %o: tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  %r = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x5x5x2xf16>, tensor<3x3x2x4xf16>) outs(%o : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %r : tensor<1x3x3x4xf32>
}
"""
    module = parse_module(ctx, text, "mixed.mlir")
    (op,) = [op for op in module.walk() if op.name == "linalg.conv_2d_nhwc_hwcf"]
    assert op.stride_values == [1, 1] and op.dilation_values == [1, 1]
    assert [o.name for o in op.body.block.ops] == ["arith.extf", "arith.extf", "arith.mulf", "arith.addf", "linalg.yield"]
    with ir.Context():
        generic = _mlir_generalized(text)
        assert [o.name for o in generic.regions[0].blocks[0].operations] == [o.name for o in op.body.block.ops]


def test_unused_input_tail_is_allowed(ctx):
    """An input larger than the windows reach (MLIR allows it) verifies."""
    window = case("conv_2d_nhwc_hwcf", strides=(2, 2), dilations=(1, 1), extra_input=(1, 2))
    module = parse_module(ctx, window.function(), "tail.mlir")
    with ir.Context():
        assert ir.Module.parse(generic_text(module)).operation.verify()
