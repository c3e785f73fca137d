"""How ops are cut into threads: the `TilePolicy` every mapping strategy reads (threads per block,
when a reduction is split, which register and shared-memory tiles a contraction may take), with
defaults for one H100/A100-class device. `map_to_gpu(module, policy)` and `CudaProgram(...,
policy=...)` take one; tests use small ones to reach every strategy on small inputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence


def shared_tile_candidates(
    block_threads: Sequence[int] = (256, 128),
) -> tuple[tuple[int, int, int, int], ...]:
    """(BM, BN, TM, TN) with BM/TM x BN/TN threads per block, largest thread tiles first."""
    candidates = [
        (bm, bn, tm, tn)
        for tm in (4, 2, 1)
        for tn in (4, 2, 1)
        for bm in (128, 64, 32, 16)
        for bn in (128, 64, 32, 16)
        if bm % tm == 0 and bn % tn == 0 and (bm // tm) * (bn // tn) in block_threads
    ]
    return tuple(sorted(candidates, key=lambda c: (-c[2] * c[3], -c[0] * c[1], abs(c[0] - c[1]), -c[1])))


@dataclass(frozen=True)
class TilePolicy:
    """How ops are cut into threads. The defaults aim at one H100/A100-class device."""

    block_threads: int = 256
    """Threads per block for large launches."""
    min_block_threads: int = 128
    """Threads per block never go below this, even for tiny ops (a block is scheduled whole)."""
    target_threads: int = 16384
    """Threads a launch should offer; reductions with fewer outputs are split."""
    register_tiles: tuple[tuple[int, int], ...] = ((4, 4), (4, 2), (2, 4), (2, 2), (2, 1), (1, 2))
    """Candidate TM x TN output tiles per thread for contractions, largest first."""
    min_tile_threads: int = 2048
    """A register tile is only taken while the launch keeps at least this many threads."""
    shared_tiles: tuple[tuple[int, int, int, int], ...] = field(
        default_factory=lambda: shared_tile_candidates()
    )
    """Candidate (BM, BN, TM, TN) block and thread tiles for contractions staged through shared
    memory, best first; empty turns the strategy off."""
    shared_depth: int = 16
    """Most k elements staged per chunk (BK is the largest divisor of the k extent up to this)."""
    shared_bytes: int = 48 * 1024
    """Workgroup memory one block may use (the static limit of every CUDA device)."""
    target_blocks: int = 1056
    """Blocks a shared-tile contraction should offer (eight per SM of a 132-SM H100/H200): with
    fewer, each block's k loop is long and SMs idle, so k is split (*split-k*). Measured on an
    H200 (MLP weight gradient 784x256, k = 8192, 98 tiles): 709 us unsplit, 377 us at 264
    blocks (S=2), 212 at 528 (S=4), 163 at 1056 (S=8), 156 at 2112 (S=16)."""
    max_k_split: int = 32
    """Most k splits of a shared-tile contraction."""
    min_k_chunk: int = 256
    """Fewest k elements one split of a shared-tile contraction folds."""
    max_split: int = 1024
    """Most partial results per output of a split reduction."""
    min_chunk: int = 8
    """Fewest reduction elements one thread folds in a split reduction."""

    def block_size(self, total_threads: int) -> int:
        rounded = -(-total_threads // 32) * 32
        return min(self.block_threads, max(self.min_block_threads, rounded))
