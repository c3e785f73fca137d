"""Parsing `.mlir` text into xDSL with a source location on every op.

xDSL only keeps locations written as `loc(...)`; gradir's diagnostics must name
`file:line:col` for any op, so the parser records where each op starts.
"""
from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from gradir.errors import SourceError


class LocatingParser(Parser):
    """A parser that stamps each op without an explicit `loc(...)` with its start position."""

    def parse_operation(self) -> Operation:
        start = self._current_token.span.get_location()
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            op.location = FileLineColLoc(
                StringAttr(start.file), IntAttr(start.line), IntAttr(start.col)
            )
        return op


def parse_error_message(error: ParseError) -> str:
    """One line `file:line:col: error: message` for an xDSL parse error."""
    where = error.span.get_location()
    message = " ".join(error.msg.split())
    return f"{where.file}:{where.line}:{where.col}: error: {message}"


def parse_module(ctx: Context, text: str, filename: str = "<input>") -> ModuleOp:
    """Parse `text`; raises `SourceError` with the location on malformed IR."""
    try:
        return LocatingParser(ctx, text, filename).parse_module()
    except ParseError as error:
        where = error.span.get_location()
        raise SourceError(
            " ".join(error.msg.split()), f"{where.file}:{where.line}:{where.col}"
        ) from error
