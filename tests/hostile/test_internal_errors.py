"""The Python API raises only `GradirError`s (README "Errors", "a bug in gradir"): every
entry point is wrapped by `reports_internal_errors`, and a bug planted below one comes out
as an `InternalError` with the original exception chained."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import gradir
from gradir import compilation
from gradir.errors import InternalError, reports_internal_errors
from hostile.files import PRODUCT

REPORTING = reports_internal_errors(lambda: None).__code__
"""The wrapper's code object: a function wrapped by `reports_internal_errors` runs it."""

NOT_WRAPPED = {
    "timing": "a context manager: what raises inside it is the caller's own code",
}


def _wrapped(function) -> bool:
    return getattr(function, "__code__", None) is REPORTING


def _exported_functions() -> list[str]:
    return [name for name in gradir._EXPORTS if inspect.isfunction(getattr(gradir, name))]


@pytest.mark.parametrize("name", _exported_functions())
def test_every_exported_function_reports_internal_errors(name):
    function = getattr(gradir, name)
    if name in NOT_WRAPPED:
        assert not _wrapped(function)
        return
    assert _wrapped(function), f"gradir.{name} is not wrapped by reports_internal_errors"


def _call_methods():
    from gradir.batched_api import BatchedFunction, _CompiledWrapper
    from gradir.cpu_backend.cpu_runtime import CpuExecutable
    from gradir.gpu_backend.cuda_library import CudaLibrary
    from gradir.gpu_backend.cuda_program import CudaProgram
    from gradir.native_library import NativeLibrary

    return {
        "CpuExecutable.call": CpuExecutable.call, "CudaProgram.call": CudaProgram.call,
        "NativeLibrary.call": NativeLibrary.call, "CudaLibrary.call": CudaLibrary.call,
        "BatchedFunction.__call__": BatchedFunction.__call__, "_CompiledWrapper.__call__": _CompiledWrapper.__call__,
    }  # fmt: skip


def test_every_call_method_reports_internal_errors():
    unwrapped = [name for name, method in _call_methods().items() if not _wrapped(method)]
    assert not unwrapped


def test_a_planted_bug_in_compile_is_an_internal_error(monkeypatch):
    def planted(*args, **kwargs):
        raise KeyError("planted")

    monkeypatch.setattr(compilation, "runnable_linalg", planted)
    with pytest.raises(InternalError, match=r"internal error \(KeyError\): 'planted'") as caught:
        gradir.compile(PRODUCT)
    assert isinstance(caught.value.__cause__, KeyError)


def test_a_planted_bug_in_a_call_is_an_internal_error(monkeypatch):
    from gradir.cpu_backend import cpu_runtime

    executable = gradir.compile(PRODUCT)
    a = np.ones(4, np.float32)
    assert executable.call("f", a, a)[0].shape == ()  # the call works before the bug is planted

    def planted(*args, **kwargs):
        raise IndexError("planted")

    monkeypatch.setattr(cpu_runtime, "call_guarded", planted)
    with pytest.raises(InternalError, match=r"internal error \(IndexError\): planted"):
        executable.f(a, a)


def test_recursion_is_a_source_error_and_interrupts_pass():
    @reports_internal_errors
    def deep():
        raise RecursionError("maximum recursion depth exceeded")

    with pytest.raises(gradir.SourceError, match="nesting too deep"):
        deep()

    @reports_internal_errors
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        interrupted()


def test_gradir_errors_pass_unchanged():
    with pytest.raises(gradir.ArgumentError, match="modes: unknown 'bogus'") as caught:
        gradir.gradcheck(PRODUCT, "f", modes=("bogus",))
    assert type(caught.value) is gradir.ArgumentError


def test_a_keyword_the_function_does_not_take_stays_a_type_error():
    with pytest.raises(TypeError, match="epsilon") as caught:
        gradir.gradcheck(PRODUCT, "f", epsilon=1)
    assert not isinstance(caught.value, gradir.GradirError)
