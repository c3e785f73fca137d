"""gradir's quantized and unsigned linalg ops (`dialects/linalg_quantized.py`) denote
what MLIR 22's do: for each op and each mix of element types MLIR builds (i8 inputs
with i32 zero points into i32 or f32, floats throughout), the same indexing maps,
iterator types and body ops as MLIR's own generalisation; MLIR's custom form parses
back and prints the same."""
from __future__ import annotations

import pytest
from mlir import ir, passmanager

from gradir.dialects.linalg_quantized import QUANTIZED_WINDOW_SPECS, UNSIGNED_POOLING_SPECS
from gradir.mlir_bridge import generic_text
from gradir.source import parse_module
from window_programs import WindowCase

# (input, zero point, output) element types
MIXES = {"integers": ("i8", "i32", "i32"), "into_float": ("i8", "i32", "f32"), "floats": ("f32", "f32", "f32")}


def _t(shape, element: str) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + element + ">"


def _contraction(name: str, mix: str) -> str:
    i, z, o = MIXES[mix]
    a, b, c = {"quantized_matmul": ((3, 5), (5, 4), (3, 4)), "quantized_batch_matmul": ((2, 3, 5), (2, 5, 4), (2, 3, 4))}[name]
    return f"""func.func @f(%a: {_t(a, i)}, %b: {_t(b, i)}, %za: {z}, %zb: {z}, %c: {_t(c, o)}) -> {_t(c, o)} {{
  %r = linalg.{name} ins(%a, %b, %za, %zb : {_t(a, i)}, {_t(b, i)}, {z}, {z}) outs(%c : {_t(c, o)}) -> {_t(c, o)}
  return %r : {_t(c, o)}
}}"""


def _window(spec, mix: str) -> str:
    i, z, o = MIXES[mix]
    window = WindowCase(spec, {loop: 2 for loop in spec.loop_names}, (2,) * len(spec.windows), (1,) * len(spec.windows))
    shapes = window.shapes()
    tx, tw, to = _t(shapes[0], i), _t(shapes[1], i), _t(shapes[2], o)
    if spec in UNSIGNED_POOLING_SPECS:
        operands, types, arguments = "%x, %w", f"{tx}, {tw}", f"%x: {tx}, %w: {tw}"
    else:
        operands, types, arguments = "%x, %w, %zx, %zw", f"{tx}, {tw}, {z}, {z}", f"%x: {tx}, %w: {tw}, %zx: {z}, %zw: {z}"
    return f"""func.func @f({arguments}, %o: {to}) -> {to} {{
  %r = linalg.{spec.name}{window.attributes()} ins({operands} : {types}) outs(%o : {to}) -> {to}
  return %r : {to}
}}"""


PROGRAMS = {
    **{f"{name}-{mix}": _contraction(name, mix) for name in ("quantized_matmul", "quantized_batch_matmul") for mix in MIXES},
    **{f"{spec.name}-{mix}": _window(spec, mix) for spec in QUANTIZED_WINDOW_SPECS for mix in MIXES},
    **{f"{spec.name}-integers": _window(spec, "integers") for spec in UNSIGNED_POOLING_SPECS},
}  # fmt: skip


def _mlir_generalized(text: str) -> tuple[ir.Module, ir.Operation]:
    module = ir.Module.parse(text)
    assert module.operation.verify()
    passmanager.PassManager.parse("builtin.module(func.func(linalg-generalize-named-ops))").run(module.operation)
    function = module.body.operations[0]
    (generic,) = [op for op in function.regions[0].blocks[0].operations if op.name == "linalg.generic"]
    return module, generic


@pytest.mark.parametrize("name", PROGRAMS)
def test_maps_iterators_and_body_are_mlirs(ctx, name):
    module = parse_module(ctx, PROGRAMS[name], "quantized.mlir")
    (op,) = [op for op in module.walk() if op.name == f"linalg.{name.split('-')[0]}"]
    with ir.Context():
        # MLIR builds its own body from the custom form (from gradir's generic form it
        # would keep gradir's), and verifies gradir's generic form.
        assert ir.Module.parse(generic_text(module)).operation.verify()
        _kept, generic = _mlir_generalized(PROGRAMS[name])
        mlir_maps = [str(m) for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]
        mlir_iterators = [str(i) for i in ir.ArrayAttr(generic.attributes["iterator_types"])]
        mlir_body = [body_op.name for body_op in generic.regions[0].blocks[0].operations]
        ours = [str(ir.Attribute.parse(str(m))) for m in op.get_indexing_maps().data]
    assert ours == mlir_maps
    assert [f"#linalg.iterator_type<{i.data.value}>" for i in op.get_iterator_types().data] == mlir_iterators
    assert [body_op.name for body_op in op.body.block.ops] == mlir_body


@pytest.mark.parametrize("name", PROGRAMS)
def test_mlir_custom_form_parses_back(ctx, name):
    with ir.Context():
        printed = str(ir.Module.parse(PROGRAMS[name]))
    module = parse_module(ctx, printed, "mlir.mlir")
    assert str(parse_module(ctx, str(module), "again.mlir")) == str(module)
