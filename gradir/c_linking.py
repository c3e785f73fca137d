"""Linking exported code into a shared library with the system's C compiler, and the C names
of its headers: what the CPU
export (`cpu_backend.library_export`) and the GPU export (`gpu_backend.cuda_library_export`)
share, kept here because neither backend imports the other. Standard library only."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from gradir.errors import TargetError

LINK_FLAGS = ("-shared", "-fPIC", "-Wl,-Bsymbolic", "-Wl,-z,defs", "-Wl,-z,noexecstack")
"""`-Bsymbolic`: the library's references to its own functions and globals never bind to a
same-named symbol of another library (two exported programs both define `_mlir_ciface_f`);
`-z defs`: a symbol nothing defines is a link error now, not a failed `dlopen` later."""

C_TYPES = {
    "f16": "_Float16", "f32": "float", "f64": "double", "i1": "bool", "i8": "int8_t",
    "i16": "int16_t", "i32": "int32_t", "i64": "int64_t", "index": "int64_t",
}  # fmt: skip
"""MLIR element type -> the C type of a scalar of it, for the generated headers."""

C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""MLIR's symbol names may be any string (`@"my f"`); C declares only identifiers."""

COMPILERS = ("cc", "gcc", "clang")
"""C compiler drivers tried in order when `CC` is not set."""


def c_compiler() -> str:
    """The C compiler driver that links: `$CC`, else the first of `COMPILERS` on the PATH."""
    candidates = [os.environ["CC"]] if os.environ.get("CC") else list(COMPILERS)
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    raise TargetError(
        f"exporting a shared library needs a C compiler to link it, and none was found "
        f"(tried {', '.join(candidates)}; set CC)"
    )


def link(output: Path, inputs: Sequence[Path], libraries: Sequence[str], flags: Sequence[str] = ()) -> None:
    """Link the object and C files `inputs` into the shared library `output` (`-l` each of
    `libraries`; `flags`: more compiler flags, such as `-D` definitions); a one-line
    `TargetError` with the compiler's first lines when it fails."""
    compiler = c_compiler()
    command = [compiler, *LINK_FLAGS, *flags, "-o", str(output), *map(str, inputs)]
    command += [f"-l{name}" for name in libraries]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise TargetError(f"linking {output.name} with {compiler} failed: {' / '.join(lines[:3])}")
