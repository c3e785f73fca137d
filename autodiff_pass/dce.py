"""`dce`: xDSL's dead-code elimination, with effect queries answered once per op.

Same algorithm as xDSL 0.74's `dce` (liveness propagated to a fixpoint over
each region, then dead ops erased), registered under the same name by
`autodiff-opt` and `gradir.compile` (`gradir/pass_table.py`).
xDSL asks every op's traits whether it would be dead on every round of the
fixpoint, walking each `grad_of` body again each time; here the answer is
kept per op for the pass (`effects.would_be_dead`), and the cyclic garbage
collector is paused while it runs. Unlike xDSL's, it also erases unused linalg
ops on tensors, as MLIR does (xDSL cannot see that they are pure).

Where every region holds at most one block (structured control flow, which is
all reverse mode makes) uses come after definitions, so one backward sweep
decides each op after all its users and no fixpoint is needed. The sweep runs
first everywhere (it only erases ops that are dead in any case) and notes
whether it met a region of several blocks; only then does xDSL's fixpoint run
after it, for the dead cycles a sweep cannot see.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import LiveSet

from gradir.autodiff_pass.effects import would_be_dead
from gradir.autodiff_pass.ir_building import (
    at_most_one_block,
    erase_dead_code,
    paused_garbage_collection,
)


@dataclass
class CachedLiveSet(LiveSet):
    """xDSL's live set, remembering which ops would be dead once unused."""

    _would_be_dead: dict[Operation, bool] = field(default_factory=dict[Operation, bool])

    def propagate_op_liveness(self, op: Operation):
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        dead_if_unused = self._would_be_dead.get(op)
        if dead_if_unused is None:
            dead_if_unused = self._would_be_dead[op] = would_be_dead(op)
        if not dead_if_unused or any(
            self.is_live(use.operation) for result in op.results for use in result.uses
        ):
            self.set_live(op)


def region_dce(region: Region) -> None:
    """The sweep, then xDSL's fixpoint if the sweep met unstructured code (what
    the sweep erased is dead to the fixpoint as well, so the result is the
    fixpoint's alone)."""
    unstructured = not at_most_one_block(region)
    for block in region.blocks:
        unstructured |= erase_dead_code(block)
    if not unstructured:
        return
    live_set = CachedLiveSet()
    while live_set.changed:
        live_set.changed = False
        live_set.propagate_region_liveness(region)
    live_set.delete_dead(region, None)


@dataclass(frozen=True)
class DeadCodeElimination(ModulePass):
    """xDSL's `dce`, faster on gradient functions: a drop-in replacement."""

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_garbage_collection():
            region_dce(op.body)
