"""MLIR 22's quantized contractions and convolutions, and its unsigned poolings:
`linalg.quantized_matmul`, `quantized_batch_matmul`, the eight `conv_*_q` /
`depthwise_conv_*_q` ops and `pooling_{nhwc,nwc}_{max,min}_unsigned`.

A quantized op takes two more inputs, scalar zero points, and computes the
plain op of the shifted operands,

    C += (cast(A) - cast(a_zero)) * (cast(B) - cast(b_zero))

in the output's element type, over the plain op's loops and maps (the zero
points read through `()`). Despite the name, MLIR 22 builds it for any
element types: `i8` inputs with `i32` zero points into `i32` (the usual
use, no derivative), `i8` into `f32` (`sitofp`: still nothing to
differentiate) and floats throughout, which is differentiable in every
operand. The unsigned poolings read their input as unsigned (`extui`,
`maxui`/`minui`); MLIR rejects floats for them, so they never carry a
derivative.

xDSL 0.74 knows only `quantized_matmul`, with a body fixed to i8 inputs and
i32 zero points; these definitions replace it (`upstream_ops.GRADIR_OPS`).
Custom forms are MLIR's: the contractions print like `linalg.matmul`, the
window ops like the other convolutions (`linalg_conv`).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType, ShapedType
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import irdl_op_definition
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.linalg_conv import MAX, WINDOW_SPECS, WindowOperation, WindowSpec
from gradir.dialects.linalg_structured import FixedMapsContractionOp, cast_to, element_type, maps


def quantized_body(input_types: Sequence[Attribute], output_type: Attribute) -> Region:
    """`acc + (cast(a) - cast(a_zero)) * (cast(b) - cast(b_zero))`, MLIR's body
    (casts in the order MLIR emits them)."""
    block = Block(arg_types=[element_type(t) for t in (*input_types, output_type)])
    at = Builder(InsertPoint.at_end(block))
    a, b, a_zero, b_zero, accumulator = block.args
    result = accumulator.type
    floating = isinstance(result, AnyFloat)
    subtract = arith.SubfOp if floating else arith.SubiOp
    shifted_a = at.insert(subtract(cast_to(at, a, result), cast_to(at, a_zero, result))).result
    shifted_b = at.insert(subtract(cast_to(at, b, result), cast_to(at, b_zero, result))).result
    product = at.insert(arith.MulfOp(shifted_a, shifted_b) if floating else arith.MuliOp(shifted_a, shifted_b))
    total = at.insert(
        arith.AddfOp(accumulator, product.result) if floating else arith.AddiOp(accumulator, product.result)
    )
    at.insert(YieldOp(total.result))
    return Region(block)


def _verify_zero_points(inputs: Sequence[SSAValue]) -> None:
    for index, value in enumerate(inputs[2:4], start=2):
        if isinstance(value.type, ShapedType):
            raise VerifyException(f"input #{index} (a zero point) must be a scalar, got {value.type}")


# ----------------------------------------------------------------------------
# Contractions
# ----------------------------------------------------------------------------


class QuantizedContractionOp(FixedMapsContractionOp):
    """An OpDSL contraction of shifted operands (see the module docstring)."""

    @classmethod
    def body_region(
        cls, input_types: Sequence[Attribute], output_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> Region:
        if len(input_types) != 4:  # left for the verifier to name
            return Region(Block(arg_types=[element_type(t) for t in (*input_types, *output_types)]))
        return quantized_body(input_types, output_types[0])

    def verify_(self) -> None:
        if len(self.inputs) != 4 or len(self.outputs) != 1:
            raise VerifyException(
                f"expects 4 inputs (A, B and their zero points) and 1 output, got {len(self.inputs)} and {len(self.outputs)}"
            )
        _verify_zero_points(self.inputs)
        super().verify_()


@irdl_op_definition
class QuantizedMatmulOp(QuantizedContractionOp):
    """`C(i, j) += (A(i, k) - a_zero) * (B(k, j) - b_zero)`."""

    name = "linalg.quantized_matmul"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 2), (2, 1), (), (), (0, 1), loops=3)
    ITERATORS: ClassVar[str] = "ppr"


@irdl_op_definition
class QuantizedBatchMatmulOp(QuantizedContractionOp):
    """`C(b, i, j) += (A(b, i, k) - a_zero) * (B(b, k, j) - b_zero)`."""

    name = "linalg.quantized_batch_matmul"
    MAPS: ClassVar[tuple[AffineMap, ...]] = maps((0, 1, 3), (0, 3, 2), (), (), (0, 1, 2), loops=4)
    ITERATORS: ClassVar[str] = "pppr"


QUANTIZED_CONTRACTIONS = (QuantizedMatmulOp, QuantizedBatchMatmulOp)


# ----------------------------------------------------------------------------
# Convolutions and poolings
# ----------------------------------------------------------------------------


class QuantizedWindowOperation(WindowOperation):
    """A convolution of shifted operands: input, filter, their two zero points, output."""

    INPUTS: ClassVar[str] = "4 inputs (the input, the filter and their zero points)"

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        input_map, filter_map, output_map = self.SPEC.maps(self.stride_values, self.dilation_values)
        scalar = AffineMap(input_map.num_dims, 0, ())
        return input_map, filter_map, scalar, scalar, output_map

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        types = [v.type for v in (*inputs, *outputs)]
        if len(inputs) != 4 or len(outputs) != 1:  # left for the verifier to name
            return Region(Block(arg_types=[element_type(t) for t in types]))
        return quantized_body(types[:4], types[4])

    def verify_(self) -> None:
        if len(self.inputs) == 4:
            _verify_zero_points(self.inputs)
        super().verify_()

    def _verify_element_types(self, elements: Sequence[Attribute]) -> None:
        """MLIR casts each operand to the output's type, integers to floats too."""


class UnsignedPoolingOperation(WindowOperation):
    """Max or min pooling reading its integers as unsigned (`extui`, `maxui`/`minui`)."""

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        types = [element_type(v.type) for v in (*inputs, *outputs)]
        block = Block(arg_types=types)
        at = Builder(InsertPoint.at_end(block))
        accumulator = block.args[-1]
        if all(isinstance(t, IntegerType) for t in types) and len(types) == 3:
            element = cast_to(at, block.args[0], accumulator.type, unsigned=True)
            combine = arith.MaxUIOp if cls.SPEC.kind == MAX else arith.MinUIOp
            accumulator = at.insert(combine(accumulator, element)).result
        at.insert(YieldOp(accumulator))  # a float op's body is left for the verifier to name
        return Region(block)

    def _verify_element_types(self, elements: Sequence[Attribute]) -> None:
        if not all(isinstance(e, IntegerType) for e in elements):
            raise VerifyException(f"takes integers (unsigned max/min), got {', '.join(map(str, elements))}")


_FLOAT_SPECS = {spec.name: spec for spec in WINDOW_SPECS}

QUANTIZED_WINDOW_SPECS: tuple[WindowSpec, ...] = tuple(
    replace(_FLOAT_SPECS[name], name=f"{name}_q")
    for name in (
        "conv_2d_nchw_fchw", "conv_2d_ngchw_gfchw", "conv_2d_nhwc_fhwc", "conv_2d_nhwc_hwcf",
        "conv_2d_nhwgc_gfhwc", "conv_3d_ndhwc_dhwcf", "depthwise_conv_2d_nhwc_hwc", "depthwise_conv_2d_nhwc_hwcm",
    )
)  # fmt: skip
"""MLIR 22's quantized convolutions: the loops and maps of the plain op of the same name."""

UNSIGNED_POOLING_SPECS: tuple[WindowSpec, ...] = tuple(
    replace(_FLOAT_SPECS[name], name=f"{name}_unsigned")
    for name in ("pooling_nhwc_max", "pooling_nhwc_min", "pooling_nwc_max", "pooling_nwc_min")
)
"""MLIR 22's unsigned poolings: the loops and maps of the signed op of the same name."""


def _define(spec: WindowSpec, base: type[WindowOperation], what: str) -> type[WindowOperation]:
    class_name = "".join(part.capitalize() for part in spec.name.split("_")) + "Op"
    namespace = {
        "name": f"linalg.{spec.name}",
        "SPEC": spec,
        "__annotations__": {"SPEC": "ClassVar[WindowSpec]"},
        "__doc__": f"`linalg.{spec.name}`: {what}; loops ({spec.loops}), input ({spec.input}), "
        f"filter ({spec.filter}), output ({spec.output}).",
        "__module__": __name__,
        "__qualname__": class_name,
    }
    return irdl_op_definition(type(class_name, (base,), namespace))


QUANTIZED_WINDOW_OPS = tuple(
    _define(spec, QuantizedWindowOperation, "convolution of shifted operands") for spec in QUANTIZED_WINDOW_SPECS
)
UNSIGNED_POOLING_OPS = tuple(
    _define(spec, UnsignedPoolingOperation, f"unsigned {spec.kind} pooling") for spec in UNSIGNED_POOLING_SPECS
)

QUANTIZED_OPS = (*QUANTIZED_CONTRACTIONS, *QUANTIZED_WINDOW_OPS, *UNSIGNED_POOLING_OPS)
"""The ops this module adds to gradir's linalg dialect."""
