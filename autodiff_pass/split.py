"""`autodiff-split`: lambda-lift each generated `vjp` function into f and df.

Like PyTorch's lambdaLiftReverse, a `vjp` function `<name>` (primal, then
reverse code) becomes

* `<name>_fwd(inputs) -> (real outputs..., captured temporaries...)`: the ops
  the primal results need;
* `<name>_bwd(output vjps..., captured inputs..., captured outputs...) ->
  (input gradients...)`: everything else;

and `<name>` itself becomes a call of one then the other, so callers keep
working. Captured are exactly the primal values the backward reads (what the
rules' saved inputs/outputs turned into); callee inputs are passed to df
directly instead of being re-output by f, and constants are rematerialised in
df instead of captured (PyTorch's liftConstants).

`<name>_fwd` carries PyTorch's `Gradient` record as

    autodiff.gradient = {f_real_outputs = 1 : i64,              // outputs of f that are the callee's
                         df_input_vjps = array<i64: 0>,          // f outputs whose vjp df takes first
                         df_input_captured_inputs = array<i64: 0, 1>,  // f inputs df takes next
                         df_input_captured_outputs = array<i64: 1>,    // f outputs df takes last
                         df_output_vjps = array<i64: 0, 1>}      // f inputs df returns gradients of

`differentiate(module, "f", wrt)` builds (or reuses) the vjp function of `f`,
cleans it, splits it and returns the same record as a `Gradient`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import ConstantLike

from gradir.autodiff_pass.activity import op_inputs
from gradir.autodiff_pass.derivative_functions import (
    DerivativeFunctions,
    DerivativeKey,
    clean_for_differentiation,
)
from gradir.autodiff_pass.differentiation import derivative_function_table
from gradir.autodiff_pass.ir_building import erase_dead_code
from gradir.autodiff_pass.specialize_zero import specialize_zero
from gradir.autodiff_pass.unused_arguments import checked_unused_choice, zero_results
from gradir.dialects.autodiff import AutogradZeroOp
from gradir.api_arguments import checked_indices, checked_name
from gradir.errors import DifferentiationError, GradirError, error_at, reports_internal_errors
from gradir.source import load_module
from gradir.verify import verify_module

GRADIENT_ATTR = "autodiff.gradient"
"""Attribute of `<name>_fwd` holding the Gradient record's index lists."""


@dataclass(frozen=True)
class Gradient:
    """PyTorch's Gradient record: f, df and how their values line up."""

    f: FuncOp
    """Runs the primal: real outputs, then captured temporaries."""
    df: FuncOp
    """Backward: (vjps of `df_input_vjps`, captured inputs, captured outputs) -> gradients."""
    f_real_outputs: int
    """How many outputs of `f` are the differentiated function's own results."""
    df_input_vjps: tuple[int, ...]
    """Indices of f's outputs whose vjps are df's first arguments."""
    df_input_captured_inputs: tuple[int, ...]
    """Indices of f's inputs passed to df next."""
    df_input_captured_outputs: tuple[int, ...]
    """Indices of f's outputs (real or temporary) passed to df last."""
    df_output_vjps: tuple[int, ...]
    """Indices of f's inputs whose gradients df returns, in order."""

    def __repr__(self) -> str:
        """One line naming the functions and the index lists (the xDSL ops' own repr dumps
        kilobytes of internals); `str(g.f)` and `str(g.df)` print the functions' IR."""
        return (
            f"Gradient(f=@{self.f.sym_name.data}, df=@{self.df.sym_name.data}, "
            f"f_real_outputs={self.f_real_outputs}, df_input_vjps={list(self.df_input_vjps)}, "
            f"df_input_captured_inputs={list(self.df_input_captured_inputs)}, "
            f"df_input_captured_outputs={list(self.df_input_captured_outputs)}, "
            f"df_output_vjps={list(self.df_output_vjps)})"
        )

    def as_attribute(self) -> DictionaryAttr:
        def indices(values: Sequence[int]) -> DenseArrayBase:
            return DenseArrayBase.from_list(i64, list(values))

        return DictionaryAttr(
            {
                "f_real_outputs": IntegerAttr(self.f_real_outputs, i64),
                "df_input_vjps": indices(self.df_input_vjps),
                "df_input_captured_inputs": indices(self.df_input_captured_inputs),
                "df_input_captured_outputs": indices(self.df_input_captured_outputs),
                "df_output_vjps": indices(self.df_output_vjps),
            }
        )

    @staticmethod
    def from_attribute(f: FuncOp, df: FuncOp) -> Gradient:
        record = f.attributes[GRADIENT_ATTR]
        assert isinstance(record, DictionaryAttr)

        def indices(key: str) -> tuple[int, ...]:
            value = record.data[key]
            assert isinstance(value, DenseArrayBase)
            return tuple(value.get_values())

        real_outputs = record.data["f_real_outputs"]
        assert isinstance(real_outputs, IntegerAttr)
        return Gradient(
            f,
            df,
            real_outputs.value.data,
            indices("df_input_vjps"),
            indices("df_input_captured_inputs"),
            indices("df_input_captured_outputs"),
            indices("df_output_vjps"),
        )


def _is_constant(op: Operation) -> bool:
    """Cheaper to recompute in df than to capture."""
    return not op.operands and not op.regions and (
        isinstance(op, AutogradZeroOp) or op.has_trait(ConstantLike, value_if_unregistered=False)
    )


def _primal_slice(block: Block, primal_outputs: Sequence[SSAValue]) -> set[Operation]:
    """The ops of `block` the primal outputs depend on."""
    primal: set[Operation] = set()
    pending = [value.owner for value in primal_outputs if isinstance(value, OpResult)]
    while pending:
        op = pending.pop()
        if op in primal:
            continue
        primal.add(op)
        pending.extend(
            value.owner
            for value in op_inputs(op)
            if isinstance(value, OpResult) and value.owner.parent is block
        )
    return primal


def split_vjp_function(function: FuncOp, key: DerivativeKey) -> Gradient:
    """Split `function` (the generated vjp function of `key`) into `_fwd` and `_bwd`."""
    name = function.sym_name.data
    block = function.body.block
    terminator = block.last_op
    assert isinstance(terminator, ReturnOp)
    output_count = len(function.function_type.outputs.data) - len(key.wrt)
    input_count = len(block.args) - len(key.results)
    inputs, cotangents = block.args[:input_count], block.args[input_count:]
    primal_outputs = list(terminator.arguments[:output_count])
    gradients = list(terminator.arguments[output_count:])
    Rewriter.erase_op(terminator)

    primal_ops = _primal_slice(block, primal_outputs)
    primal_order = [op for op in block.ops if op in primal_ops]
    reverse_order = [op for op in block.ops if op not in primal_ops]

    # What the backward reads: captures, in primal order (inputs first).
    read: set[SSAValue] = set(gradients)
    for op in reverse_order:
        read.update(op_inputs(op))
    captured_inputs = [i for i, argument in enumerate(inputs) if argument in read]
    lifted_constants = [op for op in primal_order if _is_constant(op) and op.results[0] in read]
    captured_values = [
        result
        for op in primal_order
        if not _is_constant(op)
        for result in op.results
        if result in read
    ]
    first_output_index: dict[SSAValue, int] = {}
    for index, value in enumerate(primal_outputs):
        first_output_index.setdefault(value, index)
    temporaries: list[SSAValue] = []
    captured_outputs: list[int] = []
    for value in captured_values:
        if value not in first_output_index:
            first_output_index[value] = output_count + len(temporaries)
            temporaries.append(value)
        captured_outputs.append(first_output_index[value])
    fwd_outputs = primal_outputs + temporaries
    used_cotangents = [j for j, cotangent in enumerate(cotangents) if cotangent in read]

    record_lists = (
        tuple(key.results[j] for j in used_cotangents),
        tuple(captured_inputs),
        tuple(captured_outputs),
        key.wrt,
    )

    # df: moves the reverse ops, reads captures through its arguments.
    bwd_arguments = (
        [cotangents[j] for j in used_cotangents]
        + [inputs[i] for i in captured_inputs]
        + [fwd_outputs[i] for i in captured_outputs]
    )
    bwd_types = [value.type for value in bwd_arguments]
    bwd = FuncOp(
        f"{name}_bwd",
        (bwd_types, [gradient.type for gradient in gradients]),
        Region(Block(arg_types=bwd_types)),
    )
    bwd_block = bwd.body.block
    replacements: dict[SSAValue, SSAValue] = dict(zip(bwd_arguments, bwd_block.args))
    for constant in lifted_constants:
        copy = constant.clone()
        bwd_block.add_op(copy)
        replacements[constant.results[0]] = copy.results[0]
    for op in reverse_order:
        op.detach()
        bwd_block.add_op(op)
    bwd_block.add_op(ReturnOp(*(replacements.get(g, g) for g in gradients)))

    def in_bwd(use: Use) -> bool:
        return bwd.is_ancestor(use.operation)

    for value, replacement in replacements.items():
        value.replace_uses_with_if(replacement, in_bwd)

    # f: moves the primal ops.
    input_types = [argument.type for argument in inputs]
    fwd = FuncOp(
        f"{name}_fwd",
        (input_types, [value.type for value in fwd_outputs]),
        Region(Block(arg_types=input_types)),
    )
    fwd_block = fwd.body.block
    for op in primal_order:
        op.detach()
        fwd_block.add_op(op)
    fwd_block.add_op(ReturnOp(*fwd_outputs))
    for argument, replacement in zip(inputs, fwd_block.args):
        argument.replace_all_uses_with(replacement)

    # `<name>` keeps its signature: call f, then df.
    forward_call = CallOp(fwd.sym_name.data, list(inputs), fwd.function_type.outputs.data)
    backward_call = CallOp(
        bwd.sym_name.data,
        [cotangents[j] for j in used_cotangents]
        + [inputs[i] for i in captured_inputs]
        + [forward_call.results[i] for i in captured_outputs],
        bwd.function_type.outputs.data,
    )
    block.add_ops(
        [
            forward_call,
            backward_call,
            ReturnOp(*forward_call.results[:output_count], *backward_call.results),
        ]
    )

    gradient = Gradient(fwd, bwd, output_count, *record_lists)
    fwd.attributes[GRADIENT_ATTR] = gradient.as_attribute()
    Rewriter.insert_op([fwd, bwd], InsertPoint.after(function))
    return gradient


def _existing_split(functions: DerivativeFunctions, function: FuncOp) -> Gradient | None:
    name = function.sym_name.data
    fwd, bwd = functions.symbol(f"{name}_fwd"), functions.symbol(f"{name}_bwd")
    if isinstance(fwd, FuncOp) and isinstance(bwd, FuncOp) and GRADIENT_ATTR in fwd.attributes:
        return Gradient.from_attribute(fwd, bwd)
    return None


@reports_internal_errors
def differentiate(
    source,
    name: str,
    wrt: Sequence[int] | None = None,
    *,
    allow_unused: bool | None = None,
    materialize_grads: bool | None = None,
) -> Gradient:
    """The f/df pair of function `name` w.r.t. arguments `wrt` (default: every
    float-tensor argument). `source` is `.mlir` text, a path, or an xDSL `ModuleOp`, to
    which `<name>_vjp_<wrt>` and its `_fwd`/`_bwd` are added (a module parsed from text
    or a path is verified first; `gradient.f.parent_op()` is it).

    A `wrt` argument the results do not depend on (`unused_arguments`) gets a zero
    gradient by default; as in `torch.autograd.grad`, `allow_unused=False` makes it a
    `DifferentiationError` located at the function, and `allow_unused=True,
    materialize_grads=False` leaves its gradient out: df returns none for it and
    `df_output_vjps` does not list it (PyTorch's None; df is then `<name>_bwd_used`)."""
    name = checked_name("differentiate: name", name)
    wrt = checked_indices("differentiate: wrt", wrt)
    allow_unused, materialize_grads = checked_unused_choice(allow_unused, materialize_grads)
    if isinstance(source, ModuleOp):
        module = source
    else:
        module = load_module(source)
        verify_module(module)
    present = {id(op) for op in module.ops}
    try:
        functions = derivative_function_table(module)
        callee = functions.symbol(name)
        if not isinstance(callee, FuncOp) or not callee.body.blocks:
            raise error_at(DifferentiationError, module, f"no function @{name} with a body to differentiate")
        function = functions.vjp(callee, functions.check_wrt(callee, wrt, callee))
        gradient = _existing_split(functions, function)
        if gradient is None:
            key = DerivativeKey.of_function(function)
            assert key is not None
            for generated in functions.generated("vjp"):  # it and those of the callees it calls
                clean_for_differentiation(generated)
            specialize_zero(function.body)
            erase_dead_code(function.body.block)
            gradient = split_vjp_function(function, key)
        unused = [gradient.df_output_vjps[k] for k in zero_results(gradient.df)]
        if unused and not allow_unused:
            raise error_at(
                DifferentiationError,
                callee,
                f"argument {unused[0]} of @{name} does not influence its result (its gradient is "
                "zero whatever the inputs: unused, or used only through stop_gradient or integers); "
                "allow_unused=True gives it a zero gradient",
            )
        if unused and not materialize_grads:
            return _without_gradients_of(gradient, unused, functions)
        return gradient
    except GradirError:
        # The user's module is left as it was: a half-built `<name>_vjp_...` left in it
        # made the next call on the same module fail with an internal error.
        for op in list(module.ops):
            if id(op) not in present:
                op.detach()
                op.erase()
        raise


def _without_gradients_of(gradient: Gradient, unused: Sequence[int], functions: DerivativeFunctions) -> Gradient:
    """`gradient` with a df that does not return the gradients of arguments `unused`:
    `<df>_used`, a copy of df made once (df itself keeps every gradient, for
    `materialize_grads=True` and for the calls of `<name>_vjp_<wrt>`)."""
    kept = [k for k, argument in enumerate(gradient.df_output_vjps) if argument not in unused]
    name = f"{gradient.df.sym_name.data}_used"
    df = functions.symbol(name)
    if not isinstance(df, FuncOp):
        df = gradient.df.clone()
        df.sym_name = StringAttr(name)
        terminator = df.body.block.last_op
        assert isinstance(terminator, ReturnOp)
        returned = [terminator.arguments[k] for k in kept]
        Rewriter.replace_op(terminator, ReturnOp(*returned))
        df.function_type = FunctionType.from_lists(df.function_type.inputs.data, [v.type for v in returned])
        erase_dead_code(df.body.block)
        Rewriter.insert_op(df, InsertPoint.after(gradient.df))
    return replace(gradient, df=df, df_output_vjps=tuple(gradient.df_output_vjps[k] for k in kept))


@dataclass(frozen=True)
class AutodiffSplitPass(ModulePass):
    """Split every generated vjp function into `<name>_fwd` and `<name>_bwd`."""

    name = "autodiff-split"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = derivative_function_table(op)
        for function in list(op.ops):
            if not isinstance(function, FuncOp):
                continue
            key = DerivativeKey.of_function(function)
            if key is None or key.kind != "vjp" or _existing_split(functions, function):
                continue
            split_vjp_function(function, key)
