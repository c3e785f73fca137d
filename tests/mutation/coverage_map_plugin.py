"""pytest plugin used by `mutate.py --baseline`: records which test executes which
line of the mutated source files, so that each mutant runs only the tests that can
see it (the coverage-guided test selection mutmut and cosmic-ray's plugins use).

Loaded with `-p coverage_map_plugin` (tests/mutation on PYTHONPATH) and configured by
environment variables set by mutate.py:

- GRADIR_MUTATION_COVERAGE_RC: the coverage rc file (include = the target files,
  parallel = true, context = ${GRADIR_MUTATION_CONTEXT-}, so that Python subprocesses
  started by a test, such as `autodiff-opt` in tests/tools, are measured under the
  test's node id through coverage's a1_coverage.pth and COVERAGE_PROCESS_START);
- GRADIR_MUTATION_OUTCOMES: a JSON file written at the end: per node id, its outcome,
  its duration and the fixtures it uses.

Contexts: "" is import and collection time (a mutant on such a line can break every
test); a test's node id is its setup, call and teardown; "fixture:<baseid>::<name>"
is the setup of a fixture of module or wider scope, whose result later tests reuse.
"""
from __future__ import annotations

import json
import os
import time

import coverage
import pytest

_coverage: coverage.Coverage | None = None
_outcomes: dict[str, dict] = {}


def _switch(context: str) -> None:
    os.environ["GRADIR_MUTATION_CONTEXT"] = context
    if _coverage is not None:
        _coverage.switch_context(context)


def pytest_configure(config: pytest.Config) -> None:
    global _coverage
    rc_file = os.environ["GRADIR_MUTATION_COVERAGE_RC"]
    os.environ["GRADIR_MUTATION_CONTEXT"] = ""
    _coverage = coverage.Coverage(config_file=rc_file)
    _coverage.start()
    # Only now: Python subprocesses started by tests measure themselves (a1_coverage.pth).
    os.environ["COVERAGE_PROCESS_START"] = rc_file


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
    if fixturedef.scope == "function":
        yield
        return
    previous = os.environ.get("GRADIR_MUTATION_CONTEXT", "")
    _switch(f"fixture:{fixturedef.baseid}::{fixturedef.argname}")
    try:
        yield
    finally:
        _switch(previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    _outcomes[item.nodeid] = {
        "outcome": "passed",
        "duration": 0.0,
        "fixtures": [
            f"fixture:{definitions[-1].baseid}::{name}"
            for name in getattr(item, "fixturenames", ())
            if (definitions := item._fixtureinfo.name2fixturedefs.get(name))
            and definitions[-1].scope != "function"
        ],
    }
    start = time.perf_counter()
    _switch(item.nodeid)
    try:
        yield
    finally:
        _switch("")
        _outcomes[item.nodeid]["duration"] = time.perf_counter() - start


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _outcomes.get(report.nodeid)
    if entry is None:
        return
    if report.failed:
        entry["outcome"] = "failed"
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"


def pytest_unconfigure(config: pytest.Config) -> None:
    global _coverage
    if _coverage is not None:
        _coverage.stop()
        _coverage.save()
        _coverage = None
    os.environ.pop("COVERAGE_PROCESS_START", None)
    with open(os.environ["GRADIR_MUTATION_OUTCOMES"], "w") as stream:
        json.dump(_outcomes, stream, indent=0)
