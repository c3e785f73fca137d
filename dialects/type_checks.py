"""Type checks shared by the autodiff ops' verifiers, with the messages users see."""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    DYNAMIC_INDEX,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ShapedType,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

FLOAT_ELEMENT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def is_float_tensor(type_: Attribute) -> bool:
    """A ranked, statically shaped tensor of f16/bf16/f32/f64."""
    return (
        isinstance(type_, TensorType)
        and isinstance(type_.element_type, FLOAT_ELEMENT_TYPES)
        and all(size != DYNAMIC_INDEX for size in type_.get_shape())
    )


def is_float_scalar(type_: Attribute) -> bool:
    """An f16/bf16/f32/f64 scalar."""
    return isinstance(type_, FLOAT_ELEMENT_TYPES)


def is_differentiable_tensor(type_: Attribute) -> bool:
    """A ranked tensor of f16/bf16/f32/f64, of static or dynamic shape: what reverse and
    forward mode differentiate and vmap batches (the autodiff dialect's forward ops and the
    whole derivatives take static shapes only: `is_float_tensor`)."""
    return isinstance(type_, TensorType) and isinstance(type_.element_type, FLOAT_ELEMENT_TYPES)


def is_differentiable_type(type_: Attribute) -> bool:
    """What can have a gradient or tangent: a float tensor (of static or dynamic shape) or a
    float scalar."""
    return is_differentiable_tensor(type_) or is_float_scalar(type_)


def is_integer_valued(type_: Attribute) -> bool:
    """An integer or `index` scalar, or a tensor of them: a value that never carries a
    derivative (its cotangent is ignored, its tangent is zero)."""
    if isinstance(type_, TensorType):
        type_ = type_.element_type
    return isinstance(type_, (IntegerType, IndexType))


def dynamic_dims(type_: Attribute) -> list[int]:
    """The dimensions of a tensor type known only at run time (none for other types)."""
    if not isinstance(type_, TensorType):
        return []
    return [dim for dim, size in enumerate(type_.get_shape()) if size == DYNAMIC_INDEX]


def expect_float_tensor(type_: Attribute, what: str) -> TensorType:
    """Raise unless `type_` is a static float tensor; `what` names the value in the message."""
    if not isinstance(type_, TensorType):
        raise VerifyException(f"{what} must be a ranked tensor, got {type_}")
    if any(size == DYNAMIC_INDEX for size in type_.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {type_}")
    if not isinstance(type_.element_type, FLOAT_ELEMENT_TYPES):
        raise VerifyException(
            f"{what} must have a float element type (f16, bf16, f32 or f64), got {type_}"
        )
    return type_


def expect_bool_tensor(type_: Attribute, what: str) -> TensorType:
    """Raise unless `type_` is a static tensor of i1."""
    if (
        not isinstance(type_, TensorType)
        or type_.element_type != IntegerType(1)
        or any(size == DYNAMIC_INDEX for size in type_.get_shape())
    ):
        raise VerifyException(f"{what} must be a static tensor of i1, got {type_}")
    return type_


def expect_same_element_type(types: dict[str, TensorType]) -> None:
    """Raise unless every named tensor type has the same element type."""
    names = list(types)
    first = types[names[0]].element_type
    for name in names[1:]:
        if types[name].element_type != first:
            raise VerifyException(
                f"element types must match: {names[0]} has {first}, "
                f"{name} has {types[name].element_type}"
            )


def shape_of(type_: Attribute) -> tuple[int, ...]:
    """The shape of a tensor type; `()` for a scalar (a whole derivative's block treats it as
    a 0-d tensor, and a batch of scalars is one-dimensional)."""
    if isinstance(type_, TensorType):
        return tuple(type_.get_shape())
    assert not isinstance(type_, ShapedType), type_
    return ()


_TENSOR_TYPES: dict[tuple[Attribute, tuple[int, ...]], TensorType] = {}


def tensor_type(element_type: Attribute, shape: Sequence[int]) -> TensorType:
    """`TensorType(element_type, shape)`, one shared instance per (element, shape).

    Building an xDSL type validates and wraps every dimension, which was a
    tenth of reverse mode's time where each new op made its result type anew;
    attributes are immutable, so equal types may be one object."""
    key = (element_type, tuple(shape))
    found = _TENSOR_TYPES.get(key)
    if found is None:
        found = _TENSOR_TYPES[key] = TensorType(element_type, key[1])
    return found


def with_batch_dim(type_: Attribute, axis: int, size: int) -> TensorType:
    """`type_` (a tensor) with a dimension of `size` inserted at `axis`; a scalar
    (a batched function's argument or result inside `autodiff-vmap`): `tensor<size x type_>`."""
    if not isinstance(type_, TensorType):
        assert axis == 0, "a batched scalar has its batch dimension only"
        return tensor_type(type_, [size])
    shape = list(type_.get_shape())
    shape.insert(axis, size)
    return tensor_type(type_.element_type, shape)


def format_types(types: Sequence[Attribute]) -> str:
    """`(tensor<4xf32>, f32)`: a type list as verifier messages show it."""
    return "(" + ", ".join(str(t) for t in types) + ")"
