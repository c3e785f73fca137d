"""Lazy package exports: a name is imported from its module on first access.

Importing `gradir` must stay cheap (MLIR and the passes load only when used),
yet `gradir.compile`, `from gradir.autodiff_pass import AutodiffReversePass`
and tab completion must all work. Each package states its exports as a table
name -> defining module and installs the two hooks this module makes.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package` (whose globals are
    `namespace`) exporting `exports` (name -> module defining it)."""

    def __getattr__(name: str) -> Any:
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *exports})

    return __getattr__, __dir__
