"""Hostile uses of the Python API, as data (see `contract.ApiCase`)."""
from __future__ import annotations

from .contract import ApiCase

API_CASES: list[ApiCase] = []
