"""`lift-control-flow`: branches between blocks (`cf`) -> `scf`, `scf.index_switch` ->
`scf.if`s, `scf.forall` -> an `scf.for` nest and `scf.execute_region` -> its body, so that
differentiation, vmap and both backends see structured control flow only (`scf.if`,
`scf.for`, `scf.while`).

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
k ifs (a chain for a few, a balanced tree over the matching case's position for more), so
the switch is rewritten here rather than given a second set of rules
(`IndexSwitchToIfChain`).
"""
from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, scf, tensor, ub
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradir.dialects.scf_forall import ForallOp, InParallelOp, ParallelInsertSliceOp
from gradir.errors import PipelineError, SourceError, location_of
from gradir.lowering.standard_ops import index_constant


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


def case_position(flag: SSAValue, values: list[int], position_type) -> tuple[list[Operation], SSAValue]:
    """Ops computing which of `values` `flag` equals, as its position in the list, or
    `len(values)` for none: one compare and select per case, a flat sequence."""
    ops: list[Operation] = [arith.ConstantOp(IntegerAttr(len(values), position_type))]
    position = ops[0].results[0]
    for index, value in reversed(list(enumerate(values))):  # the first match wins
        case = arith.ConstantOp(IntegerAttr(value, flag.type))
        here = arith.ConstantOp(IntegerAttr(index, position_type))
        matches = arith.CmpiOp(flag, case, "eq")
        chosen = arith.SelectOp(matches, here, position)
        ops += [case, here, matches, chosen]
        position = chosen.result
    return ops, position


def switches_by_position(region: Region) -> None:
    """Make each `cf.switch` ending a block of `region` that has a case beyond 32 bits
    switch on the position of the matching case (`case_position`) instead. MLIR 22 keeps a
    switch's cases in a hash set whose reserved keys are the largest and smallest i64: a
    case of either value aborted the process when lifted; positions are small."""
    for block in list(region.blocks):
        switch = block.last_op
        if not isinstance(switch, cf.SwitchOp) or not switch.case_values:
            continue
        values = [int(v) for v in switch.case_values.get_values()]
        if all(-(2**31) <= v < 2**31 - 1 for v in values):
            continue
        ops, position = case_position(switch.flag, values, i64)
        targets = list(switch.case_blocks)
        operands = [list(o) for o in switch.case_operand]
        default = (switch.default_block, list(switch.default_operands))
        block.erase_op(switch)
        block.add_ops(ops)
        cases = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), list(range(len(values))))
        block.add_op(cf.SwitchOp(position, default[0], default[1], cases, targets, operands))


def lift_functions(ctx: Context, module: ModuleOp) -> None:
    """Replace each function of `module` that branches between blocks by its lifting
    to `scf` (MLIR's `lift-cf-to-scf`)."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and branches_between_blocks(op)]
    if not functions:
        return
    from mlir import ir

    from gradir.mlir_bridge import run_pipeline, to_mlir_module
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
        switches_by_position(region)
    carrier = ModuleOp([f.clone() for f in functions] + declarations)
    context = ir.Context()
    context.allow_unregistered_dialects = True  # autodiff ops, by their generic form
    first = location_of(functions[0])
    try:
        mlir_module = run_pipeline(to_mlir_module(carrier, context), "lift-cf-to-scf, canonicalize", "lift-control-flow")
    except PipelineError as error:
        error.location = error.location or first
        raise
    lifted_text = mlir_module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True, use_local_scope=True)
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


CHAIN_CASES = 4
"""Up to this many cases a switch becomes a chain of ifs (one compare each, as written);
more become a tree of depth log2(cases + 1), which gradir's passes (they recurse once per
level of nesting) take for any number of cases."""


class IndexSwitchToIfChain(RewritePattern):
    """`scf.index_switch %i case c1 {A} case c2 {B} default {D}` ->
    `scf.if %i == c1 {A} else {scf.if %i == c2 {B} else {D}}`; with more than
    `CHAIN_CASES` cases, the position of the matching case (`case_position`) picked by a
    balanced tree of `scf.if`s, each region copied once."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IndexSwitchOp, rewriter: PatternRewriter) -> None:
        cases = list(op.cases.get_values())
        result_types = list(op.result_types)
        if len(cases) <= CHAIN_CASES:
            rest = op.default_region.clone()
            for value, case_region in reversed(list(zip(cases, op.case_regions))):
                constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
                matches = arith.CmpiOp(op.arg, constant, "eq")
                branch = scf.IfOp(matches, result_types, case_region.clone(), rest)
                rest = Region(Block([constant, matches, branch, scf.YieldOp(*branch.results)]))
        else:
            ops, position = case_position(op.arg, cases, IndexType())
            regions = [*op.case_regions, op.default_region]
            rest = _tree(position, regions, 0, len(regions), result_types)
            rest.block.insert_ops_before(ops, rest.block.first_op)
        replace_by_block(rewriter, op, rest.detach_block(0))


def replace_by_block(rewriter: PatternRewriter, op: Operation, block: Block) -> None:
    """Replace `op` by the ops of `block` (inlined before it) and its results by the values
    the block's `scf.yield` yields."""
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    values = list(terminator.operands)
    rewriter.erase(terminator)
    rewriter.inline_block(block, InsertPoint.before(op))
    rewriter.replace(op, [], values)


def _tree(position: SSAValue, regions: list[Region], low: int, high: int, result_types) -> Region:
    """A region running `regions[position]`, for `low <= position < high`."""
    if high - low == 1:
        return regions[low].clone()
    middle = (low + high) // 2
    split = arith.ConstantOp(IntegerAttr(middle, IndexType()))
    below = arith.CmpiOp(position, split, "ult")
    branch = scf.IfOp(below, result_types, _tree(position, regions, low, middle, result_types),
                      _tree(position, regions, middle, high, result_types))
    return Region(Block([split, below, branch, scf.YieldOp(*branch.results)]))


class ForallToFor(RewritePattern):
    """`scf.forall (%i, %j) ... shared_outs(%s = %init)` -> `scf.for %i ... iter_args(%a = %init)
    { scf.for %j ... iter_args(%b = %a) {...} }`, each `tensor.parallel_insert_slice` into `%s`
    an `insert_slice` into the carried tensor, which the body reads where it read `%s`.

    The iterations of a forall write disjoint slices (or its result is undefined), so running
    them in order computes its results, and every rule of `scf.for` (both modes, vmap, both
    backends) applies. MLIR 22's own `scf-forall-to-for` aborts on a forall with shared
    outputs (an assertion on the block arguments it inlines), hence this rewrite."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ForallOp, rewriter: PatternRewriter) -> None:
        block = op.region.block
        ivs, shared = block.args[: op.rank], block.args[op.rank :]
        terminator = block.last_op
        assert isinstance(terminator, InParallelOp)
        # (the rewriter inserts before the forall)
        bounds = [[v if isinstance(v, SSAValue) else index_constant(rewriter, v) for v in bound] for bound in op.bounds()]
        loops: list[scf.ForOp] = []
        carried: list[SSAValue] = list(op.outputs)
        for position, (lower, upper, step) in enumerate(bounds):
            body = Block(arg_types=[IndexType(), *(value.type for value in carried)])
            loop = scf.ForOp(lower, upper, step, carried, body)
            loop.location = op.location
            if loops:
                loops[-1].body.block.add_op(loop)
                loops[-1].body.block.add_op(scf.YieldOp(*loop.results))
            else:
                rewriter.insert(loop, InsertPoint.before(op))
            loops.append(loop)
            carried = list(body.args[1:])
            ivs[position].replace_all_uses_with(body.args[0])
        for argument, value in zip(shared, carried):
            argument.replace_all_uses_with(value)
        innermost = loops[-1].body.block
        for inner in list(block.ops)[:-1]:
            inner.detach()
            innermost.add_op(inner)
        latest = dict(zip(carried, carried))
        for insert in list(terminator.region.block.ops):
            assert isinstance(insert, ParallelInsertSliceOp)
            written = tensor.InsertSliceOp.build(
                operands=[insert.source, latest[insert.dest], insert.offsets, insert.sizes, insert.strides],
                properties={name: insert.properties[name] for name in ("static_offsets", "static_sizes", "static_strides")},
                result_types=[insert.dest.type],
            )
            written.location = insert.location
            innermost.add_op(written)
            latest[insert.dest] = written.result
        innermost.add_op(scf.YieldOp(*(latest[value] for value in carried)))
        rewriter.erase(terminator)
        rewriter.replace(op, [], list(loops[0].results))


class InlineExecuteRegion(RewritePattern):
    """`scf.execute_region { ops; scf.yield %v }` -> `ops`, its results `%v`: the region runs
    exactly once where it stands. One of several blocks was lifted to `scf` first
    (`lift_functions` sends its function to MLIR, whose `canonicalize` inlines it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ExecuteRegionOp, rewriter: PatternRewriter) -> None:
        if len(op.region.blocks) != 1:
            return
        replace_by_block(rewriter, op, op.region.block)


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
        if any(isinstance(inner, ForallOp | scf.ExecuteRegionOp) for inner in op.walk()):
            patterns = GreedyRewritePatternApplier([ForallToFor(), InlineExecuteRegion()])
            PatternRewriteWalker(patterns, apply_recursively=True).rewrite_module(op)
        lift_functions(ctx, op)
        if any(isinstance(inner, scf.IndexSwitchOp | ub.PoisonOp) for inner in op.walk()):
            patterns = GreedyRewritePatternApplier([IndexSwitchToIfChain(), PoisonToZero()])
            PatternRewriteWalker(patterns, apply_recursively=True).rewrite_module(op)

