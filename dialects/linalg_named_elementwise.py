"""MLIR 22's named elementwise linalg ops that xDSL 0.74 lacks: `linalg.abs`,
`ceil`, `erf`, `floor`, `negf`, `reciprocal`, `round`, `rsqrt`, `square`,
`tanh` (unary), `div`, `powf` and `div_unsigned` (binary).

Each is MLIR's OpDSL op `O[None] = fn(I[None], ...)`: one scalar function
applied element by element, every shaped operand read through the identity
map of the init's rank and a scalar operand (`ins(%s : f32)`) the same in
every iteration. The custom form is MLIR's,

    %r = linalg.tanh {attrs} ins(%x : tensor<4x3xf32>) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>

and the hidden body is the one `linalg.elementwise` builds for the same kind
(`square` is `mulf(x, x)`, `reciprocal` is `divf(1, x)`), so that the generic
form (`"linalg.tanh"(%x, %init) <{operandSegmentSizes = ...}> ({...})`) MLIR
prints reads back to the same op; a generic form whose body is another
computation is a verifier error, since the derivative rules read the op's
name, not its body. Like MLIR, the operands share the init's element type;
`div` takes floats or integers (`divf` / `divsi`), `div_unsigned` integers
only (`divui`), the others floats only.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, ArrayAttr, IntegerType, ShapedType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Region
from xdsl.ir.affine import AffineMap
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from gradir.dialects.linalg_elementwise import FLOAT_KINDS, INTEGER_KINDS, ElementwiseKind, ElementwiseKindAttr
from gradir.dialects.linalg_elementwise import ElementwiseOp as _ElementwiseOp
from gradir.dialects.linalg_structured import NamedStructuredOp, element_type, iterator_types

FLOATS, INTEGERS, BOTH = "floats", "integers", "floats or integers"


def _rank(outputs: Sequence[Attribute]) -> int:
    return len(outputs[0].get_shape()) if outputs and isinstance(outputs[0], ShapedType) else 0


class NamedElementwiseOperation(NamedStructuredOp):
    """`out = KIND(ins...)` element by element (see the module docstring)."""

    KIND: ClassVar[ElementwiseKind]
    """The scalar function, as `linalg.elementwise` names it."""
    ELEMENTS: ClassVar[str] = FLOATS
    """The element types MLIR accepts: `FLOATS`, `INTEGERS` or `BOTH`."""

    @classmethod
    def body_region(
        cls, input_types: Sequence[Attribute], output_types: Sequence[Attribute], properties: Mapping[str, Attribute]
    ) -> Region:
        return _ElementwiseOp.body_region(input_types, output_types, {"kind": ElementwiseKindAttr(cls.KIND)})

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        rank = _rank(self.outputs.types)
        return tuple(
            AffineMap.identity(rank) if isinstance(value.type, ShapedType) else AffineMap(rank, 0, ())
            for value in self.operands
        )

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return ArrayAttr(AffineMapAttr(m) for m in self.get_default_indexing_maps())

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types("p" * _rank(self.outputs.types))

    def verify_(self) -> None:
        if len(self.outputs) != 1:
            raise VerifyException(f"expects one init, got {len(self.outputs)}")
        output = element_type(self.outputs[0].type)
        table = FLOAT_KINDS if isinstance(output, AnyFloat) else INTEGER_KINDS
        accepted = {FLOATS: isinstance(output, AnyFloat), INTEGERS: isinstance(output, IntegerType)}
        if not accepted.get(self.ELEMENTS, isinstance(output, AnyFloat | IntegerType)):
            raise VerifyException(f"takes {self.ELEMENTS}, got {output}")
        arity, _ = table[self.KIND]
        if len(self.inputs) != arity:
            raise VerifyException(f"takes {arity} input{'s' * (arity > 1)}, got {len(self.inputs)}")
        for index, value in enumerate(self.inputs):
            if element_type(value.type) != output:
                raise VerifyException(
                    f"input #{index} has element type {element_type(value.type)}, expected the init's {output}"
                )
        expected = [op.name for op in self.get_hidden_region(self.inputs, self.outputs).block.ops]
        found = [op.name for op in self.body.block.ops]
        if found != expected:
            raise VerifyException(
                f"its body must compute what '{self.name}' denotes ({', '.join(expected)}), got {', '.join(found)}"
            )
        super().verify_()


def _define(kind: ElementwiseKind, elements: str, doc: str) -> type[NamedElementwiseOperation]:
    class_name = "".join(part.capitalize() for part in kind.value.split("_")) + "Op"
    namespace = {
        "name": f"linalg.{kind.value}",
        "KIND": kind,
        "ELEMENTS": elements,
        "__annotations__": {"KIND": "ClassVar[ElementwiseKind]", "ELEMENTS": "ClassVar[str]"},
        "__doc__": doc,
        "__module__": __name__,
        "__qualname__": class_name,
    }
    return irdl_op_definition(type(class_name, (NamedElementwiseOperation,), namespace))


_OPS = {
    # kind: (element types, what the op computes)
    ElementwiseKind.ABS: (FLOATS, "`|x|` (`math.absf`)."),
    ElementwiseKind.CEIL: (FLOATS, "`ceil(x)` (`math.ceil`)."),
    ElementwiseKind.ERF: (FLOATS, "The error function (`math.erf`)."),
    ElementwiseKind.FLOOR: (FLOATS, "`floor(x)` (`math.floor`)."),
    ElementwiseKind.NEGF: (FLOATS, "`-x` (`arith.negf`)."),
    ElementwiseKind.RECIPROCAL: (FLOATS, "`1 / x` (`arith.divf` of the constant 1)."),
    ElementwiseKind.ROUND: (FLOATS, "`x` rounded half away from zero (`math.round`)."),
    ElementwiseKind.RSQRT: (FLOATS, "`1 / sqrt(x)` (`math.rsqrt`)."),
    ElementwiseKind.SQUARE: (FLOATS, "`x * x` (`arith.mulf` of x by itself)."),
    ElementwiseKind.TANH: (FLOATS, "`tanh(x)` (`math.tanh`)."),
    ElementwiseKind.DIV: (BOTH, "`x / y` (`arith.divf`; `arith.divsi` on integers)."),
    ElementwiseKind.POWF: (FLOATS, "`x ** y` (`math.powf`)."),
    ElementwiseKind.DIV_UNSIGNED: (INTEGERS, "`x / y` of unsigned integers (`arith.divui`)."),
}

NAMED_ELEMENTWISE_OPS: tuple[type[NamedElementwiseOperation], ...] = tuple(
    _define(kind, elements, doc) for kind, (elements, doc) in _OPS.items()
)
"""One op class per entry of `_OPS`, added to gradir's linalg dialect."""
