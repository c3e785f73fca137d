"""The derivative functions of one module, generated once per (kind, callee, wrt).

Entry ops (`autodiff.grad`, `autodiff.vjp`, `autodiff.jvp`) and differentiated
`func.call`s all ask this table for a function; it builds each one on first
request and hands out the same function afterwards.

Naming: `<callee>_<kind>_<wrt indices joined by _>`, e.g. `f_vjp_0_1`,
`f_grad_1`, `f_jvp_0` (`f_vjp` when `wrt` is empty). A function generated for a
`func.call` whose results are only partly differentiated (a result nobody
differentiates gets no cotangent / tangent) adds `_results_<indices>`, e.g.
`f_vjp_0_results_1`. A clash with an existing symbol appends `__<n>`. Every
generated function carries `autodiff.derivative = {kind = "vjp", of = @f,
wrt = array<i64: 0, 1>, results = array<i64: 0>}`, which is how a later pass
run (and `autodiff-split`) recognises it. Signatures:

* `vjp`: (callee arguments, one cotangent per differentiated result) ->
  (callee results, one gradient per `wrt` argument);
* `grad`: (callee arguments) -> (one gradient per `wrt` argument); it seeds 1
  and calls the `vjp` function;
* `jvp`: (callee arguments, one tangent per `wrt` argument) ->
  (callee results, one tangent per differentiated result).

The differentiated results are, unless a call site says otherwise, all
float-tensor results. Before a callee is differentiated, the entry ops inside
it are replaced by calls (innermost derivatives first), so higher-order
derivatives are derivatives of ordinary functions; a derivative that needs
itself is an error.

The table does not know how bodies are built: the three body builders are
given to it (`BodyBuilders`; `differentiation.derivative_functions` wires the
reverse and forward walks in), so the walks may use the table without the
table depending on them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnregisteredOp,
    i64,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from gradir.autodiff_pass.cse import scoped_cse
from gradir.autodiff_pass.dynamic_elementwise import elementwise_ops_as_generics
from gradir.autodiff_pass.hoist_branch_gathers import hoist_gathers_out_of_branches
from gradir.autodiff_pass.index_loops import count_loops_in_index
from gradir.autodiff_pass.inline_body_calls import inline_calls_in_generic_bodies
from gradir.autodiff_pass.ir_building import clone_op, erase_dead_code, unique_symbol, zero_constant
from gradir.autodiff_pass.lower_grad_of import inline_grad_of_ops
from gradir.autodiff_pass.specialize_zero import drop_unread_gradients
from gradir.dialects.autodiff import EntryOp, GradOp, JvpOp, VjpOp
from gradir.dialects.provenance import DERIVATIVE_ATTRIBUTE
from gradir.dialects.type_checks import dynamic_dims, is_differentiable_tensor, is_differentiable_type
from gradir.errors import DifferentiationError, error_at


def display_name(op: Operation) -> str:
    """The op's name as written in the source, also for unregistered ops."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def float_result_indices(function: FuncOp) -> tuple[int, ...]:
    """The results of `function` that can have cotangents / tangents."""
    outputs = function.function_type.outputs.data
    return tuple(i for i, type_ in enumerate(outputs) if is_differentiable_type(type_))


def _integer_zero(entry: Operation, like: SSAValue) -> SSAValue:
    """The tangent of an integer result `like`: a zero of its type, inserted before the
    entry op (an integer carries no derivative)."""
    if dynamic_dims(like.type):
        raise error_at(
            DifferentiationError,
            entry,
            f"autodiff.jvp of a function with an integer result of dynamic shape ({like.type}) is not "
            "supported yet: its zero tangent needs a static shape",
        )
    return zero_constant(Builder(InsertPoint.before(entry)), like.type)


@dataclass(frozen=True)
class DerivativeKey:
    """What a generated function computes; one function per key."""

    kind: str
    """"vjp", "grad" or "jvp"."""
    callee: str
    """The differentiated function."""
    wrt: tuple[int, ...]
    """Differentiated arguments."""
    results: tuple[int, ...]
    """Differentiated results (with cotangents for vjp, tangents for jvp)."""

    def name(self, all_results: tuple[int, ...]) -> str:
        parts = [self.callee, self.kind, *(str(index) for index in self.wrt)]
        if self.results != all_results:
            parts += ["results", *(str(index) for index in self.results)]
        return "_".join(parts)

    def signature(self, callee: FuncOp) -> tuple[list[Attribute], list[Attribute]]:
        """(argument types, result types) of the generated function."""
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        result_types = [outputs[i] for i in self.results]
        wrt_types = [inputs[i] for i in self.wrt]
        if self.kind == "vjp":
            return inputs + result_types, outputs + wrt_types
        if self.kind == "grad":
            return inputs, wrt_types
        assert self.kind == "jvp"
        return inputs + wrt_types, outputs + result_types

    def as_attribute(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "kind": StringAttr(self.kind),
                "of": SymbolRefAttr(self.callee),
                "wrt": DenseArrayBase.from_list(i64, list(self.wrt)),
                "results": DenseArrayBase.from_list(i64, list(self.results)),
            }
        )

    @staticmethod
    def of_function(function: FuncOp) -> DerivativeKey | None:
        """The key of a generated function, None for other functions."""
        info = function.attributes.get(DERIVATIVE_ATTRIBUTE)
        if not isinstance(info, DictionaryAttr):
            return None
        kind, callee, wrt, results = (
            info.data.get(key) for key in ("kind", "of", "wrt", "results")
        )
        if not (
            isinstance(kind, StringAttr)
            and isinstance(callee, SymbolRefAttr)
            and isinstance(wrt, DenseArrayBase)
            and isinstance(results, DenseArrayBase)
        ):
            return None
        return DerivativeKey(
            kind.data,
            callee.string_value(),
            tuple(wrt.get_values()),
            tuple(results.get_values()),
        )


BodyBuilder = Callable[["DerivativeFunctions", FuncOp, FuncOp, DerivativeKey], None]
"""Fills a generated function's body: (table, callee, new function, key)."""


@dataclass(frozen=True)
class BodyBuilders:
    """How the body of each kind of generated function is built."""

    vjp: BodyBuilder
    """The primal, then the reverse walk."""
    grad: BodyBuilder
    """Seed 1 and call the vjp function."""
    jvp: BodyBuilder
    """The primal interleaved with tangent code."""


def clean_for_differentiation(function: FuncOp) -> None:
    """PyTorch's Optimize for a generated function: CSE, unread gradients, DCE."""
    scoped_cse(function)
    drop_unread_gradients(function.body.block)
    erase_dead_code(function.body.block)


def copy_primal(callee: FuncOp, block: Block, arguments: Sequence[SSAValue]) -> list[SSAValue]:
    """Append a copy of `callee`'s body to `block` (its arguments replaced by
    `arguments`, the bodies of `grad_of` ops left by an earlier derivative
    inlined, in nested regions too: they are ordinary differentiable code)
    and return the values the copy returns; its `func.return` is not kept."""
    if len(callee.body.blocks) != 1:
        raise error_at(
            DifferentiationError,
            callee,
            f"cannot differentiate @{callee.sym_name.data}: "
            "it branches between blocks; run lift-control-flow first (every pipeline does)",
        )
    value_map: dict[SSAValue, SSAValue] = dict(zip(callee.args, arguments, strict=True))
    for op in callee.body.block.ops:
        block.add_op(clone_op(op, value_map))
    module = callee.parent_op()
    inline_calls_in_generic_bodies(block, module if isinstance(module, ModuleOp) else None)
    hoist_gathers_out_of_branches(block)
    inline_grad_of_ops(block)
    # A derivative's loops and branches hold grad_of ops too (the body of a
    # reversed scf.for): inline those as well.
    for op in list(block.walk()):
        for region in op.regions:
            for nested in region.blocks:
                inline_grad_of_ops(nested)
    elementwise_ops_as_generics(block)  # after the inlining: a grad_of body may hold such ops
    count_loops_in_index(block)
    terminator = block.last_op
    if not isinstance(terminator, ReturnOp):
        raise error_at(
            DifferentiationError,
            callee,
            f"cannot differentiate @{callee.sym_name.data}: its body does not end with func.return",
        )
    returned = list(terminator.arguments)
    Rewriter.erase_op(terminator)
    return returned


class HeldValues:
    """Values held across rewrites, as the operands of a detached op.

    A walk rule may replace the op that defines a value the walk still needs
    after it (the reverse of `scf.for` rebuilds the loop with one more result
    per cache stack); a replacement updates the value's uses, never a Python
    list holding it. The vjp body holds the primal's returned values this way:
    a function returning a cached loop's result directly would otherwise
    return the result of the erased loop."""

    def __init__(self, values: Sequence[SSAValue]):
        self._holder = UnregisteredOp.with_name("autodiff.held_values").create(
            operands=list(values)
        )

    def release(self) -> list[SSAValue]:
        """The values as they are now; the holder is dropped."""
        values = list(self._holder.operands)
        self._holder.erase()
        return values


def name_arguments(function: FuncOp, callee: FuncOp, extra: str) -> None:
    """Readable argument names: the callee's, then `extra` for the rest."""
    for index, argument in enumerate(function.args):
        if index < len(callee.args):
            argument.name_hint = callee.args[index].name_hint
        else:
            argument.name_hint = extra


class DerivativeFunctions:
    """The table of generated derivative functions of one module."""

    def __init__(self, module: ModuleOp, builders: BodyBuilders):
        self.module = module
        self.builders = builders
        self._symbols: dict[str, Operation] = {}
        self._generated: dict[DerivativeKey, FuncOp] = {}
        self._last_inserted: dict[str, Operation] = {}
        self._preparing: set[str] = set()
        self._prepared: set[str] = set()
        self._building: set[str] = set()
        """Generated functions whose bodies are being built."""
        self._lowering: list[EntryOp] = []
        """Entry ops being lowered, innermost last (to locate a cycle)."""
        for op in module.ops:
            name = op.properties.get("sym_name")
            if isinstance(name, StringAttr):
                self._symbols[name.data] = op
            if isinstance(op, FuncOp) and (key := DerivativeKey.of_function(op)) is not None:
                self._generated[key] = op

    # -- looking things up ---------------------------------------------------

    def symbol(self, name: str) -> Operation | None:
        return self._symbols.get(name)

    def callee(self, user: Operation, symbol: SymbolRefAttr) -> FuncOp:
        """The function `user` names, with a body; errors are located at `user`."""
        name = symbol.string_value()
        found = self._symbols.get(name)
        if not isinstance(found, FuncOp):
            raise error_at(
                DifferentiationError, user, f"callee @{name} is not a function of this module"
            )
        if not found.body.blocks:
            raise error_at(
                DifferentiationError,
                user,
                f"differentiation of '{user.name}' is not supported: "
                f"callee @{name} has no body",
            )
        return found

    def generated(self, kind: str) -> list[FuncOp]:
        """The generated functions of `kind` ("vjp", "grad" or "jvp") in the module."""
        return [function for key, function in self._generated.items() if key.kind == kind]

    def check_wrt(
        self, callee: FuncOp, wrt: Sequence[int] | None, user: Operation
    ) -> tuple[int, ...]:
        """`wrt` checked against `callee` (default: every float-tensor argument)."""
        inputs = callee.function_type.inputs.data
        if wrt is None:
            return tuple(i for i, type_ in enumerate(inputs) if is_differentiable_tensor(type_))
        for index in wrt:
            if not 0 <= index < len(inputs) or not is_differentiable_type(inputs[index]):
                raise error_at(
                    DifferentiationError,
                    user,
                    f"wrt index {index} does not name a float tensor or float scalar argument "
                    f"of @{callee.sym_name.data}",
                )
        if len(set(wrt)) != len(wrt):
            raise error_at(DifferentiationError, user, f"wrt indices {list(wrt)} repeat")
        return tuple(wrt)

    # -- the three kinds -------------------------------------------------------

    def vjp(
        self, callee: FuncOp, wrt: Sequence[int], results: Sequence[int] | None = None
    ) -> FuncOp:
        return self._get_or_build("vjp", callee, wrt, results, self.builders.vjp)

    def grad(self, callee: FuncOp, wrt: Sequence[int]) -> FuncOp:
        self.vjp(callee, wrt)  # first, so that it is placed before the grad function
        return self._get_or_build("grad", callee, wrt, None, self.builders.grad)

    def jvp(
        self, callee: FuncOp, wrt: Sequence[int], results: Sequence[int] | None = None
    ) -> FuncOp:
        return self._get_or_build("jvp", callee, wrt, results, self.builders.jvp)

    def _get_or_build(
        self,
        kind: str,
        callee: FuncOp,
        wrt: Sequence[int],
        results: Sequence[int] | None,
        build: BodyBuilder,
    ) -> FuncOp:
        callee_name = callee.sym_name.data
        all_results = float_result_indices(callee)
        key = DerivativeKey(
            kind, callee_name, tuple(wrt), all_results if results is None else tuple(results)
        )
        if (existing := self._generated.get(key)) is not None:
            return existing
        self.prepare(callee)
        inputs, outputs = key.signature(callee)
        function = FuncOp(
            unique_symbol(key.name(all_results), self._symbols),
            FunctionType.from_lists(inputs, outputs),
            Region(Block(arg_types=inputs)),
        )
        function.attributes[DERIVATIVE_ATTRIBUTE] = key.as_attribute()
        function.location = callee.location  # where a backend's error in it points
        name_arguments(function, callee, "tangent" if kind == "jvp" else "cotangent")
        anchor = self._last_inserted.get(callee_name, callee)
        Rewriter.insert_op(function, InsertPoint.after(anchor))
        self._last_inserted[callee_name] = function
        self._symbols[function.sym_name.data] = function
        # Registered before its body exists, so a recursive callee finds it.
        self._generated[key] = function
        self._building.add(function.sym_name.data)
        build(self, callee, function, key)
        self._building.discard(function.sym_name.data)
        return function

    # -- entry ops -----------------------------------------------------------

    def prepare(self, callee: FuncOp) -> None:
        """Replace the entry ops inside `callee` by calls, so it can be
        differentiated; a generated vjp function is cleaned first as well
        (`clean_for_differentiation`): its derivative is built from it."""
        name = callee.sym_name.data
        if name in self._prepared:
            return
        if name in self._preparing:
            raise error_at(
                DifferentiationError,
                self._lowering[-1] if self._lowering else callee,
                f"the derivative of @{name} depends on itself "
                "(an entry op inside it needs that derivative)",
            )
        self._preparing.add(name)
        for op in list(callee.walk()):
            if isinstance(op, EntryOp):
                self.lower_entry_op(op)
        key = DerivativeKey.of_function(callee)
        if key is not None and key.kind == "vjp" and name not in self._building:
            clean_for_differentiation(callee)
        self._preparing.discard(name)
        self._prepared.add(name)

    def lower_entry_op(self, op: EntryOp) -> None:
        """Replace `op` by a call to its derivative function."""
        callee = self.callee(op, op.callee)
        try:
            wrt = op.wrt_indices(tuple(callee.function_type.inputs.data))
        except VerifyException as error:
            raise error_at(DifferentiationError, op, str(error)) from error
        if isinstance(op, VjpOp) and op.is_grads_batched is not None:
            raise error_at(
                DifferentiationError,
                op,
                "autodiff.vjp with is_grads_batched is lowered by autodiff-vmap, "
                "which must run before the derivative passes",
            )
        self._lowering.append(op)
        if isinstance(op, GradOp):
            function = self.grad(callee, wrt)
        elif isinstance(op, VjpOp):
            function = self.vjp(callee, wrt)
        else:
            assert isinstance(op, JvpOp)
            function = self.jvp(callee, wrt)
        self._lowering.pop()
        outputs = callee.function_type.outputs.data
        differentiated = float_result_indices(callee)
        if isinstance(op, JvpOp) or len(differentiated) == len(outputs):
            arguments = list(op.args)
        else:  # the cotangents of integer results are ignored
            count = len(callee.function_type.inputs.data)
            arguments = [*op.args[:count], *(op.args[count + i] for i in differentiated)]
        call = CallOp(function.sym_name.data, arguments, list(function.function_type.outputs.data))
        call.location = op.location
        results = list(call.results)
        if isinstance(op, JvpOp) and len(differentiated) != len(outputs):
            tangents = dict(zip(differentiated, results[len(outputs):]))
            results[len(outputs):] = [
                tangents[i] if i in tangents else _integer_zero(op, call.results[i]) for i in range(len(outputs))
            ]
        Rewriter.replace_op(op, call, results)
