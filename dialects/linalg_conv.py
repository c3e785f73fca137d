"""MLIR 22's convolution and pooling ops (`linalg.conv_*`, `linalg.depthwise_conv_*`,
`linalg.pooling_*`), for gradir's contexts.

xDSL 0.74 knows seven of them (`conv_2d_nhwc_hwcf`, `pooling_nchw_max`, ...),
requires `strides`/`dilations` where MLIR makes them optional, and builds
`pooling_nchw_max`'s body as `max(input, window)` where MLIR's is
`max(output, input)`. This module defines every float-capable op of MLIR 22's
family from one table (`WINDOW_OPS`), in MLIR's order of loops and with
MLIR's bodies, so that the maps the derivative rules read are MLIR's own (a
test checks them against MLIR's `linalg-generalize-named-ops`). They replace
xDSL's ops of the same names (`upstream_ops.GRADIR_OPS`). The quantised
(`_q`) and `_unsigned` variants, which take zero points or read unsigned
integers, are `linalg_quantized`'s subclasses of `WindowOperation`.

Every op computes, over its loops,

    out[o] = combine(out[o], in[window(o, k)] (* filter[f]))

where `window` reads the input at `o * stride + k * dilation` along each
spatial dimension: convolutions multiply by the filter and add; pooling ops
add (`sum`) or take the max/min, their "filter" operand giving only the
window's shape.

Custom form, as MLIR prints it (attributes in front; `strides`/`dilations`
default to 1 and are absent on the batchless `conv_1d/2d/3d`):

    %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
           ins(%x, %w : tensor<1x9x9x3xf32>, tensor<3x3x3x8xf32>) outs(%init : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>

The generic form (`"linalg.conv_2d_nhwc_hwcf"(%x, %w, %init) <{...}> ({^bb0...}) : ...`)
parses too; its body must be the op's own (checked by op names).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    DenseIntElementsAttr,
    DenseIntOrFPElementsAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, BlockArgument, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import irdl_op_definition, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

CONV, SUM, MAX, MIN = "conv", "sum", "max", "min"


@dataclass(frozen=True)
class WindowSpec:
    """One op of the family, in the notation of MLIR's OpDSL (`core_named_ops.py`).

    `loops` lists the loop names in MLIR's order; `input` is one entry per
    input dimension: a loop name, or `o+k` for a window (read at
    `o * stride + k * dilation`, the i-th window using `strides[i]`);
    `filter` and `output` list loop names."""

    name: str
    loops: str
    input: str
    filter: str
    output: str
    kind: str
    strided: bool = True

    @property
    def loop_names(self) -> list[str]:
        return self.loops.split()

    @property
    def input_entries(self) -> list[str]:
        return [entry.strip() for entry in self.input.split(",")]

    @property
    def windows(self) -> list[tuple[str, str]]:
        """(output loop, window loop) per spatial dimension, in order."""
        return [tuple(entry.split("+")) for entry in self.input_entries if "+" in entry]  # type: ignore[misc]

    @property
    def reduction_loops(self) -> set[str]:
        return set(self.loop_names) - set(self.output.split())

    def maps(self, strides: Sequence[int], dilations: Sequence[int]) -> tuple[AffineMap, AffineMap, AffineMap]:
        """(input, filter, output) indexing maps for these strides and dilations."""
        position = {name: AffineDimExpr(i) for i, name in enumerate(self.loop_names)}
        count = len(position)
        results: list[AffineExpr] = []
        window = 0
        for entry in self.input_entries:
            if "+" in entry:
                o, k = entry.split("+")
                results.append(position[o] * strides[window] + position[k] * dilations[window])
                window += 1
            else:
                results.append(position[entry])
        filter_map = AffineMap(count, 0, tuple(position[n] for n in self.filter.split()))
        output_map = AffineMap(count, 0, tuple(position[n] for n in self.output.split()))
        return AffineMap(count, 0, tuple(results)), filter_map, output_map


def _spec(name, loops, input_, filter_, output, kind, strided=True) -> WindowSpec:
    return WindowSpec(name, loops, input_, filter_, output, kind, strided)


WINDOW_SPECS: tuple[WindowSpec, ...] = (
    # Convolutions without batch or channels.
    _spec("conv_1d", "ow kw", "ow+kw", "kw", "ow", CONV, strided=False),
    _spec("conv_2d", "oh ow kh kw", "oh+kh, ow+kw", "kh kw", "oh ow", CONV, strided=False),
    _spec("conv_3d", "od oh ow kd kh kw", "od+kd, oh+kh, ow+kw", "kd kh kw", "od oh ow", CONV, strided=False),
    # Convolutions with batch and channels.
    _spec("conv_1d_nwc_wcf", "n ow f kw c", "n, ow+kw, c", "kw c f", "n ow f", CONV),
    _spec("conv_1d_ncw_fcw", "n f ow c kw", "n, c, ow+kw", "f c kw", "n f ow", CONV),
    _spec("conv_2d_nhwc_hwcf", "n oh ow f kh kw c", "n, oh+kh, ow+kw, c", "kh kw c f", "n oh ow f", CONV),
    _spec("conv_2d_nhwc_fhwc", "n oh ow f kh kw c", "n, oh+kh, ow+kw, c", "f kh kw c", "n oh ow f", CONV),
    _spec("conv_2d_nchw_fchw", "n f oh ow c kh kw", "n, c, oh+kh, ow+kw", "f c kh kw", "n f oh ow", CONV),
    _spec("conv_2d_ngchw_fgchw", "n g fg oh ow c kh kw", "n, g, c, oh+kh, ow+kw", "fg g c kh kw", "n g fg oh ow", CONV),
    _spec("conv_2d_ngchw_gfchw", "n g fg oh ow c kh kw", "n, g, c, oh+kh, ow+kw", "g fg c kh kw", "n g fg oh ow", CONV),
    _spec("conv_2d_nhwgc_gfhwc", "n oh ow g fg kh kw c", "n, oh+kh, ow+kw, g, c", "g fg kh kw c", "n oh ow g fg", CONV),
    _spec("conv_3d_ndhwc_dhwcf", "n od oh ow f kd kh kw c", "n, od+kd, oh+kh, ow+kw, c", "kd kh kw c f", "n od oh ow f", CONV),
    _spec("conv_3d_ncdhw_fcdhw", "n f od oh ow c kd kh kw", "n, c, od+kd, oh+kh, ow+kw", "f c kd kh kw", "n f od oh ow", CONV),
    # Depthwise convolutions (one filter per channel, `m` filters per channel for `_hwcm`).
    _spec("depthwise_conv_1d_nwc_wc", "n ow ic kw", "n, ow+kw, ic", "kw ic", "n ow ic", CONV),
    _spec("depthwise_conv_1d_ncw_cw", "n ow ic kw", "n, ic, ow+kw", "ic kw", "n ic ow", CONV),
    _spec("depthwise_conv_1d_nwc_wcm", "n ow ic cm kw", "n, ow+kw, ic", "kw ic cm", "n ow ic cm", CONV),
    _spec("depthwise_conv_2d_nhwc_hwc", "n oh ow ic kh kw", "n, oh+kh, ow+kw, ic", "kh kw ic", "n oh ow ic", CONV),
    _spec("depthwise_conv_2d_nchw_chw", "n oh ow ic kh kw", "n, ic, oh+kh, ow+kw", "ic kh kw", "n ic oh ow", CONV),
    _spec("depthwise_conv_2d_nhwc_hwcm", "n oh ow ic cm kh kw", "n, oh+kh, ow+kw, ic", "kh kw ic cm", "n oh ow ic cm", CONV),
    _spec("depthwise_conv_3d_ndhwc_dhwc", "n od oh ow kd kh kw ic", "n, od+kd, oh+kh, ow+kw, ic", "kd kh kw ic", "n od oh ow ic", CONV),
    _spec("depthwise_conv_3d_ncdhw_cdhw", "n od oh ow kd kh kw ic", "n, ic, od+kd, oh+kh, ow+kw", "ic kd kh kw", "n ic od oh ow", CONV),
    _spec("depthwise_conv_3d_ndhwc_dhwcm", "n od oh ow cm kd kh kw ic", "n, od+kd, oh+kh, ow+kw, ic", "kd kh kw ic cm", "n od oh ow ic cm", CONV),
    # Pooling: the filter operand only gives the window's shape.
    *(
        _spec(f"pooling_{layout}_{kind}", loops, input_, window, output, kind)
        for layout, loops, input_, window, output, kinds in (
            ("nwc", "n ow c kw", "n, ow+kw, c", "kw", "n ow c", (SUM, MAX, MIN)),
            ("ncw", "n c ow kw", "n, c, ow+kw", "kw", "n c ow", (SUM, MAX)),
            ("nhwc", "n oh ow c kh kw", "n, oh+kh, ow+kw, c", "kh kw", "n oh ow c", (SUM, MAX, MIN)),
            ("nchw", "n c oh ow kh kw", "n, c, oh+kh, ow+kw", "kh kw", "n c oh ow", (SUM, MAX)),
            ("ndhwc", "n od oh ow c kd kh kw", "n, od+kd, oh+kh, ow+kw, c", "kd kh kw", "n od oh ow c", (SUM, MAX, MIN)),
        )
        for kind in kinds
    ),
)  # fmt: skip
"""MLIR 22's convolution and pooling ops with float semantics."""


def _i64_values(attribute: DenseIntElementsAttr | None, count: int) -> list[int]:
    if attribute is None:
        return [1] * count
    return [int(v) for v in attribute.get_values()]


class WindowOperation(NamedOperation):
    """A convolution or pooling op of `WINDOW_SPECS`: a sliding-window
    reduction of its input into its output (see the module docstring)."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True
    SPEC: ClassVar[WindowSpec]

    strides = opt_prop_def(DenseIntElementsAttr)
    """Step of the window per spatial dimension (default 1)."""
    dilations = opt_prop_def(DenseIntElementsAttr)
    """Distance between the window's taps per spatial dimension (default 1)."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        result_types: Sequence[Attribute] | None = None,
        *,
        strides: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
    ):
        if result_types is None:
            result_types = [o.type for o in outputs if isinstance(o.type, TensorType)]
        properties: dict[str, Attribute] = {}
        spatial = len(self.SPEC.windows)
        for name, values in (("strides", strides), ("dilations", dilations)):
            if values is not None:
                assert len(values) == spatial
                properties[name] = DenseIntOrFPElementsAttr.from_list(TensorType(IntegerType(64), [spatial]), list(values))
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=[result_types],
            properties=properties,
            hidden_region=self.get_hidden_region(inputs, outputs),
        )

    # -- what the rules read ------------------------------------------------------

    @property
    def stride_values(self) -> list[int]:
        return _i64_values(self.strides, len(self.SPEC.windows))

    @property
    def dilation_values(self) -> list[int]:
        return _i64_values(self.dilations, len(self.SPEC.windows))

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return self.SPEC.maps(self.stride_values, self.dilation_values)

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        reductions = self.SPEC.reduction_loops
        return ArrayAttr(
            IteratorTypeAttr.reduction() if name in reductions else IteratorTypeAttr.parallel()
            for name in self.SPEC.loop_names
        )

    # -- body ---------------------------------------------------------------------

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        arg_types = cls.body_arg_types((*inputs, *outputs))
        kind = cls.SPEC.kind

        @Builder.implicit_region(arg_types)
        def hidden_region(args: tuple[BlockArgument, ...]) -> None:
            element, acc = _cast(args[0], arg_types[-1]), args[-1]
            is_float = isinstance(arg_types[-1], AnyFloat)
            if kind == CONV:
                weight = _cast(args[1], arg_types[-1])
                product = (arith.MulfOp if is_float else arith.MuliOp)(element, weight).result
                combined = (arith.AddfOp if is_float else arith.AddiOp)(acc, product)
            elif kind == SUM:
                combined = (arith.AddfOp if is_float else arith.AddiOp)(acc, element)
            elif kind == MAX:
                combined = (arith.MaximumfOp if is_float else arith.MaxSIOp)(acc, element)
            else:
                combined = (arith.MinimumfOp if is_float else arith.MinSIOp)(acc, element)
            YieldOp(combined.result)

        return hidden_region

    # -- custom form ------------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser):
        # MLIR accepts the attribute dictionary before `ins` and after `outs`.
        attributes = dict(parser.parse_optional_attr_dict())
        position = parser.pos
        operands: list[Sequence[SSAValue]] = []
        for keyword in ("ins", "outs"):
            if parser.parse_optional_characters(keyword) is None:
                parser.raise_error(f"expected '{keyword}(...)' in '{cls.name}'")
            parser.parse_punctuation("(")
            unresolved = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
            operands.append(parser.resolve_operands(unresolved, types, position))
            position = parser.pos
        attributes.update(parser.parse_optional_attr_dict())
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            listed = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
            result_types = list(listed) if listed is not None else [parser.parse_type()]
        definition = cls.get_irdl_definition()
        properties = {k: v for k, v in attributes.items() if k in definition.properties}
        attributes = {k: v for k, v in attributes.items() if k not in properties}
        attributes.pop("linalg.memoized_indexing_maps", None)
        return cls.build(
            operands=operands,
            result_types=(result_types,),
            properties=properties,
            attributes=attributes,
            regions=(cls.get_hidden_region(*operands),),
        )

    def print(self, printer: Printer):
        shown = {k: v for k, v in self.properties.items() if k in ("dilations", "strides")}
        shown.update((k, v) for k, v in self.attributes.items() if k != "linalg.memoized_indexing_maps")
        if shown:
            printer.print_string(" ")
            printer.print_attr_dict(dict(sorted(shown.items())))
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            printer.print_string(f" {keyword}(")
            printer.print_list(values, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(values.types, printer.print_attribute)
            printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.res], printer.print_attribute)

    # -- verification -------------------------------------------------------------------

    INPUTS: ClassVar[str] = "2 inputs (the input and the {filter})"
    """What `verify_` says the op takes besides its output."""

    def verify_(self) -> None:
        spec = self.SPEC
        expected_inputs = len(self.get_default_indexing_maps()) - 1
        if len(self.inputs) != expected_inputs or len(self.outputs) != 1:
            what = self.INPUTS.format(filter="window" if spec.kind != CONV else "filter")
            raise VerifyException(f"expects {what} and 1 output, got {len(self.inputs)} and {len(self.outputs)}")
        spatial = len(spec.windows)
        for name in ("strides", "dilations"):
            attribute = self.properties.get(name)
            if attribute is None:
                continue
            if not spec.strided:
                raise VerifyException(f"'{self.name}' has no {name}")
            if not isinstance(attribute, DenseIntOrFPElementsAttr):
                raise VerifyException(f"{name} must be a dense i64 elements attribute, got {attribute}")
            values = _i64_values(attribute, spatial)
            if attribute.get_element_type() != IntegerType(64) or len(values) != spatial:
                raise VerifyException(f"{name} must hold {spatial} i64 values, got {attribute}")
            if any(v < 1 for v in values):
                raise VerifyException(f"{name} must be positive, got {values}")
        ranks = (len(spec.input_entries), len(spec.filter.split()), len(spec.output.split()))
        shaped = (self.inputs[0], self.inputs[1], self.outputs[0])
        for what, operand, rank in zip(("input", "filter", "output"), shaped, ranks):
            if not isinstance(operand.type, ShapedType) or len(operand.type.get_shape()) != rank:
                raise VerifyException(f"the {what} must be a rank-{rank} tensor or memref, got {operand.type}")
        self._verify_element_types([operand.type.get_element_type() for operand in shaped])  # type: ignore[attr-defined]
        results = [r.type for r in self.res]
        tensors = isinstance(self.outputs[0].type, TensorType)
        if tensors and results != [self.outputs[0].type]:
            raise VerifyException(f"expects one result of the output's type {self.outputs[0].type}")
        if not tensors and results:
            raise VerifyException("expects no result with memref operands")
        if isinstance(self.outputs[0].type, MemRefType) and any(isinstance(o.type, TensorType) for o in self.inputs):
            raise VerifyException("expected to have pure tensor or buffer semantics")
        expected = [op.name for op in self.get_hidden_region(self.inputs, self.outputs).block.ops]
        found = [op.name for op in self.body.block.ops]
        if found != expected:
            raise VerifyException(
                f"its body must compute what '{self.name}' denotes ({', '.join(expected)}), got {', '.join(found)}"
            )
        super().verify_()

    def _verify_element_types(self, elements: Sequence[Attribute]) -> None:
        """Element types of (input, filter, output) MLIR's body can combine."""
        if len({isinstance(e, AnyFloat) for e in elements}) != 1:
            raise VerifyException(f"element types must be all floats or all integers, got {', '.join(map(str, elements))}")
        if not isinstance(elements[-1], IntegerType) and any(
            isinstance(e, AnyFloat) and e.bitwidth > elements[-1].bitwidth for e in elements[:-1]  # type: ignore[attr-defined]
        ):
            raise VerifyException("the output's element type must be at least as wide as the inputs'")

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return ArrayAttr(AffineMapAttr(m) for m in self.get_default_indexing_maps())


def _cast(value: SSAValue, target: Attribute) -> SSAValue:
    """MLIR's `cast_signed` to the accumulator's type, for floats and integers."""
    source = value.type
    if source == target:
        return value
    if isinstance(target, AnyFloat):
        wider = target.bitwidth > source.bitwidth  # type: ignore[attr-defined]
        return (arith.ExtFOp(value, target) if wider else arith.TruncFOp(value, target)).result
    assert isinstance(source, IntegerType) and isinstance(target, IntegerType)
    wider = target.width.data > source.width.data
    return (arith.ExtSIOp(value, target) if wider else arith.TruncIOp(value, target)).result


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Op"


def _define(spec: WindowSpec) -> type[WindowOperation]:
    what = {CONV: "convolution", SUM: "sum pooling", MAX: "max pooling", MIN: "min pooling"}[spec.kind]
    namespace = {
        "name": f"linalg.{spec.name}",
        "SPEC": spec,
        "__annotations__": {"SPEC": "ClassVar[WindowSpec]"},
        "__doc__": f"`linalg.{spec.name}`: {what}; loops ({spec.loops}), input ({spec.input}), "
        f"{'filter' if spec.kind == CONV else 'window'} ({spec.filter}), output ({spec.output}).",
        "__module__": __name__,
        "__qualname__": _class_name(spec.name),
    }
    return irdl_op_definition(type(_class_name(spec.name), (WindowOperation,), namespace))


WINDOW_OPS: tuple[type[WindowOperation], ...] = tuple(_define(spec) for spec in WINDOW_SPECS)
"""One op class per entry of `WINDOW_SPECS`."""

WINDOW_OPS_BY_NAME: dict[str, type[WindowOperation]] = {op.name: op for op in WINDOW_OPS}
