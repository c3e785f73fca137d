"""Branch-free f32 `exp`, `log`, `tanh`, `sin` and `cos` for the CPU pipeline, in arith ops.

MLIR 22's Python wheel registers no polynomial-approximation pass, and
`convert-math-to-llvm` turns `math.exp` into a call of libm's scalar `expf`,
which stops LLVM's loop vectoriser: a fused elementwise chain with one `exp`
would run at scalar speed. These rewrites replace each f32 (or vector of f32)
`math.exp`, `math.log`, `math.tanh`, `math.sin` and `math.cos` by plain
arithmetic that LLVM vectorises.

The formulas are the classic Cephes ones (range reduction + minimax
polynomial; exp and log within 1 ulp of the true value) and, for tanh, the
13/6 rational minimax approximation also used by Eigen and XLA (within 6 ulp).
sin and cos reduce the argument by multiples of pi/2 with a branch-free
Payne-Hanek reduction in f64 (x times 2/pi in 24-bit pieces, each product
exact, whole multiples of 4 dropped piece by piece), so every finite f32
argument, up to 3.4e38, is reduced to f32 precision; then they evaluate
Cephes' f32 minimax polynomials on [-pi/4, pi/4]: within 2 ulp of the true
value (tested against NumPy from 1e-38 to 3.4e38, and on the f32 arguments
closest to multiples of pi/2). The exact reduction costs about 0.5 ns per
element on one core (a 3-constant Cody-Waite reduction is 3x cheaper, but
it loses accuracy beyond about 1e6 and is wrong beyond 1e9).
Infinities, zeros, NaN and subnormal inputs give the IEEE results. Other
element types (f64 for gradient checks) keep libm's exact versions.
"""
from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, math

from gradir.mlir_bridge import walk_ops

_LOG2_E = 1.44269504088896341
# ln 2 split in two so that n * _LN2_HIGH is exact for the exponents that occur.
_LN2_HIGH = 0.693359375
_LN2_LOW = -2.12194440e-4
_EXP_OVERFLOW = 88.72284  # above: +inf
_EXP_UNDERFLOW = -104.0  # below: 0 (under the smallest subnormal)
_EXP_POLYNOMIAL = (
    1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
    5.0000001201e-1,
)
_LOG_POLYNOMIAL = (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
)
_SQRT_HALF = 0.707106781186547524
_SMALLEST_NORMAL = 1.17549435e-38
_TANH_SATURATION = 7.90531110763549805  # tanh rounds to +-1 in f32 beyond this
_TANH_LINEAR = 0.0004  # below: tanh(x) == x in f32
_TANH_NUMERATOR = (  # odd powers x^13 ... x^1
    -2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
    1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03,
)
_TANH_DENOMINATOR = (  # even powers x^6 ... x^0
    1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03,
)
# 2/pi in 24-bit pieces: 2/pi = sum of piece_j * 2^(-24 (j + 1)), to 2^-192. A
# piece times an f32 (24 significant bits) is exact in f64. Down to 2^-192 is
# enough for the largest f32 (2^128) to keep f32 precision in a reduced
# argument as small as 2^-30 quarter turns (the closest an f32 comes to a
# multiple of pi/2 is 2^-29.9 quarter turns: 16367173 * 2^72).
_TWO_OVER_PI_PIECES = (
    0xA2F983, 0x6E4E44, 0x1529FC, 0x2757D1, 0xF534DD, 0xC0DB62, 0x95993C, 0x439041,
)
# From this piece on, x times the piece is below 2^-16 for every f32: nothing to round off.
_FIRST_FRACTIONAL_PIECE = 6
_HALF_PI = 1.57079632679489661923
_SIN_POLYNOMIAL = (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1)  # in r^2, times r^3
_COS_POLYNOMIAL = (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2)  # times r^4


class _Emitter:
    """Builds arith ops before the op being replaced, on its (scalar or vector) f32 type.

    `contract` lets LLVM fuse the polynomial's multiply-adds into FMAs where
    the target has them, without reassociating anything.
    """

    def __init__(self, float_type: ir.Type):
        self.float_type = float_type
        i32 = ir.IntegerType.get_signless(32)
        if isinstance(float_type, ir.VectorType):
            self.int_type = ir.VectorType.get(float_type.shape, i32)
        else:
            self.int_type = i32
        self.contract = ir.Attribute.parse("#arith.fastmath<contract>")

    def _constant(self, shaped_or_scalar: ir.Type, scalar: ir.Attribute) -> ir.Value:
        if isinstance(shaped_or_scalar, ir.VectorType):
            scalar = ir.DenseElementsAttr.get_splat(shaped_or_scalar, scalar)
        return arith.ConstantOp(shaped_or_scalar, scalar).result

    def float(self, value: float) -> ir.Value:
        element = ir.F32Type.get()
        return self._constant(self.float_type, ir.FloatAttr.get(element, value))

    @property
    def double_type(self) -> ir.Type:
        if isinstance(self.float_type, ir.VectorType):
            return ir.VectorType.get(self.float_type.shape, ir.F64Type.get())
        return ir.F64Type.get()

    def double(self, value: float) -> ir.Value:
        return self._constant(self.double_type, ir.FloatAttr.get(ir.F64Type.get(), value))

    def int(self, value: int) -> ir.Value:
        element = ir.IntegerType.get_signless(32)
        return self._constant(self.int_type, ir.IntegerAttr.get(element, value))

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.addf(a, b, fastmath=self.contract)

    def sub(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.subf(a, b, fastmath=self.contract)

    def mul(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.mulf(a, b, fastmath=self.contract)

    def div(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.divf(a, b)

    def clamp(self, x: ir.Value, low: float, high: float) -> ir.Value:
        """min(max(x, low), high); NaN stays NaN."""
        return arith.minimumf(arith.maximumf(x, self.float(low)), self.float(high))

    def compare(self, predicate: str, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.cmpf(getattr(arith.CmpFPredicate, predicate), a, b)

    def select(self, condition: ir.Value, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.select(condition, a, b)

    def horner(self, x: ir.Value, coefficients: tuple[float, ...]) -> ir.Value:
        """c0 * x^(n-1) + ... + c(n-1), highest power first."""
        result = self.float(coefficients[0])
        for coefficient in coefficients[1:]:
            result = self.add(self.mul(result, x), self.float(coefficient))
        return result

    def bits(self, x: ir.Value) -> ir.Value:
        return arith.bitcast(self.int_type, x)

    def from_bits(self, x: ir.Value) -> ir.Value:
        return arith.bitcast(self.float_type, x)

    def power_of_two(self, exponent: ir.Value) -> ir.Value:
        """2^exponent for an i32 exponent in the normal range [-126, 127]."""
        biased = arith.addi(exponent, self.int(127))
        return self.from_bits(arith.shli(biased, self.int(23)))


def _exp(emit: _Emitter, x: ir.Value) -> ir.Value:
    """exp(x) = 2^n * e^r with n = round(x / ln 2) and |r| <= ln 2 / 2."""
    clamped = emit.clamp(x, _EXP_UNDERFLOW, _EXP_OVERFLOW)
    n = math.floor(emit.add(emit.mul(clamped, emit.float(_LOG2_E)), emit.float(0.5)))
    r = emit.sub(emit.sub(clamped, emit.mul(n, emit.float(_LN2_HIGH))), emit.mul(n, emit.float(_LN2_LOW)))
    polynomial = emit.horner(r, _EXP_POLYNOMIAL)
    exp_r = emit.add(emit.add(emit.mul(polynomial, emit.mul(r, r)), r), emit.float(1.0))
    # n lies in [-150, 128]: scale in two halves so each factor is a normal float.
    n_int = arith.fptosi(emit.int_type, n)
    first_half = arith.shrsi(n_int, emit.int(1))
    second_half = arith.subi(n_int, first_half)
    result = emit.mul(emit.mul(exp_r, emit.power_of_two(first_half)), emit.power_of_two(second_half))
    result = emit.select(emit.compare("OGT", x, emit.float(_EXP_OVERFLOW)), emit.float(float("inf")), result)
    result = emit.select(emit.compare("OLT", x, emit.float(_EXP_UNDERFLOW)), emit.float(0.0), result)
    return emit.select(emit.compare("UNO", x, x), x, result)


def _log(emit: _Emitter, x: ir.Value) -> ir.Value:
    """log(x) = e * ln 2 + log(m) with x = m * 2^e and m in [sqrt(1/2), sqrt(2))."""
    subnormal = emit.compare("OLT", x, emit.float(_SMALLEST_NORMAL))
    normal = emit.select(subnormal, emit.mul(x, emit.float(2.0**23)), x)
    bits = emit.bits(normal)
    biased_exponent = arith.andi(arith.shrui(bits, emit.int(23)), emit.int(0xFF))
    exponent = arith.sitofp(emit.float_type, arith.subi(biased_exponent, emit.int(126)))
    exponent = emit.sub(exponent, emit.select(subnormal, emit.float(23.0), emit.float(0.0)))
    # Keep sign and mantissa, set the exponent of 0.5: m in [0.5, 1).
    mantissa = emit.from_bits(arith.ori(arith.andi(bits, emit.int(-2139095041)), emit.int(0x3F000000)))
    below = emit.compare("OLT", mantissa, emit.float(_SQRT_HALF))
    exponent = emit.sub(exponent, emit.select(below, emit.float(1.0), emit.float(0.0)))
    m = emit.sub(emit.select(below, emit.add(mantissa, mantissa), mantissa), emit.float(1.0))
    m_squared = emit.mul(m, m)
    y = emit.mul(emit.mul(emit.horner(m, _LOG_POLYNOMIAL), m), m_squared)
    y = emit.add(y, emit.mul(exponent, emit.float(_LN2_LOW)))
    y = emit.sub(y, emit.mul(m_squared, emit.float(0.5)))
    result = emit.add(emit.add(m, y), emit.mul(exponent, emit.float(_LN2_HIGH)))
    result = emit.select(emit.compare("OEQ", x, emit.float(0.0)), emit.float(float("-inf")), result)
    result = emit.select(emit.compare("OLT", x, emit.float(0.0)), emit.float(float("nan")), result)
    result = emit.select(emit.compare("OEQ", x, emit.float(float("inf"))), x, result)
    return emit.select(emit.compare("UNO", x, x), x, result)


def _tanh(emit: _Emitter, x: ir.Value) -> ir.Value:
    """tanh(x) = x * P(x^2) / Q(x^2) on the clamped range, x itself near zero."""
    clamped = emit.clamp(x, -_TANH_SATURATION, _TANH_SATURATION)
    x_squared = emit.mul(clamped, clamped)
    numerator = emit.mul(emit.horner(x_squared, _TANH_NUMERATOR), clamped)
    denominator = emit.horner(x_squared, _TANH_DENOMINATOR)
    result = emit.div(numerator, denominator)
    tiny = emit.compare("OLT", math.absf(x), emit.float(_TANH_LINEAR))
    return emit.select(tiny, x, result)


def _quarter_turns(emit: _Emitter, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(n, r) with x = n pi/2 + r, |r| <= pi/4: n mod 4 as an i32, r in f32.

    x * 2/pi = sum of x * piece_j, each product exact in f64. Each product is
    split into a whole number (kept mod 4: larger multiples of 4 are whole
    turns) and a fraction in [-1/2, 1/2]; the fractions are summed smallest
    first, so the large exact ones are added last and a small total keeps its
    relative precision. Infinities and NaN give a NaN r.
    """
    wide = arith.extf(emit.double_type, x)
    quarter_turns = emit.double(0.0)
    fraction = emit.double(0.0)
    for index in reversed(range(len(_TWO_OVER_PI_PIECES))):
        piece = _TWO_OVER_PI_PIECES[index] * 2.0 ** (-24 * (index + 1))
        product = arith.mulf(wide, emit.double(piece))
        if index >= _FIRST_FRACTIONAL_PIECE:
            fraction = arith.addf(fraction, product)
            continue
        whole = math.roundeven(product)
        fraction = arith.addf(fraction, arith.subf(product, whole))
        fours = math.floor(arith.mulf(whole, emit.double(0.25)))
        quarter_turns = arith.addf(quarter_turns, arith.subf(whole, arith.mulf(fours, emit.double(4.0))))
    whole = math.roundeven(fraction)
    fraction = arith.subf(fraction, whole)
    quarter_turns = arith.addf(quarter_turns, whole)
    # inf and NaN: a NaN count would convert to poison; r is NaN anyway.
    undefined = arith.cmpf(arith.CmpFPredicate.UNO, quarter_turns, quarter_turns)
    quarter_turns = arith.select(undefined, emit.double(0.0), quarter_turns)
    r = arith.mulf(fraction, emit.double(_HALF_PI))
    return arith.fptosi(emit.int_type, quarter_turns), arith.truncf(emit.float_type, r)


def _sine_of_quarter_turns(emit: _Emitter, n: ir.Value, r: ir.Value) -> ir.Value:
    """sin(n pi/2 + r): sin r, cos r, -sin r, -cos r by n mod 4."""
    r2 = emit.mul(r, r)
    sine = emit.add(r, emit.mul(emit.mul(r2, r), emit.horner(r2, _SIN_POLYNOMIAL)))
    cosine = emit.add(
        emit.sub(emit.float(1.0), emit.mul(r2, emit.float(0.5))),
        emit.mul(emit.mul(r2, r2), emit.horner(r2, _COS_POLYNOMIAL)),
    )
    odd = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(n, emit.int(1)), emit.int(0))
    value = emit.select(odd, cosine, sine)
    negative = arith.cmpi(arith.CmpIPredicate.ne, arith.andi(n, emit.int(2)), emit.int(0))
    return emit.select(negative, emit.sub(emit.float(0.0), value), value)


def _sin(emit: _Emitter, x: ir.Value) -> ir.Value:
    """sin(x), and x itself below 2^-12 (exact in f32 there; keeps the sign of -0)."""
    n, r = _quarter_turns(emit, x)
    tiny = emit.compare("OLT", math.absf(x), emit.float(2.0**-12))
    return emit.select(tiny, x, _sine_of_quarter_turns(emit, n, r))


def _cos(emit: _Emitter, x: ir.Value) -> ir.Value:
    """cos(x) = sin(x + pi/2): one more quarter turn."""
    n, r = _quarter_turns(emit, x)
    return _sine_of_quarter_turns(emit, arith.addi(n, emit.int(1)), r)


_APPROXIMATIONS: dict[str, Callable[[_Emitter, ir.Value], ir.Value]] = {
    "math.exp": _exp,
    "math.log": _log,
    "math.tanh": _tanh,
    "math.sin": _sin,
    "math.cos": _cos,
}


def _is_f32(value_type: ir.Type) -> bool:
    if isinstance(value_type, ir.VectorType):
        value_type = value_type.element_type
    return isinstance(value_type, ir.F32Type)


def approximate_math(module: ir.Module) -> int:
    """Replace every f32 `math.exp`, `math.log`, `math.tanh`, `math.sin` and `math.cos`
    in `module`; returns how many."""
    with module.context:
        targets = [op for op in walk_ops(module, set(_APPROXIMATIONS)) if _is_f32(op.results[0].type)]
        for op in targets:
            with ir.InsertionPoint(op), op.location:
                emit = _Emitter(op.results[0].type)
                replacement = _APPROXIMATIONS[op.name](emit, op.operands[0])
            op.results[0].replace_all_uses_with(replacement)
            op.erase()
    return len(targets)
