"""Static shape rules shared by the verifiers, the derivative rules and the lowering.

Shapes are tuples of non-negative ints (the dialect is statically shaped).
"""
from __future__ import annotations

from collections.abc import Sequence

Shape = tuple[int, ...]


def broadcast_shapes(*shapes: Sequence[int]) -> Shape | None:
    """The NumPy broadcast of `shapes`, or None when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    result: list[int] = []
    for axis in range(rank):
        size = 1
        for shape in shapes:
            offset = axis - (rank - len(shape))
            if offset < 0:
                continue
            dim = shape[offset]
            if dim == 1 or dim == size:
                continue
            if size != 1:
                return None
            size = dim
        result.append(size)
    return tuple(result)


def broadcasts_to(source: Sequence[int], target: Sequence[int]) -> bool:
    """True when `source` broadcasts to exactly `target` (NumPy rules)."""
    if len(source) > len(target):
        return False
    offset = len(target) - len(source)
    return all(s == 1 or s == t for s, t in zip(source, target[offset:]))


def reduced_shape(shape: Sequence[int], dims: Sequence[int], keepdim: bool) -> Shape:
    """The shape of a reduction of `shape` over `dims`."""
    reduced = set(dims)
    if keepdim:
        return tuple(1 if axis in reduced else size for axis, size in enumerate(shape))
    return tuple(size for axis, size in enumerate(shape) if axis not in reduced)


def matmul_shape(lhs: Sequence[int], rhs: Sequence[int]) -> Shape | None:
    """`[M,K]x[K,N] -> [M,N]` or `[B,M,K]x[B,K,N] -> [B,M,N]`; None when they do not match."""
    if len(lhs) != len(rhs) or len(lhs) not in (2, 3):
        return None
    if lhs[-1] != rhs[-2] or lhs[:-2] != rhs[:-2]:
        return None
    return (*lhs[:-1], rhs[-1])


def element_count(shape: Sequence[int]) -> int:
    count = 1
    for size in shape:
        count *= size
    return count


def format_shape(shape: Sequence[int]) -> str:
    """`4x8` for (4, 8), `scalar` for ()."""
    return "x".join(str(s) for s in shape) if shape else "scalar"
