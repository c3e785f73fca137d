"""Automatic differentiation passes: rules, activity, reverse and forward mode, zero specialisation, the f/df split.

Passes are importable from this package (`from gradir.autodiff_pass import AutodiffReversePass`) and
usable in any xDSL `PassPipeline`; they load on first use.
"""
import importlib

_EXPORTS = {
    "AutodiffReversePass": "gradir.autodiff_pass.reverse",
    "AutodiffForwardPass": "gradir.autodiff_pass.forward",
    "AutodiffSpecializeZeroPass": "gradir.autodiff_pass.specialize_zero",
    "AutodiffSplitPass": "gradir.autodiff_pass.split",
    "AutodiffLowerGradOfPass": "gradir.autodiff_pass.lower_grad_of",
    "Gradient": "gradir.autodiff_pass.split",
    "differentiate": "gradir.autodiff_pass.split",
    "register_vjp": "gradir.autodiff_pass.rules",
    "register_jvp": "gradir.autodiff_pass.rules",
    "get_rule": "gradir.autodiff_pass.rules",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
