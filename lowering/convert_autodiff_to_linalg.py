"""`convert-autodiff-to-linalg`: every `autodiff` op to linalg/tensor/arith/math on tensors.

Elementwise ops, broadcasts, transposes, reductions and softmax become
`linalg.generic` (NumPy broadcasting lives in the indexing maps: a broadcast
size-1 dim reads index 0); a 2-d matmul becomes `linalg.matmul` on a
zero-filled init; reshapes and `keepdim` become `tensor.collapse_shape` /
`tensor.expand_shape`. The new ops take the location of the op they replace, so
MLIR's diagnostics after the hand-off still point into the user's file.
Sums over f16/bf16 (sum, mean, sum_to_size, softmax, matmul) accumulate in f32.

Arith ops that already work on whole tensors (`arith.constant dense<...>`, say)
are left as they are: MLIR's `convert-elementwise-to-linalg` turns elementwise
ones into generics at the hand-off. The few standard ops MLIR 22's pipelines
cannot take (`math.clampf`, `math.sincos`, `tensor.gather`, `tensor.scatter`, and `tensor.generate`/`tensor.pad` for the GPU) are rewritten
into ops they can (`standard_ops`).

Entry ops (`grad`, `vjp`, `jvp`) and `grad_of` must be gone before this pass
(autodiff-reverse, autodiff-forward, autodiff-lower-grad-of); finding one is an
error naming the pass that removes it.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import BFloat16Type, Float16Type, FloatAttr, ModuleOp, TensorType, f32
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import MatmulOp as LinalgMatmulOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradir.dialects import autodiff
from gradir.dialects.ad_ops import AccumulateIntoBranches, AccumulateIntoSlice, FoldAutogradAddOfZero
from gradir.dialects.type_checks import dynamic_dims
from gradir.errors import PipelineError, error_at
from gradir.lowering.linalg_builders import (
    ScalarBody,
    converted,
    dynamic_sizes_of,
    element_type_of,
    elementwise,
    empty_tensor,
    filled_tensor,
    generic,
    projection_map,
    reduction,
    scalar_constant,
    shape_of,
)
from gradir.lowering.reshapes import reshape_to
from gradir.lowering.standard_ops import STANDARD_OP_LOWERINGS
from gradir.lowering.scalar_formulas import (
    BINARY_FORMULAS,
    REDUCTIONS,
    UNARY_FORMULAS,
    ScalarFormula,
    max_combiner,
    sum_combiner,
)


def _result_type(op: Operation) -> TensorType:
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    return result_type


def _replace_with(
    rewriter: PatternRewriter, op: Operation, build: Callable[[], SSAValue]
) -> None:
    """Replace `op`'s single result by the value `build` constructs before `op`;
    every op `build` inserts (and their bodies) takes `op`'s location."""
    previous = op.prev_op
    block = op.parent_block()
    assert block is not None
    value = build()
    new_op = previous.next_op if previous is not None else block.first_op
    while new_op is not None and new_op is not op:
        for nested in new_op.walk():
            nested.location = op.location
        new_op = new_op.next_op
    rewriter.replace(op, [], [value])


def _accumulating_in_f32(
    rewriter: PatternRewriter,
    operands: Sequence[SSAValue],
    result_type: TensorType,
    compute: Callable[[Sequence[SSAValue], TensorType], SSAValue],
) -> SSAValue:
    """Half-precision sums accumulate in f32, as PyTorch's do: `compute` runs on f32
    copies of f16/bf16 operands and its result is rounded back once. The `extf`
    generics fuse into generic consumers downstream; `linalg.matmul` reads real
    f32 copies."""
    element_type = result_type.element_type
    if not isinstance(element_type, Float16Type | BFloat16Type):
        return compute(operands, result_type)
    wide_operands = [converted(rewriter, value, f32) for value in operands]
    wide_result = compute(wide_operands, TensorType(f32, result_type.get_shape()))
    return converted(rewriter, wide_result, element_type)


def _lower_elementwise(
    rewriter: PatternRewriter, op: Operation, inputs: Sequence[SSAValue], formula: ScalarFormula
) -> None:
    result_type = _result_type(op)
    element_type = result_type.element_type
    _replace_with(
        rewriter,
        op,
        lambda: elementwise(rewriter, inputs, result_type, lambda a: formula(a, element_type)),
    )


class LowerUnaryElementwise(RewritePattern):
    """`neg exp log sqrt rsqrt sin cos tanh sigmoid relu abs`: one parallel generic."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.UnaryElementwiseOp, rewriter: PatternRewriter):
        _lower_elementwise(rewriter, op, [op.x], UNARY_FORMULAS[type(op)])


class LowerStopGradient(RewritePattern):
    """`stop_gradient`: its operand itself (derivatives were taken before this pass)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.StopGradientOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [op.x])


class LowerBinaryElementwise(RewritePattern):
    """`add sub mul div pow maximum minimum`: a parallel generic with broadcasting maps."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.BinaryElementwiseOp, rewriter: PatternRewriter):
        _lower_elementwise(rewriter, op, [op.x, op.y], BINARY_FORMULAS[type(op)])


class LowerSelect(RewritePattern):
    """`select`: `arith.select` in a generic; the i1 condition broadcasts like the values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.SelectOp, rewriter: PatternRewriter):
        _lower_elementwise(
            rewriter,
            op,
            [op.cond, op.a, op.b],
            lambda a, t: arith.SelectOp(a[0], a[1], a[2]).result,
        )


class LowerAutogradAdd(RewritePattern):
    """`autograd_add` of two materialised gradients: an elementwise add."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.AutogradAddOp, rewriter: PatternRewriter):
        if not isinstance(op.result.type, TensorType):  # a scalar gradient
            rewriter.replace(op, arith.AddfOp(op.a, op.b))
            return
        if dynamic_dims(op.result.type):  # both operands have the result's shape
            sizes = dynamic_sizes_of(rewriter, op.a)
            formula = BINARY_FORMULAS[autodiff.AddOp]
            element = op.result.type.element_type
            _replace_with(rewriter, op, lambda: elementwise(
                rewriter, [op.a, op.b], op.result.type, lambda a: formula(a, element), sizes  # type: ignore[arg-type]
            ))
            return
        _lower_elementwise(rewriter, op, [op.a, op.b], BINARY_FORMULAS[autodiff.AddOp])


class LowerAutogradZero(RewritePattern):
    """`autograd_zero`: dropped when unused, else `tensor.empty` + `linalg.fill` of 0."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.AutogradZeroOp, rewriter: PatternRewriter):
        if not op.result.uses:
            rewriter.erase(op)
            return
        if not isinstance(op.result.type, TensorType):  # a scalar gradient
            rewriter.replace(op, arith.ConstantOp(FloatAttr(0.0, op.result.type)))
            return
        _replace_with(rewriter, op, lambda: filled_tensor(rewriter, _result_type(op), 0.0, op.dynamic_sizes))


class LowerMatmul(RewritePattern):
    """`[M,K]x[K,N]`: `linalg.matmul`. `[B,M,K]x[B,K,N]`: a batch-matmul generic
    (xDSL 0.74 has no `linalg.batch_matmul`; MLIR's `linalg-specialize-generic-ops`
    recognises the generic). Both accumulate into a zero-filled init."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.MatmulOp, rewriter: PatternRewriter):
        rank = _result_type(op).get_num_dims()
        if rank not in (2, 3):
            raise error_at(PipelineError, op, f"cannot lower a rank-{rank} 'autodiff.matmul'")
        _replace_with(
            rewriter,
            op,
            lambda: _accumulating_in_f32(
                rewriter, [op.a, op.b], _result_type(op), lambda v, t: self._product(rewriter, v, t)
            ),
        )

    @staticmethod
    def _product(
        rewriter: PatternRewriter, operands: Sequence[SSAValue], result_type: TensorType
    ) -> SSAValue:
        init = filled_tensor(rewriter, result_type, 0.0)
        if result_type.get_num_dims() == 2:
            return rewriter.insert(LinalgMatmulOp(operands, [init], [result_type])).results[0]
        b, m, n, k = (AffineExpr.dimension(d) for d in range(4))
        return generic(
            rewriter,
            operands,
            [AffineMap(4, 0, (b, m, k)), AffineMap(4, 0, (b, k, n))],
            init,
            AffineMap(4, 0, (b, m, n)),
            [IteratorTypeAttr.parallel()] * 3 + [IteratorTypeAttr.reduction()],
            lambda args: arith.AddfOp(args[2], arith.MulfOp(args[0], args[1])).result,
        )


class LowerTranspose(RewritePattern):
    """`transpose`: a copy generic reading the operand through the inverse permutation
    (a generic rather than `linalg.transpose`, so it fuses with its neighbours)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.TransposeOp, rewriter: PatternRewriter):
        permutation = tuple(op.permutation.get_values())
        rank = len(permutation)
        if permutation == tuple(range(rank)):
            rewriter.replace(op, [], [op.x])
            return
        # Result dim i is operand dim permutation[i], so operand dim j is loop inverse[j].
        inverse = [0] * rank
        for i, p in enumerate(permutation):
            inverse[p] = i
        _replace_with(
            rewriter,
            op,
            lambda: generic(
                rewriter,
                [op.x],
                [projection_map(rank, inverse)],
                empty_tensor(rewriter, _result_type(op)),
                AffineMap.identity(rank),
                [IteratorTypeAttr.parallel()] * rank,
                lambda args: args[0],
            ),
        )


class LowerReshape(RewritePattern):
    """`reshape`: `tensor.collapse_shape` and/or `tensor.expand_shape` (see reshapes.py)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.ReshapeOp, rewriter: PatternRewriter):
        _replace_with(rewriter, op, lambda: reshape_to(rewriter, op.x, _result_type(op)))


class LowerBroadcastTo(RewritePattern):
    """`broadcast_to`: a copy generic whose input map broadcasts."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.BroadcastToOp, rewriter: PatternRewriter):
        if op.x.type == op.result.type:
            rewriter.replace(op, [], [op.x])
            return
        _lower_elementwise(rewriter, op, [op.x], lambda a, t: a[0])


class LowerSumToSize(RewritePattern):
    """`sum_to_size`: sums the dims along which the result broadcasts to `x` (the
    extra leading dims and the size-1 dims), then reinserts the size-1 dims."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.SumToSizeOp, rewriter: PatternRewriter):
        if op.x.type == op.result.type:
            rewriter.replace(op, [], [op.x])
            return
        _replace_with(
            rewriter,
            op,
            lambda: _accumulating_in_f32(
                rewriter, [op.x], _result_type(op), lambda v, t: self._sum(rewriter, v[0], t)
            ),
        )

    @staticmethod
    def _sum(rewriter: PatternRewriter, x: SSAValue, result_type: TensorType) -> SSAValue:
        source, target = shape_of(x), tuple(result_type.get_shape())
        offset = len(source) - len(target)
        reduced_loops = [
            loop
            for loop in range(len(source))
            if loop < offset or (target[loop - offset] == 1 and source[loop] != 1)
        ]
        identity = AffineMap.identity(len(source))
        summed = reduction(rewriter, [x], [identity], source, reduced_loops, 0.0, sum_combiner)
        return reshape_to(rewriter, summed, result_type)


class LowerReduction(RewritePattern):
    """`sum mean max` over `dims`: a reduction generic (init 0 or -inf); `mean`
    then divides by the number of reduced elements; `keepdim` expands the shape."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.ReductionOp, rewriter: PatternRewriter):
        def reduce(operands: Sequence[SSAValue], result_type: TensorType) -> SSAValue:
            return self._reduce(rewriter, type(op), operands[0], op.reduced_dims(), result_type)

        if isinstance(op, autodiff.MaxOp):  # exact in any precision
            _replace_with(rewriter, op, lambda: reduce([op.x], _result_type(op)))
        else:
            _replace_with(
                rewriter, op, lambda: _accumulating_in_f32(rewriter, [op.x], _result_type(op), reduce)
            )

    @staticmethod
    def _reduce(
        rewriter: PatternRewriter,
        op_type: type[Operation],
        x: SSAValue,
        reduced_loops: Sequence[int],
        result_type: TensorType,
    ) -> SSAValue:
        source = shape_of(x)
        init_value, combine = REDUCTIONS[op_type]
        identity = AffineMap.identity(len(source))
        reduced = reduction(rewriter, [x], [identity], source, reduced_loops, init_value, combine)
        if op_type is autodiff.MeanOp:
            count = 1
            for loop in reduced_loops:
                count *= source[loop]
            element_type = element_type_of(x)
            assert isinstance(reduced.type, TensorType)
            reduced = elementwise(
                rewriter,
                [reduced],
                reduced.type,
                lambda a: arith.DivfOp(a[0], scalar_constant(float(count), element_type)).result,
            )
        return reshape_to(rewriter, reduced, result_type)


class LowerSoftmax(RewritePattern):
    """`softmax`/`log_softmax` along `dim`, stably: `m = max(x)`, `s = sum(exp(x - m))`,
    then `exp(x - m) / s` or `(x - m) - log(s)`. The reduced tensors are read
    through maps that drop `dim`, so no full-size intermediate is stored."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: autodiff.SoftmaxFamilyOp, rewriter: PatternRewriter):
        is_log = isinstance(op, autodiff.LogSoftmaxOp)
        _replace_with(
            rewriter,
            op,
            lambda: _accumulating_in_f32(
                rewriter,
                [op.x],
                _result_type(op),
                lambda v, t: self._normalise(rewriter, v[0], op.axis, is_log, t),
            ),
        )

    @staticmethod
    def _normalise(
        rewriter: PatternRewriter, x: SSAValue, axis: int, is_log: bool, result_type: TensorType
    ) -> SSAValue:
        shape = shape_of(x)
        rank = len(shape)
        identity = AffineMap.identity(rank)
        along_axis = projection_map(rank, [d for d in range(rank) if d != axis])

        def shifted_exp(value: SSAValue, maximum: SSAValue) -> SSAValue:
            return math.ExpOp(arith.SubfOp(value, maximum)).result

        maximum = reduction(rewriter, [x], [identity], shape, [axis], float("-inf"), max_combiner)
        total = reduction(
            rewriter,
            [x, maximum],
            [identity, along_axis],
            shape,
            [axis],
            0.0,
            lambda a: arith.AddfOp(a[2], shifted_exp(a[0], a[1])).result,
        )
        body: ScalarBody
        if is_log:
            assert isinstance(total.type, TensorType)
            normaliser = elementwise(
                rewriter, [total], total.type, lambda a: math.LogOp(a[0]).result
            )
            body = lambda a: arith.SubfOp(arith.SubfOp(a[0], a[1]), a[2]).result  # noqa: E731
        else:
            normaliser = total
            body = lambda a: arith.DivfOp(shifted_exp(a[0], a[1]), a[2]).result  # noqa: E731
        return generic(
            rewriter,
            [x, maximum, normaliser],
            [identity, along_axis, along_axis],
            empty_tensor(rewriter, result_type),
            identity,
            [IteratorTypeAttr.parallel()] * rank,
            body,
        )


REMOVED_BY_EARLIER_PASS: dict[type[Operation], str] = {
    autodiff.GradOp: "autodiff-reverse",
    autodiff.VjpOp: "autodiff-reverse",
    autodiff.JvpOp: "autodiff-forward",
    autodiff.GradOfOp: "autodiff-lower-grad-of",
}


def _reject_unlowerable_ops(module: ModuleOp) -> None:
    """Fail on entry ops and `grad_of`, naming the pass that should have removed them."""
    for op in module.walk():
        for op_type, pass_name in REMOVED_BY_EARLIER_PASS.items():
            if isinstance(op, op_type):
                raise error_at(
                    PipelineError,
                    op,
                    f"'{op.name}' must be removed by {pass_name} before "
                    "convert-autodiff-to-linalg",
                )


@dataclass(frozen=True)
class ConvertAutodiffToLinalgPass(ModulePass):
    """Lower every `autodiff` op to linalg/tensor/arith/math on tensors."""

    name = "convert-autodiff-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _reject_unlowerable_ops(op)
        # `autograd_add` with a zero side folds first, and a sum with a gradient
        # that is zero outside one slice becomes a sum on that slice, a sum with a
        # branch's gradient a sum in each branch (the op's canonicalization
        # patterns), so a zero that only fed additions is never materialised.
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [FoldAutogradAddOfZero(), AccumulateIntoSlice(), AccumulateIntoBranches()], dce_enabled=False
            )
        ).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    LowerStopGradient(),  # before the unary ops it derives from: no generic
                    LowerUnaryElementwise(),
                    LowerBinaryElementwise(),
                    LowerSelect(),
                    LowerAutogradAdd(),
                    LowerAutogradZero(),
                    LowerMatmul(),
                    LowerTranspose(),
                    LowerReshape(),
                    LowerBroadcastTo(),
                    LowerSumToSize(),
                    LowerReduction(),
                    LowerSoftmax(),
                    *STANDARD_OP_LOWERINGS,
                ],
                dce_enabled=False,
            ),
            apply_recursively=False,
        ).rewrite_module(op)
        for leftover in op.walk():
            if leftover.dialect_name() == "autodiff":
                raise error_at(
                    PipelineError,
                    leftover,
                    f"'{leftover.name}' has no lowering in convert-autodiff-to-linalg",
                )
