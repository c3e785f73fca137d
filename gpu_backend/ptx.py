"""PTX out of `gpu.binary`, and NVIDIA's `ptxas` to assemble it and report registers and spills.

MLIR's NVPTX backend writes PTX with no CUDA install (`cubin-format=isa`); turning it into a
cubin and learning its register count needs `ptxas`, which is optional: without it `assemble`
raises `TargetError`, and a CUDA driver can still JIT the PTX at load time.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mlir import ir
from mlir.dialects import gpu

from gradir.errors import TargetError

def kernel_ptx(module: ir.Module) -> dict[str, str]:
    """Kernel name -> PTX text, for every `gpu.binary` of a module lowered by `to_nvvm_binary`.

    Outlining makes one `gpu.module` (hence one `gpu.binary`) per kernel, so the binary's symbol
    names the kernel.
    """
    found: dict[str, str] = {}
    for op in module.body.operations:
        if op.operation.name != "gpu.binary":
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        for attribute in op.attributes["objects"]:
            compiled = gpu.ObjectAttr(attribute)
            if not _is_text(compiled.object):
                raise TargetError(
                    f"gpu.binary @{name} holds a binary object; compile with cubin-format=isa "
                    "to get PTX"
                )
            found[name] = compiled.object.decode()
    return found


def _is_text(data: bytes) -> bool:
    return data.lstrip().startswith((b"//", b".version"))


def ptxas_path() -> str | None:
    return shutil.which("ptxas")


@dataclass(frozen=True)
class KernelResources:
    """What `ptxas -v` reports for one entry function."""

    registers: int
    spill_store_bytes: int
    spill_load_bytes: int
    stack_frame_bytes: int
    shared_bytes: int

    @property
    def spill_bytes(self) -> int:
        return self.spill_store_bytes + self.spill_load_bytes


@dataclass(frozen=True)
class Assembled:
    cubin: bytes
    resources: dict[str, KernelResources]
    """Entry function name -> its resources."""


def assemble(ptx: str, chip: str = "sm_90", opt_level: int = 3) -> Assembled:
    """Assemble PTX for `chip` with `ptxas -v`; raises TargetError without ptxas or on failure."""
    executable = ptxas_path()
    if executable is None:
        raise TargetError(
            "ptxas not found on PATH: install the CUDA toolkit (or put its bin/ on PATH) "
            "to assemble PTX and report registers"
        )
    with tempfile.TemporaryDirectory(prefix="gradir-ptxas-") as scratch:
        source, target = Path(scratch, "kernel.ptx"), Path(scratch, "kernel.cubin")
        source.write_text(ptx)
        completed = subprocess.run(
            [executable, "-v", f"-O{opt_level}", f"-arch={chip}", str(source), "-o", str(target)],
            capture_output=True,
            text=True,
        )
        if completed.returncode != 0:
            message = " ".join(completed.stderr.split()) or f"exit status {completed.returncode}"
            raise TargetError(f"ptxas failed for {chip}: {message}")
        return Assembled(target.read_bytes(), parse_ptxas_verbose(completed.stderr))


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_FRAME = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_USED = re.compile(r"Used (\d+) registers")
_SHARED = re.compile(r"(\d+) bytes smem")


def parse_ptxas_verbose(text: str) -> dict[str, KernelResources]:
    """Per entry function: registers, spills, stack and shared memory from `ptxas -v` output."""
    resources: dict[str, KernelResources] = {}
    name = None
    frame = (0, 0, 0)
    for line in text.splitlines():
        if entry := _ENTRY.search(line):
            name, frame = entry.group(1), (0, 0, 0)
        elif name and (match := _FRAME.search(line)):
            frame = tuple(int(g) for g in match.groups())
        elif name and (used := _USED.search(line)):
            shared = _SHARED.search(line)
            resources[name] = KernelResources(
                registers=int(used.group(1)),
                stack_frame_bytes=frame[0],
                spill_store_bytes=frame[1],
                spill_load_bytes=frame[2],
                shared_bytes=int(shared.group(1)) if shared else 0,
            )
            name = None
    return resources
