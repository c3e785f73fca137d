"""`lift-control-flow`: branches between blocks (`cf`) -> `scf`, and `scf.index_switch` ->
a chain of `scf.if`, so that differentiation, vmap and both backends see structured
control flow only (`scf.if`, `scf.for`, `scf.while`).

Programs from C-like front ends, from Enzyme-MLIR's tests, or lowered once with
`convert-scf-to-cf` branch between blocks. Their lifting to `scf` is MLIR's own
`lift-cf-to-scf`, run here on a module holding the functions that have more than one
block: the other functions never leave xDSL, and a program without branches never loads
MLIR. The locations survive the round trip (MLIR prints them, gradir's parser reads them).
`canonicalize` follows: the lifting puts a loop's whole body in the `before` region of an
`scf.while`, under an `scf.if` on the exit test; canonicalized, the test alone is left there
and the body moves to `after`, the loop the `scf.while` rule counts cheaply and MLIR
bufferizes (without it, 11 of the 33 corpus programs rewritten with branches,
`tests/corpus/test_corpus_branches.py`, failed to bufferize). Where the lifting passes
`ub.poison` (a value undefined on some path) a zero is used instead (`PoisonToZero`).

`lift-cf-to-scf` writes a multi-way branch, and a loop with several exits, as
`scf.index_switch`; users write it too. Every rule gradir has for a branch (reverse and
forward mode, batching, GPU mapping) is the rule of `scf.if`, and a switch over k cases is
k nested ifs, so the switch is rewritten here rather than given a second set of rules
(`IndexSwitchToIfChain`).
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, scf, ub
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradir.errors import PipelineError, SourceError, location_of


def branches_between_blocks(op: Operation) -> bool:
    """Whether a region of `op`, or of an op inside it, has more than one block."""
    return any(len(region.blocks) > 1 for inner in op.walk() for region in inner.regions)


def erase_unreachable_blocks(region: Region) -> None:
    """Erase the blocks no branch from the entry block reaches (`lift-cf-to-scf` refuses
    them; they never run). What they define is used only in unreachable blocks."""
    reached, pending = set(), [region.blocks[0]]
    while pending:
        block = pending.pop()
        if block not in reached:
            reached.add(block)
            pending += block.last_op.successors if block.last_op is not None else []
    for block in [block for block in region.blocks if block not in reached]:
        region.erase_block(block, safe_erase=False)


def switches_as_branches(region: Region) -> None:
    """Rewrite each `cf.switch` ending a block of `region` as a chain of `cf.cond_br`s on
    `flag == value`, one new block per case after the first. MLIR 22 keeps a switch's cases
    in a hash set whose reserved keys are the largest and smallest i64: a case of either
    value aborted the process when lifted."""
    for block in list(region.blocks):
        switch = block.last_op
        if not isinstance(switch, cf.SwitchOp):
            continue
        flag = switch.flag
        values = [int(v) for v in switch.case_values.get_values()] if switch.case_values else []
        cases = [(value, target, list(operands)) for value, target, operands in zip(values, switch.case_blocks, switch.case_operand)]
        default = (switch.default_block, list(switch.default_operands))
        block.erase_op(switch)
        if not cases:
            block.add_op(cf.BranchOp(default[0], *default[1]))
            continue
        current = block
        for index, (value, target, operands) in enumerate(cases):
            constant = arith.ConstantOp(IntegerAttr(value, flag.type))
            matches = arith.CmpiOp(flag, constant, "eq")
            if index + 1 < len(cases):
                following = Block()
                region.insert_block_after(following, current)
                branch = cf.ConditionalBranchOp(matches, target, operands, following, [])
            else:
                following = None
                branch = cf.ConditionalBranchOp(matches, target, operands, default[0], default[1])
            current.add_ops([constant, matches, branch])
            current = following


def lift_functions(ctx: Context, module: ModuleOp) -> None:
    """Replace each function of `module` that branches between blocks by its lifting
    to `scf` (MLIR's `lift-cf-to-scf`)."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and branches_between_blocks(op)]
    if not functions:
        return
    from mlir import ir, passmanager

    from gradir.mlir_bridge import generic_text, guarded
    from gradir.source import parse_module

    # A module of those functions only: what they call is declared, not brought along.
    called = {call.callee.root_reference.data for f in functions for call in f.walk() if isinstance(call, func.CallOp)}
    lifted_names = {f.sym_name.data for f in functions}
    declarations = [
        func.FuncOp.external(f.sym_name.data, f.function_type.inputs.data, f.function_type.outputs.data)
        for f in module.ops
        if isinstance(f, func.FuncOp) and f.sym_name.data in called - lifted_names
    ]
    for region in [r for f in functions for inner in f.walk() for r in inner.regions if len(r.blocks) > 1]:
        erase_unreachable_blocks(region)
        switches_as_branches(region)
    carrier = ModuleOp([f.clone() for f in functions] + declarations)
    context = ir.Context()
    context.allow_unregistered_dialects = True  # autodiff ops, by their generic form
    text = generic_text(carrier)
    first = location_of(functions[0])

    def lift() -> str:
        mlir_module = ir.Module.parse(text, context)
        passmanager.PassManager.parse("builtin.module(lift-cf-to-scf, canonicalize)", context).run(mlir_module.operation)
        return mlir_module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True, use_local_scope=True)

    with context:
        try:
            lifted_text = guarded("lift-control-flow", context, lift)
        except PipelineError as error:
            error.location = error.location or first
            raise
    try:
        lifted_module = parse_module(ctx, lifted_text, "<lifted>")
    except SourceError as error:  # MLIR printed what xDSL cannot read: say where it came from
        raise PipelineError(f"lift-control-flow: the lifted function does not read back into xDSL: {error.message}", first) from None
    drop_unknown_properties(lifted_module)
    lifted = {op.sym_name.data: op for op in lifted_module.ops if isinstance(op, func.FuncOp)}
    for original in functions:
        replacement = lifted[original.sym_name.data]
        replacement.detach()
        for name, argument in zip(original.args, replacement.args):
            argument.name_hint = name.name_hint  # MLIR's generic form numbers them
        module.body.block.insert_op_before(replacement, original)
        module.body.block.erase_op(original)


def drop_unknown_properties(module: ModuleOp) -> None:
    """Remove the properties MLIR 22 prints that xDSL's definition of the op lacks
    (`arith.trunci`'s `overflowFlags`: no flags is the default, and a dropped `nsw`
    only makes the op defined on more inputs)."""
    for op in module.walk():
        definition = getattr(type(op), "get_irdl_definition", None)
        if definition is None:
            continue
        known = definition().properties
        for name in [name for name in op.properties if name not in known]:
            del op.properties[name]


class IndexSwitchToIfChain(RewritePattern):
    """`scf.index_switch %i case c1 {A} case c2 {B} default {D}` ->
    `scf.if %i == c1 {A} else {scf.if %i == c2 {B} else {D}}`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IndexSwitchOp, rewriter: PatternRewriter) -> None:
        cases = list(op.cases.get_values())
        result_types = list(op.result_types)
        rest = op.default_region.clone()
        for value, case_region in reversed(list(zip(cases, op.case_regions))):
            constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
            matches = arith.CmpiOp(op.arg, constant, "eq")
            branch = scf.IfOp(matches, result_types, case_region.clone(), rest)
            rest = Region(Block([constant, matches, branch, scf.YieldOp(*branch.results)]))
        block = rest.detach_block(0)
        terminator = block.last_op
        assert isinstance(terminator, scf.YieldOp)
        values = list(terminator.operands)
        block.erase_op(terminator)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, [], values)


class PoisonToZero(RewritePattern):
    """`ub.poison` -> a zero constant. `lift-cf-to-scf` passes poison where a value is
    undefined on a path (a loop variable after an early exit); poison may be refined to
    any value, and a zero is a constant every later stage (rules, vmap, both backends)
    handles, where `ub` would need rules and lowerings of its own."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ub.PoisonOp, rewriter: PatternRewriter) -> None:
        result_type = op.result.type
        if isinstance(result_type, IntegerType | IndexType):
            value = IntegerAttr(0, result_type)
        elif isinstance(result_type, AnyFloat):
            value = FloatAttr(0.0, result_type)
        elif isinstance(result_type, TensorType) and isinstance(result_type.element_type, IntegerType | IndexType | AnyFloat):
            element = result_type.element_type
            zero = 0.0 if isinstance(element, AnyFloat) else 0
            value = DenseIntOrFPElementsAttr.from_list(result_type, [zero])  # a splat
        else:
            return  # left as it is: a later stage names it if it cannot take it
        rewriter.replace(op, arith.ConstantOp(value, result_type))


@dataclass(frozen=True)
class LiftControlFlowPass(ModulePass):
    name = "lift-control-flow"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lift_functions(ctx, op)
        if any(isinstance(inner, scf.IndexSwitchOp | ub.PoisonOp) for inner in op.walk()):
            patterns = GreedyRewritePatternApplier([IndexSwitchToIfChain(), PoisonToZero()])
            PatternRewriteWalker(patterns, apply_recursively=True).rewrite_module(op)

