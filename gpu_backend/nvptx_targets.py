"""The NVIDIA chips and PTX versions gradir can target, checked before MLIR sees them.

LLVM's NVPTX backend takes an unknown chip or feature with a warning on stderr and carries
on (`'sm_1000' is not a recognized processor for this target (ignoring processor)`): PTX
for a chip that does not exist, exit status 0. A PTX version below a chip's minimum is
worse, an `LLVM ERROR` that ends the whole process. And both strings are spliced into an
MLIR pass-pipeline option, where a space or a brace would change the pipeline. So chips
and features are checked here, against this table of LLVM 22's NVPTX target
(`llc -march=nvptx64 -mcpu=help`; `tests/gpu_backend/test_nvptx_targets.py` compares
the two).

Chips before `sm_50` are left out: LLVM still knows them, but CUDA 12's `ptxas` does not.
Pure Python: the CLI checks its options without loading MLIR.
"""
from __future__ import annotations

import re

from gradir.errors import TargetError

MINIMUM_PTX_VERSION: dict[str, int] = {
    "sm_50": 40, "sm_52": 41, "sm_53": 42,
    "sm_60": 50, "sm_61": 50, "sm_62": 50,
    "sm_70": 60, "sm_72": 61, "sm_75": 63,
    "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_88": 90, "sm_89": 78,
    "sm_90": 78, "sm_90a": 80,
    "sm_100": 86, "sm_100a": 86, "sm_100f": 88,
    "sm_101": 86, "sm_101a": 86, "sm_101f": 88,
    "sm_103": 88, "sm_103a": 88, "sm_103f": 88,
    "sm_110": 90, "sm_110a": 90, "sm_110f": 90,
    "sm_120": 87, "sm_120a": 87, "sm_120f": 88,
    "sm_121": 88, "sm_121a": 88, "sm_121f": 88,
}  # fmt: skip
"""Each chip LLVM 22 targets (from `sm_50`), and the lowest PTX ISA version, times ten,
that LLVM accepts for it (what `llc -mcpu=CHIP` writes as `.version` by default)."""

PTX_VERSIONS: tuple[int, ...] = (
    32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78,
    80, 81, 82, 83, 84, 85, 86, 87, 88, 90,
)  # fmt: skip
"""The `ptxNN` features of LLVM 22's NVPTX target."""

DEFAULT_CHIP = "sm_90"
DEFAULT_PTX_VERSION = 80

_FEATURE = re.compile(r"\+ptx(\d+)")


def checked_chip(chip: object) -> str:
    """`chip` if LLVM's NVPTX target knows it, else a `TargetError` listing the chips."""
    if not isinstance(chip, str) or chip not in MINIMUM_PTX_VERSION:
        raise TargetError(
            f"unknown GPU chip {chip!r} (known chips: {', '.join(MINIMUM_PTX_VERSION)})"
        )
    return chip


def default_features(chip: str) -> str:
    """`+ptx80`, or the chip's minimum PTX version where that is higher."""
    return f"+ptx{max(DEFAULT_PTX_VERSION, MINIMUM_PTX_VERSION[checked_chip(chip)])}"


def checked_features(features: object, chip: str) -> str:
    """`features` (comma-separated `+ptxNN`) if each is a PTX version LLVM knows and the
    highest is at least `chip`'s minimum; else a `TargetError`."""
    chip = checked_chip(chip)
    if not isinstance(features, str) or not features:
        raise TargetError(f"GPU features must be text like '+ptx80', got {features!r}")
    versions = []
    for feature in features.split(","):
        match = _FEATURE.fullmatch(feature)
        if match is None or int(match[1]) not in PTX_VERSIONS:
            known = ", ".join(f"+ptx{v}" for v in PTX_VERSIONS)
            raise TargetError(
                f"unknown GPU feature {feature!r} (gradir takes PTX versions: {known})"
            )
        versions.append(int(match[1]))
    needed = MINIMUM_PTX_VERSION[chip]
    if max(versions) < needed:
        raise TargetError(
            f"{chip} needs PTX version {needed // 10}.{needed % 10} or later "
            f"(--gpu-features +ptx{needed}), but {features} asks for "
            f"{max(versions) // 10}.{max(versions) % 10}"
        )
    return features


def checked_target(chip: object, features: object | None = None) -> tuple[str, str]:
    """`(chip, features)` checked, with the default features where none are given."""
    chip = checked_chip(chip)
    if features is None:
        return chip, default_features(chip)
    return chip, checked_features(features, chip)
