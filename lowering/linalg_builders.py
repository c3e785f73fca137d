"""Small builders for the linalg-on-tensors IR that `convert-autodiff-to-linalg` emits.

Everything elementwise or reducing becomes one `linalg.generic` (not a named op),
because `linalg-fuse-elementwise-ops` fuses generics with each other: a chain
like `exp(x - max)` then `sum` ends up as one loop nest downstream.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, FloatAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp
from xdsl.dialects.linalg.ops import YieldOp as LinalgYieldOp
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from gradir.lowering.standard_ops import extents

ScalarBody = Callable[[Sequence[SSAValue]], SSAValue]
"""Builds the scalar computation of a generic from its block arguments (inside
an implicit builder) and returns the value to yield."""

Shape = tuple[int, ...]


def shape_of(value: SSAValue) -> Shape:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def element_type_of(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def scalar_constant(value: float, element_type: Attribute) -> SSAValue:
    """A float `arith.constant` of `element_type` (built in the current implicit builder)."""
    return arith.ConstantOp(FloatAttr(value, element_type)).result  # pyright: ignore


def broadcast_map(operand_shape: Sequence[int], loop_shape: Sequence[int]) -> AffineMap:
    """NumPy broadcasting as an indexing map: trailing dims align, leading loops
    the operand lacks are dropped, and a size-1 dim that is broadcast reads index 0."""
    offset = len(loop_shape) - len(operand_shape)
    results = [
        AffineExpr.constant(0)
        if size == 1 and loop_shape[offset + axis] != 1
        else AffineExpr.dimension(offset + axis)
        for axis, size in enumerate(operand_shape)
    ]
    return AffineMap(len(loop_shape), 0, tuple(results))


def projection_map(loop_rank: int, kept_loops: Sequence[int]) -> AffineMap:
    """`(d0, ..., dn) -> (d_k for k in kept_loops)`: how a reduced tensor is indexed."""
    return AffineMap(loop_rank, 0, tuple(AffineExpr.dimension(k) for k in kept_loops))


def dynamic_sizes_of(rewriter: Builder, value: SSAValue) -> list[SSAValue]:
    """A `tensor.dim` of each dynamic dimension of `value`, in order (`standard_ops.extents`)."""
    return [size for size in extents(rewriter, value) if isinstance(size, SSAValue)]


def empty_tensor(rewriter: Builder, tensor_type: TensorType, sizes: Sequence[SSAValue] = ()) -> SSAValue:
    """`tensor.empty` of `tensor_type`; `sizes`: one per dynamic dimension."""
    return rewriter.insert(tensor.EmptyOp(list(sizes), tensor_type)).tensor


def filled_tensor(
    rewriter: Builder, tensor_type: TensorType, value: float, sizes: Sequence[SSAValue] = ()
) -> SSAValue:
    """`tensor.empty` + `linalg.fill` with a scalar constant: the init of a reduction."""
    constant = rewriter.insert(arith.ConstantOp(FloatAttr(value, tensor_type.element_type)))
    empty = empty_tensor(rewriter, tensor_type, sizes)
    fill = rewriter.insert(FillOp([constant.result], [empty], [tensor_type]))
    return fill.results[0]


def converted(rewriter: PatternRewriter, value: SSAValue, element_type: Attribute) -> SSAValue:
    """`value` with its elements widened (`arith.extf`) or rounded (`arith.truncf`)
    to the float type `element_type`; `value` itself when it already has it."""
    source = element_type_of(value)
    if source == element_type:
        return value
    assert isinstance(source, AnyFloat) and isinstance(element_type, AnyFloat)
    conversion = arith.ExtFOp if element_type.bitwidth > source.bitwidth else arith.TruncFOp
    result_type = TensorType(element_type, shape_of(value))
    return elementwise(
        rewriter, [value], result_type, lambda args: conversion(args[0], element_type).result
    )


def generic(
    rewriter: Builder,
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMap],
    init: SSAValue,
    output_map: AffineMap,
    iterators: Sequence[IteratorTypeAttr],
    body: ScalarBody,
) -> SSAValue:
    """One `linalg.generic` with a single output. `body` gets the block arguments
    (one per input, then the output's current value) and returns what to yield."""
    arg_types = [element_type_of(v) for v in (*inputs, init)]

    @Builder.implicit_region(arg_types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        LinalgYieldOp(body(args))

    op = GenericOp(
        inputs,
        [init],
        region,
        [AffineMapAttr(m) for m in (*input_maps, output_map)],
        iterators,
        [init.type],
    )
    return rewriter.insert(op).results[0]


def elementwise(
    rewriter: PatternRewriter,
    inputs: Sequence[SSAValue],
    result_type: TensorType,
    body: ScalarBody,
    sizes: Sequence[SSAValue] = (),
) -> SSAValue:
    """An all-parallel generic over `result_type`'s shape; inputs broadcast to it
    with NumPy rules. `body` receives only the input block arguments. `sizes`: one per
    dynamic dimension of `result_type` (inputs of dynamic shape must then have its
    shape: nothing broadcasts along a dynamic dimension)."""
    loop_shape = tuple(result_type.get_shape())
    return generic(
        rewriter,
        inputs,
        [broadcast_map(shape_of(v), loop_shape) for v in inputs],
        empty_tensor(rewriter, result_type, sizes),
        AffineMap.identity(len(loop_shape)),
        [IteratorTypeAttr.parallel()] * len(loop_shape),
        lambda args: body(args[: len(inputs)]),
    )


def reduction(
    rewriter: PatternRewriter,
    inputs: Sequence[SSAValue],
    input_maps: Sequence[AffineMap],
    loop_shape: Sequence[int],
    reduced_loops: Sequence[int],
    init_value: float,
    body: ScalarBody,
) -> SSAValue:
    """A generic that reduces `reduced_loops` of the iteration space `loop_shape`.

    The result keeps the other loops in order (reduced dims dropped, not kept as
    size 1); the accumulator starts at `init_value` and `body` receives the
    inputs' block arguments then the accumulator."""
    kept_loops = [k for k in range(len(loop_shape)) if k not in reduced_loops]
    result_type = TensorType(
        element_type_of(inputs[0]), [loop_shape[k] for k in kept_loops]
    )
    return generic(
        rewriter,
        inputs,
        input_maps,
        filled_tensor(rewriter, result_type, init_value),
        projection_map(len(loop_shape), kept_loops),
        [
            IteratorTypeAttr.reduction() if k in reduced_loops else IteratorTypeAttr.parallel()
            for k in range(len(loop_shape))
        ],
        body,
    )
