"""Every op gets its `file:line:col` from a line table built once per parse
(`gradir.source.LineTable`), never from xDSL's `Span.get_location`, which counts the
newlines from the start of the text on every call: stamping n ops that way is
quadratic (issue 18: `--pipeline grad` on 100k ops took 439 s). The checks count
work instead of timing it."""
from __future__ import annotations

import random

import pytest
from xdsl.dialects.builtin import FileLineColLoc
from xdsl.utils import lexer

from gradir import source
from gradir.source import LineTable, make_context, parse_module


def _program(ops: int) -> str:
    lines = ["// a comment\n", "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"]
    previous = "%x"
    for i in range(ops):
        lines.append(f"  %v{i} = autodiff.exp {previous} : tensor<4xf32>" + ("  // note\n" if i % 3 else "\n"))
        if i % 5 == 0:
            lines.append("\n")
        previous = f"%v{i}"
    lines.append(f"    return {previous} : tensor<4xf32>\n}}\n")
    return "".join(lines)


def test_locations_are_xdsls(monkeypatch):
    """The table gives the location xDSL's own (quadratic) computation gives, op by op."""
    text = _program(50)
    module = parse_module(make_context(), text, "p.mlir")
    located = [op.location for op in module.walk() if isinstance(op.location, FileLineColLoc)]
    assert len(located) == 52  # func, 50 exps, return (the module itself is implicit)
    for location in located:
        line, col = location.line.data, location.column.data
        offset = sum(len(l) for l in text.splitlines(keepends=True)[: line - 1]) + col - 1
        span = lexer.Span(offset, offset + 1, lexer.Input(text, "p.mlir"))
        assert span.get_location() == ("p.mlir", line, col)


@pytest.mark.parametrize("text", ["", "x", "\n", "a\nb", "a\n\nbc\n", "\n\n\n"])
def test_line_table_agrees_with_xdsl_everywhere(text):
    table = LineTable(text, "t")
    for offset in range(len(text) + 1):
        assert table.location(offset) == lexer.Span(offset, offset, lexer.Input(text, "t")).get_location()


def test_parsing_never_asks_xdsl_for_op_locations(monkeypatch):
    """A program with thousands of ops parses without one call of `Span.get_location`
    (each call would scan the text up to the op), and builds its line table once."""
    calls = {"get_location": 0, "tables": 0}
    original_init = LineTable.__init__

    def counting_get_location(self):
        calls["get_location"] += 1
        raise AssertionError("Span.get_location is linear in the offset: use the line table")

    def counting_init(self, *args):
        calls["tables"] += 1
        original_init(self, *args)

    monkeypatch.setattr(lexer.Span, "get_location", counting_get_location)
    monkeypatch.setattr(LineTable, "__init__", counting_init)
    module = parse_module(make_context(), _program(3000), "big.mlir")
    assert calls == {"get_location": 0, "tables": 1}
    assert sum(1 for _ in module.walk()) == 3003


def test_line_table_lookups_are_logarithmic():
    """A lookup reads O(log n) entries of the table (bisect), whatever the offset."""
    text = "x\n" * 100_000
    table = LineTable(text, "t")
    assert len(table.starts) == 100_001
    probes = []

    class Counting(list):
        def __getitem__(self, index):
            probes.append(index)
            return super().__getitem__(index)

    table.starts = Counting(table.starts)
    random.seed(0)
    for offset in random.sample(range(len(text)), 100):
        probes.clear()
        line = table.location(offset).line
        assert line == offset // 2 + 1
        assert len(probes) <= 20  # log2(100_001) ~ 17 reads of bisect, one for the column


def test_the_module_keeps_the_line_table_on_the_parser():
    assert hasattr(source.LocatingParser(make_context(), "", "e"), "lines")
