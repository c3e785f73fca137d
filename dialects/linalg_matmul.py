"""`linalg.matmul` that keeps its `indexing_maps` in custom form, as MLIR prints it.

xDSL 0.74's `linalg.matmul` drops non-default `indexing_maps` when it prints
custom form (and cannot parse them), so a matmul reading A or B transposed came
out of `autodiff-opt` as a plain matmul with mismatched shapes: output that
neither xDSL nor MLIR accepts. This subclass prints and parses MLIR's spelling,
`linalg.matmul indexing_maps = [...] ins(...) outs(...)`, and replaces xDSL's
op in gradir's contexts (`upstream_ops.use_gradir_ops`).
"""
from __future__ import annotations

from xdsl.dialects.linalg.ops import MatmulOp as XdslMatmulOp
from xdsl.parser import Parser
from xdsl.printer import Printer


class MatmulOp(XdslMatmulOp):
    """xDSL's matmul, with `indexing_maps = [...]` printed and parsed when not the default."""

    name = "linalg.matmul"

    def print(self, printer: Printer) -> None:
        maps = self.properties.get("indexing_maps")
        default = type(self).get_irdl_definition().properties["indexing_maps"].default_value
        if maps is not None and maps != default:
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(maps)
        super().print(printer)

    @classmethod
    def parse(cls, parser: Parser) -> MatmulOp:
        maps = None
        if parser.parse_optional_characters("indexing_maps") is not None:
            parser.parse_punctuation("=")
            maps = parser.parse_attribute()
        op = super().parse(parser)
        if maps is not None:
            op.properties["indexing_maps"] = maps
        return op
