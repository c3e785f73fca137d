"""`gradir.load`: call an exported shared library from Python with NumPy arrays and ctypes alone.

`gradir.export` (or `autodiff-opt --emit shared-lib`) writes `libf.so` with `libf.json` beside
it: the manifest of every public function's signature, the library's symbols, the run-time
checks' messages and the SHA-256 of the library (`MANIFEST_FORMAT`). This module reads them
back and calls the functions through `gradir.native_calls`, the code the JIT path calls
through, so the argument checks and the errors are the same as `gradir.compile`'s.

A library of parallel code needs the OpenMP runtime its manifest names (`RUNTIME_FIELD`: a
file beside it for an export, an absolute path for a compilation cache entry); the library
finds it through its run path when it is opened. It is opened `RTLD_LOCAL`, so neither its
symbols nor the runtime's (which also serves GCC's `GOMP_*` calls) become global: a
`libgomp` that PyTorch loaded keeps serving PyTorch.

It must run where neither xDSL nor MLIR is installed (a machine that only runs the code): it
imports NumPy, ctypes and gradir's NumPy-only modules, nothing else. The persistent compilation
cache (`gradir.compilation_cache`) loads its entries with it too.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
from pathlib import Path

import numpy as np

from gradir.errors import SourceError, TargetError, reports_internal_errors
from gradir.native_calls import (
    PACKED_ENTRY_POINT,
    CompiledFunctions,
    FunctionSignature,
    available_memory,
    call_guarded,
    find_signature,
    signature_from_json,
)

MANIFEST_FORMAT = "gradir-shared-library"
MANIFEST_VERSION = 1
"""`format` and `version` of the manifest; a loader refuses other versions instead of guessing."""

RUNTIME_FIELD = "thread_runtime"
"""The manifest's entry for the OpenMP runtime a parallel library links (absent if serial)."""

TARGETS = ("cpu", "cuda")
"""Targets whose manifests `read_manifest` accepts; `NativeLibrary` runs "cpu", and
`gpu_backend.cuda_library.CudaLibrary` "cuda" (`gradir.load`, in `gradir.library_loading`,
picks the one the manifest names)."""


def manifest_path(library: str | os.PathLike) -> Path:
    """`libf.json` for `libf.so`."""
    return Path(library).with_suffix(".json")


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(library: Path) -> dict:
    """The manifest beside `library`, checked against the library's bytes; a `SourceError`
    naming the file for a missing, unreadable, malformed or mismatched one."""
    path = manifest_path(library)
    try:
        manifest = json.loads(path.read_text())
        digest = file_sha256(library)
    except OSError as error:
        raise SourceError(f"cannot read {error.filename}: {error.strerror}") from error
    except (ValueError, UnicodeDecodeError) as error:
        raise SourceError(f"{path}: not a gradir library manifest ({error})") from error
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        raise SourceError(f"{path}: not a gradir library manifest")
    if manifest.get("version") != MANIFEST_VERSION:
        raise SourceError(
            f"{path}: manifest version {manifest.get('version')!r}, this gradir reads {MANIFEST_VERSION}"
        )
    if manifest.get("target") not in TARGETS:
        raise TargetError(f"{path}: a library for target {manifest.get('target')!r}; loadable: {', '.join(TARGETS)}")
    if manifest.get("sha256") != digest:
        raise SourceError(f"{library}: does not match its manifest {path.name} (SHA-256 differs)")
    return manifest


class NativeLibrary(CompiledFunctions):
    """An exported library's public functions: `lib.f(*arrays)` returns one result itself,
    several as a tuple; `lib.call("f", *arrays)` always a tuple (as a `CpuExecutable`)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).resolve()
        manifest = read_manifest(self.path)
        if manifest["target"] != "cpu":
            raise TargetError(f"{self.path}: a library for target {manifest['target']!r}: load it with gradir.load")
        try:
            self._signatures: dict[str, FunctionSignature] = {
                name: signature_from_json(name, entry) for name, entry in manifest["functions"].items()
            }
            entry_symbols = {name: entry["entry_point"] for name, entry in manifest["functions"].items()}
            self._check_failures = [(location or None, message) for location, message in manifest["run_time_checks"]]
            limit_symbol = manifest["symbols"]["allocation_limit"]
            runtime = manifest.get(RUNTIME_FIELD)
            runtime = None if runtime is None else self.path.parent / runtime
        except (KeyError, TypeError, ValueError) as error:
            raise SourceError(f"{manifest_path(self.path)}: malformed manifest ({error!r})") from error
        if runtime is not None and not runtime.is_file():
            raise TargetError(f"cannot load {self.path}: its OpenMP runtime {runtime} is missing")
        try:
            self._library = ctypes.CDLL(str(self.path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
            self._entry_points = {
                name: PACKED_ENTRY_POINT((symbol, self._library)) for name, symbol in entry_symbols.items()
            }
            limit = ctypes.c_int64.in_dll(self._library, limit_symbol)
        except (OSError, AttributeError, ValueError) as error:
            raise TargetError(f"cannot load {self.path}: {error}") from error
        limit.value = available_memory()
        self.allocation_limit = limit.value
        self.manifest = manifest

    @reports_internal_errors
    def call(self, name: str, *arguments: object) -> tuple[np.ndarray | np.generic, ...]:
        """Run public function `name` on `arguments` (as `CpuExecutable.call`)."""
        signature = find_signature(self._signatures, name)
        return call_guarded(self._entry_points, signature, arguments, self._check_failures, self.allocation_limit)

    def __repr__(self) -> str:
        return f"<gradir.NativeLibrary {self.path} ({', '.join(self._signatures)})>"


def load(path: str | os.PathLike) -> NativeLibrary:
    """The library `gradir.export` wrote at `path` (`libf.so`, with `libf.json` beside it)."""
    return NativeLibrary(path)
