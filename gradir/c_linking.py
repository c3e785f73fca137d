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



def memref_typedefs(signatures: dict) -> list[str]:
    """One `gradir_memref_<rank>d` typedef (MLIR's memref descriptor) per tensor rank that
    `signatures` (name -> `native_calls.FunctionSignature`) use."""
    ranks = sorted({len(spec.shape) for signature in signatures.values()
                    for spec in (*signature.arguments, *signature.results) if not spec.is_scalar})  # fmt: skip
    lines = []
    for rank in ranks:
        arrays = f" int64_t sizes[{rank}]; int64_t strides[{rank}];" if rank else ""
        lines.append(f"typedef struct {{ void *allocated; void *aligned; int64_t offset;{arrays} }} gradir_memref_{rank}d;")
    return lines


def c_parameters(signature) -> list[str]:
    """A function's C parameters: its arguments (scalars by value, tensors as descriptor
    pointers), then its tensor results as out-parameters."""
    parameters = []
    for index, spec in enumerate(signature.arguments):
        c_type = C_TYPES[spec.element] if spec.is_scalar else f"gradir_memref_{len(spec.shape)}d *"
        parameters.append(f"{c_type}{'' if c_type.endswith('*') else ' '}arg{index} /* {spec} */")
    for index, spec in enumerate(signature.results):
        if not spec.is_scalar:
            parameters.append(f"gradir_memref_{len(spec.shape)}d *result{index} /* {spec} */")
    return parameters


def c_return_type(signature) -> str | None:
    """The C type a function returns: its one scalar result's, `void` without one, None with
    two or more (LLVM returns those as a struct, not by the C ABI)."""
    scalars = signature.scalar_results
    if len(scalars) > 1:
        return None
    return C_TYPES[signature.results[scalars[0]].element] if scalars else "void"


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
