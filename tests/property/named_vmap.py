"""Batches of generated named-op programs (`named_programs.py`) checked as
`standard_vmap.py` checks the standard ones: `autodiff.vmap` of each program and of its vjp
against a loop over `SIZE` examples with their own safe inputs, in f64 through the CPU
pipeline. What it exercises is the batching rules of the named ops (a batched matmul
operand folded into rows or columns, a convolution's batch folded into `N`, ...).

    python named_vmap.py [--dynamic] SEED [SEED ...]

`--dynamic`: the programs whose batch size is `?` (`generate(seed, dynamic=True)`).
"""

from __future__ import annotations

import functools
import json
import sys
from types import SimpleNamespace

import named_programs
from standard_vmap import check_batch

if __name__ == "__main__":
    generator = named_programs
    if "--dynamic" in sys.argv:
        generator = SimpleNamespace(
            generate=named_programs.generate_dynamic,
            examples=functools.partial(named_programs.examples, dynamic=True),
        )
    for outcome in check_batch([int(s) for s in sys.argv[1:] if s != "--dynamic"], generator):
        print("RESULT " + json.dumps(outcome), flush=True)
