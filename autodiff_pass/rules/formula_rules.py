"""The rules of derivatives.yaml entries: formulas evaluated on an op.

`FormulaReverse` holds one reverse formula per differentiable input,
`FormulaForward` one tangent formula per result (`yaml_loader` builds them);
both evaluate their formulas with the formula language's `Emitter` over the
op's operands, results, gradients or tangents, and the properties in
`PROPERTY_KINDS`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation

from gradir.autodiff_pass.rules.formula import Emitter, Expr, Kind, Zero
from gradir.dialects.autodiff import BroadcastToOp

PROPERTY_KINDS = {"permutation": Kind.INTS, "dims": Kind.INTS, "keepdim": Kind.BOOL, "dim": Kind.INT}
"""Op properties formulas may read, and their kinds."""


def _property_values(op: Operation) -> dict[str, object]:
    """The op's properties formulas may read; an absent `dims` means every dim."""
    values: dict[str, object] = {"true": True, "false": False}
    for name in PROPERTY_KINDS:
        if not isinstance(op, IRDLOperation) or name not in op.get_irdl_definition().properties:
            continue
        attr = op.properties.get(name)
        if attr is None and name == "dims":
            assert isinstance(op.operands[0].type, TensorType)
            values[name] = tuple(range(op.operands[0].type.get_num_dims()))
        elif isinstance(attr, DenseArrayBase):
            values[name] = tuple(attr.get_values())
        elif isinstance(attr, IntegerAttr):
            value = attr.value.data
            values[name] = bool(value) if attr.type == IntegerType(1) else value
    return values


def _result_values(op: Operation) -> dict[str, object]:
    values: dict[str, object] = {"results": list(op.results)}
    if len(op.results) == 1:
        values["result"] = op.results[0]
    return values


@dataclass(frozen=True)
class FormulaReverse:
    """The reverse rule of a YAML entry: one formula per differentiable input."""

    input_names: tuple[str, ...]
    formulas: tuple[Expr | None, ...]

    def __call__(
        self, builder: Builder, op: Operation, output_grads: Sequence[SSAValue]
    ) -> list[SSAValue | None]:
        environment = {**_property_values(op), **_result_values(op)}
        environment.update(zip(self.input_names, op.operands))
        environment["grads"] = list(output_grads)
        if len(output_grads) == 1:
            environment["grad"] = output_grads[0]
        emitter = Emitter(builder, environment)
        return [None if f is None else emitter.evaluate(f) for f in self.formulas]  # type: ignore[misc]


@dataclass(frozen=True)
class FormulaForward:
    """The forward rule of a YAML entry: one tangent formula per result."""

    input_names: tuple[str, ...]
    formulas: tuple[Expr | None, ...]

    def __call__(
        self, builder: Builder, op: Operation, input_tangents: Sequence[SSAValue | None]
    ) -> list[SSAValue | None]:
        environment = {**_property_values(op), **_result_values(op)}
        for name, operand, tangent in zip(self.input_names, op.operands, input_tangents):
            environment[name] = environment[f"{name}_p"] = operand
            environment[f"{name}_t"] = Zero(operand.type) if tangent is None else tangent
        emitter = Emitter(builder, environment)
        tangents: list[SSAValue | None] = []
        for formula, result in zip(self.formulas, op.results):
            tangent = None if formula is None else emitter.evaluate(formula)
            if isinstance(tangent, Zero):
                tangent = None
            elif isinstance(tangent, SSAValue) and tangent.type != result.type:
                # A dropped zero term can leave a sum with an operand's smaller shape.
                tangent = builder.insert(BroadcastToOp(tangent, result.type)).result
            tangents.append(tangent)  # type: ignore[arg-type]
        return tangents
