"""LAPACK's Cholesky factorisation and triangular solve as loops, for `from_jax` (step 3 of
`jax_export`).

On the CPU, JAX lowers `jnp.linalg.cholesky` (`jax.scipy.linalg.cho_factor`, the multivariate
normal's density, Gaussian processes) to a `stablehlo.custom_call @lapack_?potrf_ffi` and
`jax.scipy.linalg.solve_triangular` (`cho_solve`, and the derivative of a Cholesky) to
`@lapack_?trsm_ffi`: calls into a library, with no StableHLO to legalize. Each is written here
as the textbook loop on tensors, which gradir differentiates like any loop:

- `potrf` (`uplo` L or U): the Cholesky-Banachiewicz recurrence, column by column, in the
  requested triangle of the input; the other triangle keeps the input's values, as LAPACK's
  does (JAX masks it), and `info` is 0. A matrix that is not positive definite gives NaNs
  (the square root of a negative pivot), which is also what JAX returns for it.
- `trsm` (`side` L or R, `uplo`, `trans_x` N or T, `diag` N or U): forward or backward
  substitution, one unknown at a time, the right-hand side overwritten in place.

Leading batch dimensions (`num_batch_dims`) become outer loops. n^3 scalar steps: meant for
the small systems of statistical models. Complex matrices, or another LAPACK routine, stay a
located `SourceError` (`_reject_foreign_ops`).
"""

from __future__ import annotations

import re

from gradir.errors import SourceError

_ROUTINE = re.compile(r"^lapack_([sd])(potrf|trsm)(_ffi)?$")
_LOWER, _NO_TRANSPOSE, _UNIT, _LEFT = ord("L"), ord("N"), ord("U"), ord("L")
"""LAPACK's option characters, as JAX passes them (`uplo`, `trans_x`, `diag`, `side`)."""


def lapack_calls_to_loops(module, walk, location_of) -> None:
    """Replace every `potrf`/`trsm` custom call of `module` (MLIR 22, unregistered dialects
    allowed) by the loop it computes. `walk(op)` yields the ops nested in `op`;
    `location_of(op)` is the Python line a refusal names."""
    calls = [op for op in walk(module.operation) if op.name == "stablehlo.custom_call"]
    for number, call in enumerate(calls):
        target = _ROUTINE.match(str(call.attributes["call_target_name"]).strip('"'))
        if target:
            _call_to_loop(module, call, target[2], f"__gradir_{target[2]}_{number}", location_of)


def _option(call, name: str, default: int) -> int:
    found = re.search(rf"\b{name} = (\d+)", str(call.attributes["mhlo.backend_config"])) if (
        "mhlo.backend_config" in call.attributes) else None  # fmt: skip
    return int(found[1]) if found else default


def _call_to_loop(module, call, routine: str, name: str, location_of) -> None:
    from mlir import ir

    kinds = [ir.RankedTensorType(value.type) for value in call.operands]
    if any(not kind.has_static_shape for kind in kinds):
        raise SourceError(f"lapack {routine}: a matrix of dynamic shape", location_of(call))
    batch = len(kinds[0].shape) - 2
    if routine == "potrf":
        text = _cholesky_text(name, kinds[0], batch, _option(call, "uplo", _LOWER) == _LOWER)
    else:
        transposed = _option(call, "trans_x", _NO_TRANSPOSE) != _NO_TRANSPOSE
        text = _triangular_solve_text(
            name, kinds[0], kinds[1], batch, left=_option(call, "side", _LEFT) == _LEFT,
            lower=_option(call, "uplo", _LOWER) == _LOWER, transposed=transposed,
            unit=_option(call, "diag", _NO_TRANSPOSE) == _UNIT,
        )  # fmt: skip
    loop_module = ir.Module.parse(text)  # alive until its function moved out
    function = next(op.operation for op in loop_module.body.operations)
    function.move_before(next(op.operation for op in module.body.operations if op.operation.name == "func.func"))
    with ir.InsertionPoint(call), call.location:
        loop = ir.Operation.create(
            "func.call", results=[kinds[-1 if routine == "trsm" else 0]], operands=list(call.operands),
            attributes={"callee": ir.FlatSymbolRefAttr.get(name)},
        )  # fmt: skip
        call.results[0].replace_all_uses_with(loop.results[0])
        for info in list(call.results)[1:]:  # potrf's `info`: 0, it did not fail
            zero = ir.Operation.create(
                "arith.constant", results=[info.type],
                attributes={"value": ir.DenseElementsAttr.get_splat(info.type, ir.IntegerAttr.get(
                    ir.RankedTensorType(info.type).element_type, 0))},
            )  # fmt: skip
            info.replace_all_uses_with(zero.results[0])
    call.erase()


class _Text:
    """MLIR text of one private function, its loops opened and closed in order."""

    def __init__(self, header: str) -> None:
        self.lines = [header, "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index"]
        self.depth = 1
        self.closers: list[tuple[str, str]] = []

    def add(self, line: str) -> None:
        self.lines.append("  " * self.depth + line)

    def open(self, label: str, end: str, carried: list[tuple[str, str, str]], start: str = "%c0") -> None:
        """`%label = scf.for %label_i = start to end` carrying (name, initial, type) values."""
        arguments = ", ".join(f"{n} = {v}" for n, v, _ in carried)
        types = ", ".join(t for _, _, t in carried)
        count = f":{len(carried)}" if len(carried) > 1 else ""
        self.add(
            f"%{label}{count} = scf.for %{label}_i = {start} to {end} step %c1 iter_args({arguments}) -> ({types}) {{"
        )
        self.depth += 1
        self.closers.append((label, types))

    def close(self, yielded: list[str]) -> list[str]:
        """Yield `yielded` and close the innermost loop; its results."""
        label, types = self.closers.pop()
        self.add(f"scf.yield {', '.join(yielded)} : {types}")
        self.depth -= 1
        self.add("}")
        if len(yielded) == 1:
            return [f"%{label}"]
        return [f"%{label}#{k}" for k in range(len(yielded))]

    def constant(self, name: str, value: int) -> None:
        self.add(f"%{name} = arith.constant {value} : index")

    def open_batch(self, shape, batch: int, state: str, kind: str) -> tuple[str, str]:
        """One loop per leading batch dimension, carrying `state`; (the state inside them, the
        batch indices as an index prefix "%b0_i, ...")."""
        for d in range(batch):
            self.constant(f"b{d}n", shape[d])
        for d in range(batch):
            self.open(f"b{d}", f"%b{d}n", [(f"%sb{d}", state, kind)])
            state = f"%sb{d}"
        return state, "".join(f"%b{d}_i, " for d in range(batch))

    def close_batch(self, batch: int, result: str) -> str:
        for _ in range(batch):
            (result,) = self.close([result])
        return result

    def finish(self, results: list[str], types: str) -> str:
        self.add(f"return {', '.join(results)} : {types}")
        return "\n".join(self.lines) + "\n}\n"


def _cholesky_text(name: str, kind, batch: int, lower: bool) -> str:
    """`@name(a) -> a` with its `lower` (else upper) triangle overwritten by the Cholesky
    factor: for each column j, l_jj = sqrt(a_jj - sum_k<j l_jk^2) and, below it,
    l_ij = (a_ij - sum_k<j l_ik l_jk) / l_jj (for the upper factor, every index pair swapped)."""
    t, element, n = str(kind), str(kind.element_type), kind.shape[-1]
    text = _Text(f"func.func private @{name}(%a: {t}) -> {t} {{")
    text.constant("n", n)
    state, prefix = text.open_batch(kind.shape, batch, "%a", t)

    def at(row: str, column: str) -> str:
        return prefix + (f"{row}, {column}" if lower else f"{column}, {row}")

    text.open("col", "%n", [("%scol", state, t)])
    j = "%col_i"
    text.add(f"%zero = arith.constant 0.0 : {element}")
    text.open("diag", j, [("%dsum", "%zero", element)])
    text.add(f"%djk = tensor.extract %scol[{at(j, '%diag_i')}] : {t}")
    text.add(f"%dsq = arith.mulf %djk, %djk : {element}")
    text.add(f"%dnext = arith.addf %dsum, %dsq : {element}")
    (squares,) = text.close(["%dnext"])
    text.add(f"%ajj = tensor.extract %scol[{at(j, j)}] : {t}")
    text.add(f"%pivot = arith.subf %ajj, {squares} : {element}")
    text.add(f"%ljj = math.sqrt %pivot : {element}")
    text.add(f"%withdiag = tensor.insert %ljj into %scol[{at(j, j)}] : {t}")
    text.add(f"%below = arith.addi {j}, %c1 : index")
    text.open("row", "%n", [("%srow", "%withdiag", t)], start="%below")
    i = "%row_i"
    text.open("dot", j, [("%psum", "%zero", element)])
    text.add(f"%lik = tensor.extract %srow[{at(i, '%dot_i')}] : {t}")
    text.add(f"%ljk = tensor.extract %srow[{at(j, '%dot_i')}] : {t}")
    text.add(f"%prod = arith.mulf %lik, %ljk : {element}")
    text.add(f"%pnext = arith.addf %psum, %prod : {element}")
    (products,) = text.close(["%pnext"])
    text.add(f"%aij = tensor.extract %srow[{at(i, j)}] : {t}")
    text.add(f"%rest = arith.subf %aij, {products} : {element}")
    text.add(f"%lij = arith.divf %rest, %ljj : {element}")
    text.add(f"%written = tensor.insert %lij into %srow[{at(i, j)}] : {t}")
    (column,) = text.close(["%written"])
    (result,) = text.close([column])
    return text.finish([text.close_batch(batch, result)], t)


def _triangular_solve_text(name: str, a_kind, b_kind, batch: int, *, left: bool, lower: bool,
                           transposed: bool, unit: bool) -> str:  # fmt: skip
    """`@name(a, b) -> x` solving op(a) x = b (`left`) or x op(a) = b, op(a) = a or a^T, by
    substitution: unknown i of each right-hand side c is (b_ic - sum of the solved unknowns k
    times the coefficient c(i, k)) / c(i, i), solved forwards when the coefficients used are
    the lower triangle, else backwards."""
    a, b, element = str(a_kind), str(b_kind), str(a_kind.element_type)
    size = a_kind.shape[-1]
    sides = b_kind.shape[-1] if left else b_kind.shape[-2]  # right-hand sides
    swapped = transposed != (not left)  # coefficient c(i, k) reads a[k, i]
    forward = lower != swapped
    text = _Text(f"func.func private @{name}(%a: {a}, %b: {b}) -> {b} {{")
    text.constant("m", size)
    text.constant("last", size - 1)
    text.constant("sides", sides)
    state, prefix = text.open_batch(b_kind.shape, batch, "%b", b)

    def coefficient(i: str, k: str) -> str:
        return prefix + (f"{k}, {i}" if swapped else f"{i}, {k}")

    def unknown(i: str, c: str) -> str:
        return prefix + (f"{i}, {c}" if left else f"{c}, {i}")

    def nth(step: str, label: str) -> str:
        if forward:
            return step
        text.add(f"%{label} = arith.subi %last, {step} : index")
        return f"%{label}"

    text.open("step", "%m", [("%sstep", state, b)])
    i = nth("%step_i", "i")
    text.add(f"%zero = arith.constant 0.0 : {element}")
    if not unit:
        text.add(f"%cii = tensor.extract %a[{coefficient(i, i)}] : {a}")
    text.open("side", "%sides", [("%sside", "%sstep", b)])
    c = "%side_i"
    text.open("dot", "%step_i", [("%sum", "%zero", element)])
    k = nth("%dot_i", "k")
    text.add(f"%cik = tensor.extract %a[{coefficient(i, k)}] : {a}")
    text.add(f"%xk = tensor.extract %sside[{unknown(k, c)}] : {b}")
    text.add(f"%prod = arith.mulf %cik, %xk : {element}")
    text.add(f"%next = arith.addf %sum, %prod : {element}")
    (total,) = text.close(["%next"])
    text.add(f"%bi = tensor.extract %sside[{unknown(i, c)}] : {b}")
    text.add(f"%rest = arith.subf %bi, {total} : {element}")
    solved = "%rest"
    if not unit:
        text.add(f"%xi = arith.divf %rest, %cii : {element}")
        solved = "%xi"
    text.add(f"%written = tensor.insert {solved} into %sside[{unknown(i, c)}] : {b}")
    (sides_done,) = text.close(["%written"])
    (result,) = text.close([sides_done])
    return text.finish([text.close_batch(batch, result)], b)
