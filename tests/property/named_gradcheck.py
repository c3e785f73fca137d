"""Gradchecks generated named-op programs (`named_programs.py`) a batch at a time, as
`standard_gradcheck.py` does the standard ones (the same checks: outputs against NumPy,
vjp and jvp against central differences in f64, not vacuous):

    python named_gradcheck.py SEED [SEED ...]
"""

from __future__ import annotations

import json
import sys

from named_programs import generate
from standard_gradcheck import check_programs


def check_batch(seeds: list[int]) -> list[dict]:
    return check_programs([generate(seed) for seed in seeds])


if __name__ == "__main__":
    for outcome in check_batch([int(s) for s in sys.argv[1:]]):
        print("RESULT " + json.dumps(outcome), flush=True)
