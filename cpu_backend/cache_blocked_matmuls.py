"""Large matmuls on buffers become loops over cache blocks of packed panels (BLIS's structure).

The vector schedule (`cpu_schedule`) computes an 8x32 register block of C
over the whole K dimension, reading A's 8 rows and a K x 32 panel of B in
place. When K is long and the rows of A or B are a large power of two apart,
those reads miss the caches: every row maps to the same cache sets. The MLP's
weight gradient `x^T dz` (784x8192 @ 8192x2048, f32) ran at 32 GFLOP/s there,
and 784x8192 @ 8192x2048 without transposes at 17.5, against about 100 for
numpy's BLAS on one thread.

Here such a matmul (`C += A B`, static shapes, identity-layout or strided
operands) becomes, in the order of BLIS's loops:

    scf.forall over blocks of the longer of M and N       (disjoint blocks of C)
      scf.for over K in slices of `DEPTH`
        pack the outer operand's block (contiguous: `linalg.copy` or `linalg.transpose`)
        scf.for over blocks of the other parallel dimension
          pack the inner operand's block
          linalg.matmul(packed A, packed B) into the block of C

Each packed block of B (`DEPTH` x `COLUMNS` elements, 256 KiB) stays in the L2
cache (1 MiB per core here) while the register-blocked kernel streams it once per
8 rows of A; the packed block of A is read 8 rows at a time from L1. The rows
of the packed B are padded by `ROW_PADDING` elements so that they are not a
power of two apart. The inner `linalg.matmul`s have static shapes and get the
vector schedule like any other; a dimension that the block does not divide ends
in one smaller static block. The outer loop is an `scf.forall`: its iterations
write disjoint blocks of C and each packs into buffers of its own, so it may run
on several threads; lowered serially it is an ordinary loop.

An operand read transposed is transposed while it is packed (`linalg.transpose`
of the block): whether the matmul's `indexing_maps` say so (the plain schedule
cannot vectorise those, so they are blocked whatever their size) or reverse mode
wrote a transpose into a fresh buffer for it (`_producing_transpose`: the
transposed copy is then not made at all).

Matmuls with fewer than `MIN_FLOPS` multiply-adds, or short enough in K and N
that one block holds them, or with fewer than `MIN_REUSE` rows or columns, keep
the plain schedule (the MLP at batch 64: no packing cost).
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from gradir.mlir_bridge import walk_ops

DEPTH = {32: 256, 64: 256}
"""K slice per block (elements): a packed block of A, 8 rows x DEPTH, stays in L1."""
COLUMNS = {32: 256, 64: 128}
"""Columns of a packed block of B: DEPTH x COLUMNS is 256 KiB (a quarter of the L2 cache).

Measured on the three 8192 x 2048 x 784 matmuls in CPU time (this machine is
shared), against numpy in the same rounds: 256 x 256 blocks ran at 0.88-0.95 of
numpy, 256 x 512 at 0.85-0.89, 128 x 512 and 192 x 512 at 0.88-0.97 (the K slice
256 divides 8192 and 2048; 784 ends in a 16-deep slice)."""
ROWS = {32: 1024, 64: 512}
"""Rows of a packed block of A (it is streamed 8 rows at a time, so only the memory it takes matters)."""
ROW_PADDING = 16
"""Elements added to a packed row so that consecutive rows do not map to the same cache sets."""
MIN_FLOPS = 1 << 24
"""Matmuls with fewer multiply-adds (256^3) keep the plain register-blocked schedule."""
MIN_REUSE = 64
"""Matmuls with fewer rows or columns of C keep it too (their packed panels would be read too few times)."""
COLUMN_MULTIPLE = 32
DEPTH_MULTIPLE = 8

@dataclass(frozen=True)
class Blocking:
    """Block sizes of one matmul `C[m, n] += A[m, k] B[k, n]`."""

    rows: int
    columns: int
    depth: int
    rows_outer: bool
    """Whether the parallel outer loop runs over blocks of rows (M), else of columns (N)."""


def choose_blocking(m: int, n: int, k: int, bits: int, always: bool = False,
                    absorbs_transpose: bool = False, threads: int = 1) -> Blocking | None:
    """Block sizes for an `m x k @ k x n` matmul of `bits`-wide floats, or None to leave it
    alone. `always`: whatever its size, for a matmul the plain schedule cannot vectorise
    (an operand transposed by its maps). `absorbs_transpose`: packing would also save
    a transposed copy of an operand, worth it for a long K even when M or N is narrow.
    `threads`: the outer dimension is cut into at least that many blocks where it is long
    enough (`_shared_cap`), so that every thread gets one."""
    if bits not in DEPTH or 0 in (m, n, k):
        return None
    if not always:
        if m * n * k < MIN_FLOPS or (k <= DEPTH[bits] and n <= COLUMNS[bits]):
            return None  # small, or one block: nothing to gain from packing
        if min(m, n) < MIN_REUSE and not (absorbs_transpose and k > DEPTH[bits]):
            # A packed operand is read once per block of the other's rows or columns:
            # 8192x2048 @ 2048x10 ran at 8.9 GFLOP/s packed, 33.5 in place.
            return None
    rows_outer = m >= n
    row_cap, column_cap = ROWS[bits], COLUMNS[bits]
    if rows_outer:
        row_cap = _shared_cap(m, row_cap, DEPTH_MULTIPLE, threads)
    else:
        column_cap = _shared_cap(n, column_cap, COLUMN_MULTIPLE, threads)
    return Blocking(
        rows=_block(m, row_cap, DEPTH_MULTIPLE),
        columns=_block(n, column_cap, COLUMN_MULTIPLE),
        depth=_block(k, DEPTH[bits], DEPTH_MULTIPLE),
        rows_outer=rows_outer,
    )


def _shared_cap(extent: int, cap: int, multiple: int, threads: int) -> int:
    """The outer block's cap lowered until `extent` makes `threads` blocks, in multiples of
    `multiple` (the register block's rows or columns, so every element is computed as with
    one block: results stay those of one thread bit for bit); `cap` where the extent is too
    short for that. 512 x 512 x 512 (f32) made one block of 1024 rows, so its one outer
    iteration left the second thread idle while the first packed every block."""
    share = -(-extent // threads)
    share += -share % multiple
    return cap if threads < 2 or share * (threads - 1) >= extent else min(cap, share)


def _block(extent: int, cap: int, multiple: int) -> int:
    """`extent` if it fits `cap`; else the largest multiple of `multiple` in [cap/2, cap]
    that divides `extent` (no edge block), else `cap`."""
    if extent <= cap:
        return extent
    for candidate in range(cap - cap % multiple, cap // 2 - 1, -multiple):
        if extent % candidate == 0:
            return candidate
    return cap


def _segments(extent: int, block: int) -> list[tuple[int, int, int]]:
    """(first offset, end offset, block size) of the full blocks, then of the edge block."""
    full = extent - extent % block
    segments = [(0, full, block)] if full else []
    if extent % block:
        segments.append((full, extent, extent % block))
    return segments


def _strides(memref: ir.MemRefType) -> list[int] | None:
    strides, _ = memref.get_strides_and_offset()
    if any(ir.ShapedType.is_dynamic_size(s) for s in strides):
        return None
    return list(strides)


class _Writer:
    """Text of the loop nest replacing one matmul, inside a function of A, B and C."""

    def __init__(self, a: ir.MemRefType, b: ir.MemRefType, c: ir.MemRefType, blocking: Blocking,
                 transposed: frozenset[str] = frozenset()):
        self.types = {"a": a, "b": b, "c": c}
        self.transposed = transposed
        """Operands ("a", "b") stored transposed: `a` as K x M, `b` as N x K."""
        self.strides = {name: _strides(t) for name, t in self.types.items()}
        self.element = str(a.element_type)
        self.blocking = blocking
        self.lines: list[str] = []
        self.counter = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"%{stem}{self.counter}"

    def constant(self, value: int) -> str:
        name = self.fresh("c")
        self.lines.append(f"{name} = arith.constant {value} : index")
        return name

    def view(self, source: str, source_type: str, strides: list[int], offsets: list[str], sizes: list[int]) -> tuple[str, str]:
        """A subview of `source`; (its name, its type)."""
        name = self.fresh("view")
        view_type = (
            f"memref<{'x'.join(map(str, sizes))}x{self.element}, "
            f"strided<[{', '.join(map(str, strides))}], offset: ?>>"
        )
        self.lines.append(
            f"{name} = memref.subview {source}[{', '.join(offsets)}] [{', '.join(map(str, sizes))}] [1, 1]"
            f" : {source_type} to {view_type}"
        )
        return name, view_type

    def operand_view(self, operand: str, offsets: list[str], sizes: list[int]) -> tuple[str, str]:
        return self.view(f"%{operand}", str(self.types[operand]), self.strides[operand], offsets, sizes)

    def pack(self, operand: str, buffer: str, buffer_type: str, buffer_stride: int,
             offsets: list[str], sizes: list[int]) -> tuple[str, str]:
        """Copy the block of `operand` at `offsets` (row, column of the operand as the
        product reads it) into the top left corner of `buffer`, transposing a
        transposed operand on the way."""
        zero = self.constant(0)
        packed, packed_type = self.view(buffer, buffer_type, [buffer_stride, 1], [zero, zero], sizes)
        if operand in self.transposed:
            source, source_type = self.operand_view(operand, offsets[::-1], sizes[::-1])
            self.lines.append(
                f"linalg.transpose ins({source} : {source_type}) outs({packed} : {packed_type}) permutation = [1, 0]"
            )
        else:
            source, source_type = self.operand_view(operand, offsets, sizes)
            self.lines.append(f"linalg.copy ins({source} : {source_type}) outs({packed} : {packed_type})")
        return packed, packed_type

    def loop(self, start: int, end: int, step: int, parallel: bool) -> str:
        """Open a loop (or, for one iteration, a constant) over [start, end); returns its index."""
        if end - start == step:
            return self.constant(start)
        index = self.fresh("i")
        if parallel:
            self.lines.append(f"scf.forall ({index}) = ({start}) to ({end}) step ({step}) {{")
        else:
            bounds = [self.constant(v) for v in (start, end, step)]
            self.lines.append(f"scf.for {index} = {bounds[0]} to {bounds[1]} step {bounds[2]} {{")
        return index

    def close(self, start: int, end: int, step: int) -> None:
        if end - start != step:
            self.lines.append("}")

    def write(self) -> list[str]:
        m, n = self.types["c"].shape
        k = self.types["a"].shape[0 if "a" in self.transposed else 1]
        blocking = self.blocking
        outer, inner = ("a", "b") if blocking.rows_outer else ("b", "a")
        outer_extent, outer_block = (m, blocking.rows) if blocking.rows_outer else (n, blocking.columns)
        inner_extent, inner_block = (n, blocking.columns) if blocking.rows_outer else (m, blocking.rows)
        for outer_start, outer_end, outer_size in _segments(outer_extent, outer_block):
            outer_index = self.loop(outer_start, outer_end, outer_size, parallel=True)
            # Per iteration of the parallel loop: buffers of its own.
            a_stride, b_stride = blocking.depth, blocking.columns + ROW_PADDING
            a_type = f"memref<{blocking.rows}x{a_stride}x{self.element}>"
            b_type = f"memref<{blocking.depth}x{b_stride}x{self.element}>"
            buffers = {"a": (self.fresh("packed_a"), a_type, a_stride), "b": (self.fresh("packed_b"), b_type, b_stride)}
            for name, type_, _ in buffers.values():
                self.lines.append(f"{name} = memref.alloc() {{alignment = 64 : i64}} : {type_}")
            for depth_start, depth_end, depth_size in _segments(k, blocking.depth):
                depth_index = self.loop(depth_start, depth_end, depth_size, parallel=False)
                if outer == "a":
                    outer_offsets, outer_sizes = [outer_index, depth_index], [outer_size, depth_size]
                else:
                    outer_offsets, outer_sizes = [depth_index, outer_index], [depth_size, outer_size]
                packed_outer = self.pack(outer, *buffers[outer], outer_offsets, outer_sizes)
                for inner_start, inner_end, inner_size in _segments(inner_extent, inner_block):
                    inner_index = self.loop(inner_start, inner_end, inner_size, parallel=False)
                    if inner == "a":
                        inner_offsets, inner_sizes = [inner_index, depth_index], [inner_size, depth_size]
                        c_offsets, c_sizes = [inner_index, outer_index], [inner_size, outer_size]
                        packed_a, packed_b = self.pack(inner, *buffers[inner], inner_offsets, inner_sizes), packed_outer
                    else:
                        inner_offsets, inner_sizes = [depth_index, inner_index], [depth_size, inner_size]
                        c_offsets, c_sizes = [outer_index, inner_index], [outer_size, inner_size]
                        packed_a, packed_b = packed_outer, self.pack(inner, *buffers[inner], inner_offsets, inner_sizes)
                    c_block, c_type = self.operand_view("c", c_offsets, c_sizes)
                    self.lines.append(
                        f"linalg.matmul ins({packed_a[0]}, {packed_b[0]} : {packed_a[1]}, {packed_b[1]})"
                        f" outs({c_block} : {c_type})"
                    )
                    self.close(inner_start, inner_end, inner_size)
                self.close(depth_start, depth_end, depth_size)
            for name, type_, _ in buffers.values():
                self.lines.append(f"memref.dealloc {name} : {type_}")
            self.close(outer_start, outer_end, outer_size)
        return self.lines


_MAPS = {
    ("a", False): "affine_map<(d0, d1, d2) -> (d0, d2)>",
    ("a", True): "affine_map<(d0, d1, d2) -> (d2, d0)>",
    ("b", False): "affine_map<(d0, d1, d2) -> (d2, d1)>",
    ("b", True): "affine_map<(d0, d1, d2) -> (d1, d2)>",
}
_OUTPUT_MAP = "affine_map<(d0, d1, d2) -> (d0, d1)>"
_VIEWS = {"memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.cast", "memref.reinterpret_cast"}


def _transposed_by_maps(op: ir.Operation) -> frozenset[str] | None:
    """The operands a `linalg.matmul`'s `indexing_maps` read transposed; None for other maps."""
    if "indexing_maps" not in op.attributes:
        return frozenset()
    a_map, b_map, c_map = (str(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"]))
    if c_map != _OUTPUT_MAP:
        return None
    transposed = set()
    for name, found in (("a", a_map), ("b", b_map)):
        if found == _MAPS[(name, True)]:
            transposed.add(name)
        elif found != _MAPS[(name, False)]:
            return None
    return frozenset(transposed)


def _is_plain_buffer(value_type: ir.Type, element: str | None = None) -> bool:
    if not isinstance(value_type, ir.MemRefType):
        return False
    memref = ir.MemRefType(value_type)
    if memref.rank != 2 or not memref.has_static_shape or _strides(memref) is None:
        return False
    if not isinstance(memref.element_type, (ir.F32Type, ir.F64Type)):
        return False
    return element is None or str(memref.element_type) == element


def _root(value: ir.Value) -> ir.Value:
    """The buffer `value` is a view of (itself when it is not a view)."""
    while isinstance(value.owner, ir.Operation | ir.OpView) and value.owner.name in _VIEWS:
        value = value.owner.operands[0]
    return value


def _uses_root(op: ir.Operation, root: ir.Value) -> bool:
    found = False

    def visit(inner: ir.Operation) -> ir.WalkResult:
        nonlocal found
        if any(_root(operand) == root for operand in inner.operands):
            found = True
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return found


def _producing_transpose(matmul: ir.Operation, operand: ir.Value) -> ir.Operation | None:
    """The `linalg.transpose` that fills `operand`, when the matmul can read its source instead.

    Reverse mode writes `x^T dz` as a transpose into a fresh buffer and a matmul
    of it: packing reads the transposed block straight from `x`, which saves
    writing and reading the transposed copy (64 MiB for the MLP's 8192 x 2048
    activations). Only a fresh `memref.alloc` used by nothing but the
    transpose, this matmul and its `memref.dealloc`, filled in the same block
    before the matmul from a buffer that nothing in between uses and that the
    matmul does not write, qualifies."""
    buffer = operand.owner
    if not isinstance(buffer, ir.Operation | ir.OpView) or buffer.name != "memref.alloc":
        return None
    users = [use.owner.operation for use in operand.uses]
    matmul = matmul.operation
    transposes = [u for u in users if u.name == "linalg.transpose"]
    others = [u for u in users if u.name not in ("linalg.transpose", "memref.dealloc") and u != matmul]
    if len(transposes) != 1 or others or sum(1 for u in users if u == matmul) != 1:
        return None
    transpose = transposes[0]
    if transpose.operands[1] != operand or list(ir.DenseI64ArrayAttr(transpose.attributes["permutation"])) != [1, 0]:
        return None
    if transpose.parent.operation != matmul.parent.operation or not _is_plain_buffer(transpose.operands[0].type):
        return None
    source = _root(transpose.operands[0])
    if _root(matmul.operands[2]) == source:
        return None  # C written over the transposed matrix: the copy is needed
    between, inside = [], False
    for candidate in _block_of(matmul):
        if candidate == transpose:
            inside = True
        elif candidate == matmul:
            break
        elif inside:
            between.append(candidate)
    if not inside or any(_uses_root(candidate, source) for candidate in between):
        return None
    return transpose


def _block_of(op: ir.Operation) -> list[ir.Operation]:
    """The operations of the block holding `op`."""
    parent = op.operation.parent
    for region in parent.regions:
        for block in region.blocks:
            operations = [o.operation for o in block.operations]
            if op.operation in operations:
                return operations
    return []


def loop_nest_text(a: ir.MemRefType, b: ir.MemRefType, c: ir.MemRefType, blocking: Blocking,
                   transposed: frozenset[str] = frozenset()) -> str:
    """A function `@blocked(%a, %b, %c)` computing `C += A B` block by block (see the
    module docstring); the operands named in `transposed` are stored transposed."""
    body = "\n    ".join(_Writer(a, b, c, blocking, transposed).write())
    return f"func.func @blocked(%a: {a}, %b: {b}, %c: {c}) {{\n    {body}\n    return\n}}\n"


def cache_blocked_matmuls(module: ir.Module, threads: int = 1) -> int:
    """Replace every large `linalg.matmul` on buffers, and every one that reads an operand
    transposed, by its cache-blocked loop nest (outer blocks enough for `threads`); returns
    how many."""
    replaced = 0
    with module.context, ir.Location.unknown():
        for op in walk_ops(module, {"linalg.matmul"}):
            by_maps = transposed = _transposed_by_maps(op)
            if transposed is None or len(op.operands) != 3:
                continue
            if not all(isinstance(v.type, ir.MemRefType) for v in op.operands):
                continue
            element = str(ir.MemRefType(op.operands[2].type).element_type)
            if not all(_is_plain_buffer(v.type, element) for v in op.operands):
                continue
            operands = list(op.operands)
            fused = []
            for position, name in enumerate(("a", "b")):
                transpose = _producing_transpose(op, operands[position])
                if transpose is not None:
                    fused.append((transpose, operands[position]))
                    operands[position] = transpose.operands[0]
                    transposed = transposed ^ {name}
            a, b, c = (ir.MemRefType(v.type) for v in operands)
            m, n = c.shape
            k = a.shape[0 if "a" in transposed else 1]
            blocking = choose_blocking(m, n, k, c.element_type.width, always=bool(by_maps), absorbs_transpose=bool(fused),
                                       threads=threads)  # fmt: skip
            if blocking is None:
                continue
            _replace(op, loop_nest_text(a, b, c, blocking, frozenset(transposed)), operands)
            for transpose, buffer in fused:
                transpose.erase()
                for use in [use.owner for use in buffer.uses]:
                    use.erase()  # the dealloc
                buffer.owner.erase()
            replaced += 1
    return replaced


def _replace(op: ir.Operation, function_text: str, operands: list[ir.Value]) -> None:
    """Put the body of the function `function_text` (of A, B, C) in place of `op`, reading `operands`."""
    parsed = ir.Module.parse(function_text)
    block = parsed.body.operations[0].regions[0].blocks[0]
    for argument, operand in zip(block.arguments, operands):
        argument.replace_all_uses_with(operand)
    point = ir.InsertionPoint(op)
    for inner in list(block.operations)[:-1]:  # without the return
        point.insert(inner.detach_from_parent())
    op.erase()
