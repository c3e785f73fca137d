"""The batched functions of one module, generated once per (callee, in_axes, out_axes, size).

`autodiff.vmap` ops and calls inside batched functions ask this table for a
function; it builds each on first request. Name:
`<callee>_vmap_<in axes, n for unbatched>_to_<out axes>_x<size>`, e.g.
`f_vmap_n_1_to_0_x8`; attribute `autodiff.batched = {of = @f, in_axes = ...,
out_axes = ..., size = 8}`, by which a later run finds it again.

The body: batched arguments have their batch dimension moved first; each op
of the callee is then copied as is when none of its operands (nor a value its
regions read from outside) is batched, and otherwise replaced by what its
batching rule (`rules/batching.py`, `batching.yaml`) builds; the returned
values get their batch dimension moved to `out_axes` (an unbatched one is
broadcast). Before a callee is batched, the grad/vjp/jvp entry ops in it are
replaced by calls to their derivative functions (so per-example gradients are
a batched derivative function) and the vmaps reachable from it are lowered.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from gradir.autodiff_pass.batch_builder import Batched, BatchBuilder, VmapError, is_scalar_type, unsupported
from gradir.autodiff_pass.derivative_functions import display_name
from gradir.autodiff_pass.ir_building import clone_op, unique_symbol
from gradir.autodiff_pass.rules.batching import get_batching_rule
from gradir.dialects.batching_ops import VmapOp, with_batch_dim
from gradir.dialects.entry_ops import EntryOp, VjpOp
from gradir.dialects.provenance import BATCHED_ATTRIBUTE
from gradir.errors import GradirError, RuleError, error_at, location_of


@dataclass(frozen=True)
class BatchedKey:
    """What a batched function computes; one function per key."""

    callee: str
    in_axes: tuple[int, ...]
    out_axes: tuple[int, ...]
    size: int

    def name(self) -> str:
        ins = "_".join("n" if a < 0 else str(a) for a in self.in_axes) or "none"
        outs = "_".join(str(a) for a in self.out_axes) or "none"
        return f"{self.callee}_vmap_{ins}_to_{outs}_x{self.size}"

    def as_attribute(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "of": SymbolRefAttr(self.callee),
                "in_axes": DenseArrayBase.from_list(i64, list(self.in_axes)),
                "out_axes": DenseArrayBase.from_list(i64, list(self.out_axes)),
                "size": IntegerAttr(self.size, i64),
            }
        )

    @staticmethod
    def of_function(function: FuncOp) -> BatchedKey | None:
        info = function.attributes.get(BATCHED_ATTRIBUTE)
        if not isinstance(info, DictionaryAttr):
            return None
        of, ins, outs, size = (info.data.get(k) for k in ("of", "in_axes", "out_axes", "size"))
        if not (
            isinstance(of, SymbolRefAttr)
            and isinstance(ins, DenseArrayBase)
            and isinstance(outs, DenseArrayBase)
            and isinstance(size, IntegerAttr)
        ):
            return None
        return BatchedKey(
            of.string_value(), tuple(ins.get_values()), tuple(outs.get_values()), size.value.data
        )


def referenced_functions(function: Operation) -> list[str]:
    """Symbols `function` names through a `callee` property (calls, entry ops, vmaps)."""
    names = []
    for op in function.walk():
        callee = op.properties.get("callee")
        if isinstance(callee, SymbolRefAttr):
            names.append(callee.string_value())
    return names


class BatchedFunctions:
    """The table of generated batched functions of one module."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self._symbols: dict[str, Operation] = {}
        self._generated: dict[BatchedKey, FuncOp] = {}
        self._last_inserted: dict[str, Operation] = {}
        """Per callee, its last batched function: they follow it in order of creation."""
        self._vmaps_lowered: set[str] = set()
        self._lowering_vmaps: set[str] = set()
        for op in module.ops:
            name = op.properties.get("sym_name")
            if isinstance(name, StringAttr):
                self._symbols[name.data] = op
            if isinstance(op, FuncOp) and (key := BatchedKey.of_function(op)) is not None:
                self._generated[key] = op

    def function(self, user: Operation, name: str) -> FuncOp:
        found = self._symbols.get(name)
        if not isinstance(found, FuncOp) or not found.body.blocks:
            raise error_at(VmapError, user, f"callee @{name} is not a function with a body")
        return found

    # -- vmap ops --------------------------------------------------------------

    def lower_vmap(self, op: VmapOp) -> None:
        """Replace `op` by a call to its batched function."""
        callee = self.function(op, op.callee.string_value())
        self.lower_vmaps_reachable_from(callee)
        try:
            function = self.batched(
                op, callee, op.input_axes(), op.output_axes(), op.batch_size
            )
        except GradirError as error:
            # An op of a generated function has no source location: the vmap has.
            error.location = error.location or location_of(op)
            raise
        call = CallOp(function.sym_name.data, list(op.args), list(op.result_types))
        call.location = op.location
        Rewriter.replace_op(op, call)

    def lower_vmaps_reachable_from(self, function: FuncOp) -> None:
        """Lower the vmaps in `function` and in every function it names,
        innermost first, so that batching and differentiation see only calls."""
        name = function.sym_name.data
        if name in self._vmaps_lowered or name in self._lowering_vmaps:
            return
        self._lowering_vmaps.add(name)
        for referenced in referenced_functions(function):
            found = self._symbols.get(referenced)
            if isinstance(found, FuncOp):
                self.lower_vmaps_reachable_from(found)
        for op in list(function.walk()):
            if isinstance(op, VmapOp) and op.parent is not None:
                self.lower_vmap(op)
        self._lowering_vmaps.discard(name)
        self._vmaps_lowered.add(name)

    # -- batches of cotangents -------------------------------------------------

    def lower_batched_vjp(self, op: VjpOp) -> None:
        """`autodiff.vjp {is_grads_batched}` -> a call of the callee (the results)
        and a vmap, over the cotangents, of a helper holding the plain vjp."""
        callee = self.function(op, op.callee.string_value())
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        try:
            wrt = op.wrt_indices(inputs)
        except VerifyException as error:
            raise error_at(VmapError, op, str(error)) from error
        helper = self._cotangent_helper(callee, wrt)
        arguments, cotangents = list(op.args[: len(inputs)]), list(op.args[len(inputs) :])
        size = cotangents[0].type.get_shape()[0]  # type: ignore[union-attr]
        primal = CallOp(callee.sym_name.data, arguments, outputs)
        vmap = VmapOp(
            helper.sym_name.data,
            arguments + cotangents,
            list(op.result_types[len(outputs) :]),
            [-1] * len(inputs) + [0] * len(outputs),
            [0] * len(wrt),
            size,
        )
        primal.location = vmap.location = op.location
        Rewriter.insert_op([primal, vmap], InsertPoint.before(op))
        Rewriter.replace_op(op, [], [*primal.results, *vmap.results])

    def _cotangent_helper(self, callee: FuncOp, wrt: Sequence[int]) -> FuncOp:
        """`(arguments, cotangents) -> gradients`: the plain vjp, once per callee and wrt."""
        name = "_".join([callee.sym_name.data, "vjp", *map(str, wrt), "gradients"])
        if isinstance(found := self._symbols.get(name), FuncOp):
            return found
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        gradients = [inputs[i] for i in wrt]
        block = Block(arg_types=inputs + outputs)
        for index, argument in enumerate(block.args):
            argument.name_hint = callee.args[index].name_hint if index < len(inputs) else "cotangent"
        vjp = VjpOp(callee.sym_name.data, list(block.args), outputs + gradients, wrt)
        block.add_ops([vjp, ReturnOp(*vjp.results[len(outputs) :])])
        helper = FuncOp(
            unique_symbol(name, self._symbols), FunctionType.from_lists(inputs + outputs, gradients), Region(block)
        )
        Rewriter.insert_op(helper, InsertPoint.after(self._last_inserted.get(callee.sym_name.data, callee)))
        self._last_inserted[callee.sym_name.data] = helper
        self._symbols[helper.sym_name.data] = helper
        return helper

    # -- batched functions -----------------------------------------------------

    def batched(
        self,
        user: Operation,
        callee: FuncOp,
        in_axes: Sequence[int],
        out_axes: Sequence[int],
        size: int,
    ) -> FuncOp:
        """The batched function of `callee` (built on first request)."""
        key = BatchedKey(callee.sym_name.data, tuple(in_axes), tuple(out_axes), size)
        if (existing := self._generated.get(key)) is not None:
            return existing
        self.lower_vmaps_reachable_from(callee)
        self._lower_entry_ops(callee)
        if len(callee.body.blocks) != 1:
            raise error_at(
                VmapError, user, f"cannot vmap @{key.callee}: it branches between blocks; run lift-control-flow first "
                "(every pipeline does)"
            )
        for index, output in enumerate(callee.function_type.outputs.data):
            if not isinstance(output, TensorType) and not is_scalar_type(output):
                raise unsupported(
                    user, f"@{key.callee} result {index} is {output}: only tensors and scalars can be batched"
                )
        inputs = [
            t if a < 0 else with_batch_dim(t, a, size)
            for a, t in zip(in_axes, callee.function_type.inputs.data)
        ]
        outputs = [
            with_batch_dim(t, a, size) for a, t in zip(out_axes, callee.function_type.outputs.data)
        ]
        function = FuncOp(
            unique_symbol(key.name(), self._symbols),
            FunctionType.from_lists(inputs, outputs),
            Region(Block(arg_types=inputs)),
        )
        function.attributes[BATCHED_ATTRIBUTE] = key.as_attribute()
        for argument, original in zip(function.args, callee.args):
            argument.name_hint = original.name_hint
        anchor = self._last_inserted.get(key.callee, callee)
        Rewriter.insert_op(function, InsertPoint.after(anchor))
        self._last_inserted[key.callee] = function
        self._symbols[function.sym_name.data] = function
        self._generated[key] = function  # before the body: a recursive callee finds it
        _BodyBatcher(self, size, function.body.block).build(callee, in_axes, out_axes)
        return function

    def _lower_entry_ops(self, callee: FuncOp) -> None:
        """grad/vjp/jvp inside `callee` become calls to derivative functions."""
        entry_ops = [op for op in callee.walk() if isinstance(op, EntryOp)]
        if not entry_ops:
            return
        from gradir.autodiff_pass.differentiation import derivative_function_table

        table = derivative_function_table(self.module)
        for op in entry_ops:
            if op.parent is not None:
                table.lower_entry_op(op)
        for op in self.module.ops:  # the derivative functions just generated
            name = op.properties.get("sym_name")
            if isinstance(name, StringAttr):
                self._symbols.setdefault(name.data, op)


def _checked(rule, op: Operation, builder: BatchBuilder, operands, flags) -> list[Batched]:
    """`rule`'s pairs for `op`; a rule that raises (a registered rule's own bug) or
    returns anything but one (SSA value, bool) pair per result is a RuleError at `op`."""
    name = display_name(op)
    rule_name = getattr(rule, "__qualname__", type(rule).__name__)
    try:
        returned = rule(builder, op, operands, flags)
    except GradirError:
        raise
    except Exception as error:  # noqa: BLE001 - named and chained, never a traceback
        detail = " ".join(str(error).split())
        raise error_at(
            RuleError, op,
            f"the batching rule of '{name}' ({rule_name}) raised {type(error).__name__}"
            + (f": {detail}" if detail else ""),
        ) from error
    pairs = list(returned) if isinstance(returned, (list, tuple)) else None
    if pairs is None or len(pairs) != len(op.results) or not all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], SSAValue) and isinstance(p[1], bool)
        for p in pairs
    ):
        raise error_at(
            RuleError, op,
            f"the batching rule of '{name}' ({rule_name}) returned {returned!r:.80}, expected "
            f"a list of one (SSA value, is_batched) pair per result ({len(op.results)})",
        )
    return pairs


class _BodyBatcher:
    """Builds one batched function's body (see the module docstring)."""

    def __init__(self, table: BatchedFunctions, size: int, block: Block):
        self.table = table
        self.value_map: dict[SSAValue, SSAValue] = {}
        self.batched: set[SSAValue] = set()
        self.builder = BatchBuilder(size, block, self.batch_block, self.batched_callee)
        self.builder.is_batched_capture = lambda value: value in self.batched  # type: ignore[attr-defined]
        self.builder.value_map = self.value_map

    def build(self, callee: FuncOp, in_axes: Sequence[int], out_axes: Sequence[int]) -> None:
        builder = self.builder
        arguments: list[Batched] = []
        for argument, axis in zip(builder.block.args, in_axes):
            if axis < 0:
                arguments.append((argument, False))
            else:
                arguments.append((builder.move_axis(argument, axis, 0), True))
        returned = self.batch_block(callee.body.block, arguments)
        results = []
        for (value, is_batched), axis in zip(returned, out_axes):
            builder.current = callee.body.block.last_op
            results.append(builder.move_axis(builder.materialize(value, is_batched), 0, axis))
        builder.current = None
        builder.insert(ReturnOp(*results))

    def batch_block(self, block: Block, arguments: Sequence[Batched]) -> list[Batched]:
        # A region batched again (a loop's fixpoint, a while's condition then its body) may
        # map a value unbatched that an earlier pass batched: its mark must go too, or an op
        # reading it is told "batched" and handed the unbatched value.
        for argument, (value, is_batched) in zip(block.args, arguments, strict=True):
            self.value_map[argument] = value
            (self.batched.add if is_batched else self.batched.discard)(argument)
        terminator = block.last_op
        for op in block.ops:
            if op is terminator:
                break
            self.batch_op(op)
        assert terminator is not None
        return [(self.value_map[v], v in self.batched) for v in terminator.operands]

    def batch_op(self, op: Operation) -> None:
        flags = [v in self.batched for v in op.operands]
        if not any(flags) and not self._reads_batched_capture(op):
            self.builder.block.add_op(clone_op(op, self.value_map))
            self.batched.difference_update(op.results)
            return
        rule = get_batching_rule(display_name(op))
        if rule is None:
            raise unsupported(op)
        self.builder.current = op
        operands = [self.value_map[v] for v in op.operands]
        results = _checked(rule, op, self.builder, operands, flags)
        for result, (value, is_batched) in zip(op.results, results):
            self.value_map[result] = value
            (self.batched.add if is_batched else self.batched.discard)(result)

    def _reads_batched_capture(self, op: Operation) -> bool:
        if not op.regions:
            return False
        return any(v in self.batched for nested in op.walk() for v in nested.operands)

    def batched_callee(self, call: Operation, flags: Sequence[bool]) -> FuncOp:
        assert isinstance(call, CallOp)
        callee = self.table.function(call, call.callee.string_value())
        in_axes = [0 if flag else -1 for flag in flags]
        out_axes = [0] * len(callee.function_type.outputs.data)
        return self.table.batched(call, callee, in_axes, out_axes, self.builder.size)
