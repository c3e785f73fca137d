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


GRADIR_REPLACEMENT_PASSES: dict[str, tuple[str, str]] = {
    "cse": ("gradir.autodiff_pass.cse", "ScopedCommonSubexpressionElimination"),
    "dce": ("gradir.autodiff_pass.dce", "DeadCodeElimination"),
}
"""xDSL passes gradir replaces under the same name. xDSL 0.74's `cse` copies its
table of known ops into every nested region, which is quadratic on gradient
functions (one `grad_of` region per forward op); gradir's is the same CSE with
chained scopes, linear in the size of the function. Both gradir's `cse` and `dce`
answer "is this op pure?" once per op class (or op) instead of asking its traits on
every query (`autodiff_pass/effects.py`), and pause the cyclic garbage collector."""


def pass_is_available(name: str) -> bool:
    """Whether the module implementing pass `name` exists (some arrive with later work)."""
    module_name, _ = (GRADIR_PASS_LOCATIONS | GRADIR_REPLACEMENT_PASSES)[name]
    return importlib.util.find_spec(module_name) is not None


def _factory(module_name: str, class_name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(module_name), class_name)

    return load


def gradir_passes(replacements: bool = True) -> dict[str, Callable[[], type[ModulePass]]]:
    """Factories for the gradir passes whose implementation is present, with
    (by default) those that replace xDSL passes of the same name. The xDSL
    universe entry point leaves the replacements out: xDSL refuses two
    definitions of one name."""
    locations = GRADIR_PASS_LOCATIONS | (GRADIR_REPLACEMENT_PASSES if replacements else {})
    return {
        name: _factory(module_name, class_name)
        for name, (module_name, class_name) in locations.items()
        if pass_is_available(name)
    }
