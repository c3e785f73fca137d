"""Shared pytest fixtures."""
import os
import pathlib

import pytest
from xdsl.context import Context

ROOT = pathlib.Path(__file__).resolve().parent.parent

os.environ["GRADIR_CACHE"] = "0"
"""The persistent compilation cache stays off in the suite (and in the processes it starts):
nothing is written into the user's home, and a test of what a compile does is never answered
from disk. tests/cpu_backend/test_compilation_cache.py turns it on, in a temporary directory."""


@pytest.fixture(autouse=True)
def no_custom_rules_noted(monkeypatch):
    """Registering a custom rule turns the disk cache off for the rest of its process
    (`compilation_cache.note_custom_rule`). The tests that register rules put the rule tables
    back after them, so each test starts with no registration noted either: a cache test in the
    same worker as a test that registered one would otherwise find the cache off."""
    from gradir import compilation_cache

    monkeypatch.setattr(compilation_cache, "_custom_rule_registered", False)


@pytest.fixture
def ctx() -> Context:
    """An xDSL context with every dialect autodiff-opt knows (xDSL's and ours)."""
    from gradir.tools.autodiff_opt import AutodiffOptMain

    return AutodiffOptMain(args=[]).ctx


HARDWARE_SKIPS = ("needs a CUDA GPU", "a CUDA driver is present")
"""Skip reasons that depend on the machine, not on what is installed."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With GRADIR_NO_SKIPS=1 (CI sets it), a test skipped for a missing module
    or tool fails instead: CI installs every extra, so a skip there means a
    check silently did not run. Only the GPU-driver skips stay skips."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("GRADIR_NO_SKIPS") != "1" or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(allowed in reason for allowed in HARDWARE_SKIPS):
        return
    report.outcome = "failed"
    report.longrepr = f"skipped under GRADIR_NO_SKIPS=1: {reason}"
