"""Random programs of the named linalg and tensor ops front ends emit, for gradcheck:
`generate(seed)` draws one function `@named_<seed>` over f32 tensors composing

- contractions: `linalg.matmul` (also with the rhs read transposed through `indexing_maps`),
  `batch_matmul`, `matvec`, `vecmat`, `dot`, into a zero fill (one fill may be the init of
  several ops) or into an active init;
- `linalg.conv_2d_nhwc_hwcf`, `conv_2d_nchw_fchw`, `depthwise_conv_2d_nhwc_hwc` and the
  `pooling_nhwc_*` / `pooling_nchw_*` sums and maxima (strides 1 or 2);
- `linalg.transpose broadcast reduce` (`addf`, `maximumf`, or a body summing sines),
  `softmax`, `fill` (of a constant or of an element of an active tensor), `map` with a body;
- the elementwise named ops (`linalg.add sub mul div max min exp log sqrt rsqrt tanh erf
  abs negf square reciprocal`, also spelled `linalg.elementwise kind=...`);
- `tensor.pad concat collapse_shape expand_shape extract_slice insert_slice` (rank-reducing
  slices too);
- `scf.for` whose tensor state goes through some of the above each iteration;
- `linalg.generic` beside them: elementwise (an operand read as it is, broadcast or
  transposed) or summing a product over the last dimension, which the CPU pipeline fuses
  with the named ops around it.

`standard_programs.py` draws `linalg.generic` and control flow; this draws the ops a generic
stands for, whose derivative rules (`rules/linalg.py`, `rules/conv.py`, `rules/tensor.py`)
and CPU lowerings (matmul tiling, convolutions as matmuls, pooling windows) are separate
code. Every value carries an interval that holds for any drawn inputs; an op whose operand
could leave its domain is not drawn (a divisor must be >= 0.5), and a value that could
grow beyond `LIMIT` is scaled down first. The generator evaluates the program in NumPy,
redrawing the inputs until every kink and tie (max, min, abs, the maxima of reductions
and pooling windows) is at least `MARGIN` away.

`generate(seed, dynamic=True)` draws `@named_dynamic_<seed>`, torch-mlir's dynamic form of
the same ops: a batch size `B` spelled `?` in the types (`DynamicSize`), read back with
`tensor.dim` for every `tensor.empty` and `expand_shape` of it, `tensor.cast` between `?`
and static sizes, loops of `B` trips. What is drawn from a dynamic size uses its bounds,
not its value, so the same text comes out at other values of `B`: the program carries
inputs and NumPy outputs at up to two of them (`other_sizes`), where the code compiled once
must be right too.

    python tests/property/named_programs.py [--dynamic] SEED    # prints the program
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from standard_programs import Program
from standard_values import float_literal

MARGIN = 1e-3
INPUT_ATTEMPTS = 30
LIMIT = 3.0
"""Magnitude beyond which a value is scaled down (`linalg.mul` by a filled power of two)
before another op reads it: keeps exp finite and tanh unsaturated."""
MAX_ARGUMENTS = 6
DIMS = (2, 3, 4)
MEDIUM_DIMS = (5, 8, 17, 33)
MEDIUM_SHARE = 0.3
"""The share of programs whose matrices and images have `MEDIUM_DIMS` sizes: the CPU
backend's paths for larger ops (a convolution of 4096 products or more as a gather and a
matmul, vectorised loops with remainders) are taken."""

DYNAMIC_WEIGHTS = {"cast": 2.0}
"""Ops drawn only in programs with dynamic sizes (`tensor.cast` between `?` and a static size)."""
DYNAMIC_SHARE = 0.4
"""How often a size drawn in a dynamic program is its batch size `B`."""
OTHER_BATCH_SIZES = (5, 7, 2, 3, 4)
"""Batch sizes a dynamic program is also checked at, the first two whose drawing gives the
same text (a size drawn from `B`'s value rather than its bounds, such as a padded one, may
differ)."""

Step = Callable[[dict, list], None]
"""Evaluates one op in NumPy: reads and writes the environment (name -> array), appends the
margins of its kinks and ties."""


class DynamicSize(int):
    """A size a program's types spell `?` (torch-mlir's dynamic batch): the NumPy evaluation
    reads its value, and it equals only itself, so that a tensor of `?x4` and one of `3x4`
    are different shapes to the generator, as they are different types to MLIR. `least`
    and `most` bound the values it may take when the program runs: what the generator
    draws from them (a slice's size, an interval) holds at each, so the same text is drawn
    at another batch size."""

    def __new__(cls, value: int, least: int | None = None, most: int | None = None):
        made = super().__new__(cls, value)
        made.least = value if least is None else least
        made.most = value if most is None else most
        return made

    def __eq__(self, other) -> bool:
        return self is other

    def __ne__(self, other) -> bool:
        return self is not other

    __hash__ = object.__hash__


def least(size: int) -> int:
    """The smallest value `size` takes at run time."""
    return size.least if isinstance(size, DynamicSize) else size


def most(size: int) -> int:
    """The largest value `size` takes at run time."""
    return size.most if isinstance(size, DynamicSize) else size


def mlir_type(shape: tuple) -> str:
    return "tensor<" + "".join(f"{'?' if isinstance(d, DynamicSize) else d}x" for d in shape) + "f32>"


@dataclass(eq=False)
class Value:
    """A float tensor SSA value and an interval holding every element for any inputs."""

    name: str
    shape: tuple[int, ...]
    lo: float
    hi: float
    active: bool = True
    argument: bool = False
    uses: int = 0

    @property
    def type(self) -> str:
        return mlir_type(self.shape)

    @property
    def magnitude(self) -> float:
        return max(abs(self.lo), abs(self.hi))


def _product(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    products = [x * y for x in a for y in b]
    return min(products), max(products)


def _gap_of_top_two(values: np.ndarray, axis) -> float:
    """The smallest distance between the largest and second largest element along `axis`."""
    if np.prod([values.shape[a] for a in np.atleast_1d(axis)]) < 2:
        return 1.0
    moved = np.moveaxis(values, np.atleast_1d(axis), range(-len(np.atleast_1d(axis)), 0))
    flat = np.sort(moved.reshape(*moved.shape[: values.ndim - len(np.atleast_1d(axis))], -1), axis=-1)
    return float(np.min(flat[..., -1] - flat[..., -2]))


def _window_view(x: np.ndarray, window: Window) -> np.ndarray:
    """[N, OH, OW, KH, KW, C]: each output position's window of an NHWC input."""
    n, _, _, c = x.shape
    (kh, kw), stride, dilation = window.size, window.stride, window.dilation
    oh, ow = window.output(x.shape[1:3])
    windows = np.empty((n, oh, ow, kh, kw, c))
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * stride, i * stride + (kh - 1) * dilation + 1, dilation)
            columns = slice(j * stride, j * stride + (kw - 1) * dilation + 1, dilation)
            windows[:, i, j] = x[:, rows, columns, :]
    return windows


@dataclass
class Window:
    """A convolution's or pooling's window: its size, and the stride and dilation of both
    spatial dimensions."""

    size: tuple[int, int]
    stride: int
    dilation: int

    def output(self, spatial: tuple[int, int]) -> tuple[int, int]:
        return tuple((extent - (k - 1) * self.dilation - 1) // self.stride + 1 for extent, k in zip(spatial, self.size))

    def attributes(self) -> str:
        return (f"{{dilations = dense<{self.dilation}> : tensor<2xi64>, "
                f"strides = dense<{self.stride}> : tensor<2xi64>}}")  # fmt: skip


UNARY = {
    # name: (NumPy, interval map, domain predicate on (lo, hi))
    "exp": (np.exp, lambda lo, hi: (math.exp(lo), math.exp(hi)), lambda lo, hi: hi <= 1.5),
    "log": (np.log, lambda lo, hi: (math.log(lo), math.log(hi)), lambda lo, hi: lo >= 0.5),
    "sqrt": (np.sqrt, lambda lo, hi: (math.sqrt(lo), math.sqrt(hi)), lambda lo, hi: lo >= 0.25),
    "rsqrt": (lambda x: 1 / np.sqrt(x), lambda lo, hi: (1 / math.sqrt(hi), 1 / math.sqrt(lo)), lambda lo, hi: lo >= 0.25),
    "tanh": (np.tanh, lambda lo, hi: (math.tanh(lo), math.tanh(hi)), lambda lo, hi: max(-lo, hi) <= 2.5),
    "erf": (np.vectorize(math.erf), lambda lo, hi: (math.erf(lo), math.erf(hi)), lambda lo, hi: max(-lo, hi) <= 2.0),
    "negf": (np.negative, lambda lo, hi: (-hi, -lo), lambda lo, hi: True),
    "abs": (np.abs, lambda lo, hi: (0.0 if lo <= 0 <= hi else min(-lo, hi, lo, -hi, key=abs), max(-lo, hi)), lambda lo, hi: True),
    "square": (np.square, lambda lo, hi: (0.0 if lo <= 0 <= hi else min(lo * lo, hi * hi), max(lo * lo, hi * hi)), lambda lo, hi: True),
    "reciprocal": (np.reciprocal, lambda lo, hi: (1 / hi, 1 / lo), lambda lo, hi: lo >= 0.5),
}  # fmt: skip
BINARY = {
    "add": (np.add, lambda a, b: (a[0] + b[0], a[1] + b[1])),
    "sub": (np.subtract, lambda a, b: (a[0] - b[1], a[1] - b[0])),
    "mul": (np.multiply, _product),
    "div": (np.divide, lambda a, b: _product(a, (1 / b[1], 1 / b[0]))),
    "max": (np.maximum, lambda a, b: (max(a[0], b[0]), max(a[1], b[1]))),
    "min": (np.minimum, lambda a, b: (min(a[0], b[0]), min(a[1], b[1]))),
}
ELEMENTWISE_KINDS = {kind: kind for kind in (*UNARY, "add", "sub", "mul", "div")} | {
    "max": "max_signed",
    "min": "min_signed",
}
"""Each op's `linalg.elementwise kind=#linalg.elementwise_kind<...>` (on floats, `max_signed`
is `arith.maximumf`)."""


OP_WEIGHTS = {
    "matmul": 3, "matmul_transposed_b": 1, "batch_matmul": 1, "matvec": 1, "vecmat": 1, "dot": 0.5,
    "conv": 1.5, "pool_sum": 1, "pool_max": 1, "transpose": 1, "broadcast": 1, "reduce_addf": 1.5,
    "reduce_maximumf": 1, "reduce_sines": 0.5, "softmax": 1, "unary": 3, "binary": 3, "map": 1,
    "fill_from_element": 0.5, "pad": 1, "concat": 1, "reshape": 1.5, "extract_slice": 1.5,
    "insert_slice": 1, "loop": 1, "generic_elementwise": 1.5, "generic_reduction": 1,
}  # fmt: skip
"""How often each op is drawn."""


class NamedProgramBuilder:
    """Emits a function's lines and, alongside, NumPy steps computing the same values."""

    def __init__(self, rng: random.Random, dynamic: bool = False, batch_size: int | None = None):
        self.rng = rng
        self.dims = MEDIUM_DIMS if rng.random() < MEDIUM_SHARE else DIMS
        self.counter = 0
        self.arguments: list[Value] = []
        self.scopes: list[list[Value]] = [[]]
        self.lines: list[list[str]] = [[]]
        self.steps: list[list[Step]] = [[]]
        self.zero_fills: dict[tuple, Value] = {}
        self.features: set[str] = {"sizes.medium"} if self.dims == MEDIUM_DIMS else set()
        self.op_weights = OP_WEIGHTS | (DYNAMIC_WEIGHTS if dynamic else {})
        self.batch: DynamicSize | None = None
        if dynamic:
            # The batch size `B`, and a first argument `?xN` that holds it: every `tensor.empty`
            # of a shape with `B` can read it with `tensor.dim`.
            drawn = rng.choice(DIMS)
            self.batch = DynamicSize(batch_size or drawn, min(DIMS), max(DIMS + OTHER_BATCH_SIZES))
            self.argument((self.batch, self.size()))

    # ---- emission ---------------------------------------------------------------------------
    def name(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str, step: Step | None = None) -> None:
        self.lines[-1].extend(line.splitlines())
        if step is not None:
            self.steps[-1].append(step)

    def value(self, name: str, shape, interval, operands: list[Value]) -> Value:
        for operand in operands:
            operand.uses += 1
        lo, hi = interval
        made = Value(name, tuple(shape), float(lo), float(hi), active=any(o.active for o in operands))
        self.scopes[-1].append(made)
        return made

    def visible(self) -> list[Value]:
        return [v for scope in self.scopes for v in scope]

    def empty(self, shape) -> str:
        sizes = ", ".join(f"%{self.dynamic_size(d)}" for d in shape if isinstance(d, DynamicSize))
        name = self.name("e")
        self.emit(f"%{name} = tensor.empty({sizes}) : {mlir_type(tuple(shape))}")
        return name

    def dynamic_size(self, size: DynamicSize) -> str:
        """An index SSA value holding `size`: `tensor.dim` of a value in scope whose type has it."""
        for value in reversed(self.visible()):
            if size in value.shape:
                position, constant, name = value.shape.index(size), self.name("c"), self.name("d")
                self.emit(f"%{constant} = arith.constant {position} : index")
                self.emit(f"%{name} = tensor.dim %{value.name}, %{constant} : {value.type}")
                self.features.add("tensor.dim")
                return name
        raise AssertionError(f"no value in scope has the dynamic size {int(size)}")

    def size(self, choices: tuple[int, ...] | None = None) -> int:
        """A size from `choices` (`self.dims` unless given); in a dynamic program, the batch
        size `B` at times."""
        if self.batch is not None and self.rng.random() < DYNAMIC_SHARE:
            return self.batch
        return self.rng.choice(choices or self.dims)

    # ---- operands ---------------------------------------------------------------------------
    def argument(self, shape, positive: bool = False) -> Value:
        lo, hi = (0.5, 1.5) if positive else (-1.0, 1.0)
        made = Value(f"a{len(self.arguments)}", tuple(shape), lo, hi, argument=True)
        self.arguments.append(made)
        self.scopes[0].append(made)
        return made

    def pick(self, candidates: list[Value]) -> Value:
        """Unused active values first (what they compute then reaches a result), recent ones likelier."""
        unused = [v for v in candidates if v.uses == 0 and v.active]
        if unused and self.rng.random() < 0.8:
            return self.rng.choice(unused)
        return self.rng.choices(candidates, [1 + i for i in range(len(candidates))])[0]

    def random_shape(self, rank: int) -> tuple[int, ...]:
        """Sizes from `self.dims`; a rank-3 tensor has a small batch first, a rank-4 one (an
        image, NHWC or NCHW) a small batch and small channels."""
        rng, dims = self.rng, self.dims
        batch = self.batch if self.batch is not None and rng.random() < DYNAMIC_SHARE else None
        if rank == 3:
            return batch or rng.choice(DIMS), rng.choice(dims), rng.choice(dims)
        if rank == 4:
            return batch or rng.choice((1, 2)), rng.choice(dims), rng.choice(dims), rng.choice((2, 3, 4))
        return tuple(self.size() for _ in range(rank))

    def operand(self, shape, fits=lambda v: True, positive: bool = False) -> Value:
        """A value of `shape` (within `fits` once scaled into LIMIT): one in scope, else a new
        argument, else a fill."""
        candidates = [v for v in self.visible() if v.shape == tuple(shape) and fits(v) and v.magnitude <= LIMIT]
        fresh_wanted = not candidates or self.rng.random() < 0.2
        if fresh_wanted and len(self.arguments) < MAX_ARGUMENTS:
            return self.argument(shape, positive)
        if candidates:
            return self.pick(candidates)
        return self.fill(1.0 if positive else 0.75, shape)

    def operand_of_rank(self, ranks, fits=lambda v: True, positive: bool = False) -> Value:
        """A value of one of `ranks` (within `fits`) in scope, or a new argument."""
        candidates = [v for v in self.visible() if len(v.shape) in ranks and fits(v)]
        if candidates and (self.rng.random() < 0.85 or len(self.arguments) >= MAX_ARGUMENTS):
            return self.bounded(self.pick(candidates))
        return self.argument(self.random_shape(self.rng.choice(ranks)), positive)

    def bounded(self, value: Value) -> Value:
        """`value`, or `value` scaled by a power of two into [-LIMIT, LIMIT]."""
        if value.magnitude <= LIMIT:
            return value
        scale = 2.0 ** -math.ceil(math.log2(value.magnitude / LIMIT))
        self.features.add("scaled")
        return self.elementwise_binary("mul", value, self.fill(scale, value.shape), spelling="named")

    # ---- ops --------------------------------------------------------------------------------
    def constant(self, literal: float) -> str:
        name = self.name("k")
        self.emit(f"%{name} = arith.constant {float_literal(literal)} : f32")
        return name

    def fill(self, constant: float, shape) -> Value:
        shape = tuple(shape)
        scalar, empty, name = self.constant(constant), self.empty(shape), self.name()
        self.emit(
            f"%{name} = linalg.fill ins(%{scalar} : f32) outs(%{empty} : {mlir_type(shape)}) -> {mlir_type(shape)}",
            lambda env, margins: env.__setitem__(name, np.full(shape, constant)),
        )
        made = self.value(name, shape, (constant, constant), [])
        made.active = False
        return made

    def zeros(self, shape) -> Value:
        """A zero fill; one already made in scope is reused half the time (an init several ops share)."""
        shape = tuple(shape)
        shared = self.zero_fills.get(shape)
        if shared is not None and any(shared is v for v in self.visible()) and self.rng.random() < 0.5:
            self.features.add("init.shared_fill")
            return shared
        self.zero_fills[shape] = made = self.fill(0.0, shape)
        return made

    def accumulator(self, shape) -> Value:
        """A contraction's init: zeros, or an active tensor it accumulates into."""
        if self.rng.random() < 0.3:
            self.features.add("init.active")
            return self.operand(shape)
        return self.zeros(shape)

    def contraction(self, kind: str) -> Value:
        rng = self.rng
        if kind in ("matmul", "matmul_transposed_b"):
            a = self.operand_of_rank([2])
            (m, k), n = a.shape, self.size()
            b = self.operand((n, k) if kind == "matmul_transposed_b" else (k, n))
            out, einsum = (m, n), ("mk,nk->mn" if kind == "matmul_transposed_b" else "mk,kn->mn")
        elif kind == "batch_matmul":
            a = self.operand_of_rank([3])
            (bt, m, k), n = a.shape, self.size()
            b, out, einsum = self.operand((bt, k, n)), (bt, m, n), "bmk,bkn->bmn"
        elif kind == "matvec":
            a = self.operand_of_rank([2])
            (m, k) = a.shape
            b, out, einsum = self.operand((k,)), (m,), "mk,k->m"
        elif kind == "vecmat":
            a = self.operand_of_rank([1])
            (m,), n = a.shape, self.size()
            b, out, einsum = self.operand((m, n)), (n,), "m,mn->n"
        else:  # dot
            a = self.operand_of_rank([1])
            b, out, einsum = self.operand(a.shape), (), "k,k->"
        init = self.accumulator(out)
        terms = most({"matmul": a.shape[-1], "matmul_transposed_b": a.shape[-1], "batch_matmul": a.shape[-1],
                      "matvec": a.shape[-1], "vecmat": a.shape[0], "dot": a.shape[0]}[kind])  # fmt: skip
        product = _product((a.lo, a.hi), (b.lo, b.hi))
        interval = (init.lo + terms * product[0], init.hi + terms * product[1])
        name, op = self.name(), "matmul" if kind == "matmul_transposed_b" else kind
        maps = ""
        if kind == "matmul_transposed_b":
            maps = ("indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
                    "affine_map<(d0, d1, d2) -> (d0, d1)>] ")  # fmt: skip
        out_type = mlir_type(out)
        self.emit(
            f"%{name} = linalg.{op} {maps}ins(%{a.name}, %{b.name} : {a.type}, {b.type}) "
            f"outs(%{init.name} : {out_type}) -> {out_type}",
            lambda env, margins: env.__setitem__(name, env[init.name] + np.einsum(einsum, env[a.name], env[b.name])),
        )
        self.features.add(f"linalg.{kind}")
        return self.value(name, out, interval, [a, b, init])

    def window_input(self, channels_first: bool) -> Value:
        """A rank-4 input whose spatial dimensions (H, W: 1 and 2 in NHWC, 2 and 3 in NCHW) are >= 2."""
        spatial = slice(2, 4) if channels_first else slice(1, 3)
        return self.operand_of_rank([4], fits=lambda v: min(v.shape[spatial]) >= 2)

    def window(self, h: int, w: int, smallest: int) -> Window:
        """A window of 1 (`smallest`) to 3 columns that fits an h x w image: stride 1 or 2,
        dilation 1 or, where the image is large enough, 2."""
        rng = self.rng
        dilation = 2 if rng.random() < 0.25 and min(h, w) >= 3 else 1
        reach = lambda extent: max(1, min(3, (extent - 1) // dilation + 1))
        size = (rng.randint(1, reach(h)), rng.randint(min(smallest, reach(w)), reach(w)))
        window = Window(size, rng.choice([1, 1, 2]), dilation)
        if window.stride == 2:
            self.features.add("window.stride_2")
        if dilation == 2:
            self.features.add("window.dilation_2")
        return window

    def convolution(self) -> Value:
        """`conv_2d_nhwc_hwcf`, `conv_2d_nchw_fchw` (torch-mlir's) or `depthwise_conv_2d_nhwc_hwc`;
        evaluated in NHWC."""
        rng = self.rng
        layout = rng.choice(["nhwc_hwcf", "nhwc_hwcf", "nchw_fchw", "depthwise"])
        channels_first = layout == "nchw_fchw"
        x = self.window_input(channels_first)
        n, h, w, c = (x.shape[0], *x.shape[2:], x.shape[1]) if channels_first else x.shape
        window = self.window(h, w, smallest=1)
        (kh, kw), (oh, ow) = window.size, window.output((h, w))
        filters = c if layout == "depthwise" else rng.choice((1, 2, 3))
        filter_shape = {"nhwc_hwcf": (kh, kw, c, filters), "nchw_fchw": (filters, c, kh, kw), "depthwise": (kh, kw, c)}
        f = self.operand(filter_shape[layout])
        out = (n, filters, oh, ow) if channels_first else (n, oh, ow, filters)
        init = self.accumulator(out)
        product = _product((x.lo, x.hi), (f.lo, f.hi))
        terms = kh * kw * (1 if layout == "depthwise" else most(c))
        name = self.name()

        def step(env, margins):
            inputs, weights = env[x.name], env[f.name]
            if channels_first:
                inputs, weights = inputs.transpose(0, 2, 3, 1), weights.transpose(2, 3, 1, 0)
            windows = _window_view(inputs, window)
            if layout == "depthwise":
                result = np.einsum("nijhwc,hwc->nijc", windows, weights)
            else:
                result = np.einsum("nijhwc,hwcf->nijf", windows, weights)
            env[name] = env[init.name] + (result.transpose(0, 3, 1, 2) if channels_first else result)

        op = "depthwise_conv_2d_nhwc_hwc" if layout == "depthwise" else f"conv_2d_{layout}"
        self.emit(
            f"%{name} = linalg.{op} {window.attributes()} "
            f"ins(%{x.name}, %{f.name} : {x.type}, {f.type}) outs(%{init.name} : {mlir_type(out)}) -> {mlir_type(out)}",
            step,
        )
        self.features.add(f"linalg.{op}")
        return self.value(name, out, (init.lo + terms * product[0], init.hi + terms * product[1]), [x, f, init])

    def pooling(self, kind: str) -> Value:
        """`pooling_nhwc_<kind>` or `pooling_nchw_<kind>` (torch-mlir's); evaluated in NHWC."""
        rng = self.rng
        channels_first = rng.random() < 0.4
        x = self.window_input(channels_first)
        n, h, w, c = (x.shape[0], *x.shape[2:], x.shape[1]) if channels_first else x.shape
        window = self.window(h, w, smallest=2)
        (kh, kw), (oh, ow) = window.size, window.output((h, w))
        out = (n, c, oh, ow) if channels_first else (n, oh, ow, c)
        if kind == "sum":
            init = self.accumulator(out)
            interval = (init.lo + kh * kw * x.lo, init.hi + kh * kw * x.hi)
        else:
            init, interval = self.fill(x.lo - 1.0, out), (x.lo, x.hi)
        window_tensor, name = self.empty((kh, kw)), self.name()

        def step(env, margins):
            inputs = env[x.name].transpose(0, 2, 3, 1) if channels_first else env[x.name]
            windows = _window_view(inputs, window)
            if kind == "sum":
                pooled = windows.sum(axis=(3, 4))
            else:
                pooled = windows.max(axis=(3, 4))
                margins.append(_gap_of_top_two(windows, (3, 4)))
            pooled = pooled.transpose(0, 3, 1, 2) if channels_first else pooled
            env[name] = env[init.name] + pooled if kind == "sum" else np.maximum(env[init.name], pooled)

        op = f"pooling_{'nchw' if channels_first else 'nhwc'}_{kind}"
        self.emit(
            f"%{name} = linalg.{op} {window.attributes()} "
            f"ins(%{x.name}, %{window_tensor} : {x.type}, {mlir_type((kh, kw))}) "
            f"outs(%{init.name} : {mlir_type(out)}) -> {mlir_type(out)}",
            step,
        )
        self.features.add(f"linalg.{op}")
        return self.value(name, out, interval, [x, init])

    def transpose(self) -> Value:
        x = self.operand_of_rank([2, 3])
        permutation = list(range(len(x.shape)))
        while permutation == sorted(permutation):
            self.rng.shuffle(permutation)
        out = tuple(x.shape[p] for p in permutation)
        empty, name = self.empty(out), self.name()
        self.emit(
            f"%{name} = linalg.transpose ins(%{x.name} : {x.type}) outs(%{empty} : {mlir_type(out)}) "
            f"permutation = [{', '.join(map(str, permutation))}]",
            lambda env, margins: env.__setitem__(name, np.transpose(env[x.name], permutation)),
        )
        self.features.add("linalg.transpose")
        return self.value(name, out, (x.lo, x.hi), [x])

    def broadcast(self) -> Value:
        x = self.operand_of_rank([0, 1, 2])
        position = self.rng.randint(0, len(x.shape))
        out = (*x.shape[:position], self.size(DIMS), *x.shape[position:])  # a small added dimension, or `B`
        empty, name = self.empty(out), self.name()
        self.emit(
            f"%{name} = linalg.broadcast ins(%{x.name} : {x.type}) outs(%{empty} : {mlir_type(out)}) "
            f"dimensions = [{position}]",
            lambda env, margins: env.__setitem__(
                name, np.broadcast_to(np.expand_dims(env[x.name], position), out).copy()
            ),
        )
        self.features.add("linalg.broadcast")
        return self.value(name, out, (x.lo, x.hi), [x])

    def reduce(self, kind: str) -> Value:
        x = self.operand_of_rank([1, 2, 3])
        axis = self.rng.randrange(len(x.shape))
        out, size = tuple(d for i, d in enumerate(x.shape) if i != axis), most(x.shape[axis])
        name = self.name()
        if kind == "maximumf":
            init, interval = self.fill(x.lo - 1.0, out), (x.lo, x.hi)
        elif kind == "addf":
            init = self.accumulator(out)
            interval = (init.lo + size * x.lo, init.hi + size * x.hi)
        else:  # a body: the sum of sines
            init = self.accumulator(out)
            interval = (init.lo - size, init.hi + size)
        if kind == "sines":
            body = ("\n  (%in: f32, %acc: f32) {\n    %s = math.sin %in : f32\n    %t = arith.addf %acc, %s : f32\n"
                    "    linalg.yield %t : f32\n  }")  # fmt: skip
            combiner = ""
        else:
            body, combiner = "", f"{{ arith.{kind} }} "

        def step(env, margins):
            values = env[x.name]
            if kind == "maximumf":
                env[name] = np.maximum(env[init.name], values.max(axis=axis))
                margins.append(_gap_of_top_two(values, axis))
            else:
                env[name] = env[init.name] + (np.sin(values) if kind == "sines" else values).sum(axis=axis)

        self.emit(
            f"%{name} = linalg.reduce {combiner}ins(%{x.name} : {x.type}) outs(%{init.name} : {mlir_type(out)}) "
            f"dimensions = [{axis}]{body}",
            step,
        )
        self.features.add(f"linalg.reduce.{kind}")
        return self.value(name, out, interval, [x, init])

    def softmax(self, x: Value | None = None, axis: int | None = None) -> Value:
        x = x or self.operand_of_rank([1, 2, 3])
        axis = self.rng.randrange(len(x.shape)) if axis is None else axis
        empty, name = self.empty(x.shape), self.name()

        def step(env, margins):
            shifted = np.exp(env[x.name] - env[x.name].max(axis=axis, keepdims=True))
            env[name] = shifted / shifted.sum(axis=axis, keepdims=True)

        self.emit(
            f"%{name} = linalg.softmax dimension({axis}) ins(%{x.name} : {x.type}) outs(%{empty} : {x.type}) -> {x.type}",
            step,
        )
        self.features.add("linalg.softmax")
        return self.value(name, x.shape, (0.0, 1.0), [x])

    def elementwise_unary(self, x: Value | None = None) -> Value:
        """An op drawn first and an operand in its domain (a positive argument for `log`),
        or, for a given operand, an op whose domain holds it."""
        if x is None:
            kind = self.rng.choice(list(UNARY))
            domain = UNARY[kind][2]
            x = self.operand_of_rank(
                [0, 1, 2, 3], fits=lambda v: domain(v.lo, v.hi) and v.magnitude <= LIMIT, positive=not domain(-1.0, 1.0)
            )
        else:
            kind = self.rng.choice([k for k, (_, _, domain) in UNARY.items() if domain(x.lo, x.hi)])
        function, interval, _ = UNARY[kind]
        empty, name = self.empty(x.shape), self.name()

        def step(env, margins):
            if kind == "abs":
                margins.append(float(np.min(np.abs(env[x.name]), initial=1.0)))
            env[name] = np.asarray(function(env[x.name]), dtype=np.float64)

        self.emit(
            f"%{name} = {self.spelled(kind)} ins(%{x.name} : {x.type}) outs(%{empty} : {x.type}) -> {x.type}", step
        )
        return self.value(name, x.shape, interval(x.lo, x.hi), [x])

    def spelled(self, kind: str, spelling: str | None = None) -> str:
        """`linalg.exp`, or `linalg.elementwise kind=#linalg.elementwise_kind<exp>` a fifth of the time."""
        spelling = spelling or ("elementwise" if self.rng.random() < 0.2 else "named")
        self.features.add(f"linalg.{kind}")
        if spelling == "elementwise" and kind in ELEMENTWISE_KINDS:
            self.features.add("linalg.elementwise")
            return f"linalg.elementwise kind=#linalg.elementwise_kind<{ELEMENTWISE_KINDS[kind]}>"
        return f"linalg.{kind}"

    def elementwise_binary(self, kind: str | None = None, a: Value | None = None, b: Value | None = None,
                           spelling: str | None = None) -> Value:  # fmt: skip
        a = a or self.operand_of_rank([0, 1, 2, 3])
        kind = kind or self.rng.choice(list(BINARY))
        if b is None:
            if kind == "div":
                b = self.operand(a.shape, fits=lambda v: v.lo >= 0.5, positive=True)
            elif kind in ("add", "mul") and self.rng.random() < 0.15:
                b = a
                self.features.add("binary.same_operand")
            else:
                b = self.operand(a.shape, fits=lambda v: v is not a)
        function, interval = BINARY[kind]
        empty, name = self.empty(a.shape), self.name()

        def step(env, margins):
            if kind in ("max", "min"):
                margins.append(float(np.min(np.abs(env[a.name] - env[b.name]), initial=1.0)))
            env[name] = function(env[a.name], env[b.name])

        self.emit(
            f"%{name} = {self.spelled(kind, spelling)} ins(%{a.name}, %{b.name} : {a.type}, {b.type}) "
            f"outs(%{empty} : {a.type}) -> {a.type}",
            step,
        )
        return self.value(name, a.shape, interval((a.lo, a.hi), (b.lo, b.hi)), [a, b])

    def generic_elementwise(self) -> Value:
        """`linalg.generic` computing `x * sin(y) + x`, `y` read as it is, broadcast along
        one dimension, or (a matrix) transposed: what front ends write where no named op fits."""
        x = self.operand_of_rank([1, 2, 3])
        rank = len(x.shape)
        loops = [f"d{i}" for i in range(rank)]
        reads = ["same", "broadcast"] + (["transposed"] if rank == 2 else [])
        read = self.rng.choice(reads)
        if read == "broadcast":
            kept = sorted(self.rng.sample(range(rank), rank - 1))
            y = self.operand(tuple(x.shape[i] for i in kept))
            y_map = ", ".join(loops[i] for i in kept)
            expand = lambda v: np.expand_dims(v, [i for i in range(rank) if i not in kept])  # noqa: E731
        elif read == "transposed":
            y, y_map = self.operand(x.shape[::-1]), "d1, d0"
            expand = np.transpose
        else:
            y, y_map, expand = self.operand(x.shape), ", ".join(loops), lambda v: v
        identity, iterators = ", ".join(loops), ", ".join(['"parallel"'] * rank)
        empty, name = self.empty(x.shape), self.name()
        domain = f"({identity})"
        self.emit(
            f"%{name} = linalg.generic {{indexing_maps = [affine_map<{domain} -> ({identity})>, "
            f"affine_map<{domain} -> ({y_map})>, affine_map<{domain} -> ({identity})>], "
            f"iterator_types = [{iterators}]}}\n"
            f"    ins(%{x.name}, %{y.name} : {x.type}, {y.type}) outs(%{empty} : {x.type}) {{\n"
            f"  ^bb0(%a: f32, %b: f32, %o: f32):\n    %s = math.sin %b : f32\n    %p = arith.mulf %a, %s : f32\n"
            f"    %r = arith.addf %p, %a : f32\n    linalg.yield %r : f32\n  }} -> {x.type}",
            lambda env, margins: env.__setitem__(name, env[x.name] * np.sin(expand(env[y.name])) + env[x.name]),
        )
        self.features.add(f"linalg.generic.{read}")
        product = _product((x.lo, x.hi), (-1.0, 1.0))
        return self.value(name, x.shape, (product[0] + x.lo, product[1] + x.hi), [x, y])

    def generic_reduction(self) -> Value:
        """`linalg.generic` summing `x * y` over its last dimension into an init (zeros or active)."""
        x = self.operand_of_rank([1, 2, 3])
        y = self.operand(x.shape, fits=lambda v: v is not x)
        rank = len(x.shape)
        loops = [f"d{i}" for i in range(rank)]
        out = x.shape[:-1]
        init = self.accumulator(out)
        name, domain = self.name(), f"({', '.join(loops)})"
        iterators = ", ".join(['"parallel"'] * (rank - 1) + ['"reduction"'])
        self.emit(
            f"%{name} = linalg.generic {{indexing_maps = [affine_map<{domain} -> {domain}>, "
            f"affine_map<{domain} -> {domain}>, affine_map<{domain} -> ({', '.join(loops[:-1])})>], "
            f"iterator_types = [{iterators}]}}\n"
            f"    ins(%{x.name}, %{y.name} : {x.type}, {y.type}) outs(%{init.name} : {mlir_type(out)}) {{\n"
            f"  ^bb0(%a: f32, %b: f32, %acc: f32):\n    %p = arith.mulf %a, %b : f32\n"
            f"    %r = arith.addf %acc, %p : f32\n    linalg.yield %r : f32\n  }} -> {mlir_type(out)}",
            lambda env, margins: env.__setitem__(name, env[init.name] + (env[x.name] * env[y.name]).sum(axis=-1)),
        )
        self.features.add("linalg.generic.reduction")
        product, terms = _product((x.lo, x.hi), (y.lo, y.hi)), most(x.shape[-1])
        return self.value(name, out, (init.lo + terms * product[0], init.hi + terms * product[1]), [x, y, init])

    def map(self) -> Value:
        """`linalg.map` whose body is `sin(x) * y`."""
        x = self.operand_of_rank([1, 2, 3])
        y = self.operand(x.shape)
        empty, name = self.empty(x.shape), self.name()
        self.emit(
            f"%{name} = linalg.map ins(%{x.name}, %{y.name} : {x.type}, {y.type}) outs(%{empty} : {x.type})\n"
            f"  (%in: f32, %in_1: f32, %out: f32) {{\n    %s = math.sin %in : f32\n"
            f"    %p = arith.mulf %s, %in_1 : f32\n    linalg.yield %p : f32\n  }}",
            lambda env, margins: env.__setitem__(name, np.sin(env[x.name]) * env[y.name]),
        )
        self.features.add("linalg.map")
        return self.value(name, x.shape, (-y.magnitude, y.magnitude), [x, y])

    def fill_from_element(self) -> Value:
        """`linalg.fill` of an element `tensor.extract` reads from an active tensor."""
        x = self.operand_of_rank([1, 2])
        index = tuple(self.rng.randrange(least(d)) for d in x.shape)
        constants = []
        for i in index:
            c = self.name("c")
            self.emit(f"%{c} = arith.constant {i} : index")
            constants.append(f"%{c}")
        scalar, out = self.name("s"), self.random_shape(self.rng.choice([1, 2]))
        self.emit(f"%{scalar} = tensor.extract %{x.name}[{', '.join(constants)}] : {x.type}")
        empty, name = self.empty(out), self.name()
        self.emit(
            f"%{name} = linalg.fill ins(%{scalar} : f32) outs(%{empty} : {mlir_type(out)}) -> {mlir_type(out)}",
            lambda env, margins: env.__setitem__(name, np.full(out, env[x.name][index])),
        )
        self.features.add("linalg.fill.active_scalar")
        return self.value(name, out, (x.lo, x.hi), [x])

    def pad(self) -> Value:
        x = self.operand_of_rank([1, 2])
        low = [self.rng.randint(0, 2) for _ in x.shape]
        high = [self.rng.randint(0, 2) for _ in x.shape]
        if not any(low + high):
            high[-1] = 1
        padding = self.rng.choice([0.0, 0.5])
        out = tuple(d + lo + hi for d, lo, hi in zip(x.shape, low, high))
        indices = ", ".join(f"%i{k}: index" for k in range(len(x.shape)))
        name, pad_value = self.name(), self.name("p")
        self.emit(
            f"%{name} = tensor.pad %{x.name} low[{', '.join(map(str, low))}] high[{', '.join(map(str, high))}] {{\n"
            f"  ^bb0({indices}):\n    %{pad_value} = arith.constant {float_literal(padding)} : f32\n"
            f"    tensor.yield %{pad_value} : f32\n  }} : {x.type} to {mlir_type(out)}",
            lambda env, margins: env.__setitem__(
                name, np.pad(env[x.name], list(zip(low, high)), constant_values=padding)
            ),
        )
        self.features.add("tensor.pad")
        return self.value(name, out, (min(x.lo, padding), max(x.hi, padding)), [x])

    def concat(self) -> Value:
        a = self.operand_of_rank([1, 2, 3])
        axis = self.rng.randrange(len(a.shape))
        b = self.operand_of_rank(
            [len(a.shape)], fits=lambda v: all(d == e for i, (d, e) in enumerate(zip(v.shape, a.shape)) if i != axis)
        )
        if len(b.shape) != len(a.shape) or any(d != e for i, (d, e) in enumerate(zip(b.shape, a.shape)) if i != axis):
            b = self.operand(tuple(self.size() if i == axis else d for i, d in enumerate(a.shape)))
        out = tuple(d + (b.shape[axis] if i == axis else 0) for i, d in enumerate(a.shape))
        name = self.name()
        self.emit(
            f"%{name} = tensor.concat dim({axis}) %{a.name}, %{b.name} : ({a.type}, {b.type}) -> {mlir_type(out)}",
            lambda env, margins: env.__setitem__(name, np.concatenate([env[a.name], env[b.name]], axis=axis)),
        )
        self.features.add("tensor.concat")
        return self.value(name, out, (min(a.lo, b.lo), max(a.hi, b.hi)), [a, b])

    def reshape(self) -> Value:
        """`collapse_shape` of a rank 2-4 tensor, or `expand_shape` of a rank 1-2 one (a matrix
        to NHWC [1, m, n, 1], which feeds the windows)."""
        x = self.operand_of_rank([1, 2, 3, 4])
        rank, name = len(x.shape), self.name()
        if rank >= 2 and (rank > 2 or self.rng.random() < 0.5):
            groups = [[0, 1]] if rank == 2 else [[0], list(range(1, rank))]
            out = tuple(self.collapsed([x.shape[i] for i in g]) for g in groups)
            self.emit(f"%{name} = tensor.collapse_shape %{x.name} {groups} : {x.type} into {mlir_type(out)}")
            self.features.add("tensor.collapse_shape")
        else:
            if rank == 1:
                out, groups = (1, x.shape[0]), [[0, 1]]
            else:
                out, groups = (1, *x.shape, 1), [[0, 1], [2, 3]]
            sizes = [f"%{self.dynamic_size(d)}" if isinstance(d, DynamicSize) else str(d) for d in out]
            self.emit(
                f"%{name} = tensor.expand_shape %{x.name} {groups} output_shape [{', '.join(sizes)}] "
                f": {x.type} into {mlir_type(out)}"
            )
            self.features.add("tensor.expand_shape")
        self.steps[-1].append(lambda env, margins: env.__setitem__(name, env[x.name].reshape(out)))
        return self.value(name, out, (x.lo, x.hi), [x])

    @staticmethod
    def collapsed(sizes: list[int]) -> int:
        """The size of dimensions collapsed into one: dynamic when one of them is."""
        product = int(np.prod(sizes))
        if not any(isinstance(d, DynamicSize) for d in sizes):
            return product
        return DynamicSize(product, math.prod(map(least, sizes)), math.prod(map(most, sizes)))

    def cast(self) -> Value:
        """`tensor.cast` of one dimension from `?` to its size, or from a size to `?` (what
        torch-mlir emits between its static and dynamic views of a tensor)."""
        x = self.operand_of_rank([1, 2, 3])
        position = self.rng.randrange(len(x.shape))
        size = x.shape[position]
        dynamic = not isinstance(size, DynamicSize)
        out = tuple(
            (DynamicSize(size) if dynamic else int(size)) if i == position else d for i, d in enumerate(x.shape)
        )
        name = self.name()
        self.emit(
            f"%{name} = tensor.cast %{x.name} : {x.type} to {mlir_type(out)}",
            lambda env, margins: env.__setitem__(name, env[x.name]),
        )
        self.features.add("tensor.cast.to_dynamic" if dynamic else "tensor.cast.to_static")
        return self.value(name, out, (x.lo, x.hi), [x])

    def extract_slice(self) -> Value:
        x = self.operand_of_rank([1, 2], fits=lambda v: max(v.shape) >= 2)
        sizes = [self.rng.randint(1, least(d)) for d in x.shape]
        reducing = len(x.shape) == 2 and self.rng.random() < 0.5  # one row, as a vector
        if reducing:
            sizes[0] = 1
        offsets = [self.rng.randint(0, least(d) - s) for d, s in zip(x.shape, sizes)]
        out = (sizes[1],) if reducing else tuple(sizes)
        if reducing:
            self.features.add("tensor.extract_slice.rank_reducing")
        name = self.name()
        index = tuple(slice(o, o + s) for o, s in zip(offsets, sizes))
        self.emit(
            f"%{name} = tensor.extract_slice %{x.name}[{', '.join(map(str, offsets))}] [{', '.join(map(str, sizes))}] "
            f"[{', '.join('1' for _ in sizes)}] : {x.type} to {mlir_type(out)}",
            lambda env, margins: env.__setitem__(name, env[x.name][index].reshape(out)),
        )
        self.features.add("tensor.extract_slice")
        return self.value(name, out, (x.lo, x.hi), [x])

    def insert_slice(self) -> Value:
        destination = self.operand_of_rank([1, 2], fits=lambda v: max(v.shape) >= 2)
        sizes = [self.rng.randint(1, least(d)) for d in destination.shape]
        offsets = [self.rng.randint(0, least(d) - s) for d, s in zip(destination.shape, sizes)]
        source = self.operand(tuple(sizes))
        name = self.name()
        index = tuple(slice(o, o + s) for o, s in zip(offsets, sizes))

        def step(env, margins):
            result = env[destination.name].copy()
            result[index] = env[source.name]
            env[name] = result

        self.emit(
            f"%{name} = tensor.insert_slice %{source.name} into %{destination.name}[{', '.join(map(str, offsets))}] "
            f"[{', '.join(map(str, sizes))}] [{', '.join('1' for _ in sizes)}] : {source.type} into {destination.type}",
            step,
        )
        self.features.add("tensor.insert_slice")
        return self.value(
            name,
            destination.shape,
            (min(source.lo, destination.lo), max(source.hi, destination.hi)),
            [source, destination],
        )

    def loop(self) -> Value:
        """`scf.for` over 2-3 iterations whose tensor state goes through 1-3 ops each time and
        comes back through tanh (the state stays in [-1, 1]); in a dynamic program, half the
        time over `B` iterations, a trip count known only at run time (`tensor.dim`)."""
        init = self.operand_of_rank([1, 2])
        if init.magnitude > 1.0:
            init = self.elementwise_unary_of("tanh", self.bounded_to(init, 2.5))
        trips = self.rng.randint(2, 3)
        bounds = [self.name("c") for _ in range(3)]
        for constant, value in zip(bounds, (0, trips, 1)):
            self.emit(f"%{constant} = arith.constant {value} : index")
        if self.batch is not None and self.rng.random() < 0.5:
            trips, bounds[1] = int(self.batch), self.dynamic_size(self.batch)
            self.features.add("scf.for.run_time_trips")
        state = Value(self.name("s"), init.shape, -1.0, 1.0)
        self.scopes.append([state])
        self.lines.append([])
        self.steps.append([])
        current = state
        for _ in range(self.rng.randint(1, 3)):
            current = self.state_update(current)
        current = self.elementwise_unary_of("tanh", self.bounded_to(current, 2.5))
        body_lines, body_steps = self.lines.pop(), self.steps.pop()
        self.scopes.pop()
        name, result = self.name(), current.name
        self.emit(
            f"%{name} = scf.for %i{self.counter} = %{bounds[0]} to %{bounds[1]} step %{bounds[2]} "
            f"iter_args(%{state.name} = %{init.name}) -> ({init.type}) {{"
        )
        self.lines[-1].extend("  " + line for line in body_lines)
        self.lines[-1].extend([f"  scf.yield %{result} : {init.type}", "}"])

        def step(env, margins):
            value = env[init.name]
            for _ in range(trips):
                local = {**env, state.name: value}
                for body_step in body_steps:
                    body_step(local, margins)
                value = local[result]
            env[name] = value

        self.steps[-1].append(step)
        self.features.add("scf.for")
        made = self.value(name, init.shape, (-1.0, 1.0), [init])
        made.active = init.active or current.active
        return made

    def state_update(self, state: Value) -> Value:
        """One op of a loop body, of the state's shape."""
        choice = self.rng.choice(["binary", "unary", "matmul", "matmul", "softmax"])
        if choice == "matmul" and len(state.shape) == 2:
            m, k = state.shape
            weight = self.operand((k, k))
            init = self.accumulator((m, k))
            name = self.name()
            self.emit(
                f"%{name} = linalg.matmul ins(%{state.name}, %{weight.name} : {state.type}, {weight.type}) "
                f"outs(%{init.name} : {state.type}) -> {state.type}",
                lambda env, margins: env.__setitem__(name, env[init.name] + env[state.name] @ env[weight.name]),
            )
            self.features.add("scf.for.matmul_in_body")
            product = _product((state.lo, state.hi), (weight.lo, weight.hi))
            return self.bounded(self.value(name, state.shape, (init.lo + most(k) * product[0], init.hi + most(k) * product[1]),
                                           [state, weight, init]))  # fmt: skip
        if choice == "softmax":
            return self.softmax(state, len(state.shape) - 1)
        if choice == "unary":
            return self.elementwise_unary(state)
        return self.bounded(self.elementwise_binary(a=state, kind=self.rng.choice(["add", "mul", "sub", "max"])))

    def elementwise_unary_of(self, kind: str, x: Value) -> Value:
        function, interval, domain = UNARY[kind]
        assert domain(x.lo, x.hi), (kind, x)
        empty, name = self.empty(x.shape), self.name()
        self.emit(
            f"%{name} = {self.spelled(kind)} ins(%{x.name} : {x.type}) outs(%{empty} : {x.type}) -> {x.type}",
            lambda env, margins: env.__setitem__(name, function(env[x.name])),
        )
        return self.value(name, x.shape, interval(x.lo, x.hi), [x])

    def bounded_to(self, value: Value, limit: float) -> Value:
        if value.magnitude <= limit:
            return value
        scale = 2.0 ** -math.ceil(math.log2(value.magnitude / limit))
        self.features.add("scaled")
        return self.elementwise_binary("mul", value, self.fill(scale, value.shape), spelling="named")

    # ---- the function -----------------------------------------------------------------------
    def random_op(self) -> Value:
        kind = self.rng.choices(list(self.op_weights), list(self.op_weights.values()))[0]
        if kind in ("matmul", "matmul_transposed_b", "batch_matmul", "matvec", "vecmat", "dot"):
            return self.contraction(kind)
        if kind == "conv":
            return self.convolution()
        if kind.startswith("pool_"):
            return self.pooling(kind.removeprefix("pool_"))
        if kind.startswith("reduce_"):
            return self.reduce(kind.removeprefix("reduce_"))
        if kind == "unary":
            return self.elementwise_unary()
        if kind == "binary":
            return self.elementwise_binary()
        return getattr(self, kind)()

    def function(self, name: str) -> tuple[str, list[Value]]:
        """The function's text and its results (the active values nothing reads, the last
        four at most, or the last active value)."""
        for _ in range(self.rng.randint(4, 9)):
            self.random_op()
        made = [v for v in self.scopes[0] if v.active and not v.argument]
        unread = [v for v in made if v.uses == 0]
        results = unread[-4:] or made[-1:]
        if not results:  # every op read only constants: read an argument
            results = [self.elementwise_unary(self.arguments[0] if self.arguments else self.argument((3,)))]
        signature = ", ".join(f"%{a.name}: {a.type}" for a in self.arguments)
        lines = [f"func.func @{name}({signature}) -> ({', '.join(r.type for r in results)}) {{"]
        lines += ["  " + line for line in self.lines[0]]
        lines.append(f"  return {', '.join('%' + r.name for r in results)} : {', '.join(r.type for r in results)}")
        lines.append("}")
        return "\n".join(lines) + "\n", results

    def evaluate(self, results: list[Value], inputs: list[np.ndarray]) -> tuple[list[np.ndarray], list[float]]:
        env = {a.name: x for a, x in zip(self.arguments, inputs)}
        margins: list[float] = []
        with np.errstate(all="raise"):
            for step in self.steps[0]:
                step(env, margins)
        return [np.asarray(env[r.name], dtype=np.float64) for r in results], margins


def _responds(builder: NamedProgramBuilder, results, inputs, rng) -> bool:
    """Whether the outputs move along a random direction (NumPy central differences)."""
    step = 1e-4
    direction = [rng.standard_normal(np.shape(x)) for x in inputs]
    try:
        plus, _ = builder.evaluate(results, [x + step * d for x, d in zip(inputs, direction)])
        minus, _ = builder.evaluate(results, [x - step * d for x, d in zip(inputs, direction)])
    except FloatingPointError:
        return False
    return any(np.max(np.abs(p - m), initial=0.0) / (2 * step) > 1e-2 for p, m in zip(plus, minus))


def generate(seed: int, dynamic: bool = False) -> Program:
    """The program of `seed` (the same on every machine) and inputs at which every kink and
    tie is at least MARGIN away. `dynamic`: another program, whose batch size `B` (and sizes
    cast to `?`) its types spell `?`, read back with `tensor.dim` (torch-mlir's form)."""
    attempt, builder, text, _, inputs, outputs = _drawn(seed, dynamic)
    other_sizes = _at_other_batch_sizes(seed, attempt, text, int(builder.batch)) if dynamic else ()
    features = builder.features | ({"dynamic.other_batch_size"} if other_sizes else set())
    return Program(seed, _name(seed, dynamic), text, inputs, outputs, frozenset(features), other_sizes)


def generate_dynamic(seed: int) -> Program:
    return generate(seed, dynamic=True)


def _name(seed: int, dynamic: bool) -> str:
    return f"named_dynamic_{seed}" if dynamic else f"named_{seed}"


def _safe_inputs(builder: NamedProgramBuilder, results: list[Value], rng):
    """(inputs, outputs) drawn from `rng` with every margin met, or None."""
    inputs = [rng.uniform(a.lo, a.hi, a.shape) for a in builder.arguments]
    try:
        outputs, margins = builder.evaluate(results, inputs)
    except FloatingPointError:
        return None
    return (inputs, outputs) if min(margins, default=1.0) >= MARGIN else None


def _builder(seed: int, attempt: int, dynamic: bool, batch_size: int | None = None):
    """(builder, text, results) of one attempt at the program of `seed`."""
    kind = "named-dynamic-program" if dynamic else "named-program"
    builder = NamedProgramBuilder(random.Random(f"{kind}-{seed}-{attempt}"), dynamic, batch_size)
    return (builder, *builder.function(_name(seed, dynamic)))


def _at_other_batch_sizes(seed: int, attempt: int, text: str, batch: int) -> tuple:
    """(inputs, outputs) of the dynamic program `text` at up to two other batch sizes: the
    same compiled code must be right at each."""
    found = []
    for size in OTHER_BATCH_SIZES:
        if size == batch or len(found) == 2:
            continue
        builder, other_text, results = _builder(seed, attempt, True, size)
        if other_text != text:
            continue
        for inputs_seed in range(INPUT_ATTEMPTS):
            drawn = _safe_inputs(builder, results, np.random.default_rng([seed, attempt, size, inputs_seed]))
            if drawn is not None:
                found.append(drawn)
                break
    return tuple(found)


def _drawn(seed: int, dynamic: bool = False):
    """(attempt, builder, text, results, inputs, outputs) of `generate(seed, dynamic)`."""
    for attempt in range(100):
        builder, text, results = _builder(seed, attempt, dynamic)
        for inputs_seed in range(INPUT_ATTEMPTS):
            rng = np.random.default_rng([seed, attempt, inputs_seed])
            drawn = _safe_inputs(builder, results, rng)
            if drawn is None:
                continue
            if not _responds(builder, results, drawn[0], rng):
                break  # outputs that barely depend on the inputs check little: another program
            return attempt, builder, text, results, *drawn
    raise RuntimeError(f"no named-op program with safe inputs for seed {seed}")


def examples(seed: int, count: int, dynamic: bool = False) -> list[tuple[list, list]]:
    """`count` (inputs, outputs) pairs for the program of `seed`, each with every margin met
    (the program's own inputs first): a batch for `standard_vmap.check_batch`."""
    attempt, builder, _, results, inputs, outputs = _drawn(seed, dynamic)
    found = [(inputs, outputs)]
    for inputs_seed in range(1000, 1000 + 100 * count):
        if len(found) == count:
            break
        drawn = _safe_inputs(builder, results, np.random.default_rng([seed, attempt, inputs_seed]))
        if drawn is not None:
            found.append(drawn)
    return [found[k % len(found)] for k in range(count)]


if __name__ == "__main__":
    dynamic = "--dynamic" in sys.argv
    for argument in sys.argv[1:]:
        if argument != "--dynamic":
            print(generate(int(argument), dynamic).text)
