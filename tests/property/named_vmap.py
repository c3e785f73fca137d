"""Batches of generated named-op programs (`named_programs.py`) checked as
`standard_vmap.py` checks the standard ones: `autodiff.vmap` of each program and of its vjp
against a loop over `SIZE` examples with their own safe inputs, in f64 through the CPU
pipeline. What it exercises is the batching rules of the named ops (a batched matmul
operand folded into rows or columns, a convolution's batch folded into `N`, ...).

    python named_vmap.py SEED [SEED ...]
"""

from __future__ import annotations

import json
import sys

import named_programs
from standard_vmap import check_batch

if __name__ == "__main__":
    for outcome in check_batch([int(s) for s in sys.argv[1:]], named_programs):
        print("RESULT " + json.dumps(outcome), flush=True)
