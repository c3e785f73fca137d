"""Checks of the values passed to gradir's public Python functions.

A bad *value* (`wrt=[0.5]`, `eps=0`, `modes=("bogus",)`, `checkpoint_every="x"`) is an
`ArgumentError` naming the parameter, raised before any work, never a silent
conversion (`int(0.5)` is 0) and never a `TypeError` from deep inside.

A wrong keyword *name* (`gradir.gradcheck(src, "f", epsilon=1e-3)`) stays Python's own
`TypeError`, raised by the call itself before gradir runs: it is a mistake in the
calling code, like calling any Python function wrongly, and every Python programmer
expects that exception there. Turning it into a `GradirError` would need `**kwargs`
on every public function, which would hide their signatures from `help()`, IDEs and
`inspect`. Where gradir forwards options itself (`gradir.compile(..., **options)` to
the target), it checks the names, so an unknown option is an `ArgumentError` too.
"""
from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Sequence

from gradir.errors import ArgumentError


def checked_integer(what: str, value: object, minimum: int | None = None) -> int:
    """`value` as an int if it is an integer (not a bool) of at least `minimum`."""
    if isinstance(value, bool):
        raise ArgumentError(f"{what} must be an integer, got {value!r}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ArgumentError(
            f"{what} must be an integer, got {value!r} ({type(value).__name__})"
        ) from None
    if minimum is not None and number < minimum:
        raise ArgumentError(f"{what} must be >= {minimum}, got {number}")
    return number


def checked_flag(what: str, value: object) -> bool:
    """`value` as a bool if it is one (Python's or NumPy's): `"yes"` or 1 is an error."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentError(f"{what} must be True or False, got {value!r}")
    return bool(value)


def checked_indices(what: str, values: object) -> tuple[int, ...] | None:
    """`values` (None, or a sequence of integers) as a tuple; each index's range is
    checked where the function it indexes is known."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, range)) and not _is_array(values):
        raise ArgumentError(
            f"{what} must be a list of argument indices, got {values!r} ({type(values).__name__})"
        )
    return tuple(checked_integer(f"{what} entry", value) for value in list(values))


def _is_array(value: object) -> bool:
    import numpy as np

    return isinstance(value, np.ndarray) and value.ndim == 1


def checked_real(
    what: str, value: object, *, positive: bool = False, non_negative: bool = False
) -> float:
    """`value` as a finite float (`positive`: > 0; `non_negative`: >= 0)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"{what} must be a number, got {value!r} ({type(value).__name__})")
    number = float(value)
    if not math.isfinite(number):
        raise ArgumentError(f"{what} must be finite, got {number!r}")
    if positive and number <= 0:
        raise ArgumentError(f"{what} must be > 0, got {number!r}")
    if non_negative and number < 0:
        raise ArgumentError(f"{what} must be >= 0, got {number!r}")
    return number


def checked_name(what: str, value: object) -> str:
    """`value` if it is a non-empty string (a function's symbol name)."""
    if not isinstance(value, str) or not value:
        raise ArgumentError(f"{what} must be a function name (a str), got {value!r}")
    return value


def checked_function_names(what: str, values: object) -> tuple[str, ...] | None:
    """None, or `values` (one function name, or a non-empty sequence of them) as a tuple."""
    if values is None:
        return None
    if isinstance(values, str):
        values = (values,)
    if not isinstance(values, Sequence) or not values:
        raise ArgumentError(f"{what} must be a function name or a non-empty sequence of them, got {values!r}")
    return tuple(checked_name(what, value) for value in values)


def checked_choices(what: str, values: object, choices: Sequence[str]) -> tuple[str, ...]:
    """`values` (one choice, or a non-empty sequence of them) as a tuple."""
    if isinstance(values, str):
        values = (values,)
    if not isinstance(values, Sequence) or not values:
        raise ArgumentError(f"{what} must be a non-empty sequence of {', '.join(map(repr, choices))}")
    for value in values:
        if not isinstance(value, str) or value not in choices:
            raise ArgumentError(
                f"{what}: unknown {value!r} (valid: {', '.join(map(repr, choices))})"
            )
    return tuple(values)
