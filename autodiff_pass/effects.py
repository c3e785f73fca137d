"""Memory-effect queries answered once per op class where the class decides them.

xDSL asks an op's traits for its effects on every query, and an op whose
effects are its body's (`RecursiveMemoryEffect`, e.g. `grad_of`) walks its
body each time. CSE and DCE ask for every op, several times over: on the
gradient functions of reverse mode that was a third of their time.
"""
from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.traits import (
    IsTerminator,
    MemoryEffect,
    NoMemoryEffect,
    RecursiveMemoryEffect,
    SymbolOpInterface,
    is_side_effect_free,
)
from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

_EFFECT_FREE, _BODY_EFFECTS, _ASK_THE_OP = 0, 1, 2
_CLASS_EFFECTS: dict[type[Operation], int] = {}


def _class_effects(op: Operation) -> int:
    """What `op`'s class says of its effects, decided once per class:
    `_EFFECT_FREE` when it defines no region and its only memory-effect traits
    are `NoMemoryEffect` (whose effects never depend on the op); `_BODY_EFFECTS`
    when they are `RecursiveMemoryEffect`/`NoMemoryEffect` only (the op has
    the effects of its body, e.g. `grad_of`); else `_ASK_THE_OP`."""
    op_class = type(op)
    known = _CLASS_EFFECTS.get(op_class)
    if known is None:
        definition = getattr(op_class, "get_irdl_definition", None)
        effects = op.get_traits_of_type(MemoryEffect)
        if (
            definition is not None
            and not definition().regions
            and bool(effects)
            and all(isinstance(trait, NoMemoryEffect) for trait in effects)
        ):
            known = _EFFECT_FREE
        elif effects and all(isinstance(trait, RecursiveMemoryEffect | NoMemoryEffect) for trait in effects):
            known = _BODY_EFFECTS
        else:
            known = _ASK_THE_OP
        _CLASS_EFFECTS[op_class] = known
    return known


def has_no_effects(op: Operation) -> bool:
    """xDSL's `is_side_effect_free`, answered from the class where it can be and
    through the bodies of ops whose effects are their bodies' (`grad_of`)."""
    kind = _class_effects(op)
    if kind == _EFFECT_FREE:
        return True
    if kind == _BODY_EFFECTS:
        return all(has_no_effects(child) for region in op.regions for block in region.blocks for child in block.ops)
    return is_side_effect_free(op)


def would_be_dead(op: Operation) -> bool:
    """xDSL's `would_be_trivially_dead` (dead once its results are unused),
    answered without asking the traits where `has_no_effects` can; linalg ops
    on tensors count as dead too (see `is_tensor_linalg_op`)."""
    if op.has_trait(IsTerminator) or op.has_trait(SymbolOpInterface):
        return False
    return has_no_effects(op) or is_tensor_linalg_op(op) or would_be_trivially_dead(op)


def is_tensor_linalg_op(op: Operation) -> bool:
    """A linalg op on tensors only (destination-passing style: its results are
    its only effect), which MLIR erases once unused. xDSL cannot tell:
    `linalg.yield` declares no effects, so every generic looks effectful."""
    return (
        op.name.startswith("linalg.")
        and bool(op.results)
        and all(isinstance(value.type, TensorType) for value in (*op.operands, *op.results))
    )
