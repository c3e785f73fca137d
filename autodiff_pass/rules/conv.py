"""Derivative rules of convolutions and pooling (built-in Python rules, loaded
by the registry through `RULES`): every op of `dialects.linalg_conv`, and
`linalg.generic`s of the same shape (`window_contraction_vjp`, used by the
generic rule).

All of them are *windowed reductions*, read off their indexing maps
(`windowed_reduction`): an output map and a filter map that are projected
permutations of the loops, and an input map whose results are loops or
windows `s * o + d * k + c` (`o` an output loop, `k` a kernel loop, stride
`s`, dilation `d`). Layout, rank and grouping are only different maps, so one
set of formulas serves all 36 ops.

Reverse mode, with `g` the gradient of the result:

- the output's init gets `g` (it is accumulated into), except for max/min
  pooling, where it gets `g` only where no window element reached the result;
- a convolution's filter gets the correlation of input and `g`: one generic
  over the forward loops, written through the filter map;
- the input gets the *transposed* window: one generic whose loops walk the
  input positions `i` in place of the output positions `o` and read `g` at
  `o = (i - c - d * k) / s` from a copy of `g` spread out by the stride and
  padded by the window (`_spread`; zeros where `i - c - d * k` is not a
  multiple of `s` or falls outside): for a convolution this is the
  convolution of the padded, dilated `g` with the filter, for sum pooling the
  sum of `g` over the windows that read `i`;
- pooling whose windows do not overlap (stride at least the window, the
  common 2x2 of stride 2) reads `g` at `i floordiv stride` instead, in one
  generic over the input positions (`disjoint_input_gradient`);
- max/min pooling routes `g` to one element per window, as PyTorch's
  `max_pool*d` does: the first element in window order (row-major over the
  window dimensions) that equals the result. `_selected_positions` computes
  that position per output element (an i32 tensor; the window size when the
  init alone reached the result), and the transposed-window generic reads it
  beside `g`.

Forward mode: a convolution is bilinear, so its tangent is the same op
applied twice, `conv(x, dw, conv(dx, w, d_init))`; sum pooling is linear
(`pool(dx, window, d_init)`); max/min pooling selects the tangent of the
element the reverse rule routes to (or the init's tangent).

Dynamic shapes (`tensor<?x?x?x?xf32>`): what the adjoints build (the spread
gradient, zeros, slices) takes its sizes from `tensor.dim` of the op's own
values, so the rules take them (`dynamic_shapes`). A kernel of run-time size
read with a dilation > 0 would put its reach `low` in the read map; the
transposed generic walks it backwards over a reversed filter instead
(`Window.flipped`). Pooling windows must be of static size (`_of_named_op`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.ir_building import empty_of, zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.autodiff_pass.rules.loop_cache import add, mul
from gradir.dialects.linalg_conv import CONV, MAX, MIN, SUM, WINDOW_OPS, WindowOperation
from gradir.errors import DifferentiationError, error_at
from gradir.lowering.linalg_builders import converted
from gradir.lowering.standard_ops import extent, extents, index_constant, insert_at

SELECTED = IntegerType(32)
"""Element type of the per-output selected window position (max/min pooling)."""

# ----------------------------------------------------------------------------
# Reading a windowed reduction off its maps
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Window:
    """One input dimension read through a window: `stride * out + dilation * kernel + offset`."""

    axis: int
    """Its position among the input map's results."""
    out_loop: int
    kernel_loop: int | None
    stride: int
    dilation: int
    offset: int
    input_size: int
    kernel_size: int

    @property
    def low(self) -> int:
        """Zeros before the spread gradient (the window's reach behind a position);
        of a `flipped` window, known only at run time."""
        return self.dilation * (self.kernel_size - 1) if self.dilation > 0 else 0

    @property
    def flipped(self) -> bool:
        """A window reaching back (dilation > 0) over a kernel of run-time size: `low`
        would be in the read map, so the transposed generic walks the kernel backwards
        (`k' = K - 1 - k`, reading `i + d * k'`) and reads a reversed filter (`_flipped`)."""
        return self.kernel_loop is not None and self.dilation > 0 and self.kernel_size == DYNAMIC_INDEX

    def spread_read(self) -> AffineExpr:
        """Where the transposed generic reads the spread gradient: `i + low - d * k`
        (`i + d * k'` when `flipped`)."""
        if self.flipped:
            return AffineDimExpr(self.out_loop) + AffineDimExpr(self.kernel_loop) * self.dilation  # type: ignore[arg-type]
        read = AffineDimExpr(self.out_loop) + self.low
        if self.kernel_loop is not None:
            read = read + AffineDimExpr(self.kernel_loop) * (-self.dilation)
        return read


@dataclass(frozen=True)
class WindowedReduction:
    """`out[C] = combine(out[C], in[A] (* filter[B]))` over loops of `extents`."""

    kind: str
    extents: tuple[int, ...]
    input_map: AffineMap
    filter_map: AffineMap
    output_map: AffineMap
    windows: tuple[Window, ...]

    @property
    def loops(self) -> int:
        return len(self.extents)

    @property
    def kernel_loops(self) -> list[int]:
        """The filter map's loops that are window kernels, in the filter map's order."""
        kernels = {w.kernel_loop for w in self.windows}
        return [e.position for e in self.filter_map.results if e.position in kernels]  # type: ignore[attr-defined]


def _linear(expr: AffineExpr) -> tuple[dict[int, int], int] | None:
    """`expr` as (loop -> coefficient, constant), when it is linear."""
    if isinstance(expr, AffineDimExpr):
        return {expr.position: 1}, 0
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    lhs, rhs = _linear(expr.lhs), _linear(expr.rhs)
    if lhs is None or rhs is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        terms = dict(lhs[0])
        for loop, coefficient in rhs[0].items():
            terms[loop] = terms.get(loop, 0) + coefficient
        return {k: v for k, v in terms.items() if v}, lhs[1] + rhs[1]
    if expr.kind == AffineBinaryOpKind.Mul:
        (terms, constant), factor = (lhs, rhs[1]) if not rhs[0] else (rhs, lhs[1])
        if (lhs[0] and rhs[0]) or factor == 0:
            return None
        return {k: v * factor for k, v in terms.items()}, constant * factor
    return None


def _plain_loops(map_: AffineMap) -> list[int] | None:
    loops = [e.position for e in map_.results if isinstance(e, AffineDimExpr)]
    if len(loops) != len(map_.results) or len(set(loops)) != len(loops):
        return None
    return loops


def windowed_reduction(
    kind: str, maps: Sequence[AffineMap], shapes: Sequence[Sequence[int]]
) -> WindowedReduction | None:
    """The windowed reduction that `maps` (input, filter, output) over operands
    of `shapes` describe, or None when they do not have that form."""
    input_map, filter_map, output_map = maps
    output_loops, filter_loops = _plain_loops(output_map), _plain_loops(filter_map)
    if output_loops is None or filter_loops is None:
        return None
    extents: dict[int, int] = {}  # DYNAMIC_INDEX where no operand gives a loop a static size
    for map_, shape in zip(maps, shapes):
        for expr, size in zip(map_.results, shape):
            if isinstance(expr, AffineDimExpr) and extents.get(expr.position, DYNAMIC_INDEX) == DYNAMIC_INDEX:
                extents[expr.position] = size
    if len(extents) != input_map.num_dims:
        return None
    raw: list[tuple[int, int, int | None, int, int, int]] = []  # axis, o, k, s, d, c
    seen: list[int] = []
    for axis, expr in enumerate(input_map.results):
        if isinstance(expr, AffineDimExpr):
            seen.append(expr.position)
            continue
        linear = _linear(expr)
        if linear is None:
            return None
        terms, offset = linear
        outs = [loop for loop in terms if loop in output_loops]
        kernels = [loop for loop in terms if loop not in output_loops]
        if len(outs) != 1 or len(kernels) > 1 or terms[outs[0]] < 1:
            return None
        kernel = kernels[0] if kernels else None
        if outs[0] in filter_loops:
            return None  # the filter would change along the window
        raw.append((axis, outs[0], kernel, terms[outs[0]], terms.get(kernel, 0) if kernel is not None else 0, offset))
        seen += [outs[0]] + ([kernel] if kernel is not None else [])
    if len(seen) != len(set(seen)) or not raw:
        return None
    windows = tuple(
        Window(axis, o, k, s, d, c, shapes[0][axis], 1 if k is None else extents[k]) for axis, o, k, s, d, c in raw
    )
    return WindowedReduction(kind, tuple(extents[d] for d in range(input_map.num_dims)), input_map, filter_map, output_map, windows)


def _of_named_op(op: WindowOperation) -> WindowedReduction:
    maps = [m.data for m in op.get_indexing_maps().data]
    shapes = [o.type.get_shape() for o in op.operands]  # type: ignore[attr-defined]
    element_types = {o.type.get_element_type() for o in op.operands}  # type: ignore[attr-defined]
    if len(element_types) != 1 or not all(isinstance(o.type, TensorType) for o in op.operands):
        raise error_at(DifferentiationError, op, f"differentiation of '{op.name}' needs tensors of one element type")
    reduction = windowed_reduction(op.SPEC.kind, maps, shapes)
    assert reduction is not None, f"{op.name}: the table's maps are windows"
    if reduction.kind != CONV and any(reduction.extents[loop] == DYNAMIC_INDEX for loop in reduction.kernel_loops):
        # The window size is in the routing (`_kernel_position`) and the choice of adjoint (`_disjoint`).
        raise error_at(DifferentiationError, op, f"differentiation of '{op.name}' needs a window of static size")
    return reduction


# ----------------------------------------------------------------------------
# Building generics
# ----------------------------------------------------------------------------

BodyBuilder = Callable[[Builder, Sequence[SSAValue]], SSAValue]
"""`body(builder, block_arguments) -> the value to yield`."""

Size = int | SSAValue
"""A length: a number, or an `index` value (a `tensor.dim`) where it is known only at run time."""


def _static(sizes: Sequence[Size]) -> list[int]:
    """The shape of a tensor of `sizes`: the dynamic marker for a run-time size."""
    return [size if isinstance(size, int) else DYNAMIC_INDEX for size in sizes]


def _linear_size(builder: Builder, size: Size, factor: int, constant: int) -> Size:
    """`size * factor + constant`, a number when `size` is one."""
    return add(builder, mul(builder, size, factor), constant)


def _min_size(builder: Builder, a: Size, b: Size) -> Size:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    as_value = [index_constant(builder, x) if isinstance(x, int) else x for x in (a, b)]
    return builder.insert(arith.MinSIOp(*as_value)).result


def _filled(builder: Builder, element: Attribute, sizes: Sequence[Size], value: float | int) -> SSAValue:
    """A tensor of `sizes` (numbers, or `index` values for its dynamic dimensions) holding `value`."""
    if isinstance(element, IntegerType):
        scalar = builder.insert(arith.ConstantOp(IntegerAttr(int(value), element))).result
    else:
        scalar = builder.insert(arith.ConstantOp(FloatAttr(float(value), element))).result  # type: ignore[arg-type]
    type_ = TensorType(element, _static(sizes))
    empty = empty_of(builder, type_, sizes)
    return builder.insert(linalg.FillOp((scalar,), (empty,), (type_,))).results[0]


def _generic(
    builder: Builder,
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    init: SSAValue,
    output_map: AffineMap,
    body: BodyBuilder,
) -> SSAValue:
    """One generic over the maps' loops writing `init` through `output_map`
    (loops it omits are reductions)."""
    assert isinstance(init.type, TensorType)
    parallel = {e.position for e in output_map.results if isinstance(e, AffineDimExpr)}
    element_types = [value.type.get_element_type() for value, _ in inputs]  # type: ignore[attr-defined]
    block = Block(arg_types=[*element_types, init.type.get_element_type()])
    at = Builder(InsertPoint.at_end(block))
    block.add_op(linalg.YieldOp(body(at, list(block.args))))
    iterators = [
        IteratorTypeAttr.parallel() if d in parallel else IteratorTypeAttr.reduction() for d in range(output_map.num_dims)
    ]
    generic = linalg.GenericOp(
        [value for value, _ in inputs],
        [init],
        Region(block),
        [AffineMapAttr(m) for _, m in inputs] + [AffineMapAttr(output_map)],
        iterators,
        [init.type],
    )
    return builder.insert(generic).results[0]


def _with_results(map_: AffineMap, results: Sequence[AffineExpr]) -> AffineMap:
    return AffineMap(map_.num_dims, 0, tuple(results))


def _window_shape(builder: Builder, reduction: WindowedReduction, element: Attribute) -> SSAValue:
    """An empty tensor shaped like the filter map: it gives the kernel loops their
    extents (static: pooling only, `_of_named_op`)."""
    shape = [reduction.extents[e.position] for e in reduction.filter_map.results]  # type: ignore[attr-defined]
    assert DYNAMIC_INDEX not in shape, "a pooling window of static size"
    return builder.insert(tensor.EmptyOp([], TensorType(element, shape))).tensor


def _kernel_position(at: Builder, reduction: WindowedReduction) -> SSAValue:
    """The row-major position of the current window element (i32), over the
    kernel loops in the filter map's order."""
    position: SSAValue | None = None
    for loop in reduction.kernel_loops:
        index = at.insert(linalg.IndexOp(loop)).result
        value = at.insert(arith.IndexCastOp(index, SELECTED)).result
        if position is not None:
            size = at.insert(arith.ConstantOp(IntegerAttr(reduction.extents[loop], SELECTED))).result
            scaled = at.insert(arith.MuliOp(position, size)).result
            value = at.insert(arith.AddiOp(scaled, value)).result
        position = value
    if position is None:
        position = at.insert(arith.ConstantOp(IntegerAttr(0, SELECTED))).result
    return position


def _window_size(reduction: WindowedReduction) -> int:
    return prod(reduction.extents[loop] for loop in reduction.kernel_loops)


# ----------------------------------------------------------------------------
# The adjoints
# ----------------------------------------------------------------------------


def _kernel_size(builder: Builder, reduction: WindowedReduction, window: Window, weight: SSAValue | None) -> Size:
    """The window's kernel extent: a number, or the filter's `tensor.dim` along its kernel loop."""
    if window.kernel_loop is None:
        return 1
    if window.kernel_size != DYNAMIC_INDEX:
        return window.kernel_size
    assert weight is not None, "a pooling window of static size (`_of_named_op`)"
    return extent(builder, weight, [e.position for e in reduction.filter_map.results].index(window.kernel_loop))  # type: ignore[attr-defined]


def _spread(
    builder: Builder, reduction: WindowedReduction, value: SSAValue, input_: SSAValue, weight: SSAValue | None
) -> tuple[SSAValue, AffineMap]:
    """`value` (indexed like the output) placed at `low + offset + stride * o`
    along each window's output dimension of a zero tensor of the window's
    spread size (the input's, plus the window's reach `|d| * (K - 1)`: run-time
    sizes of `input_` and `weight` where they are dynamic); and the map that
    reads it from the transposed generic."""
    assert isinstance(value.type, TensorType)
    by_out = {w.out_loop: w for w in reduction.windows}
    reads = [by_out[e.position].spread_read() if e.position in by_out else e for e in reduction.output_map.results]  # type: ignore[attr-defined]
    read_map = _with_results(reduction.output_map, reads)
    shape = value.type.get_shape()
    unchanged = all(
        w.kernel_size != DYNAMIC_INDEX and w.input_size != DYNAMIC_INDEX and w.offset + w.low == 0 and w.stride == 1
        and w.input_size + abs(w.dilation) * ((w.kernel_size if w.kernel_loop is not None else 1) - 1) == shape[axis]
        for axis, w in ((i, by_out[e.position]) for i, e in enumerate(reduction.output_map.results) if e.position in by_out)  # type: ignore[attr-defined]
    )  # fmt: skip
    if unchanged:
        return value, read_map
    sizes, offsets, strides = [], [], []
    for expr, size in zip(reduction.output_map.results, extents(builder, value)):
        window = by_out.get(expr.position)  # type: ignore[attr-defined]
        if window is None:
            sizes.append(size), offsets.append(0), strides.append(1)
            continue
        kernel = _kernel_size(builder, reduction, window, weight)
        reach = _linear_size(builder, kernel, abs(window.dilation), -abs(window.dilation))
        low = _linear_size(builder, kernel, window.dilation, -window.dilation) if window.dilation > 0 else 0
        sizes.append(add(builder, extent(builder, input_, window.axis), reach))
        offsets.append(_linear_size(builder, low, 1, window.offset))
        strides.append(window.stride)
    zeros = _filled(builder, value.type.get_element_type(), sizes, 0)
    return insert_at(builder, value, zeros, offsets, strides), read_map


def _flipped(builder: Builder, reduction: WindowedReduction, weight: SSAValue) -> SSAValue:
    """`weight` reversed along the kernel loops of the `flipped` windows (itself where
    there are none): what the transposed generic's `k' = K - 1 - k` reads."""
    positions = [e.position for e in reduction.filter_map.results]  # type: ignore[attr-defined]
    axes = [positions.index(w.kernel_loop) for w in reduction.windows if w.flipped]
    if not axes:
        return weight
    assert isinstance(weight.type, TensorType)
    sizes = extents(builder, weight)
    last = {axis: _linear_size(builder, sizes[axis], 1, -1) for axis in axes}

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        indices = []
        for axis in range(len(sizes)):
            index = at.insert(linalg.IndexOp(axis)).result
            if axis in last:
                index = at.insert(arith.SubiOp(last[axis], index)).result  # type: ignore[arg-type]
            indices.append(index)
        return at.insert(tensor.ExtractOp(weight, indices, weight.type.get_element_type())).result  # type: ignore[attr-defined]

    empty = empty_of(builder, weight.type, sizes)
    return _generic(builder, [], empty, AffineMap.identity(len(sizes)), body)


def _input_map_over_positions(reduction: WindowedReduction) -> AffineMap:
    """The input's map in the transposed generic: each window is its output loop
    (which walks the input positions there)."""
    by_axis = {w.axis: w for w in reduction.windows}
    results = [
        AffineDimExpr(by_axis[axis].out_loop) if axis in by_axis else expr
        for axis, expr in enumerate(reduction.input_map.results)
    ]
    return _with_results(reduction.input_map, results)


def input_gradient(
    builder: Builder,
    reduction: WindowedReduction,
    grad: SSAValue,
    input_: SSAValue,
    weight: SSAValue | None = None,
    selected: SSAValue | None = None,
) -> SSAValue:
    """The transposed window: for each input position, the sum over the
    windows that read it of `grad` (times the filter element that multiplied
    it, for a convolution; where the element is the selected one, for
    max/min pooling)."""
    input_type = input_.type
    assert isinstance(input_type, TensorType)
    spread, read_map = _spread(builder, reduction, grad, input_, weight)
    inputs: list[tuple[SSAValue, AffineMap]] = [(spread, read_map)]
    if weight is not None:
        inputs.append((_flipped(builder, reduction, weight), reduction.filter_map))
    else:
        inputs.append((_window_shape(builder, reduction, input_type.get_element_type()), reduction.filter_map))
    if selected is not None:
        spread_selection, _ = _spread(builder, reduction, selected, input_, weight)
        inputs.append((spread_selection, read_map))

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        contribution = args[0]
        if weight is not None:
            contribution = at.insert(arith.MulfOp(contribution, args[1])).result
        if selected is not None:
            here = at.insert(arith.CmpiOp(_kernel_position(at, reduction), args[2], "eq")).result
            zero = at.insert(arith.ConstantOp(FloatAttr(0.0, contribution.type))).result  # type: ignore[arg-type]
            contribution = at.insert(arith.SelectOp(here, contribution, zero)).result
        return at.insert(arith.AddfOp(args[-1], contribution)).result

    zeros = _filled(builder, input_type.get_element_type(), extents(builder, input_), 0)
    return _generic(builder, inputs, zeros, _input_map_over_positions(reduction), body)


def _disjoint(reduction: WindowedReduction) -> bool:
    """Each input element is read by at most one window: windows with a kernel loop,
    dilation 1, no offset, and a stride at least the window's size."""
    return all(
        w.kernel_loop is not None and w.dilation == 1 and w.offset == 0 and w.stride >= w.kernel_size
        for w in reduction.windows
    )


def disjoint_input_gradient(
    builder: Builder, reduction: WindowedReduction, grad: SSAValue, input_: SSAValue, selected: SSAValue | None
) -> SSAValue | None:
    """The input gradient of a pooling whose windows do not overlap (`_disjoint`), or
    None where the output's loops are not all the input's: one generic over the
    input positions, reading `grad` (and `selected`) at `i floordiv stride` and
    keeping it where `i mod stride` is the position in the window that gets it
    (inside the window, and the selected one for max/min pooling). No spread
    gradient, no loop over the window: 2x2 max pooling of stride 2 did four
    window steps per input element, three of them reading spread zeros."""
    by_axis = {w.axis: w for w in reduction.windows}
    plain_axis = {e.position: axis for axis, e in enumerate(reduction.input_map.results) if isinstance(e, AffineDimExpr)}
    by_out = {w.out_loop: w for w in reduction.windows}
    rank = len(reduction.input_map.results)
    reads: list[AffineExpr] = []
    for expr in reduction.output_map.results:
        loop = expr.position  # type: ignore[attr-defined]
        if loop in by_out:
            reads.append(AffineDimExpr(by_out[loop].axis) // by_out[loop].stride)
        elif loop in plain_axis:
            reads.append(AffineDimExpr(plain_axis[loop]))
        else:
            return None
    input_type = input_.type
    assert isinstance(input_type, TensorType)
    shape = extents(builder, input_)
    out_axis = {e.position: axis for axis, e in enumerate(reduction.output_map.results)}  # type: ignore[attr-defined]
    covered: list[Size] = [
        _min_size(builder, size, _linear_size(builder, extent(builder, grad, out_axis[by_axis[axis].out_loop]), by_axis[axis].stride, 0))
        if axis in by_axis else size
        for axis, size in enumerate(shape)
    ]  # fmt: skip
    read_map = AffineMap(rank, 0, tuple(reads))
    identity = AffineMap.identity(rank)
    inputs: list[tuple[SSAValue, AffineMap]] = [(grad, read_map)]
    if selected is not None:
        inputs.append((selected, read_map))
    kernel_axes = [next(w.axis for w in reduction.windows if w.kernel_loop == loop) for loop in reduction.kernel_loops]

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        keep: SSAValue | None = None
        position: SSAValue | None = None
        for axis in kernel_axes:
            window = by_axis[axis]
            index = at.insert(linalg.IndexOp(axis)).result
            stride = at.insert(arith.ConstantOp(IntegerAttr.from_index_int_value(window.stride))).result
            offset = at.insert(arith.RemUIOp(index, stride)).result
            if window.stride > window.kernel_size:
                size = at.insert(arith.ConstantOp(IntegerAttr.from_index_int_value(window.kernel_size))).result
                inside = at.insert(arith.CmpiOp(offset, size, "ult")).result
                keep = inside if keep is None else at.insert(arith.AndIOp(keep, inside)).result
            value = at.insert(arith.IndexCastOp(offset, SELECTED)).result
            if position is not None:
                size = at.insert(arith.ConstantOp(IntegerAttr(window.kernel_size, SELECTED))).result
                value = at.insert(arith.AddiOp(at.insert(arith.MuliOp(position, size)).result, value)).result
            position = value
        if selected is not None:
            assert position is not None
            here = at.insert(arith.CmpiOp(position, args[1], "eq")).result
            keep = here if keep is None else at.insert(arith.AndIOp(keep, here)).result
        if keep is None:
            return args[0]
        zero = at.insert(arith.ConstantOp(FloatAttr(0.0, args[0].type))).result  # type: ignore[arg-type]
        return at.insert(arith.SelectOp(keep, args[0], zero)).result

    empty = empty_of(builder, TensorType(input_type.get_element_type(), _static(covered)), covered)
    gradient = _generic(builder, inputs, empty, identity, body)
    if all(c is s or (isinstance(c, int) and c == s) for c, s in zip(covered, shape)):
        return gradient
    zeros = _filled(builder, input_type.get_element_type(), shape, 0)
    return insert_at(builder, gradient, zeros, [0] * rank, [1] * rank)


def filter_gradient(
    builder: Builder, reduction: WindowedReduction, grad: SSAValue, input_: SSAValue, weight: SSAValue
) -> SSAValue:
    """The correlation of the input with `grad`, written through the filter map."""

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        product = at.insert(arith.MulfOp(args[0], args[1])).result
        return at.insert(arith.AddfOp(args[2], product)).result

    zeros = _filled(builder, weight.type.get_element_type(), extents(builder, weight), 0)  # type: ignore[attr-defined]
    inputs = [(input_, reduction.input_map), (grad, reduction.output_map)]
    return _generic(builder, inputs, zeros, reduction.filter_map, body)


UNROLLED_WINDOW = 16
"""Windows of at most this many elements are read element by element (`_selected_unrolled`)."""


def _selected_unrolled(builder: Builder, reduction: WindowedReduction, input_: SSAValue, result: SSAValue) -> SSAValue | None:
    """`selected_positions` as one generic over the output, reading each window element
    as an operand of its own (the input map with the kernel loops made constants),
    the last match checked first so that the first one wins; None when the op has
    loops besides the output's and the window's, a larger window, a stride of 1,
    or windows that do not overlap. A loop over a
    2x2 window is too short for the CPU to vectorise; reads at `2 * ow + 1` are not."""
    assert isinstance(result.type, TensorType)
    outputs = [e.position for e in reduction.output_map.results]  # type: ignore[attr-defined]
    kernels = reduction.kernel_loops
    size = _window_size(reduction)
    if set(outputs) | set(kernels) != set(range(reduction.loops)) or size > UNROLLED_WINDOW:
        return None
    if any(w.stride < 2 for w in reduction.windows):
        return None  # the first element's map would be the output loop itself, over a larger input
    if _disjoint(reduction):
        # Elementwise, it would be fused into `disjoint_input_gradient`, which reads it at
        # `i floordiv stride`: recomputed for every element of the window (LeNet: 0.41 -> 0.62 ms).
        return None
    taps: list[AffineMap] = []
    for flat in range(size):
        position, replacements = flat, {}
        for loop in reversed(kernels):
            replacements[loop] = AffineConstantExpr(position % reduction.extents[loop])
            position //= reduction.extents[loop]
        dims = [replacements.get(loop, AffineDimExpr(outputs.index(loop)) if loop in outputs else None)
                for loop in range(reduction.loops)]  # fmt: skip
        taps.append(reduction.input_map.replace_dims_and_symbols(dims, [], len(outputs), 0))  # type: ignore[arg-type]
    identity = AffineMap.identity(len(outputs))

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        reached = args[size]
        chosen = at.insert(arith.ConstantOp(IntegerAttr(size, SELECTED))).result
        for tap in reversed(range(size)):
            equal = at.insert(arith.CmpfOp(args[tap], reached, "oeq")).result
            here = at.insert(arith.ConstantOp(IntegerAttr(tap, SELECTED))).result
            chosen = at.insert(arith.SelectOp(equal, here, chosen)).result
        return chosen

    empty = empty_of(builder, TensorType(SELECTED, result.type.get_shape()), extents(builder, result))
    inputs = [(input_, tap) for tap in taps] + [(result, identity)]
    return _generic(builder, inputs, empty, identity, body)


def selected_positions(builder: Builder, reduction: WindowedReduction, input_: SSAValue, result: SSAValue) -> SSAValue:
    """Per output element, the window position that max/min pooling routes to:
    the first (row-major over the window) whose element equals the result, as
    PyTorch's max_pool*d picks its index; the window size when none does (the
    init alone was the max/min)."""
    assert isinstance(result.type, TensorType)
    unrolled = _selected_unrolled(builder, reduction, input_, result)
    if unrolled is not None:
        return unrolled
    size = _window_size(reduction)
    window = _window_shape(builder, reduction, result.type.get_element_type())

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        element, reached, _, first = args
        here = _kernel_position(at, reduction)
        equal = at.insert(arith.CmpfOp(element, reached, "oeq")).result
        none = at.insert(arith.ConstantOp(IntegerAttr(size, SELECTED))).result
        candidate = at.insert(arith.SelectOp(equal, here, none)).result
        return at.insert(arith.MinSIOp(first, candidate)).result

    init = _filled(builder, SELECTED, extents(builder, result), size)
    inputs = [(input_, reduction.input_map), (result, reduction.output_map), (window, reduction.filter_map)]
    return _generic(builder, inputs, init, reduction.output_map, body)


def _where_init_selected(
    builder: Builder, reduction: WindowedReduction, selected: SSAValue, value: SSAValue
) -> SSAValue:
    """`value` where the init was the max/min (`selected` is the window size), else 0."""
    size = _window_size(reduction)
    identity = AffineMap.identity(len(reduction.output_map.results))

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        position, amount, _ = args
        none = at.insert(arith.ConstantOp(IntegerAttr(size, SELECTED))).result
        is_init = at.insert(arith.CmpiOp(position, none, "eq")).result
        zero = at.insert(arith.ConstantOp(FloatAttr(0.0, amount.type))).result  # type: ignore[arg-type]
        return at.insert(arith.SelectOp(is_init, amount, zero)).result

    empty = empty_of(builder, value.type, extents(builder, value))  # type: ignore[arg-type]
    return _generic(builder, [(selected, identity), (value, identity)], empty, identity, body)


# ----------------------------------------------------------------------------
# The rules of the named ops
# ----------------------------------------------------------------------------


def window_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]) -> list[SSAValue | None]:
    assert isinstance(op, WindowOperation)
    reduction = _of_named_op(op)
    x, w, init = op.operands
    (g,) = grads
    if reduction.kind == CONV:
        return [input_gradient(builder, reduction, g, x, weight=w), filter_gradient(builder, reduction, g, x, w), g]
    selected = None if reduction.kind == SUM else selected_positions(builder, reduction, x, op.results[0])
    gradient = disjoint_input_gradient(builder, reduction, g, x, selected) if _disjoint(reduction) else None
    if gradient is None:
        gradient = input_gradient(builder, reduction, g, x, selected=selected)
    if selected is None:
        return [gradient, None, g]
    return [gradient, None, _where_init_selected(builder, reduction, selected, g)]


def _same_op(builder: Builder, op: WindowOperation, x: SSAValue, w: SSAValue, init: SSAValue) -> SSAValue:
    """`op` applied to other operands (same strides and dilations)."""
    same = type(op).build(
        operands=[[x, w], [init]],
        result_types=[[init.type]],
        properties={k: v for k, v in op.properties.items() if k in ("strides", "dilations")},
        regions=[type(op).get_hidden_region([x, w], [init])],
    )
    return builder.insert(same).results[0]


def window_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]) -> list[SSAValue | None]:
    assert isinstance(op, WindowOperation)
    x, w, init = op.operands
    x_t, w_t, init_t = tangents
    kind = op.SPEC.kind
    if kind in (CONV, SUM):
        total = init_t if init_t is not None else zero_constant(builder, init)
        if x_t is not None:
            total = _same_op(builder, op, x_t, w, total)
        if kind == CONV and w_t is not None:
            total = _same_op(builder, op, x, w_t, total)
        return [total]
    reduction = _of_named_op(op)
    selected = selected_positions(builder, reduction, x, op.results[0])
    start = zero_constant(builder, init)
    if init_t is not None:
        start = _where_init_selected(builder, reduction, selected, init_t)
    if x_t is None:
        return [start]
    window = _window_shape(builder, reduction, init.type.get_element_type())  # type: ignore[attr-defined]

    def body(at: Builder, args: Sequence[SSAValue]) -> SSAValue:
        tangent, position, _, total = args
        here = at.insert(arith.CmpiOp(_kernel_position(at, reduction), position, "eq")).result
        zero = at.insert(arith.ConstantOp(FloatAttr(0.0, tangent.type))).result  # type: ignore[arg-type]
        picked = at.insert(arith.SelectOp(here, tangent, zero)).result
        return at.insert(arith.AddfOp(total, picked)).result

    inputs = [(x_t, reduction.input_map), (selected, reduction.output_map), (window, reduction.filter_map)]
    return [_generic(builder, inputs, start, reduction.output_map, body)]


def _rule(op_type: type[WindowOperation]) -> DerivativeRule:
    kind = op_type.SPEC.kind
    if kind == CONV:
        differentiable, saved_inputs, saved_outputs = (0, 1, 2), {0, 1}, set()
    elif kind == SUM:
        differentiable, saved_inputs, saved_outputs = (0, 2), set(), set()
    else:
        differentiable, saved_inputs, saved_outputs = (0, 2), {0}, {0}
    return DerivativeRule(op_type.name, differentiable_inputs=differentiable, saved_inputs=frozenset(saved_inputs),
                          saved_outputs=frozenset(saved_outputs), reverse=window_vjp, forward=window_jvp,
                          dynamic_shapes=True)  # fmt: skip


# ----------------------------------------------------------------------------
# Convolution-shaped linalg.generic
# ----------------------------------------------------------------------------


def _multiply_accumulate_operands(op: linalg.GenericOp) -> tuple[int, int] | None:
    """For a body `yield acc + a * b` (either order) over two inputs: the
    input indices (a, b); else None. Either input may first be widened to the
    accumulator's type by `arith.extf` (a bf16 convolution accumulating in f32)."""
    block = op.body.block
    body = list(block.ops)
    if len(op.inputs) != 2 or len(op.outputs) != 1 or not 3 <= len(body) <= 5:
        return None
    *widened, multiply, add, terminator = body
    if not (isinstance(multiply, arith.MulfOp) and isinstance(add, arith.AddfOp) and isinstance(terminator, linalg.YieldOp)):
        return None
    if list(terminator.operands) != [add.result] or set(add.operands) != {multiply.result, block.args[2]}:
        return None
    read = {}
    for extend in widened:
        if not isinstance(extend, arith.ExtFOp) or extend.input not in block.args[:2] or extend.result.type != block.args[2].type:
            return None
        read[extend.result] = extend.input
    inputs = list(block.args[:2])
    factors = [read.get(v, v) for v in multiply.operands]
    if sorted(inputs.index(v) for v in factors if v in inputs) != [0, 1]:
        return None
    if any(v.type != block.args[2].type for v in multiply.operands):
        return None
    return 0, 1


def window_contraction_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]) -> list[SSAValue | None] | None:
    """The gradients of a generic `out += a * b` in which one input is read
    through windows (a convolution written as a generic), by the convolution
    adjoints; None when the generic does not have that form. Inputs widened in the
    body (`arith.extf`, IREE's bf16 convolutions) are widened first, and their
    gradients rounded back (`arith.truncf`: the adjoint of `extf`), so that a bf16
    program and its f64 promotion (`gradcheck`) take this same path."""
    if not isinstance(op, linalg.GenericOp) or _multiply_accumulate_operands(op) is None:
        return None
    types = [o.type for o in op.operands]
    if not all(isinstance(t, TensorType) for t in types):
        return None
    accumulated = types[2].get_element_type()  # type: ignore[attr-defined]
    inputs = list(op.inputs)
    if any(t.get_element_type() != accumulated for t in types[:2]):  # type: ignore[attr-defined]
        if not all(t.has_static_shape() for t in types[:2]):  # type: ignore[attr-defined]
            return None
        inputs = [converted(builder, value, accumulated) for value in inputs]
    maps = [m.data for m in op.indexing_maps.data]
    shapes = [t.get_shape() for t in types]  # type: ignore[attr-defined]
    for windowed in (0, 1):
        other = 1 - windowed
        reduction = windowed_reduction(CONV, [maps[windowed], maps[other], maps[2]], [shapes[windowed], shapes[other], shapes[2]])
        if reduction is None:
            continue
        (g,) = grads
        x, w = inputs[windowed], inputs[other]
        gradients: list[SSAValue | None] = [None, None, g]
        gradients[windowed] = input_gradient(builder, reduction, g, x, weight=w)
        gradients[other] = filter_gradient(builder, reduction, g, x, w)
        for k in (0, 1):
            gradients[k] = converted(builder, gradients[k], types[k].get_element_type())  # type: ignore[arg-type, attr-defined]
        return gradients
    return None


RULES = tuple(_rule(op_type) for op_type in WINDOW_OPS)
