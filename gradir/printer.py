"""Printing large modules: xDSL's printer, with each shaped type printed once.

xDSL 0.74's `Printer` prints `tensor<16xf32>` afresh wherever it appears, through a
dozen calls and a throwaway `NoneAttr` per type (to compare the encoding with), and
writes every fragment with `print(..., file=stream)`. On the 60k-op output of
`autodiff-opt --pipeline grad` on a 10k-op program that was 2.8 s, 45% of it in
types (bench/pass_scaling.py). `ModulePrinter` keeps the text of each type it has
printed and writes fragments with the stream's `write`; the output is the same text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from io import StringIO

from xdsl.dialects.builtin import FunctionType, MemRefType, TensorType, VectorType
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

REMEMBERED_TYPES = (TensorType, VectorType, MemRefType, FunctionType)
"""The types whose text is kept: immutable, hashable, and repeated on most ops."""


@dataclass(eq=False, repr=False)
class ModulePrinter(Printer):
    """xDSL's `Printer`, remembering the text of each `REMEMBERED_TYPES` type it prints."""

    type_text: dict[Attribute, str] = field(default_factory=dict, init=False)
    """The text of each type printed so far."""
    text_by_identity: dict[int, tuple[Attribute, str]] = field(default_factory=dict, init=False)
    """The same by `id` (with the type, which keeps the `id` its own): most ops share
    one type object, and hashing a type hashes all its parameters, every time."""

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text or self.stream is None:
            super().print_string(text, indent=indent)
            return
        self._current_column += len(text)
        self.stream.write(text)

    def print_attribute(self, attribute: Attribute) -> None:
        if type(attribute) not in REMEMBERED_TYPES:
            super().print_attribute(attribute)
            return
        known = self.text_by_identity.get(id(attribute))
        if known is not None:
            self.print_string(known[1])
            return
        text = self.type_text.get(attribute)
        if text is None:
            stream, self.stream = self.stream, StringIO()
            line, column = self._current_line, self._current_column
            try:
                super().print_attribute(attribute)
                text = self.stream.getvalue()
            finally:
                self.stream = stream
                self._current_line, self._current_column = line, column
            if "\n" in text:  # printed with the indentation of where it stands: not kept
                super().print_attribute(attribute)
                return
            self.type_text[attribute] = text
        self.text_by_identity[id(attribute)] = (attribute, text)
        self.print_string(text)


def module_text(op: Operation, **options) -> str:
    """`op` printed as `str(op)` prints it (`options`: the `Printer`'s, such as
    `print_generic_format`)."""
    stream = StringIO()
    ModulePrinter(stream=stream, **options).print_op(op)
    return stream.getvalue()

