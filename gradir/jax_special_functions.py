"""Special functions written as JAX code whose derivatives gradir computes right.

jaxlib expands these primitives (`erf_inv`, `lgamma`, `digamma`, `igamma`, ...) into
selects between formulas that are infinite or NaN where they are not chosen, or into loops
that stop when the value has converged: JAX differentiates them with rules of their own,
which StableHLO does not keep, and gradir differentiating the expansion got NaN or a
derivative a few digits off. `from_jax` (`jax_export`) evaluates the function's jaxpr with
each of `WRITTEN_AS_CODE` replaced by the code here: each side of a select reads a value
it is finite on (the double-where trick), and a loop runs until its derivatives have
converged too. Imported by `jax_export` only; JAX is imported inside the functions.
"""
from __future__ import annotations

_ERF_INV_NEAR_ZERO = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)
_ERF_INV_IN_THE_TAILS = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)
"""M. Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single
precision: erfinv(x) = x p(w - 2.5) for w = -log(1 - x^2) < 5, else x q(sqrt(w) - 3)."""


def _erf_inv(x):
    """erfinv(x), as JAX code whose derivatives gradir computes right, to any order.

    jaxlib expands `erf_inv` into both of Giles' polynomials, `sqrt(w)` and `x * inf`
    (for |x| = 1) chosen by selects. The gradient of a select's unchosen side is 0, and
    0 times the derivative of `x * inf` (inf), or of `sqrt(w)` at w = 0, is NaN: gradir's
    gradient of that expansion was NaN everywhere (JAX uses erf_inv's own rule, which
    StableHLO does not keep). Here each side of a select reads a value it is finite on
    (the double-where trick) and the poles are constants. Newton steps on erf(y) = x
    (one in f32, two in f64, from Giles' single precision start) make the value right to
    the precision and the derivative that of the inverse, sqrt(pi)/2 exp(y^2) (the
    polynomial's own is 2e-5 off). Where |x| > 1/2 the step's residual is written
    (1 - |x|) - erfc(|y|): erf(y) - x there loses the digits the step needs."""
    import math

    import jax.numpy as jnp
    from jax import lax

    dtype = jnp.result_type(x)
    at_pole = jnp.abs(x) == 1
    inside = jnp.where(at_pole, jnp.zeros_like(x), x)
    w = -jnp.log1p(-inside * inside)
    near_zero = w < 5

    def horner(coefficients, t):
        total = jnp.full_like(t, coefficients[0])
        for coefficient in coefficients[1:]:
            total = total * t + coefficient
        return total

    p = horner(_ERF_INV_NEAR_ZERO, jnp.where(near_zero, w, 2.5) - 2.5)
    q = horner(_ERF_INV_IN_THE_TAILS, jnp.sqrt(jnp.where(near_zero, 9.0, w)) - 3.0)
    y = jnp.where(near_zero, p, q) * inside
    far = jnp.abs(inside) > 0.5
    sign = jnp.where(inside > 0, jnp.ones_like(x), -jnp.ones_like(x))
    x_far = jnp.where(far, inside, 0.75 * sign)  # |x| as sign * x: no abs, whose derivative at 0 is 0
    for _ in range(2 if dtype == jnp.float64 else 1):
        y_far = jnp.where(far, y, 0.75 * sign)
        residual = jnp.where(
            far, sign * ((1 - sign * x_far) - lax.erfc(sign * y_far)), lax.erf(y) - inside
        )
        y = y - residual * (math.sqrt(math.pi) / 2) * jnp.exp(y * y)
    pole = jnp.where(x > 0, jnp.asarray(jnp.inf, dtype), jnp.asarray(-jnp.inf, dtype))
    return jnp.where(at_pole, pole, y).astype(dtype)


_SHIFT = 8
"""lgamma(x) = lgamma(x + 8) - sum of log(x + k), k < 8: Stirling's series at x + 8 >= 8.5."""

_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360)
"""Coefficients of 1/y, 1/y^3, ..., 1/y^11 in lgamma(y) - ((y - 1/2) log y - y + log(2 pi)/2);
the next term is below 1e-14 at y = 8.5."""

_DIGAMMA_SERIES = (-1 / 12, 1 / 120, -1 / 252, 1 / 240, -1 / 132, 691 / 32760)
"""Coefficients of 1/y^2, 1/y^4, ..., 1/y^12 in digamma(y) - (log y - 1/(2y))."""


def _shifted(x):
    """(x + 8, log(x (x + 1) ... (x + 7)), 1/x + ... + 1/(x + 7)) for x >= 1/2."""
    import jax.numpy as jnp

    logs = sum(jnp.log(x + k) for k in range(_SHIFT))
    reciprocals = sum(1 / (x + k) for k in range(_SHIFT))
    return x + _SHIFT, logs, reciprocals


def _reflected(x):
    """(x < 1/2, the argument the series takes (1 - x there), x where the reflection's
    sin(pi x) is read, 1/4 elsewhere: a point its every derivative is finite at)."""
    import jax.numpy as jnp

    reflect = x < 0.5
    at = jnp.where(reflect, 1 - x, x)
    safe = jnp.where(reflect, x, jnp.full_like(x, 0.25))
    return reflect, at, safe - 2 * jnp.round(safe / 2)  # reduced to [-1, 1]: sin(pi x) exact to the ulp


def _lgamma(x):
    """log|Gamma(x)|, as JAX code whose derivatives gradir computes right.

    jaxlib expands `lgamma` into Lanczos' formula and, for x < 1/2, the reflection
    log(pi) - log|sin(pi x)| - lgamma(1 - x), chosen by a select. At a positive integer the
    unchosen reflection is log(0) = -inf, and its gradient times the select's 0 is NaN: the
    gradient of a Gamma or Dirichlet log density at concentration 1 was NaN (JAX uses
    lgamma's own rule, digamma). Here the reflection reads x only where it is chosen, and
    x >= 1/2 takes Stirling's series after 8 steps of the recurrence (`_SHIFT`)."""
    import math

    import jax.numpy as jnp

    reflect, at, reduced = _reflected(x)
    y, logs, _ = _shifted(at)
    inverse, inverse_square = 1 / y, 1 / (y * y)
    series = sum(c * inverse * inverse_square**k for k, c in enumerate(_STIRLING))
    direct = (y - 0.5) * jnp.log(y) - y + 0.5 * math.log(2 * math.pi) + series - logs
    reflection = math.log(math.pi) - jnp.log(jnp.abs(jnp.sin(math.pi * reduced))) - direct
    return jnp.where(reflect, reflection, direct).astype(jnp.result_type(x))


def _digamma(x):
    """d/dx lgamma(x), the same way as `_lgamma` (the recurrence, then the asymptotic series;
    the reflection read safely: jaxlib's expansion reads pi / tan(pi x), infinite at a
    positive integer, on both sides)."""
    import math

    import jax.numpy as jnp

    reflect, at, reduced = _reflected(x)
    y, _, reciprocals = _shifted(at)
    inverse_square = 1 / (y * y)
    series = sum(c * inverse_square ** (k + 1) for k, c in enumerate(_DIGAMMA_SERIES))
    direct = jnp.log(y) - 0.5 / y + series - reciprocals
    angle = math.pi * reduced  # cos / sin, not 1 / tan: tan is infinite at half-integers
    reflection = direct - math.pi * jnp.cos(angle) / jnp.sin(angle)
    return jnp.where(reflect, reflection, direct).astype(jnp.result_type(x))




_MAX_TERMS = 2000
"""The most terms a series or continued fraction of `_incomplete_gamma` takes (JAX's bound)."""


def _lower_series(a, x, eps):
    """(S, dS/da) for S = sum over n of x^n / ((a + 1) ... (a + n)), P(a, x)'s series: terms
    are added until they and their derivatives in `a` are below `eps` of the sums. (The
    derivative's terms are the value's times a harmonic sum, so stopping on the value
    alone would do here; dS/da is what `igamma_grad_a` returns.)"""
    import jax.numpy as jnp
    from jax import lax

    def unconverged(state):
        n, _, term, total, term_da, total_da = state
        open_ = (jnp.abs(term) > eps * jnp.abs(total)) | (jnp.abs(term_da) > eps * jnp.abs(total_da))
        return (n < _MAX_TERMS) & jnp.any(open_)

    def step(state):
        n, r, term, total, term_da, total_da = state
        r = r + 1
        term_da = (term_da - term / r) * x / r
        term = term * x / r
        return n + 1, r, term, total + term, term_da, total_da + term_da

    one, zero = jnp.ones_like(x), jnp.zeros_like(x)
    _, _, _, total, _, total_da = lax.while_loop(unconverged, step, (jnp.int32(0), a, one, one, zero, zero))
    return total, total_da


def _upper_fraction(a, x, eps):
    """(F, dF/da) for Q(a, x)'s continued fraction F = 1/(x + 1 - a - 1 (1 - a)/(x + 3 - a - ...)),
    by the modified Lentz method (Numerical Recipes' `gcf`), until both the factor each
    step applies and the derivative in `a` change by less than `eps`: stopped on the factor
    alone, the derivative gradir computes through the loop was 5e-6 off in f64."""
    import jax.numpy as jnp
    from jax import lax

    tiny = jnp.finfo(x.dtype).tiny / eps

    def unconverged(state):
        return (state[0] < _MAX_TERMS) & jnp.any(state[-1] > eps)

    def step(state):
        i, b, c, d, f, c_da, d_da, f_da, _ = state
        i = i + 1
        k = i.astype(x.dtype)
        coefficient = -k * (k - a)  # its derivative in a is k; b's is -1
        b = b + 2
        denominator = coefficient * d + b
        denominator_da = k * d + coefficient * d_da - 1
        denominator = jnp.where(jnp.abs(denominator) < tiny, tiny, denominator)
        c_da = -1 + (k * c - coefficient * c_da) / (c * c)
        c = b + coefficient / c
        c = jnp.where(jnp.abs(c) < tiny, tiny, c)
        d, d_da = 1 / denominator, -denominator_da / (denominator * denominator)
        factor, factor_da = d * c, d_da * c + d * c_da
        next_f_da = f_da * factor + f * factor_da
        change = jnp.maximum(jnp.abs(factor - 1), jnp.abs(next_f_da - f_da) / jnp.maximum(jnp.abs(next_f_da), tiny))
        return i, b, c, d, f * factor, c_da, d_da, next_f_da, change

    b = x + 1 - a
    d = 1 / b
    d_da = d * d  # b's derivative in a is -1
    state = (jnp.int32(0), b, jnp.full_like(x, 1 / tiny), d, d, jnp.zeros_like(x), d_da, d_da, jnp.full_like(x, jnp.inf))
    state = lax.while_loop(unconverged, step, state)
    return state[4], state[7]


def _incomplete_gamma(a, x, log_x=None):
    """(P(a, x), Q(a, x), dP/da): the regularized incomplete gamma functions, by the series
    where x < a + 1 (or x <= 1) and the continued fraction elsewhere, as JAX's igamma. Each
    side reads only points it is meant for (a = 1, x = 1/2 or 3 elsewhere). x = 0 gives
    P = 0, x = inf or a = 0 P = 1; a < 0, x < 0, a = inf or a NaN give NaN, as JAX. `log_x`,
    when given, is log(x), read instead of x where x may have underflowed to 0."""
    import jax.numpy as jnp

    dtype = jnp.result_type(a, x)
    a, x = jnp.broadcast_arrays(jnp.asarray(a, dtype), jnp.asarray(x, dtype))
    eps = jnp.finfo(dtype).eps
    positive = x > 0 if log_x is None else log_x > -jnp.inf
    inside = (a > 0) & (a < jnp.inf) & positive & (x < jnp.inf)
    by_series = inside & ((x < a + 1) | (x <= 1))
    by_fraction = inside & ~by_series
    a_s, x_s = jnp.where(by_series, a, 1), jnp.where(by_series, x, 0.5)
    log_x_s = jnp.log(x_s) if log_x is None else jnp.where(by_series, log_x, jnp.log(0.5))
    series, series_da = _lower_series(a_s, x_s, eps)
    prefix = jnp.exp(a_s * log_x_s - x_s - _lgamma(a_s + 1))
    lower = prefix * series
    lower_da = lower * (log_x_s - _digamma(a_s + 1)) + prefix * series_da
    a_f, x_f = jnp.where(by_fraction, a, 1), jnp.where(by_fraction, x, 3)
    log_x_f = jnp.log(x_f)  # x >= 1 there: no underflow
    fraction, fraction_da = _upper_fraction(a_f, x_f, eps)
    prefix = jnp.exp(a_f * log_x_f - x_f - _lgamma(a_f))
    upper = prefix * fraction
    upper_da = upper * (log_x_f - _digamma(a_f)) + prefix * fraction_da
    nan = jnp.full_like(x, jnp.nan)  # a constant: (a + x) * nan's gradient, 0 * nan, would leak into every lane
    at_edge = jnp.where((a > 0) & (x == 0), 0, jnp.where((a >= 0) & (x > 0) & ((a == 0) | (x == jnp.inf)), 1, nan))
    p = jnp.where(by_series, lower, jnp.where(by_fraction, 1 - upper, at_edge))
    q = jnp.where(by_series, 1 - lower, jnp.where(by_fraction, upper, 1 - at_edge))
    p_da = jnp.where(by_series, lower_da, jnp.where(by_fraction, -upper_da, jnp.where(a > 0, at_edge * 0, nan)))
    return p, q, p_da


def _igamma(a, x):
    """P(a, x) (`jax.scipy.special.gammainc`, the Gamma and chi-squared CDFs). jaxlib's
    expansion stops its loops on the value's convergence, and gradir's gradient in `a` of
    it was NaN at integer `a` (JAX uses `igamma_grad_a`)."""
    return _incomplete_gamma(a, x)[0]


def _igammac(a, x):
    """Q(a, x) = 1 - P(a, x) (`gammaincc`, the Poisson CDF), from the continued fraction
    where that is the one that converges: 1 - P would lose its digits in the tail."""
    return _incomplete_gamma(a, x)[1]


def _igamma_grad_a(a, x):
    """dP/da, the primitive `jax.grad` of `gammainc` binds inside a function given to
    `from_jax`."""
    return _incomplete_gamma(a, x)[2]


def reparameterized_gamma(a, sample, log_space: bool, stop_gradient):
    """`sample`, a Gamma(a) draw (its log where `log_space`: what `jax.random.beta` and
    `dirichlet` draw), whose derivatives in `a` are those of implicit reparameterization,
    JAX's rule for `random_gamma`: the draw x(a) solving P(a, x) = u for the draw's own u.
    StableHLO keeps only the rejection sampler, whose derivative for a fixed key is another
    quantity (a few percent off). Two Newton steps on P(a, e^y) = u from y0 = log x (a
    constant) have the value y0 (P(a, e^y0) - u is 0) and the solution's derivatives to
    the third order (each step doubles the order); the draw itself is returned, plus the
    steps' difference from their own value (0, or a derivative of 0 where a step is not
    finite: an underflowed draw). `stop_gradient` is the caller's, one StableHLO keeps."""
    import jax.numpy as jnp

    y0 = stop_gradient(sample if log_space else jnp.log(sample))
    p0 = _incomplete_gamma(a, jnp.exp(y0), y0)[0]
    u = stop_gradient(p0)

    def newton(y, p):
        slope = jnp.exp(a * y - jnp.exp(y) - _lgamma(a))  # dP(a, e^y)/dy
        return y - (p - u) / slope

    y1 = newton(y0, p0)
    y2 = newton(y1, _incomplete_gamma(a, jnp.exp(y1), y1)[0])
    solution = y2 if log_space else jnp.exp(y2)
    difference = solution - stop_gradient(solution)
    return stop_gradient(sample) + jnp.where(jnp.isfinite(difference), difference, 0)


WRITTEN_AS_CODE = {
    "erf_inv": _erf_inv,
    "lgamma": _lgamma,
    "digamma": _digamma,
    "igamma": _igamma,
    "igammac": _igammac,
    "igamma_grad_a": _igamma_grad_a,
}
"""The primitives written as JAX code here (`jax_export`'s `_REWRITTEN`), and that code."""
