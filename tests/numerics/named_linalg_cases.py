"""Programs built around the named linalg ops front ends emit (MLIR 22's spelling), with
shapes drawn at random (fixed seed) and inputs that exercise each op: used by the
gradient checks (`test_named_linalg.py`) and the GPU lowering checks
(`tests/gpu_backend/test_gpu_named_linalg.py`).

Each case is one function returning a 0-d loss: the op, then `tanh` (or `sin`) of its
result summed, so that no gradient is a constant. Inits are arguments (their gradients
are checked too) unless the case says otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RNG = np.random.default_rng(20261124)


def t(*shape: int, element: str = "f32") -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + element + ">"


def sizes(count: int, low: int = 2, high: int = 6) -> list[int]:
    return [int(v) for v in RNG.integers(low, high, count)]


def uniform(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return RNG.uniform(low, high, shape)


def positive(*shape: int) -> np.ndarray:
    return RNG.uniform(0.5, 1.5, shape)


@dataclass
class Case:
    name: str
    arguments: list[tuple[str, str]]
    """(name, type) of each argument."""
    body: str
    """Lines computing `%r`, the op's result."""
    result_type: str
    inputs: list[np.ndarray]
    wrt: tuple[int, ...] | None = None
    smooth: str = "math.tanh"
    notes: list[str] = field(default_factory=list)

    def function(self, name: str | None = None) -> str:
        name = name or self.name
        signature = ", ".join(f"%{n}: {ty}" for n, ty in self.arguments)
        return f"""
func.func @{name}({signature}) -> tensor<f32> {{
{self.body}
  %smooth = {self.smooth} %r : {self.result_type}
  %loss = autodiff.sum %smooth : {self.result_type} -> tensor<f32>
  return %loss : tensor<f32>
}}"""


def _op(text: str) -> str:
    return "\n".join("  " + line for line in text.strip().splitlines())


def _filled(name: str, shape_type: str) -> str:
    return _op(f"""
%zero_{name} = arith.constant 0.0 : f32
%empty_{name} = tensor.empty() : {shape_type}
%{name} = linalg.fill ins(%zero_{name} : f32) outs(%empty_{name} : {shape_type}) -> {shape_type}""")


def contraction_cases() -> list[Case]:
    cases = []
    (k,) = sizes(1, 3, 8)
    cases.append(Case(
        "dot", [("a", t(k)), ("b", t(k)), ("c", t())],
        _op(f"%r = linalg.dot ins(%a, %b : {t(k)}, {t(k)}) outs(%c : {t()}) -> {t()}"),
        t(), [uniform(k), uniform(k), uniform()],
    ))
    m, k = sizes(2)
    cases.append(Case(
        "matvec", [("a", t(m, k)), ("x", t(k)), ("c", t(m))],
        _op(f"%r = linalg.matvec ins(%a, %x : {t(m, k)}, {t(k)}) outs(%c : {t(m)}) -> {t(m)}"),
        t(m), [uniform(m, k), uniform(k), uniform(m)],
    ))
    k, n = sizes(2)
    cases.append(Case(
        "vecmat", [("x", t(k)), ("a", t(k, n)), ("c", t(n))],
        _op(f"%r = linalg.vecmat ins(%x, %a : {t(k)}, {t(k, n)}) outs(%c : {t(n)}) -> {t(n)}"),
        t(n), [uniform(k), uniform(k, n), uniform(n)],
    ))
    b, m, k = sizes(3)
    cases.append(Case(
        "batch_matvec", [("a", t(b, m, k)), ("x", t(b, k)), ("c", t(b, m))],
        _op(f"%r = linalg.batch_matvec ins(%a, %x : {t(b, m, k)}, {t(b, k)}) outs(%c : {t(b, m)}) -> {t(b, m)}"),
        t(b, m), [uniform(b, m, k), uniform(b, k), uniform(b, m)],
    ))
    b, k, n = sizes(3)
    cases.append(Case(
        "batch_vecmat", [("x", t(b, k)), ("a", t(b, k, n)), ("c", t(b, n))],
        _op(f"%r = linalg.batch_vecmat ins(%x, %a : {t(b, k)}, {t(b, k, n)}) outs(%c : {t(b, n)}) -> {t(b, n)}"),
        t(b, n), [uniform(b, k), uniform(b, k, n), uniform(b, n)],
    ))
    b, m, k, n = sizes(4)
    a, bb, c = t(b, m, k), t(b, k, n), t(b, m, n)
    cases.append(Case(
        "batch_matmul", [("a", a), ("b", bb), ("c", c)],
        _op(f"%r = linalg.batch_matmul ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
        c, [uniform(b, m, k), uniform(b, k, n), uniform(b, m, n)],
    ))
    # A stored (batch, k, m) and B stored (batch, n, k): MLIR's former batch_matmul_transpose_a/b.
    bmap = "affine_map<(d0, d1, d2, d3) -> ({})>"
    maps = {
        "transpose_a": [bmap.format("d0, d3, d1"), bmap.format("d0, d3, d2"), bmap.format("d0, d1, d2")],
        "transpose_b": [bmap.format("d0, d1, d3"), bmap.format("d0, d2, d3"), bmap.format("d0, d1, d2")],
        # A shared by every batch (broadcast): the generic view's path.
        "broadcast_a": [bmap.format("d1, d3"), bmap.format("d0, d3, d2"), bmap.format("d0, d1, d2")],
    }
    shapes = {"transpose_a": ((b, k, m), (b, k, n)), "transpose_b": ((b, m, k), (b, n, k)),
              "broadcast_a": ((m, k), (b, k, n))}  # fmt: skip
    for variant, (a_shape, b_shape) in shapes.items():
        a, bb = t(*a_shape), t(*b_shape)
        cases.append(Case(
            f"batch_matmul_{variant}", [("a", a), ("b", bb), ("c", c)],
            _op(f"%r = linalg.batch_matmul indexing_maps = [{', '.join(maps[variant])}] "
                f"ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
            c, [uniform(*a_shape), uniform(*b_shape), uniform(b, m, n)],
        ))  # fmt: skip
    m, k, n = sizes(3)
    mmap = "affine_map<(d0, d1, d2) -> ({})>"
    matmuls = {
        # A broadcast along the rows: a vector read by every row of C.
        "broadcast_a": ((k,), (k, n), (m, n), [mmap.format("d2"), mmap.format("d2, d1"), mmap.format("d0, d1")]),
        # C written transposed.
        "transposed_output": ((m, k), (k, n), (n, m),
                              [mmap.format("d0, d2"), mmap.format("d2, d1"), mmap.format("d1, d0")]),
        # A and B both read transposed (matmul's own formulas).
        "transposed_inputs": ((k, m), (n, k), (m, n),
                              [mmap.format("d2, d0"), mmap.format("d1, d2"), mmap.format("d0, d1")]),
    }
    for variant, (a_shape, b_shape, c_shape, variant_maps) in matmuls.items():
        a, bb, c = t(*a_shape), t(*b_shape), t(*c_shape)
        cases.append(Case(
            f"matmul_{variant}", [("a", a), ("b", bb), ("c", c)],
            _op(f"%r = linalg.matmul indexing_maps = [{', '.join(variant_maps)}] "
                f"ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
            c, [uniform(*a_shape), uniform(*b_shape), uniform(*c_shape)],
        ))  # fmt: skip
    m1, n1, k1, m0, n0, k0 = sizes(6, 1, 4)
    a, bb, c = t(m1, k1, m0, k0), t(n1, k1, n0, k0), t(m1, n1, m0, n0)
    cases.append(Case(
        "mmt4d", [("a", a), ("b", bb), ("c", c)],
        _op(f"%r = linalg.mmt4d ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
        c, [uniform(m1, k1, m0, k0), uniform(n1, k1, n0, k0), uniform(m1, n1, m0, n0)],
    ))
    b, m1, n1, k1, m0, n0, k0 = sizes(7, 1, 4)
    a, bb, c = t(b, m1, k1, m0, k0), t(b, n1, k1, n0, k0), t(b, m1, n1, m0, n0)
    cases.append(Case(
        "batch_mmt4d", [("a", a), ("b", bb), ("c", c)],
        _op(f"%r = linalg.batch_mmt4d ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
        c, [uniform(b, m1, k1, m0, k0), uniform(b, n1, k1, n0, k0), uniform(b, m1, n1, m0, n0)],
    ))
    b, m, k, n = sizes(4)
    cmap = "affine_map<(d0, d1, d2, d3) -> ({})>"
    a, bb, c = t(b, m, k), t(k, n), t(m, n, b)
    cases.append(Case(
        # a batch loop the output keeps last, B shared by the batch
        "contract_batched", [("a", a), ("b", bb), ("c", c)],
        _op(f"%r = linalg.contract indexing_maps = [{cmap.format('d0, d1, d3')}, {cmap.format('d3, d2')}, "
            f"{cmap.format('d1, d2, d0')}] ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
        c, [uniform(b, m, k), uniform(k, n), uniform(m, n, b)],
    ))  # fmt: skip
    m, n = sizes(2)
    smap = "affine_map<(d0, d1) -> ({})>"
    cases.append(Case(
        # every loop contracted: the Frobenius inner product, into a zero-filled init
        "contract_full", [("a", t(m, n)), ("b", t(n, m))],
        _filled("c", t()) + "\n"
        + _op(f"%r = linalg.contract indexing_maps = [{smap.format('d0, d1')}, {smap.format('d1, d0')}, "
              f"{smap.format('')}] ins(%a, %b : {t(m, n)}, {t(n, m)}) outs(%c : {t()}) -> {t()}"),
        t(), [uniform(m, n), uniform(n, m)],
    ))  # fmt: skip
    return cases


UNARY_KINDS = {
    # kind -> inputs that keep it smooth
    "exp": uniform, "log": positive, "abs": uniform, "negf": uniform, "sqrt": positive,
    "rsqrt": positive, "square": uniform, "tanh": uniform, "erf": uniform, "reciprocal": positive,
    # piecewise constant: a zero derivative (inputs are never within eps of a step)
    "floor": uniform, "ceil": uniform, "round": uniform,
}  # fmt: skip
BINARY_KINDS = {
    "add": uniform, "sub": uniform, "mul": uniform, "div": positive, "max_signed": uniform,
    "min_signed": uniform, "powf": positive,
}  # fmt: skip


def elementwise_cases() -> list[Case]:
    cases = []
    m, n = sizes(2)
    x = t(m, n)
    for kind, draw in UNARY_KINDS.items():
        cases.append(Case(
            f"elementwise_{kind}", [("x", x), ("init", x)],
            _op(f"%r = linalg.elementwise kind=#linalg.elementwise_kind<{kind}> ins(%x : {x}) outs(%init : {x}) -> {x}"),
            x, [draw(m, n), uniform(m, n)],
        ))  # fmt: skip
    emap = "affine_map<(d0, d1) -> ({})>"
    for kind, draw in BINARY_KINDS.items():
        # the second operand broadcast along the rows
        maps = f"[{emap.format('d0, d1')}, {emap.format('d1')}, {emap.format('d0, d1')}]"
        cases.append(Case(
            f"elementwise_{kind}", [("x", x), ("y", t(n)), ("init", x)],
            _op(f"%r = linalg.elementwise kind=#linalg.elementwise_kind<{kind}> indexing_maps = {maps} "
                f"ins(%x, %y : {x}, {t(n)}) outs(%init : {x}) -> {x}"),
            x, [draw(m, n), draw(n), uniform(m, n)],
        ))  # fmt: skip
    # a transposed input
    maps = f"[{emap.format('d1, d0')}, {emap.format('d0, d1')}]"
    cases.append(Case(
        "elementwise_exp_transposed", [("x", t(n, m)), ("init", x)],
        _op(f"%r = linalg.elementwise kind=#linalg.elementwise_kind<exp> indexing_maps = {maps} "
            f"ins(%x : {t(n, m)}) outs(%init : {x}) -> {x}"),
        x, [uniform(n, m), uniform(m, n)],
    ))  # fmt: skip
    # select(cond, a, b) with a condition computed from data
    cases.append(Case(
        "elementwise_select", [("x", x), ("y", x), ("init", x)],
        _op(f"""
%cond_init = tensor.empty() : {t(m, n, element="i1")}
%cond = linalg.map ins(%x : {x}) outs(%cond_init : {t(m, n, element="i1")})
  (%in: f32, %out: i1) {{
    %zero = arith.constant 0.0 : f32
    %positive = arith.cmpf ogt, %in, %zero : f32
    linalg.yield %positive : i1
  }}
%r = linalg.elementwise kind=#linalg.elementwise_kind<select> ins(%cond, %x, %y : {t(m, n, element="i1")}, {x}, {x}) outs(%init : {x}) -> {x}"""),
        x, [uniform(m, n), uniform(m, n), uniform(m, n)],
    ))  # fmt: skip
    return cases


NAMED_UNARY = ("abs", "ceil", "erf", "floor", "negf", "reciprocal", "round", "rsqrt", "square", "tanh")
"""MLIR 22's named elementwise ops of one input (gradir's `linalg_named_elementwise`)."""


def named_elementwise_cases() -> list[Case]:
    """`linalg.tanh ins(%x) outs(%init)`, ... : the same draws as the `elementwise` kinds."""
    cases = []
    m, n = sizes(2)
    x = t(m, n)
    for name in NAMED_UNARY:
        cases.append(Case(
            f"named_{name}", [("x", x), ("init", x)],
            _op(f"%r = linalg.{name} ins(%x : {x}) outs(%init : {x}) -> {x}"),
            x, [UNARY_KINDS[name](m, n), uniform(m, n)],
        ))  # fmt: skip
    for name in ("div", "powf"):
        cases.append(Case(
            f"named_{name}", [("x", x), ("y", x), ("init", x)],
            _op(f"%r = linalg.{name} ins(%x, %y : {x}, {x}) outs(%init : {x}) -> {x}"),
            x, [positive(m, n), positive(m, n), uniform(m, n)],
        ))  # fmt: skip
    # A scalar input (`ins(%x, %s : tensor<..>, f32)`), read in every iteration: the
    # generic view's path; as the divisor and as the exponent.
    for name, draw in (("div", uniform), ("powf", positive)):
        cases.append(Case(
            f"named_{name}_scalar", [("x", x), ("s", "f32"), ("init", x)],
            _op(f"%r = linalg.{name} ins(%x, %s : {x}, f32) outs(%init : {x}) -> {x}"),
            x, [draw(m, n), np.asarray(RNG.uniform(0.5, 1.5)), uniform(m, n)],
        ))  # fmt: skip
    return cases


def map_reduce_cases() -> list[Case]:
    cases = []
    m, n = sizes(2)
    x = t(m, n)
    cases.append(Case(
        "map_body", [("x", x), ("y", x), ("init", x)],
        _op(f"""
%r = linalg.map ins(%x, %y : {x}, {x}) outs(%init : {x})
  (%in: f32, %in_0: f32, %out: f32) {{
    %s = math.sin %in : f32
    %p = arith.mulf %s, %in_0 : f32
    %q = arith.mulf %in, %in : f32
    %d = arith.divf %p, %in_0 : f32
    %e = arith.addf %d, %q : f32
    %w = arith.mulf %e, %p : f32
    linalg.yield %w : f32
  }}"""),
        x, [uniform(m, n), positive(m, n), uniform(m, n)], wrt=(0, 1),
    ))  # fmt: skip
    cases.append(Case(
        "map_short_form", [("x", x), ("y", x), ("init", x)],
        _op(f"%r = linalg.map {{ arith.mulf }} ins(%x, %y : {x}, {x}) outs(%init : {x})"),
        x, [uniform(m, n), uniform(m, n), uniform(m, n)],
    ))
    cases.append(Case(
        # a scalar read from outside the body (an argument's element)
        "map_captured_scalar", [("x", x), ("s", t(2)), ("init", x)],
        _op(f"""
%c1 = arith.constant 1 : index
%scale = tensor.extract %s[%c1] : {t(2)}
%r = linalg.map ins(%x : {x}) outs(%init : {x})
  (%in: f32, %out: f32) {{
    %p = arith.mulf %in, %scale : f32
    %e = math.exp %p : f32
    linalg.yield %e : f32
  }}"""),
        x, [uniform(m, n), uniform(2), uniform(m, n)], wrt=(0, 1),
    ))  # fmt: skip
    reduced = t(m)
    # The init of a max (min) is one more candidate: it wins every other row.
    alternating = np.where(np.arange(m) % 2 == 0, 2.0, -2.0) + uniform(m, low=-0.1, high=0.1)
    for name, body, init in [
        ("reduce_add", "{ arith.addf }", uniform(m)),
        ("reduce_max", "{ arith.maximumf }", alternating),
        ("reduce_min", "{ arith.minimumf }", -alternating),
    ]:
        cases.append(Case(
            name, [("x", x), ("init", reduced)],
            _op(f"%r = linalg.reduce {body} ins(%x : {x}) outs(%init : {reduced}) dimensions = [1]"),
            reduced, [uniform(m, n), init],
        ))  # fmt: skip
    bodies = {
        # the maximum of an expression: the generic view's max combiner
        "reduce_max_of_square": ("%q = arith.mulf %in, %in : f32\n    %v = arith.maximumf %q, %acc : f32", positive),
        "reduce_product": ("%v = arith.mulf %in, %acc : f32", uniform),
        "reduce_sum_of_sines": ("%q = math.sin %in : f32\n    %v = arith.addf %acc, %q : f32", uniform),
    }
    for name, (lines, draw) in bodies.items():
        cases.append(Case(
            name, [("x", x), ("init", t(n))],
            _op(f"""
%r = linalg.reduce ins(%x : {x}) outs(%init : {t(n)}) dimensions = [0]
  (%in: f32, %acc: f32) {{
    {lines}
    linalg.yield %v : f32
  }}"""),
            t(n), [draw(m, n), draw(n)],
        ))  # fmt: skip
    # two inputs, two results: a sum of products and a maximum
    cases.append(Case(
        "reduce_two_results", [("x", x), ("y", x), ("sum_init", t(n)), ("max_init", t(n))],
        _op(f"""
%pair:2 = linalg.reduce ins(%x, %y : {x}, {x}) outs(%sum_init, %max_init : {t(n)}, {t(n)}) dimensions = [0]
  (%in: f32, %in_0: f32, %acc: f32, %acc_1: f32) {{
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %p, %acc : f32
    %v = arith.maximumf %in_0, %acc_1 : f32
    linalg.yield %s, %v : f32, f32
  }}
%r = arith.mulf %pair#0, %pair#1 : {t(n)}"""),
        t(n), [uniform(m, n), uniform(m, n), uniform(n), uniform(n, low=-2.0, high=-1.5)],
    ))  # fmt: skip
    for dimension in (0, 1):
        cases.append(Case(
            f"softmax_dim{dimension}", [("x", x), ("init", x)],
            _op(f"%r = linalg.softmax dimension({dimension}) ins(%x : {x}) outs(%init : {x}) -> {x}"),
            x, [uniform(m, n, low=-2.0, high=2.0), uniform(m, n)], smooth="math.sin",
        ))  # fmt: skip
    b, m, n = sizes(3)
    cases.append(Case(
        "transpose_broadcast", [("x", t(b, m)), ("y", t(m, n, b))],
        _op(f"""
%te = tensor.empty() : {t(m, b)}
%xt = linalg.transpose ins(%x : {t(b, m)}) outs(%te : {t(m, b)}) permutation = [1, 0]
%be = tensor.empty() : {t(m, n, b)}
%xb = linalg.broadcast ins(%xt : {t(m, b)}) outs(%be : {t(m, n, b)}) dimensions = [1]
%r = arith.mulf %xb, %y : {t(m, n, b)}"""),
        t(m, n, b), [uniform(b, m), uniform(m, n, b)],
    ))  # fmt: skip
    return cases


def repeated_operand_cases() -> list[Case]:
    """One value read as two operands: each read gets its own tangent and gradient
    (the forward rule of a contraction once sent both to one tangent: dot(m, m)'s
    tangent was dot(t, t))."""
    (k,) = sizes(1, 3, 8)
    n, b = sizes(2)
    emap = "affine_map<(d0, d1) -> ({})>"
    square, batch = t(n, n), t(b, n, n)
    return [
        Case("dot_repeated", [("x", t(k))], _filled("c", t()) + "\n"
             + _op(f"%r = linalg.dot ins(%x, %x : {t(k)}, {t(k)}) outs(%c : {t()}) -> {t()}"),
             t(), [uniform(k)]),
        Case("matmul_repeated", [("a", square)], _filled("c", square) + "\n"
             + _op(f"%r = linalg.matmul ins(%a, %a : {square}, {square}) outs(%c : {square}) -> {square}"),
             square, [uniform(n, n)]),
        Case("batch_matmul_repeated", [("a", batch)], _filled("c", batch) + "\n"
             + _op(f"%r = linalg.batch_matmul ins(%a, %a : {batch}, {batch}) outs(%c : {batch}) -> {batch}"),
             batch, [uniform(b, n, n)]),
        Case("contract_repeated", [("a", square)], _filled("c", t(n)) + "\n"
             + _op(f"%r = linalg.contract indexing_maps = [{emap.format('d0, d1')}, {emap.format('d1, d0')}, "
                   f"{emap.format('d0')}] ins(%a, %a : {square}, {square}) outs(%c : {t(n)}) -> {t(n)}"),
             t(n), [uniform(n, n)]),
        Case("elementwise_repeated", [("x", square), ("init", square)],
             _op(f"%r = linalg.elementwise kind=#linalg.elementwise_kind<mul> ins(%x, %x : {square}, {square}) "
                 f"outs(%init : {square}) -> {square}"),
             square, [uniform(n, n), uniform(n, n)]),
        Case("map_repeated", [("x", square), ("init", square)], _op(f"""
%r = linalg.map ins(%x, %x : {square}, {square}) outs(%init : {square})
  (%in: f32, %in_0: f32, %out: f32) {{
    %s = math.sin %in : f32
    %p = arith.mulf %s, %in_0 : f32
    linalg.yield %p : f32
  }}"""), square, [uniform(n, n), uniform(n, n)]),
    ]  # fmt: skip


def batch_reduce_matmul_cases() -> list[Case]:
    """The batch summed into one matmul; A read transposed; B shared by the batch."""
    cases = []
    bmap = "affine_map<(d0, d1, d2, d3) -> ({})>"
    b, m, k, n = sizes(4)
    c = t(m, n)
    reduce_maps = {
        "": None,
        "_transpose_a": ([bmap.format("d0, d3, d1"), bmap.format("d0, d3, d2"), bmap.format("d1, d2")], (b, k, m), (b, k, n)),
        "_broadcast_b": ([bmap.format("d0, d1, d3"), bmap.format("d3, d2"), bmap.format("d1, d2")], (b, m, k), (k, n)),
    }  # fmt: skip
    for variant, spec in reduce_maps.items():
        variant_maps, a_shape, b_shape = spec if spec is not None else (None, (b, m, k), (b, k, n))
        a, bb = t(*a_shape), t(*b_shape)
        prefix = f"indexing_maps = [{', '.join(variant_maps)}] " if variant_maps else ""
        cases.append(Case(
            f"batch_reduce_matmul{variant}", [("a", a), ("b", bb), ("c", c)],
            _op(f"%r = linalg.batch_reduce_matmul {prefix}ins(%a, %b : {a}, {bb}) outs(%c : {c}) -> {c}"),
            c, [uniform(*a_shape), uniform(*b_shape), uniform(m, n)],
        ))  # fmt: skip
    return cases


def packing_cases() -> list[Case]:
    """`linalg.pack` with partial tiles (its padding value an argument, so it gets the
    gradient of the padded positions), permuted outer dimensions and full tiles without
    padding; `linalg.unpack` dropping padding; a pack then an unpack of the result."""
    cases = []
    m, n = (2 * v + 1 for v in sizes(2, 1, 4))  # partial tiles along both dimensions
    n += n % 3 == 0
    tm, tn = 2, 3
    om, on = -(-m // tm), -(-n // tn)
    packed = t(on, om, tm, tn)
    # The padding value a scalar argument (read inside the op: no host code on the GPU).
    cases.append(Case(
        "pack_padded", [("x", t(m, n)), ("padding", "f32")],
        _op(f"""
%dest = tensor.empty() : {packed}
%r = linalg.pack %x padding_value(%padding : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [{tm}, {tn}] into %dest : {t(m, n)} -> {packed}"""),
        packed, [uniform(m, n), np.asarray(RNG.uniform(-1.0, 1.0))],
    ))  # fmt: skip
    b, k = sizes(2)
    cases.append(Case(
        "pack_full_tiles", [("x", t(2 * k, b)), ("init", t(k, b, 2))],
        _op(f"%r = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %init : {t(2 * k, b)} -> {t(k, b, 2)}"),
        t(k, b, 2), [uniform(2 * k, b), uniform(k, b, 2)],
    ))  # fmt: skip
    cases.append(Case(
        "unpack_padded", [("p", packed), ("init", t(m, n))],
        _op(f"%r = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [{tm}, {tn}] "
            f"into %init : {packed} -> {t(m, n)}"),
        t(m, n), [uniform(on, om, tm, tn), uniform(m, n)],
    ))  # fmt: skip
    k = 2 * k + 1  # odd: the pack pads, the unpack drops the padding
    cases.append(Case(
        "pack_unpack", [("x", t(b, k, 3)), ("padding", "f32")],
        _op(f"""
%dest = tensor.empty() : {t(b, -(-k // 2), 3, 2)}
%p = linalg.pack %x padding_value(%padding : f32) inner_dims_pos = [1] inner_tiles = [2] into %dest : {t(b, k, 3)} -> {t(b, -(-k // 2), 3, 2)}
%q = math.sin %p : {t(b, -(-k // 2), 3, 2)}
%back = tensor.empty() : {t(b, k, 3)}
%r = linalg.unpack %q inner_dims_pos = [1] inner_tiles = [2] into %back : {t(b, -(-k // 2), 3, 2)} -> {t(b, k, 3)}"""),
        # the padding is dropped again: only x moves the loss
        t(b, k, 3), [uniform(b, k, 3), np.asarray(RNG.uniform(-1.0, 1.0))], wrt=(0,),
    ))  # fmt: skip
    return cases


def quantized_cases() -> list[Case]:
    """Quantized contractions and a quantized convolution on floats: `(A - a_zero) *
    (B - b_zero)` accumulated, every operand (zero points included) differentiable."""
    cases = []
    m, k, n = sizes(3)
    a, bb, c = t(m, k), t(k, n), t(m, n)
    cases.append(Case(
        "quantized_matmul", [("a", a), ("b", bb), ("za", "f32"), ("zb", "f32"), ("c", c)],
        _op(f"%r = linalg.quantized_matmul ins(%a, %b, %za, %zb : {a}, {bb}, f32, f32) outs(%c : {c}) -> {c}"),
        c, [uniform(m, k), uniform(k, n), np.asarray(RNG.uniform(-0.5, 0.5)), np.asarray(RNG.uniform(-0.5, 0.5)),
            uniform(m, n)],
    ))  # fmt: skip
    b, m, k, n = sizes(4)
    a, bb, c = t(b, m, k), t(b, k, n), t(b, m, n)
    cases.append(Case(
        "quantized_batch_matmul", [("a", a), ("b", bb), ("za", "f32"), ("zb", "f32"), ("c", c)],
        _op(f"%r = linalg.quantized_batch_matmul ins(%a, %b, %za, %zb : {a}, {bb}, f32, f32) outs(%c : {c}) -> {c}"),
        c, [uniform(b, m, k), uniform(b, k, n), np.asarray(RNG.uniform(-0.5, 0.5)), np.asarray(RNG.uniform(-0.5, 0.5)),
            uniform(b, m, n)],
    ))  # fmt: skip
    n, h, w, ci, co = sizes(5, 1, 4)
    x, f, o = t(n, 2 * h + 1, w + 2, ci), t(3, 3, ci, co), t(n, h, w, co)
    cases.append(Case(
        "conv_2d_nhwc_hwcf_q", [("x", x), ("f", f), ("zx", "f32"), ("zf", "f32"), ("o", o)],
        _op(f"%r = linalg.conv_2d_nhwc_hwcf_q {{dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}} "
            f"ins(%x, %f, %zx, %zf : {x}, {f}, f32, f32) outs(%o : {o}) -> {o}"),
        o, [uniform(n, 2 * h + 1, w + 2, ci), uniform(3, 3, ci, co), np.asarray(RNG.uniform(-0.5, 0.5)),
            np.asarray(RNG.uniform(-0.5, 0.5)), uniform(n, h, w, co)],
    ))  # fmt: skip
    x, f, o = t(n, h + 2, w + 1, ci), t(3, 2, ci), t(n, h, w, ci)
    cases.append(Case(
        "depthwise_conv_2d_nhwc_hwc_q", [("x", x), ("f", f), ("zx", "f32"), ("zf", "f32"), ("o", o)],
        _op(f"%r = linalg.depthwise_conv_2d_nhwc_hwc_q ins(%x, %f, %zx, %zf : {x}, {f}, f32, f32) outs(%o : {o}) -> {o}"),
        o, [uniform(n, h + 2, w + 1, ci), uniform(3, 2, ci), np.asarray(RNG.uniform(-0.5, 0.5)),
            np.asarray(RNG.uniform(-0.5, 0.5)), uniform(n, h, w, ci)],
    ))  # fmt: skip
    return cases


def fill_rng_cases() -> list[Case]:
    """`linalg.fill_rng_2d`'s numbers move with its bounds: `min + (max - min) * u`."""
    m, n = sizes(2)
    return [Case(
        "fill_rng_2d", [("low", "f64"), ("high", "f64"), ("init", t(m, n))],
        _op(f"""
%seed = arith.constant 42 : i32
%r = linalg.fill_rng_2d ins(%low, %high, %seed : f64, f64, i32) outs(%init : {t(m, n)}) -> {t(m, n)}"""),
        t(m, n), [np.asarray(-0.5), np.asarray(0.75), uniform(m, n)],
    )]  # fmt: skip


CASES = (
    contraction_cases() + elementwise_cases() + map_reduce_cases() + repeated_operand_cases()
    + named_elementwise_cases() + batch_reduce_matmul_cases() + packing_cases() + quantized_cases()
    + fill_rng_cases()
)


def module_text(cases: list[Case]) -> str:
    return "".join(case.function() for case in cases) + "\n"


def second_order_function(case: Case) -> str:
    """`@<name>_second`: the sum of squares of `@<name>`'s gradient (wrt its
    checked arguments), whose own gradient is a second derivative."""
    wrt = case.wrt if case.wrt is not None else tuple(range(len(case.arguments)))
    names = ", ".join(f"%{n}" for n, _ in case.arguments)
    types = ", ".join(ty for _, ty in case.arguments)
    wrt_types = [case.arguments[i][1] for i in wrt]
    gradients = [f"%d{i}" for i in wrt]
    lines = [
        f"  {', '.join(gradients)} = autodiff.grad @{case.name}({names}) {{wrt = array<i64: {', '.join(map(str, wrt))}>}}"
        f" : ({types}) -> ({', '.join(wrt_types)})"
    ]
    total = None
    for gradient, ty in zip(gradients, wrt_types):
        lines.append(f"  {gradient}_sq = arith.mulf {gradient}, {gradient} : {ty}")
        if ty.startswith("tensor"):
            lines.append(f"  {gradient}_sum = autodiff.sum {gradient}_sq : {ty} -> tensor<f32>")
        else:  # a scalar argument's gradient
            lines.append(f"  {gradient}_sum = tensor.from_elements {gradient}_sq : tensor<f32>")
        if total is None:
            total = f"{gradient}_sum"
        else:
            lines.append(f"  {gradient}_total = arith.addf {total}, {gradient}_sum : tensor<f32>")
            total = f"{gradient}_total"
    signature = ", ".join(f"%{n}: {ty}" for n, ty in case.arguments)
    return f"""
func.func @{case.name}_second({signature}) -> tensor<f32> {{
{chr(10).join(lines)}
  return {total} : tensor<f32>
}}"""
