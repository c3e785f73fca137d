"""`autodiff-jacobian`: whole Jacobians and Hessians as vmaps of vjp/jvp.

Each `autodiff.jacobian` is replaced by a call to a function generated once
per (callee, wrt, mode), `<callee>_jacobian_<mode>_<wrt>`:

* `rev`: one `autodiff.vmap` per callee result of a helper holding
  `autodiff.vjp`, over the rows of an identity (the output basis) as that
  result's cotangent (the other cotangents zero); the batch of gradients is
  reshaped to `shape(r) ++ shape(a)`;
* `fwd`: one `autodiff.vmap` per `wrt` argument of a helper holding
  `autodiff.jvp`, over the input basis as that argument's tangent, the batch
  dimension put last (`out_axes = rank(r)`) and reshaped likewise.

Without `mode`, forward when the `wrt` arguments have fewer elements than the
results (fewer basis vectors), as `jacfwd`/`jacrev` advice goes.

Each `autodiff.hessian` is the forward Jacobian of a helper returning the
gradient (`autodiff.grad`): forward over reverse. The pass runs before
`autodiff-vmap`, which lowers the vmaps and, inside them, the vjp/jvp/grad.

A float scalar argument in `wrt`, or a float scalar result, is differentiated as a 0-d
tensor: the derivative functions are made for `<callee>_scalars_as_tensors_<wrt>`, which
takes those arguments as 0-d tensors and returns those results as 0-d tensors around a
call of the callee, and the op's scalar operands are wrapped (`tensor.from_elements`),
since `autodiff.vmap` batches tensors only. The blocks keep their shapes (a scalar's is `()`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.batching_ops import HessianOp, JacobianOp, VmapOp
from gradir.dialects.entry_ops import GradOp, JvpOp, VjpOp
from gradir.dialects.forward_ops import ReshapeOp
from gradir.dialects.shape_rules import element_count
from gradir.dialects.type_checks import is_float_scalar, tensor_type
from gradir.errors import DifferentiationError, error_at


def _shape(type_: Attribute) -> list[int]:
    assert isinstance(type_, TensorType)
    return list(type_.get_shape())


def as_tensor(type_: Attribute) -> Attribute:
    """A float scalar type as its 0-d tensor type; any other type itself."""
    return tensor_type(type_, []) if is_float_scalar(type_) else type_


def identity_basis(type_: Attribute) -> arith.ConstantOp:
    """`[n] ++ shape(type_)` holding the n unit vectors of `type_`'s space."""
    assert isinstance(type_, TensorType)
    n = element_count(type_.get_shape())
    values = [1.0 if row == column else 0.0 for row in range(n) for column in range(n)]
    basis_type = tensor_type(type_.element_type, [n, *type_.get_shape()])
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(basis_type, values))


def zeros(type_: Attribute) -> arith.ConstantOp:
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [0.0]))  # type: ignore[arg-type]


def default_mode(inputs: Sequence[Attribute], outputs: Sequence[Attribute], wrt) -> str:
    """Forward when the wrt arguments have fewer elements than the results."""
    input_count = sum(element_count(_shape(inputs[i])) for i in wrt)
    output_count = sum(element_count(_shape(t)) for t in outputs)
    return "fwd" if input_count < output_count else "rev"


def _add(block: Block, op: Operation) -> Operation:
    block.add_op(op)
    return op


class _Functions:
    """The functions this pass generates in one module, once each."""

    def __init__(self, module: ModuleOp):
        self.module = module
        self.generated: dict[tuple, FuncOp] = {}
        self.last_inserted: dict[str, FuncOp] = {}
        """Per callee, the last function made for it: they follow it in order of creation."""

    def new_function(
        self, name: str, after: FuncOp, inputs: Sequence[Attribute], outputs: Sequence[Attribute]
    ) -> tuple[FuncOp, Block]:
        candidate, count = name, 0
        while SymbolTable.lookup_symbol(self.module, candidate) is not None:
            count += 1
            candidate = f"{name}__{count}"
        block = Block(arg_types=inputs)
        for index, argument in enumerate(block.args):  # the callee's names, then the seeds'
            hints = [a.name_hint for a in after.args]
            argument.name_hint = hints[index] if index < len(hints) else "seed"
        function = FuncOp(candidate, FunctionType.from_lists(inputs, outputs), Region(block))
        anchor = self.last_inserted.get(after.sym_name.data, after)
        Rewriter.insert_op(function, InsertPoint.after(anchor))
        self.last_inserted[after.sym_name.data] = function
        return function, block

    def callee(self, op: Operation) -> FuncOp:
        found = SymbolTable.lookup_symbol(op, op.properties["callee"])  # type: ignore[arg-type]
        if not isinstance(found, FuncOp) or not found.body.blocks:
            raise error_at(
                DifferentiationError, op, f"callee {op.properties['callee']} is not a function with a body"
            )
        return found

    def jacobian(self, op: Operation, callee: FuncOp, wrt: tuple[int, ...], mode: str) -> FuncOp:
        key = ("jacobian", callee.sym_name.data, wrt, mode)
        if key in self.generated:
            return self.generated[key]
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        results = [
            tensor_type(r.element_type, _shape(r) + _shape(inputs[a]))  # type: ignore[union-attr]
            for r in outputs
            for a in wrt
        ]
        suffix = "_".join(str(i) for i in wrt)
        name = f"{callee.sym_name.data}_jacobian_{mode}_{suffix}".rstrip("_")
        function, block = self.new_function(name, callee, inputs, results)
        self.generated[key] = function
        arguments = list(block.args)
        if mode == "rev":
            blocks = self._reverse(op, callee, wrt, block, arguments)
        else:
            blocks = self._forward(op, callee, wrt, block, arguments)
        _add(block, ReturnOp(*blocks))
        return function

    def _reverse(self, op, callee, wrt, block, arguments) -> list[SSAValue]:
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        wrt_types = [inputs[a] for a in wrt]
        helper, body = self.new_function(
            f"{block.parent_op().sym_name.data}_row", callee, inputs + outputs, wrt_types
        )
        vjp = _add(body, VjpOp(callee.sym_name.data, list(body.args), outputs + wrt_types, wrt))
        _add(body, ReturnOp(*vjp.results[len(outputs):]))
        blocks: dict[tuple[int, int], SSAValue] = {}
        for r, result_type in enumerate(outputs):
            basis = _add(block, identity_basis(result_type)).results[0]
            n = _shape(basis.type)[0]
            cotangents = [
                basis if k == r else _add(block, zeros(t)).results[0] for k, t in enumerate(outputs)
            ]
            in_axes = [-1] * len(inputs) + [0 if k == r else -1 for k in range(len(outputs))]
            batch_types = [tensor_type(t.element_type, [n, *_shape(t)]) for t in wrt_types]
            vmap = _add(block, 
                VmapOp(helper.sym_name.data, arguments + cotangents, batch_types,
                       in_axes, [0] * len(wrt), n)
            )
            for j, (rows, a_type) in enumerate(zip(vmap.results, wrt_types)):
                target = tensor_type(a_type.element_type, _shape(result_type) + _shape(a_type))
                blocks[(r, j)] = _add(block, ReshapeOp(rows, target)).results[0]
        return [blocks[(r, j)] for r in range(len(outputs)) for j in range(len(wrt))]

    def _forward(self, op, callee, wrt, block, arguments) -> list[SSAValue]:
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        wrt_types = [inputs[a] for a in wrt]
        helper, body = self.new_function(
            f"{block.parent_op().sym_name.data}_column", callee, inputs + wrt_types, outputs
        )
        jvp = _add(body, JvpOp(callee.sym_name.data, list(body.args), outputs + outputs, wrt))
        _add(body, ReturnOp(*jvp.results[len(outputs):]))
        blocks: dict[tuple[int, int], SSAValue] = {}
        for j, a_type in enumerate(wrt_types):
            basis = _add(block, identity_basis(a_type)).results[0]
            n = _shape(basis.type)[0]
            tangents = [
                basis if k == j else _add(block, zeros(t)).results[0] for k, t in enumerate(wrt_types)
            ]
            in_axes = [-1] * len(inputs) + [0 if k == j else -1 for k in range(len(wrt))]
            out_axes = [len(_shape(t)) for t in outputs]
            batch_types = [tensor_type(t.element_type, [*_shape(t), n]) for t in outputs]
            vmap = _add(block, 
                VmapOp(helper.sym_name.data, arguments + tangents, batch_types, in_axes, out_axes, n)
            )
            for r, (columns, r_type) in enumerate(zip(vmap.results, outputs)):
                target = tensor_type(r_type.element_type, _shape(r_type) + _shape(a_type))
                blocks[(r, j)] = _add(block, ReshapeOp(columns, target)).results[0]
        return [blocks[(r, j)] for r in range(len(outputs)) for j in range(len(wrt))]

    def gradient(self, callee: FuncOp, wrt: tuple[int, ...]) -> FuncOp:
        """A function returning the gradient of `callee` (for the Hessian)."""
        key = ("gradient", callee.sym_name.data, wrt)
        if key in self.generated:
            return self.generated[key]
        inputs = list(callee.function_type.inputs.data)
        wrt_types = [inputs[a] for a in wrt]
        function, block = self.new_function(
            f"{callee.sym_name.data}_hessian_gradient_" + "_".join(map(str, wrt)), callee, inputs, wrt_types
        )
        grad = _add(block, GradOp(callee.sym_name.data, list(block.args), wrt_types, wrt))
        _add(block, ReturnOp(*grad.results))
        self.generated[key] = function
        return function

    def scalars_as_tensors(self, callee: FuncOp, wrt: tuple[int, ...]) -> FuncOp:
        """`callee` with its float-scalar `wrt` arguments and float-scalar results as 0-d
        tensors (itself where it has none)."""
        inputs = list(callee.function_type.inputs.data)
        outputs = list(callee.function_type.outputs.data)
        tensor_inputs = [as_tensor(t) if i in wrt else t for i, t in enumerate(inputs)]
        tensor_outputs = [as_tensor(t) for t in outputs]
        if tensor_inputs == inputs and tensor_outputs == outputs:
            return callee
        key = ("scalars_as_tensors", callee.sym_name.data, wrt)
        if key in self.generated:
            return self.generated[key]
        suffix = "_".join(str(i) for i in wrt)
        function, block = self.new_function(
            f"{callee.sym_name.data}_scalars_as_tensors_{suffix}", callee, tensor_inputs, tensor_outputs
        )
        self.generated[key] = function
        arguments = [
            _add(block, tensor.ExtractOp(argument, [], original)).results[0] if original != argument.type else argument
            for argument, original in zip(block.args, inputs)
        ]
        call = _add(block, CallOp(callee.sym_name.data, arguments, outputs))
        results = [
            _add(block, tensor.FromElementsOp(result, result_type=wanted)).results[0] if wanted != result.type else result
            for result, wanted in zip(call.results, tensor_outputs)
        ]
        _add(block, ReturnOp(*results))
        return function

    # -- the ops -----------------------------------------------------------------

    def lower(self, op: JacobianOp | HessianOp) -> None:
        callee = self.callee(op)
        inputs = list(callee.function_type.inputs.data)
        try:
            wrt = op.wrt_indices(inputs)
            op.expected_signature(callee)
        except VerifyException as error:
            raise error_at(DifferentiationError, op, str(error)) from error
        callee = self.scalars_as_tensors(callee, wrt)
        arguments = list(op.args)
        for index, wanted in enumerate(callee.function_type.inputs.data):
            if wanted != arguments[index].type:  # a float scalar in `wrt`, passed as a 0-d tensor
                wrap = tensor.FromElementsOp(arguments[index], result_type=wanted)
                Rewriter.insert_op(wrap, InsertPoint.before(op))
                arguments[index] = wrap.results[0]
        inputs = list(callee.function_type.inputs.data)
        if isinstance(op, HessianOp):
            callee = self.gradient(callee, wrt)
            mode = "fwd"
        elif op.mode is not None:
            mode = op.mode.data
        else:
            mode = default_mode(inputs, callee.function_type.outputs.data, wrt)
        function = self.jacobian(op, callee, wrt, mode)
        call = CallOp(function.sym_name.data, arguments, list(op.result_types))
        call.location = op.location
        Rewriter.replace_op(op, call)


@dataclass(frozen=True)
class AutodiffJacobianPass(ModulePass):
    """Replace `autodiff.jacobian` / `autodiff.hessian` by calls to functions
    made of `autodiff.vmap`s of vjp/jvp (lowered by `autodiff-vmap`)."""

    name = "autodiff-jacobian"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = _Functions(op)
        for whole in [o for o in op.walk() if isinstance(o, (JacobianOp, HessianOp))]:
            functions.lower(whole)
