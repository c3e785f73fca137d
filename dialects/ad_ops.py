"""The ops reverse mode produces, after PyTorch's symbolic autodiff.

`grad_of` wraps the backward of one forward op in a region (linear in its
operands), `autograd_add` sums gradients that meet, `autograd_zero` stands for
a missing gradient until `autodiff-specialize-zero` folds it away. The fold of
`autograd_add` with a zero side is the op's canonicalization pattern
(`FoldAutogradAddOfZero`), used by every pass that folds zeros; so is the
rewrite of a sum with a gradient that is zero outside one slice or element into
a sum on that slice alone (`AccumulateIntoSlice`), and of a sum with a branch's
gradient into sums inside the branches (`AccumulateIntoBranches`), where the
first rewrite can then see the slice.
"""
from __future__ import annotations

import re

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import AnyFloat, DenseIntOrFPElementsAttr, IndexType, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.type_checks import (
    FLOAT_ELEMENT_TYPES,
    dynamic_dims,
    expect_float_tensor,
    format_types,
    is_differentiable_tensor,
)


_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z0-9_$-]+)+")
"""What `grad_of` may name: an op name as MLIR spells one (`autodiff.mul`, `linalg.generic`)."""


@irdl_op_definition
class GradOfOp(IRDLOperation):
    """The backward of one forward op, named by `name`:

        %ga, %gb = autodiff.grad_of "autodiff.mul" (%g) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
        ^bb0(%dz: tensor<4xf32>):
          ...
          autodiff.yield %da, %db : tensor<4xf32>, tensor<4xf32>
        }

    Operands are the gradients flowing into the forward op's results; the body
    (whose block arguments, if any, mirror the operands) yields the gradients
    of its differentiable inputs. Linear: all-zero operands give zero results."""

    name = "autodiff.grad_of"

    op_name = prop_def(StringAttr, prop_name="name")
    """The forward op whose backward this is, e.g. "autodiff.mul"."""
    grads = var_operand_def()
    """Gradients flowing into the forward op's results."""
    input_grads = var_result_def()
    """Gradients of the forward op's differentiable inputs."""
    body = region_def("single_block")
    """Computes the input gradients; ends in `autodiff.yield`."""

    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "$name `(` $grads `)` attr-dict `:` functional-type($grads, $input_grads) $body"
    )
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(
        self,
        op_name: str,
        grads: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=[g.type for g in grads]))
        super().__init__(
            operands=[grads],
            result_types=[result_types],
            properties={"name": StringAttr(op_name)},
            regions=[body],
        )

    def verify_(self) -> None:
        """`name` is an op name (`dialect.op`); the body's arguments, if it has
        any, have the operands' types; the body ends in `autodiff.yield`, whose
        values have exactly the result types."""
        if not _OP_NAME.fullmatch(self.op_name.data):
            # Printed back, control or invalid bytes became escapes that no parser reads
            # as the same name (fuzz, seed 11251).
            raise VerifyException(
                f"names the op {self.op_name.data!r}, which is not an op name (dialect.op)"
            )
        block = self.body.block
        arg_types = tuple(a.type for a in block.args)
        operand_types = tuple(g.type for g in self.grads)
        if arg_types and arg_types != operand_types:
            raise VerifyException(
                f"body arguments {format_types(arg_types)} must match the operands "
                f"{format_types(operand_types)}"
            )
        terminator = block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("body must end with 'autodiff.yield'")
        yielded = tuple(v.type for v in terminator.values)
        results = tuple(r.type for r in self.input_grads)
        if len(yielded) != len(results):
            raise VerifyException(
                f"body yields {len(yielded)} values but the op has {len(results)} results"
            )
        if yielded != results:
            raise VerifyException(
                f"yielded types {format_types(yielded)} do not match the result types "
                f"{format_types(results)}"
            )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """Terminator of `grad_of`: the gradients of the forward op's inputs."""

    name = "autodiff.yield"

    values = var_operand_def()
    """One gradient per result of the enclosing `grad_of`."""

    traits = traits_def(IsTerminator(), HasParent(GradOfOp), Pure())
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue]):
        super().__init__(operands=[values])


class AutogradAddCanonicalizationPatterns(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (FoldAutogradAddOfZero(), AccumulateIntoSlice(), AccumulateIntoBranches())


@irdl_op_definition
class AutogradAddOp(IRDLOperation):
    """Sum of two gradients, either of which may be an AutogradZero:
    `add(zero, b) = b`, `add(a, zero) = a`, `add(zero, zero) = zero`."""

    name = "autodiff.autograd_add"

    T: ClassVar = VarConstraint("T", AnyAttr())
    a = operand_def(T)
    """First gradient."""
    b = operand_def(T)
    """Second gradient."""
    result = result_def(T)
    """Their sum."""

    traits = traits_def(Pure(), AutogradAddCanonicalizationPatterns())
    assembly_format = "$a `,` $b attr-dict `:` type($result)"

    def __init__(self, a: SSAValue, b: SSAValue):
        super().__init__(operands=[a, b], result_types=[a.type])

    def verify_(self) -> None:
        """`a` is a gradient: a statically shaped float tensor or an f16, bf16,
        f32 or f64 scalar; `b` and the result have its type (`T`)."""
        expect_gradient_type(self.a.type, "operand")


@irdl_op_definition
class AutogradZeroOp(IRDLOperation):
    """A zero (undefined) gradient; materialised only where data is needed. A tensor
    of dynamic shape takes the size of each dynamic dimension as an operand, as
    `tensor.empty` does: `autodiff.autograd_zero(%n) : tensor<?x4xf32>`."""

    name = "autodiff.autograd_zero"

    dynamic_sizes = var_operand_def(IndexType())
    """The sizes of the result's dynamic dimensions, in order."""
    result = result_def(AnyAttr())
    """The zero gradient's type: a float tensor or a float scalar."""

    traits = traits_def(Pure())
    assembly_format = "(`(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute, dynamic_sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(dynamic_sizes)], result_types=[result_type])

    def verify_(self) -> None:
        """The result is a gradient: a float tensor or an f16, bf16, f32 or f64 scalar;
        one size per dynamic dimension."""
        expect_gradient_type(self.result.type, "result")
        wanted = len(dynamic_dims(self.result.type))
        if len(self.dynamic_sizes) != wanted:
            raise VerifyException(
                f"takes one size per dynamic dimension of {self.result.type}: {wanted} expected, "
                f"{len(self.dynamic_sizes)} given"
            )


class FoldAutogradAddOfZero(RewritePattern):
    """`autograd_add(zero, b) -> b`, `autograd_add(a, zero) -> a` (so zero + zero -> zero)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AutogradAddOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.a.owner, AutogradZeroOp):
            rewriter.replace(op, [], [op.b])
        elif isinstance(op.b.owner, AutogradZeroOp):
            rewriter.replace(op, [], [op.a])


def is_zero_tensor(value: SSAValue) -> bool:
    """`autograd_zero`, or an `arith.constant` float tensor of +0.0 everywhere."""
    owner = value.owner
    if isinstance(owner, AutogradZeroOp):
        return True
    if not isinstance(owner, arith.ConstantOp):
        return False
    literal = owner.value
    return (
        isinstance(literal, DenseIntOrFPElementsAttr)
        and isinstance(literal.get_element_type(), AnyFloat)
        and not any(literal.data.data)
    )


class AccumulateIntoSlice(RewritePattern):
    """`autograd_add(a, insert_slice(g into zero))` ->
    `insert_slice(autograd_add(extract_slice(a), g) into a)` at the same slice, and
    `autograd_add(a, insert(s into zero[i]))` -> `insert(autograd_add(a[i], s) into a[i])`.

    The gradient of `extract_slice` (or `extract`) is zero outside its slice; summed
    whole, a loop that reads one slice of a weight per iteration (a row of a matrix,
    one matrix of a batch) pays the weight's full size per iteration in the reversed
    loop, where the sum on the slice costs the slice's."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AutogradAddOp, rewriter: PatternRewriter) -> None:
        for accumulated, update in ((op.a, op.b), (op.b, op.a)):
            owner = update.owner
            if is_zero_tensor(accumulated):
                return  # FoldAutogradAddOfZero's case, or both sides sparse on a zero
            if isinstance(owner, tensor.InsertSliceOp) and is_zero_tensor(owner.dest):
                slice_properties = {
                    name: owner.properties[name]
                    for name in ("static_offsets", "static_sizes", "static_strides")
                }
                index_operands = [list(owner.offsets), list(owner.sizes), list(owner.strides)]
                part = tensor.ExtractSliceOp.build(
                    operands=[accumulated, *index_operands],
                    properties=slice_properties,
                    result_types=[owner.source.type],
                )
                summed = AutogradAddOp(part.result, owner.source)
                inserted = tensor.InsertSliceOp.build(
                    operands=[summed.result, accumulated, *index_operands],
                    properties=slice_properties,
                    result_types=[accumulated.type],
                )
                rewriter.replace(op, [part, summed, inserted])
                return
            if isinstance(owner, tensor.InsertOp) and is_zero_tensor(owner.dest):
                indices = list(owner.indices)
                element = tensor.ExtractOp(accumulated, indices, owner.scalar.type)
                summed = AutogradAddOp(element.result, owner.scalar)
                inserted = tensor.InsertOp(summed.result, accumulated, indices)
                rewriter.replace(op, [element, summed, inserted])
                return


class AccumulateIntoBranches(RewritePattern):
    """`autograd_add(a, scf.if(c) {yield x} else {yield y})` ->
    `scf.if(c) {yield autograd_add(a, x)} else {yield autograd_add(a, y)}`, where the if's
    result is read by this sum alone, in the same block, and `a` is defined before the if.

    The reverse of a branch that reads one element of a tensor (a scatter's update, a
    gathered row) yields a one-hot gradient on one side and a zero on the other; summed
    after the branch, the reversed loop paid the whole tensor per iteration (the gradient
    of a segment_sum of 32,000 updates: 290 ms). Inside the branches the zero side folds
    and the one-hot side is a sum on one element (`AccumulateIntoSlice`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AutogradAddOp, rewriter: PatternRewriter) -> None:
        for accumulated, update in ((op.a, op.b), (op.b, op.a)):
            branch = update.owner
            if (
                not isinstance(branch, scf.IfOp)
                or branch.parent_block() is not op.parent_block()
                or update.has_more_than_one_use()
                or not _defined_before(accumulated, branch)
            ):
                continue
            position = update.index
            for region in (branch.true_region, branch.false_region):
                terminator = region.block.last_op
                summed = AutogradAddOp(accumulated, terminator.operands[position])
                rewriter.insert(summed, InsertPoint.before(terminator))
                terminator.operands = [
                    summed.result if number == position else value
                    for number, value in enumerate(terminator.operands)
                ]
            rewriter.replace(op, [], [update])
            return


def _defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is available at `op` from outside it: a result of an op before
    `op` (or before the op holding it) in the same block, or an argument of a block
    holding `op`."""
    if isinstance(value, BlockArgument):
        return value.block.is_ancestor(op)
    definer = value.owner
    block = definer.parent_block()
    if block is None:
        return False
    holder = block.find_ancestor_op_in_block(op)
    return holder is not None and holder is not definer and definer.is_before_in_block(holder)


def expect_gradient_type(type_: Attribute, what: str) -> None:
    """Gradients are float tensors, of static or dynamic shape, or float scalars
    (`tensor.extract` results, `linalg.fill` values)."""
    if not isinstance(type_, FLOAT_ELEMENT_TYPES) and not is_differentiable_tensor(type_):
        expect_float_tensor(type_, what)  # the message for what it is not


AD_OPS: tuple[type[IRDLOperation], ...] = (GradOfOp, YieldOp, AutogradAddOp, AutogradZeroOp)
