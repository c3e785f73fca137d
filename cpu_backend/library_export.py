"""Compiled host code as a self-contained shared library: `libf.so`, `libf.h`, `libf.json`.

The ExecutionEngine that JIT-compiles a module (`cpu_runtime`, built position-independent)
hands back its machine code as an object file; the system's C compiler links it into a
shared library (`link_shared_library`), together with a few lines of C that define what the
JIT otherwise receives from the runtime (`RUNTIME_C`): the pthread key of the guarded entry
points (created when the library loads) and the allocation limit (a global the loader sets).
Beside the library go a C header declaring each public function (`c_header`) and the JSON
manifest `gradir.native_library` reads (`manifest`).

Code with OpenMP regions (`parallel_loops`) calls the `__kmpc_*` entry points of the thread
runtime (`thread_runtime`), which the JIT is handed by address; a library links the runtime
file instead (`RuntimePlacement`). `gradir.export` copies it beside the library and finds it
through an `$ORIGIN` run path, so the directory stays self-contained (NumPy and ctypes run
it); a compilation cache entry points its run path at the installed runtime instead, as a
2.7 MB copy per entry would cost more than the entry itself, and an entry whose runtime is
gone fails to load, which the cache treats as a broken entry (dropped, compiled again). The
library names the runtime by its soname (`libiomp5.so`), so where a process already holds
one (loaded by gradir's JIT, or by NumPy's MKL) the loader binds to it rather than starting
a second OpenMP runtime, which Intel's runtime refuses.

Everything is written under temporary names in the destination's directory and renamed into
place, so a reader never sees half a file (`write_library_files`).
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
import shutil
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from gradir.c_linking import C_IDENTIFIER as _C_IDENTIFIER
from gradir.c_linking import COMPILERS, LINK_FLAGS, c_compiler, link  # noqa: F401 (re-exported)
from gradir.c_linking import c_parameters, c_return_type, memref_typedefs
from gradir.errors import ArgumentError, TargetError
from gradir.native_calls import FunctionSignature, signature_to_json
from gradir.native_library import MANIFEST_FORMAT, MANIFEST_VERSION, RUNTIME_FIELD, file_sha256, manifest_path

LINK_LIBRARIES: tuple[str, ...] = ("m",)
"""Libraries every exported library links against (`-l` names), the one place to list them:
libm for the math functions `convert-math-to-libm` calls. Parallel code also links the
thread runtime (`thread_runtime_link`), found by its path, not by name."""


class RuntimePlacement(Enum):
    """Where a parallel library finds its thread runtime when it is loaded."""

    BESIDE = "beside"
    """A copy in the library's directory, found through the run path `$ORIGIN` (export)."""
    INSTALLED = "installed"
    """The installed runtime, found through a run path to its directory (cache entries)."""

RUNTIME_C = """\
#include <pthread.h>
#include <stdint.h>

/* Where a guarded call keeps its jump buffer (checked_allocations): one key per library. */
uint32_t {key};
/* The largest allocation the code may ask for, in bytes; gradir.load sets it to the memory
   this process may hold. Larger requests fail as if malloc had refused them. */
int64_t {limit} = INT64_MAX;

__attribute__((constructor)) static void gradir_create_key(void) {{
  pthread_key_create((pthread_key_t *)&{key}, 0);
}}
"""


@dataclass(frozen=True)
class LibraryContents:
    """What a library is built from: the object file's bytes and what the manifest says of it."""

    object_code: bytes
    signatures: dict[str, FunctionSignature]
    guards: dict[str, str]
    """Public function -> its guarded entry point (`checked_allocations.CheckedEntryPoints`)."""
    key_symbol: str
    limit_symbol: str
    check_failures: Sequence[tuple[str | None, str]]
    opt_level: int
    parallel: bool = False
    """Whether the code has OpenMP regions (then it links the thread runtime)."""


def installed_thread_runtime() -> Path:
    """The thread runtime's file, or the `TargetError` saying it is missing."""
    from gradir.cpu_backend.thread_runtime import RUNTIME_FILE, RUNTIME_PACKAGE, thread_runtime_library

    path = thread_runtime_library()
    if path is None:
        raise TargetError(
            f"this code runs on threads and links the OpenMP runtime {RUNTIME_FILE} (pip package "
            f"'{RUNTIME_PACKAGE}'), which is not installed or does not load; install it, or compile "
            f"with num_threads=1"
        )
    return Path(path)


def thread_runtime_link(runtime: Path, directory: Path, placement: RuntimePlacement) -> tuple[list[str], list[str]]:
    """(`-l` names, compiler flags) that link `runtime` into a library written to `directory`
    and find it again at load time (`placement`); a copy is put in `directory` for BESIDE."""
    if placement is RuntimePlacement.BESIDE:
        shutil.copy2(runtime, directory / runtime.name)
        search, run_path = directory, "$ORIGIN"
    else:
        search = run_path = runtime.parent
    return [f":{runtime.name}"], [f"-L{search}", f"-Wl,-rpath,{run_path}"]


def link_shared_library(
    contents: LibraryContents, output: Path, work: Path, placement: RuntimePlacement = RuntimePlacement.BESIDE
) -> str | None:
    """Link `contents`' object code and `RUNTIME_C` into the shared library `output`
    (`work`: a scratch directory), with the thread runtime where the code is parallel
    (`placement`). Returns the runtime's path as the manifest records it (None if serial):
    the file's name for BESIDE, its absolute path for INSTALLED."""
    object_file, runtime = work / "code.o", work / "runtime.c"
    object_file.write_bytes(contents.object_code)
    runtime.write_text(RUNTIME_C.format(key=contents.key_symbol, limit=contents.limit_symbol))
    libraries, flags, recorded = list(LINK_LIBRARIES), [], None
    if contents.parallel:
        thread_runtime = installed_thread_runtime()
        names, flags = thread_runtime_link(thread_runtime, output.parent, placement)
        libraries += names
        recorded = thread_runtime.name if placement is RuntimePlacement.BESIDE else str(thread_runtime)
    link(output, [object_file, runtime], libraries, flags)
    return recorded


def c_header(contents: LibraryContents, guard_name: str) -> str:
    """Declarations of each public function's C interface, for C and C++ callers."""
    lines = [
        "/* Generated by gradir.export; the functions' signatures are also in the .json manifest. */",
        f"#ifndef {guard_name}",
        f"#define {guard_name}",
        "#include <stdbool.h>",
        "#include <stdint.h>",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        "/* A tensor is passed as a pointer to MLIR's memref descriptor (strides in elements,",
        "   row-major). Results are out-parameters: the caller allocates their buffers and",
        "   fills in their descriptors. */",
    ]
    lines += memref_typedefs(contents.signatures)
    lines += [
        "",
        "/* Each function `f` has a guarded entry point `__gradir_guarded_f(int64_t *failure, ...)`:",
        "   *failure stays 0 on success; it is the size of an allocation that failed (> 0), or",
        "   -1 - n when run-time check n failed (its message: the manifest's run_time_checks[n]).",
        "   Its other parameters are the tensor arguments (descriptor pointers) and scalars (by value)",
        "   in order, then a descriptor pointer per tensor result; one scalar result is returned.",
        "   A function with two or more scalar results is declared only through its packed form",
        "   `void _mlir___gradir_guarded_f(void **slots)`, which every function also has:",
        "   slots[0] points to the int64_t failure code, then (with two or more scalar results) to a",
        "   pointer to a struct of them, then one slot per argument (a scalar's address, or the",
        "   address of a descriptor pointer), per tensor result (likewise), and the address where",
        "   one scalar result is stored. */",
        f"extern int64_t {contents.limit_symbol}; /* bytes one allocation may ask for */",
        "",
    ]
    for name, signature in contents.signatures.items():
        guard = contents.guards[name]
        parameters = ["int64_t *failure", *c_parameters(signature)]
        lines.append(f"/* {name}: ({', '.join(map(str, signature.arguments))}) -> "
                     f"({', '.join(map(str, signature.results))}) */")  # fmt: skip
        if not _C_IDENTIFIER.fullmatch(guard):
            lines += [f"/* not a C identifier: look up `_mlir_{guard}` with dlsym */", ""]
            continue
        returned = c_return_type(signature)
        if returned is not None:
            lines.append(f"{returned} {guard}(\n    " + ",\n    ".join(parameters) + ");")
        lines.append(f"void _mlir_{guard}(void **slots);")
        lines.append("")
    lines += ["#ifdef __cplusplus", "}", "#endif", f"#endif /* {guard_name} */", ""]
    return "\n".join(lines)


def manifest(contents: LibraryContents, library: Path, extra: dict | None = None) -> dict:
    """The manifest `gradir.native_library` reads, for the linked `library`."""
    return {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "target": "cpu",
        "library": library.name,
        "sha256": file_sha256(library),
        "opt_level": contents.opt_level,
        "symbols": {"allocation_key": contents.key_symbol, "allocation_limit": contents.limit_symbol},
        "functions": {
            name: {
                **signature_to_json(signature),
                "entry_point": f"_mlir_{contents.guards[name]}",
                "guarded": contents.guards[name],
                "c_interface": f"_mlir_ciface_{name}",
            }
            for name, signature in contents.signatures.items()
        },
        "run_time_checks": [[location or "", message] for location, message in contents.check_failures],
        **(extra or {}),
    }


def build_library(
    contents: LibraryContents, directory: Path, stem: str, extra: dict | None = None,
    placement: RuntimePlacement = RuntimePlacement.BESIDE,
) -> Path:  # fmt: skip
    """Link and describe the library as `stem.so`, `stem.h` and `stem.json` in `directory`
    (which should be fresh: files are written in place), with a copy of the thread runtime
    beside them if the code is parallel and `placement` says so; returns the library's path."""
    library = directory / f"{stem}.so"
    with tempfile.TemporaryDirectory(prefix="gradir-link-") as work:
        runtime = link_shared_library(contents, library, Path(work), placement)
    guard_name = "GRADIR_" + "".join(c if c.isalnum() else "_" for c in stem.upper()) + "_H"
    (directory / f"{stem}.h").write_text(c_header(contents, guard_name))
    extra = {**(extra or {}), **({RUNTIME_FIELD: runtime} if runtime else {})}
    manifest_path(library).write_text(json.dumps(manifest(contents, library, extra), indent=1) + "\n")
    return library


def checked_library_path(path: str | os.PathLike) -> Path:
    """`path` if a library can be written there (ends in `.so`, in an existing directory),
    else the `ArgumentError` saying why; checked before compiling."""
    path = Path(path)
    if path.suffix != ".so":
        raise ArgumentError(f"a shared library's path ends in .so, got {str(path)!r}")
    if not path.parent.is_dir():
        raise ArgumentError(f"cannot write {path}: no directory {path.parent}")
    return path


def write_library_files(contents: LibraryContents, path: str | os.PathLike) -> Path:
    """`build_library` at `path` (`libf.so`; `libf.h` and `libf.json` beside it), each file
    renamed into place once complete; parallel code's thread runtime goes beside them (the
    same file for every library of the directory). Returns the library's path."""
    path = checked_library_path(path)
    with tempfile.TemporaryDirectory(prefix=".gradir-export-", dir=path.parent) as staging:
        built = build_library(contents, Path(staging), path.stem)
        runtime = json.loads(manifest_path(built).read_text()).get(RUNTIME_FIELD)
        if runtime:  # before the library that needs it
            os.replace(built.parent / runtime, path.parent / runtime)
        # The manifest last: a library with a manifest beside it is complete.
        for suffix in (".so", ".h", ".json"):
            os.replace(built.with_suffix(suffix), path.with_suffix(suffix))
    return path
