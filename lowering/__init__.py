"""Lowering of the autodiff dialect to linalg/tensor/arith/math on tensors.

Passes are importable from this package (`from gradir.lowering import ConvertAutodiffToLinalgPass`) and
usable in any xDSL `PassPipeline`; they load on first use.
"""
import importlib

_EXPORTS = {
    "ConvertAutodiffToLinalgPass": "gradir.lowering.convert_autodiff_to_linalg",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
