"""Convolutions become a gather (im2col) and one `linalg.matmul`, on the CPU.

A convolution loops over its output, its kernel window and its channels and
reads the input through windows (`oh * s + kh * d`); as loops (what
`convert-linalg-to-loops` makes of it) the innermost loop is a short kernel
or channel loop that LLVM cannot vectorise: 0.5 GMAC/s on LeNet's second
convolution. Here every linalg op that adds products of two operands, one of
them read through any affine map (the *windowed* operand) and the other and
the output through projected permutations, is rewritten as

    col[K..., M...]  = windowed[map(...)]             (a gather: one copy loop nest)
    R[F, M]          = filter[F, K] @ col[K, M]        (linalg.matmul, the vectorised schedule)
    out              = init + R, in the output's layout

where the loops split into K (read by both inputs: channels, kernel window),
M (the windowed operand and the output: batch, output positions) and F (the
other input and the output: filters). Named convolutions are generalised
first; the adjoints of `autodiff_pass/rules/conv.py` (the transposed window,
the filter correlation) have the same form and take the same path. The
product is laid out with F or M as the matmul's columns (its vectorised
dimension): one that fills whole vectors, else the larger. Ops with a loop every operand reads (grouped and
depthwise convolutions) or only one operand reads, and ops without a filter
loop (the batchless `conv_1d/2d/3d`: a matrix-vector product), keep their
loops.

Each rewrite lives in a private function (one per op), called in place and
inlined by the pipeline after elementwise fusion, so that fusion does not
copy an elementwise producer into the gather once per window tap. When the
gathered windows of the whole batch exceed `CHUNK_BYTES`, an scf.for runs the
gather and the matmul on chunks of the batch (`chunking`), so that the matmul
reads the windows from cache: LeNet's gradient at batch 64, 11.9 -> 8.5 ms.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

from mlir import ir
from mlir.dialects import func

from gradir.mlir_bridge import apply_schedule, walk_ops

_PREFIX = "__gradir_conv_matmul_"

CONVOLUTIONS = (
    "linalg.conv_1d", "linalg.conv_2d", "linalg.conv_3d",
    "linalg.conv_1d_nwc_wcf", "linalg.conv_1d_ncw_fcw", "linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nhwc_fhwc",
    "linalg.conv_2d_nchw_fchw", "linalg.conv_3d_ndhwc_dhwcf", "linalg.conv_3d_ncdhw_fcdhw",
)  # fmt: skip
"""Named convolutions whose loops split into F, K and M (not grouped or depthwise)."""

GENERALIZE_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %convolutions = transform.structured.match ops{[OPS]} in %root : (!transform.any_op) -> !transform.any_op
    %generic = transform.structured.generalize %convolutions : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
""".replace("OPS", ", ".join(f'"{name}"' for name in CONVOLUTIONS))

MIN_MACS = 4096
"""Smaller products stay loops: the gather and the call would cost more than they save."""


def _dims(expr: ir.AffineExpr) -> set[int]:
    if isinstance(expr, ir.AffineDimExpr):
        return {expr.position}
    if isinstance(expr, ir.AffineBinaryExpr):
        return _dims(expr.lhs) | _dims(expr.rhs)
    return set()


def _plain(map_: ir.AffineMap) -> list[int] | None:
    """The loops of a projected permutation, in order; None for any other map."""
    if not all(isinstance(e, ir.AffineDimExpr) for e in map_.results):
        return None
    loops = [ir.AffineDimExpr(e).position for e in map_.results]
    return loops if len(set(loops)) == len(loops) else None


@dataclass
class Contraction:
    """A multiply-accumulate op read as a windowed operand times a filter."""

    op: ir.Operation
    windowed: int
    """Operand index (0 or 1) of the input read through windows."""
    maps: list[ir.AffineMap]
    extents: dict[int, int]
    k: list[int]
    m: list[int]
    f: list[int]
    element: ir.Type
    shapes: list[list[int]]
    """Operand shapes (inputs 0 and 1, then the output)."""

    def types(self) -> list[str]:
        return [_tensor(shape, self.element) for shape in self.shapes]

    def columns_are_m(self) -> bool:
        """Whether M (else F) is the matmul's columns, its vectorised dimension: the one
        that fills whole 16-lane vectors, else the larger. A masked edge tile is slow:
        LeNet's second filter gradient, 16x6400 @ 6400x150 ran at 21 GMAC/s, laid out
        150x6400 @ 6400x16 at 54."""
        m, f = (prod(self.extents[d] for d in group) for group in (self.m, self.f))
        if (m % 16 == 0) != (f % 16 == 0):
            return m % 16 == 0
        return m >= f

    @property
    def filter_loops(self) -> list[int]:
        return _plain(self.maps[1 - self.windowed])  # type: ignore[return-value]

    @property
    def output_loops(self) -> list[int]:
        return _plain(self.maps[2])  # type: ignore[return-value]


def _multiply_accumulate(op: ir.Operation) -> bool:
    """Body `yield addf(acc, mulf(in0, in1))` (operands in any order)."""
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    if len(body) != 3 or [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    multiply, add, terminator = body
    arguments = list(block.arguments)
    factors = list(multiply.operands)
    if not ((factors[0] == arguments[0] and factors[1] == arguments[1]) or (factors[0] == arguments[1] and factors[1] == arguments[0])):
        return False
    terms = list(add.operands)
    if not ((terms[0] == arguments[2] and terms[1] == multiply.results[0]) or (terms[1] == arguments[2] and terms[0] == multiply.results[0])):
        return False
    return terminator.operands[0] == add.results[0]


def analyse(op: ir.Operation) -> Contraction | None:
    """The contraction `op` is, when it has the form this module rewrites."""
    if op.name != "linalg.generic" or len(op.operands) != 3 or len(op.results) != 1:
        return None
    types = [operand.type for operand in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) for t in types):
        return None
    tensors = [ir.RankedTensorType(t) for t in types]
    if not all(t.has_static_shape for t in tensors) or len({str(t.element_type) for t in tensors}) != 1:
        return None
    if str(tensors[0].element_type) not in ("f32", "f64") or not _multiply_accumulate(op):
        return None
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
    plain = [_plain(m) for m in maps]
    if plain[2] is None or [plain[0] is None, plain[1] is None].count(True) != 1:
        return None
    windowed = 0 if plain[0] is None else 1
    extents: dict[int, int] = {}
    for map_, tensor in zip(maps, tensors):
        for expr, size in zip(map_.results, tensor.shape):
            if isinstance(expr, ir.AffineDimExpr):
                extents.setdefault(ir.AffineDimExpr(expr).position, size)
    loops = maps[0].n_dims
    if len(extents) != loops:
        return None
    in_window = set().union(*(_dims(e) for e in maps[windowed].results))
    in_filter, in_output = set(plain[1 - windowed]), set(plain[2])  # type: ignore[arg-type]
    groups = {"k": [], "m": [], "f": []}
    for loop in range(loops):
        where = (loop in in_window, loop in in_filter, loop in in_output)
        kind = {(True, True, False): "k", (True, False, True): "m", (False, True, True): "f"}.get(where)
        if kind is None:
            return None  # a batch loop every operand reads, or one only one operand reads
        groups[kind].append(loop)
    if not all(groups.values()) or prod(extents.values()) < MIN_MACS:
        return None  # no F loop (batchless conv_1d/2d/3d): a matrix-vector product, left to loops
    filter_order = plain[1 - windowed]
    output_order = plain[2]
    return Contraction(
        op, windowed, maps, extents,
        k=[d for d in filter_order if d in groups["k"]],  # type: ignore[union-attr]
        m=[d for d in output_order if d in groups["m"]],  # type: ignore[union-attr]
        f=[d for d in output_order if d in groups["f"]],  # type: ignore[union-attr]
        element=tensors[0].element_type,
        shapes=[list(t.shape) for t in tensors],
    )  # fmt: skip


# ----------------------------------------------------------------------------
# The rewrite, as text
# ----------------------------------------------------------------------------


def _tensor(shape: list[int], element: ir.Type) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + f"{element}>"


def _map(loops: int, results: list[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(loops))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def _iterators(count: int) -> str:
    return "[" + ", ".join(['"parallel"'] * count) + "]"


def _copy_generic(name: str, source: str, source_type: str, source_map: str, result_type: str, loops: int) -> str:
    identity = _map(loops, [f"d{i}" for i in range(loops)])
    return (
        f"    %{name}_empty = tensor.empty() : {result_type}\n"
        f"    %{name} = linalg.generic {{indexing_maps = [{source_map}, {identity}], iterator_types = {_iterators(loops)}}}"
        f" ins({source} : {source_type}) outs(%{name}_empty : {result_type}) {{\n"
        f"    ^bb0(%in: {source_type.rsplit('x', 1)[-1][:-1]}, %out: {source_type.rsplit('x', 1)[-1][:-1]}):\n"
        f"      linalg.yield %in : {source_type.rsplit('x', 1)[-1][:-1]}\n"
        f"    }} -> {result_type}\n"
    )


def _collapse(name: str, source: str, source_type: str, groups: list[list[int]], result_type: str) -> str:
    if all(len(g) == 1 for g in groups) and source_type == result_type:
        return f"    %{name} = tensor.cast {source} : {source_type} to {result_type}\n"
    reassociation = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
    return f"    %{name} = tensor.collapse_shape {source} {reassociation} : {source_type} into {result_type}\n"


def rewrite_text(contraction: Contraction, name: str) -> str:
    """The private function `@name(windowed, filter, init) -> result` computing the op."""
    c = contraction
    element = c.element
    ext = c.extents
    types = c.types()
    windowed_type, filter_type, output_type = types[c.windowed], types[1 - c.windowed], types[2]
    columns_are_m = c.columns_are_m()
    k_size, m_size, f_size = (prod(ext[d] for d in group) for group in (c.k, c.m, c.f))

    # The gather: col over (K, M) or (M, K), reading the windowed operand through its map.
    col_order = c.k + c.m if columns_are_m else c.m + c.k
    position = {loop: i for i, loop in enumerate(col_order)}
    substitution = ir.AffineMap.get(
        c.maps[0].n_dims, 0,
        [ir.AffineDimExpr.get(position[d]) if d in position else ir.AffineConstantExpr.get(0) for d in range(c.maps[0].n_dims)],
    )  # fmt: skip
    window_results = [str(e.compose(substitution)) for e in c.maps[c.windowed].results]
    col_type = _tensor([ext[d] for d in col_order], element)
    text = _copy_generic("col", "%windowed", windowed_type, _map(len(col_order), window_results), col_type, len(col_order))
    first, second = (len(c.k), len(c.m)) if columns_are_m else (len(c.m), len(c.k))
    col_matrix = _tensor([k_size, m_size] if columns_are_m else [m_size, k_size], element)
    text += _collapse("col_matrix", "%col", col_type, [list(range(first)), list(range(first, first + second))], col_matrix)

    # The filter as a matrix: (F, K) before the columns, (K, F) after the rows.
    filter_loops = c.filter_loops
    wanted = c.f + c.k if columns_are_m else c.k + c.f
    if filter_loops == wanted:
        arranged, arranged_type = "%filter", filter_type
    else:
        source_results = [f"d{wanted.index(d)}" for d in filter_loops]
        # The copy walks `wanted` and reads the filter where it keeps each loop.
        arranged_type = _tensor([ext[d] for d in wanted], element)
        text += _copy_generic("arranged", "%filter", filter_type, _map(len(wanted), source_results), arranged_type, len(wanted))
        arranged = "%arranged"
    split = len(c.f) if columns_are_m else len(c.k)
    filter_matrix = _tensor([f_size, k_size] if columns_are_m else [k_size, f_size], element)
    text += _collapse("filter_matrix", arranged, arranged_type, [list(range(split)), list(range(split, len(wanted)))], filter_matrix)

    # The product, into zeros.
    product_type = _tensor([f_size, m_size] if columns_are_m else [m_size, f_size], element)
    lhs, rhs = ("%filter_matrix", "%col_matrix") if columns_are_m else ("%col_matrix", "%filter_matrix")
    lhs_type, rhs_type = (filter_matrix, col_matrix) if columns_are_m else (col_matrix, filter_matrix)
    text += (
        f"    %zero = arith.constant 0.0 : {element}\n"
        f"    %product_empty = tensor.empty() : {product_type}\n"
        f"    %product_init = linalg.fill ins(%zero : {element}) outs(%product_empty : {product_type}) -> {product_type}\n"
        f"    %product = linalg.matmul ins({lhs}, {rhs} : {lhs_type}, {rhs_type}) outs(%product_init : {product_type}) -> {product_type}\n"
    )
    product_order = c.f + c.m if columns_are_m else c.m + c.f
    expanded_type = _tensor([ext[d] for d in product_order], element)
    split = len(c.f) if columns_are_m else len(c.m)
    groups = [list(range(split)), list(range(split, len(product_order)))]
    reassociation = "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
    shape = ", ".join(str(ext[d]) for d in product_order)
    text += (
        f"    %expanded = tensor.expand_shape %product {reassociation} output_shape [{shape}]"
        f" : {product_type} into {expanded_type}\n"
    )

    # init + product, in the output's layout.
    output_loops = c.output_loops
    rank = len(output_loops)
    identity = _map(rank, [f"d{i}" for i in range(rank)])
    product_map = _map(rank, [f"d{output_loops.index(d)}" for d in product_order])
    text += (
        f"    %result = linalg.generic {{indexing_maps = [{identity}, {product_map}, {identity}], iterator_types = {_iterators(rank)}}}"
        f" ins(%init, %expanded : {output_type}, {expanded_type}) outs(%init : {output_type}) {{\n"
        f"    ^bb0(%a: {element}, %b: {element}, %out: {element}):\n"
        f"      %s = arith.addf %a, %b : {element}\n"
        f"      linalg.yield %s : {element}\n"
        f"    }} -> {output_type}\n"
    )
    return (
        f"func.func private @{name}(%windowed: {windowed_type}, %filter: {filter_type}, %init: {output_type}) -> {output_type} {{\n"
        f"{text}    return %result : {output_type}\n}}\n"
    )


# ----------------------------------------------------------------------------
# Chunks of the batch
# ----------------------------------------------------------------------------

CHUNK_BYTES = 2 * 1024 * 1024
"""The gathered windows of one chunk at most (when the batch divides so): they
are written by the gather and read back by the matmul while still in cache. The
whole batch's (20 MB for the input gradient of LeNet's second convolution, batch
64) went to memory and back, and the matmul, 6 rows over it, waited on it."""


@dataclass
class Chunking:
    """A loop of the contraction (the batch) run `size` at a time by an scf.for."""

    loop: int
    size: int
    in_m: bool
    """The loop is one of M (the output has it: chunks are independent) or of K
    (the filter operand has it: chunks accumulate into the result)."""

    def axis(self, contraction: Contraction, operand: int) -> int:
        """Where the loop is among `operand`'s dimensions (operand order: 0, 1, output)."""
        results = contraction.maps[operand].results
        return next(i for i, e in enumerate(results) if isinstance(e, ir.AffineDimExpr) and ir.AffineDimExpr(e).position == self.loop)


def chunking(c: Contraction) -> Chunking | None:
    """The batch loop to chunk and the chunk size, when the gathered windows would not
    fit `CHUNK_BYTES`: the outermost dimension of the windowed operand, read plainly,
    from M or K; the largest divisor of its extent that fits (one when none does),
    preferring chunks whose columns fill whole vectors."""
    first = c.maps[c.windowed].results[0]
    if not isinstance(first, ir.AffineDimExpr):
        return None
    loop = ir.AffineDimExpr(first).position
    if loop not in c.m and loop not in c.k:
        return None
    extent = c.extents[loop]
    per_step = prod(c.extents[d] for d in c.k + c.m) // extent * (32 if str(c.element) == "f32" else 64) // 8
    if extent * per_step <= CHUNK_BYTES:
        return None
    fitting = [size for size in range(1, extent + 1) if extent % size == 0 and size * per_step <= CHUNK_BYTES] or [1]
    if c.columns_are_m() and loop in c.m:
        # The chunk's M is the matmul's columns: whole vectors, or the edge tile is masked.
        columns = prod(c.extents[d] for d in c.m) // extent
        fitting.sort(key=lambda size: (size * columns % 16 == 0, size))
    return Chunking(loop, fitting[-1], loop in c.m)


def _chunk_of(c: Contraction, chunks: Chunking) -> Contraction:
    """The same contraction over one chunk of the loop."""
    shapes = [list(shape) for shape in c.shapes]
    operands = [c.windowed, 2 if chunks.in_m else 1 - c.windowed]
    for operand in operands:
        shapes[operand][chunks.axis(c, operand)] = chunks.size
    return Contraction(c.op, c.windowed, c.maps, {**c.extents, chunks.loop: chunks.size}, c.k, c.m, c.f,
                       c.element, shapes)  # fmt: skip


def _slice(shape: list[int], axis: int, size: int, offset: str) -> str:
    """`[offsets] [sizes] [strides]` of a slice of `size` elements from `offset` along `axis`."""
    offsets = ", ".join(offset if d == axis else "0" for d in range(len(shape)))
    sizes = ", ".join(str(size) if d == axis else str(n) for d, n in enumerate(shape))
    return f"[{offsets}] [{sizes}] [{', '.join(['1'] * len(shape))}]"


def chunked_text(c: Contraction, chunks: Chunking, name: str) -> str:
    """`@name` running `@name_chunk` (one chunk's gather and matmul) over the chunks."""
    inner = _chunk_of(c, chunks)
    types, chunk_types = c.types(), inner.types()
    windowed, other = c.windowed, 1 - c.windowed
    sliced = 2 if chunks.in_m else other
    arguments = {windowed: "%windowed", other: "%filter", 2: "%acc"}
    text = ""
    for operand in (windowed, sliced):
        where = _slice(c.shapes[operand], chunks.axis(c, operand), chunks.size, "%i")
        text += (f"      %chunk{operand} = tensor.extract_slice {arguments[operand]}{where}"
                 f" : {types[operand]} to {chunk_types[operand]}\n")  # fmt: skip
        arguments[operand] = f"%chunk{operand}"
    call_types = [chunk_types[windowed], chunk_types[other], chunk_types[2]]
    text += (f"      %part = func.call @{name}_chunk({arguments[windowed]}, {arguments[other]}, {arguments[2]})"
             f" : ({', '.join(call_types)}) -> {chunk_types[2]}\n")  # fmt: skip
    if chunks.in_m:
        where = _slice(c.shapes[2], chunks.axis(c, 2), chunks.size, "%i")
        text += f"      %next = tensor.insert_slice %part into %acc{where} : {chunk_types[2]} into {types[2]}\n"
    else:  # the chunk's products were added to the whole result
        text += f"      %next = tensor.cast %part : {types[2]} to {types[2]}\n"
    extent = c.extents[chunks.loop]
    return (
        rewrite_text(inner, f"{name}_chunk")
        + f"func.func private @{name}(%windowed: {types[windowed]}, %filter: {types[other]}, %init: {types[2]})"
        f" -> {types[2]} {{\n"
        f"    %c0 = arith.constant 0 : index\n    %step = arith.constant {chunks.size} : index\n"
        f"    %end = arith.constant {extent} : index\n"
        f"    %result = scf.for %i = %c0 to %end step %step iter_args(%acc = %init) -> ({types[2]}) {{\n"
        f"{text}      scf.yield %next : {types[2]}\n    }}\n"
        f"    return %result : {types[2]}\n}}\n"
    )


def convolutions_as_matmuls(module: ir.Module) -> int:
    """Rewrite every convolution-shaped op of `module` (on tensors) as a gather
    and a matmul behind a call; returns how many were rewritten."""
    with module.context, ir.Location.unknown():
        if walk_ops(module, set(CONVOLUTIONS)):
            apply_schedule(module, GENERALIZE_SCHEDULE, "cpu-tensor")
        count = 0
        for op in walk_ops(module, {"linalg.generic"}):
            contraction = analyse(op)
            if contraction is None:
                continue
            name = f"{_PREFIX}{count}"
            count += 1
            chunks = chunking(contraction)
            text = rewrite_text(contraction, name) if chunks is None else chunked_text(contraction, chunks, name)
            parsed = ir.Module.parse(text)  # kept alive while its ops move
            for definition in list(parsed.body.operations):
                module.body.append(definition)
            operands = list(op.operands)
            arguments = [operands[contraction.windowed], operands[1 - contraction.windowed], operands[2]]
            with ir.InsertionPoint(op):
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), arguments)
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
        return count
