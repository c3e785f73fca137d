"""The hand-off contract to MLIR 22: xDSL's generic print of every autodiff op
parses in MLIR's Python bindings (as unregistered ops)."""
import pathlib

import pytest
from mlir import ir
from xdsl.printer import Printer
from io import StringIO

from gradir.dialects.autodiff import Autodiff
from gradir.source import parse_module

LIT_DIALECTS = pathlib.Path(__file__).resolve().parents[2] / "lit_tests" / "dialects"
ROUND_TRIP_FILES = sorted(
    p for p in LIT_DIALECTS.glob("*.mlir") if not p.stem.endswith("_invalid")
)


def generic_text(module) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def test_round_trip_files_use_every_op(ctx):
    used = set()
    for path in ROUND_TRIP_FILES:
        module = parse_module(ctx, path.read_text(), str(path))
        used |= {op.name for op in module.walk()}
    every_op = {op.name for op in Autodiff.operations}
    assert every_op <= used, f"ops without a round-trip test: {every_op - used}"


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=lambda p: p.stem)
def test_generic_print_parses_in_mlir(ctx, path):
    module = parse_module(ctx, path.read_text(), str(path))
    text = generic_text(module)
    with ir.Context() as mlir_ctx:
        mlir_ctx.allow_unregistered_dialects = True
        parsed = ir.Module.parse(text)
        assert parsed.operation.verify()
        names = {op.name for op in _walk(parsed.operation)}
    assert {op.name for op in module.walk() if op.name.startswith("autodiff.")} <= names


def _walk(op):
    yield op.operation
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield from _walk(child)


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=lambda p: p.stem)
def test_custom_generic_custom_is_identical(ctx, path):
    """custom -> generic -> custom prints the same text as custom directly."""
    module = parse_module(ctx, path.read_text(), str(path))
    direct = str(module)
    again = parse_module(ctx, generic_text(module), "generic")
    assert str(again) == direct
