"""Shared pytest fixtures."""
import pathlib

import pytest
from xdsl.context import Context

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture
def ctx() -> Context:
    """An xDSL context with every dialect autodiff-opt knows (xDSL's and ours)."""
    from gradir.tools.autodiff_opt import AutodiffOptMain

    return AutodiffOptMain(args=[]).ctx
