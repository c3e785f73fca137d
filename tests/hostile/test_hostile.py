"""The hostile-input suite (issue 18): every case is data in `cases_*.py`; this file
only runs them against the contract of `contract.py`."""
from __future__ import annotations

import pytest

from gradir.errors import GradirError

from .cases_api import API_CASES, test_a_rule_error_chains_the_original_exception, test_invalid_utf8_in_a_comment_is_accepted_like_the_cli  # noqa: F401
from .cases_cli import CLI_CASES
from .contract import (
    ApiCase,
    CliCase,
    check_cli_contract,
    expand,
    run_in_process,
    run_isolated,
    write_files,
)


def _ids(cases) -> list[str]:
    ids = [case.id for case in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"duplicate case ids: {duplicates}"
    return ids


@pytest.mark.parametrize("case", CLI_CASES, ids=_ids(CLI_CASES))
def test_cli_case(case: CliCase, tmp_path, capfd, monkeypatch):
    write_files(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    argv = expand(case.argv, tmp_path)
    if case.isolated:
        status, out, err = run_isolated(case, argv, tmp_path)
    else:
        status, out, err = run_in_process(case, argv, capfd)
    check_cli_contract(case, tmp_path, status, out, err)


@pytest.mark.parametrize("case", API_CASES, ids=_ids(API_CASES))
def test_api_case(case: ApiCase, tmp_path, monkeypatch):
    write_files(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GradirError) as caught:
        case.call(tmp_path)
    error = caught.value
    assert isinstance(error, case.error), f"{type(error).__name__}, expected {case.error.__name__}: {error}"
    message = str(error)
    assert "\n" not in message, f"not one line: {message!r}"
    assert case.expect in message, f"{case.expect!r} not in {message!r}"



def test_the_suite_is_large_enough():
    """Issue 18 asks for at least 200 cases across the three CLIs and the Python API."""
    tools = {case.tool for case in CLI_CASES}
    assert tools == {"opt", "run", "gradcheck"}
    assert len(CLI_CASES) + len(API_CASES) >= 200
