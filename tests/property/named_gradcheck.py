"""Gradchecks generated named-op programs (`named_programs.py`) a batch at a time, as
`standard_gradcheck.py` does the standard ones (the same checks: outputs against NumPy,
vjp and jvp against central differences in f64, not vacuous):

    python named_gradcheck.py [--dynamic] SEED [SEED ...]

`--dynamic`: the programs whose batch size is `?` (`generate(seed, dynamic=True)`).
"""

from __future__ import annotations

import json
import sys

from named_programs import generate
from standard_gradcheck import check_programs


def check_batch(seeds: list[int], dynamic: bool = False) -> list[dict]:
    return check_programs([generate(seed, dynamic) for seed in seeds])


if __name__ == "__main__":
    seeds = [int(s) for s in sys.argv[1:] if s != "--dynamic"]
    for outcome in check_batch(seeds, "--dynamic" in sys.argv):
        print("RESULT " + json.dumps(outcome), flush=True)
