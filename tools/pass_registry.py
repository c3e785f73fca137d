"""Every gradir pass by CLI name, imported lazily (the registry is a dict of factories).

A pass named `autodiff-specialize-zero` lives in
`autodiff_pass/specialize_zero.py` as `AutodiffSpecializeZeroPass`.
"""
from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable

from xdsl.passes import ModulePass

# CLI name -> (module, class)
GRADIR_PASS_LOCATIONS: dict[str, tuple[str, str]] = {
    "autodiff-reverse": ("gradir.autodiff_pass.reverse", "AutodiffReversePass"),
    "autodiff-forward": ("gradir.autodiff_pass.forward", "AutodiffForwardPass"),
    "autodiff-specialize-zero": (
        "gradir.autodiff_pass.specialize_zero",
        "AutodiffSpecializeZeroPass",
    ),
    "autodiff-split": ("gradir.autodiff_pass.split", "AutodiffSplitPass"),
    "autodiff-lower-grad-of": (
        "gradir.autodiff_pass.lower_grad_of",
        "AutodiffLowerGradOfPass",
    ),
    "convert-autodiff-to-linalg": (
        "gradir.lowering.convert_autodiff_to_linalg",
        "ConvertAutodiffToLinalgPass",
    ),
}


def pass_is_available(name: str) -> bool:
    """Whether the module implementing pass `name` exists (some arrive with later work)."""
    module_name, _ = GRADIR_PASS_LOCATIONS[name]
    return importlib.util.find_spec(module_name) is not None


def _factory(module_name: str, class_name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(module_name), class_name)

    return load


def gradir_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Factories for the gradir passes whose implementation is present."""
    return {
        name: _factory(module_name, class_name)
        for name, (module_name, class_name) in GRADIR_PASS_LOCATIONS.items()
        if pass_is_available(name)
    }
