"""`gradir.gradcheck`: reverse- and forward-mode derivatives against central
finite differences, in float64, through the real CPU pipeline.

The program is promoted to f64 first (a f32 program cannot be checked by
finite differences), then three functions are compiled together: the function
itself, a `autodiff.vjp` wrapper and a `autodiff.jvp` wrapper. Tolerances are
PyTorch's gradcheck defaults.

Arguments and results may be float scalars as well as float tensors: a scalar
in `wrt` is perturbed like a 1-element tensor, and its cotangent or tangent is
a scalar of the same type. Integer, `i1` and `index` arguments are never in
`wrt`; without `inputs` they get seeded random values in 0..3 (small loop
bounds, valid indices), booleans at random.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    Float64Type,
    IndexType,
    IntegerType,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.instrumentation import stage
from gradir.dialects.type_checks import FLOAT_ELEMENT_TYPES, is_differentiable_type, is_integer_valued
from gradir.api_arguments import (
    checked_choices,
    checked_flag,
    checked_indices,
    checked_integer,
    checked_name,
    checked_real,
)
from gradir.errors import ArgumentError, reports_internal_errors
from gradir.source import load_module, make_context
from gradir.verify import verify_module

DEFAULT_EPS = 1e-6
DEFAULT_ATOL = 1e-5
DEFAULT_RTOL = 1e-3
MAX_CHECKED_ENTRIES = 4096
"""Per wrt argument (the default of `max_entries`); larger arguments are checked on a random
sample of entries: two calls of the function per entry."""

_LOW_PRECISION_FLOAT = re.compile(r"(?<=[x<\s(,:])(?:f16|bf16|f32)\b")
_LOW_PRECISION_NAMES = ("f16", "bf16", "f32")


def promote_to_f64(module: ModuleOp) -> ModuleOp:
    """The same program with every f16/bf16/f32 type replaced by f64. Ops keep
    their source locations, so errors name the user's file; float casts that
    promotion makes identities (`arith.extf f16 -> f32` becomes f64 -> f64)
    are dropped."""
    text = _LOW_PRECISION_FLOAT.sub("f64", str(_with_f64_float_literals(module)))
    promoted = reparse_keeping_locations(text, module)
    _keep_bitcast_widths(promoted, module)
    for op in list(promoted.walk()):
        if isinstance(op, (arith.ExtFOp, arith.TruncFOp)) and op.input.type == op.result.type:
            op.result.replace_all_uses_with(op.input)
            op.detach()
            op.erase()
    return promoted


def _keep_bitcast_widths(promoted: ModuleOp, original: ModuleOp) -> None:
    """An `arith.bitcast` between integers and low-precision floats reinterprets bits of
    one width: promoted, `i32 to f32` would read `i32 to f64`, which is not an op
    (jax.random builds its floats so). Such a bitcast keeps its original float type, an
    `arith.extf` to f64 after it (or an `arith.truncf` from f64 before it) joining it to
    the promoted program. `promoted` is `original` reparsed: their walks align."""
    for new, old in zip(list(promoted.walk()), list(original.walk())):
        if not isinstance(new, arith.BitcastOp):
            continue
        if new.result.type != old.result.type:  # to a float that promotion widened
            added = [arith.BitcastOp(new.input, old.result.type)]
            added.append(arith.ExtFOp(added[0].result, new.result.type))
            Rewriter.replace_op(new, added)
        elif new.input.type != old.input.type:  # from a widened float
            added = [arith.TruncFOp(new.input, old.input.type)]
            Rewriter.insert_op(added[0], InsertPoint.before(new))
            new.operands[0] = added[0].result
        else:
            continue
        for op in added:
            op.location = old.location


def _with_f64_float_literals(module: ModuleOp) -> ModuleOp:
    """A copy of `module` whose low-precision float attributes (`arith.constant`
    values, dense or scalar) hold the same values as f64 attributes. Renaming
    the type in the text is not enough: a non-finite float prints as its bits
    (`0xff800000 : f32` is -inf), which read as an f64 are a tiny denormal."""
    module = module.clone()
    for op in module.walk():
        for attributes in (op.properties, op.attributes):
            for name, attribute in list(attributes.items()):
                promoted = _f64_literal(attribute)
                if promoted is not None:
                    attributes[name] = promoted
    return module


def _f64_literal(attribute: Attribute) -> Attribute | None:
    if isinstance(attribute, FloatAttr) and str(attribute.type) in _LOW_PRECISION_NAMES:
        return FloatAttr(attribute.value.data, Float64Type())
    if isinstance(attribute, DenseIntOrFPElementsAttr) and str(attribute.get_element_type()) in _LOW_PRECISION_NAMES:
        container = attribute.get_type()
        promoted_type = type(container)(Float64Type(), container.get_shape())
        return DenseIntOrFPElementsAttr.from_list(promoted_type, list(attribute.get_values()))
    return None


def reparse_keeping_locations(text: str, original: ModuleOp) -> ModuleOp:
    """Parse `text`, a rewrite of `original` that keeps its ops in the same
    order (possibly followed by more), and give each op the location of its
    original, so that errors name the user's file and line."""
    module = load_module(text, make_context())
    for new, old in zip(module.walk(), original.walk()):
        new.location = old.location
    return module


@dataclass
class EntryCheck:
    """One compared quantity: a gradient of one argument or a tangent of one result."""

    mode: str
    """`vjp` (reverse mode) or `jvp` (forward mode)."""
    what: str
    max_abs_error: float
    worst_index: tuple[int, ...]
    analytic: float
    numeric: float
    checked_entries: int
    ok: bool
    vacuous: bool = False
    """Analytic and numeric values all within `vacuity_bound` of zero: the comparison
    proves nothing (a saturated tanh, a dead relu, an argument that does not matter).
    Not `ok` unless the check was asked to allow it."""

    def describe(self) -> str:
        if self.vacuous:
            status = "vacuous (allowed)" if self.ok else "VACUOUS"
        else:
            status = "ok" if self.ok else "MISMATCH"
        text = (
            f"{self.mode} {self.what}: {status}, max abs error {self.max_abs_error:.3g} "
            f"at index {list(self.worst_index)} (analytic {self.analytic:.10g}, "
            f"numeric {self.numeric:.10g}; {self.checked_entries} entries)"
        )
        if self.vacuous and not self.ok:
            text += (
                "; every analytic and numeric value is near zero, so this check proves nothing: "
                "give inputs that exercise the function, or allow vacuous checks"
            )
        return text


@dataclass
class GradcheckResult:
    function: str
    wrt: tuple[int, ...]
    checks: list[EntryCheck] = field(default_factory=list)
    inputs: str = "given"
    """Where the inputs came from: `given`, or which random distribution."""

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    def __bool__(self) -> bool:
        return self.ok

    @property
    def worst(self) -> EntryCheck | None:
        """The check with the largest error relative to its tolerance."""
        return max(self.checks, key=lambda c: (not c.ok, c.max_abs_error), default=None)

    def report(self) -> str:
        lines = [check.describe() for check in self.checks]
        if self.inputs != "given":
            lines.insert(0, f"inputs: {self.inputs}")
        verdict = "passed" if self.ok else "FAILED"
        lines.append(f"gradcheck of @{self.function} (wrt {list(self.wrt)}): {verdict}")
        return "\n".join(lines)


def _signature_text(types) -> str:
    return ", ".join(str(t) for t in types)


def wrapper_names(function: str) -> tuple[str, str]:
    """The symbol names of `function`'s vjp and jvp wrappers."""
    return f"__gradcheck_vjp_{function}", f"__gradcheck_jvp_{function}"


def _wrapper_functions(function: FuncOp, wrt: Sequence[int]) -> str:
    """Text of the `wrapper_names` functions calling the entry ops on `function`; symbol
    names are printed quoted where MLIR needs it (`@"my loss"`, `@"__gradcheck_vjp_my loss"`).

    Each cotangent has its result's type and each tangent its argument's, scalars included
    (the cotangent of an `f64` result is an `f64`)."""
    inputs = list(function.function_type.inputs.data)
    outputs = list(function.function_type.outputs.data)
    wrt_types = [inputs[i] for i in wrt]
    wrt_attr = "array<i64: " + ", ".join(str(i) for i in wrt) + ">"
    callee = str(SymbolRefAttr(function.sym_name.data))  # quoted where MLIR needs it
    names = {
        kind: str(SymbolRefAttr(name))
        for kind, name in zip(("vjp", "jvp"), wrapper_names(function.sym_name.data))
    }

    def wrapper(kind: str, extra: list, results: list) -> str:
        params = [f"%a{i}: {t}" for i, t in enumerate(inputs)]
        params += [f"%e{i}: {t}" for i, t in enumerate(extra)]
        operands = [f"%a{i}" for i in range(len(inputs))] + [f"%e{i}" for i in range(len(extra))]
        names_ = [f"%r{i}" for i in range(len(results))]
        return (
            f"func.func {names[kind]}({', '.join(params)}) -> ({_signature_text(results)}) {{\n"
            f"  {', '.join(names_)} = autodiff.{kind} {callee}({', '.join(operands)}) "
            f"{{wrt = {wrt_attr}}} : ({_signature_text(inputs + extra)}) -> ({_signature_text(results)})\n"
            f"  func.return {', '.join(names_)} : {_signature_text(results)}\n"
            "}\n"
        )

    return wrapper("vjp", outputs, outputs + wrt_types) + wrapper(
        "jvp", wrt_types, outputs + outputs
    )


def is_float_value(type_: Attribute) -> bool:
    """A float tensor (of static or dynamic shape) or a float scalar (f16/bf16/f32/f64):
    what gradcheck differentiates."""
    return is_differentiable_type(type_)


SMALL_INTEGERS = (0, 4)
"""Random integer and index inputs are drawn from [0, 4): small loop bounds, valid indices."""

DYNAMIC_SIZE = 3
"""The size of every dynamic dimension (`tensor<?x4xf64>`) of a drawn input: one size for all,
so that dimensions the program needs equal are (pass inputs for others)."""


def _integer_dtype(element: Attribute) -> np.dtype:
    if isinstance(element, IndexType):
        return np.dtype(np.int64)
    if isinstance(element, IntegerType) and element.width.data in (8, 16, 32, 64):
        return np.dtype(f"int{element.width.data}")
    raise ArgumentError(f"gradcheck cannot make random inputs of type {element}; pass inputs")


SIGNED_INPUTS = "standard normal / sqrt(fan-in)"
POSITIVE_INPUTS = "uniform [0.25, 1.25) / sqrt(fan-in), the function not being finite at signed inputs"


def fan_in(shape: tuple[int, ...]) -> int:
    """PyTorch's fan-in of a weight of `shape`: dimension 1 times the rest (1 below rank 2)."""
    return max(1, int(np.prod(shape[1:]))) if len(shape) >= 2 else 1


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, positive: bool = False) -> np.ndarray:
    """One random input of `shape` and `dtype`, drawn as `random_inputs` draws it."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        values = rng.uniform(0.25, 1.25, size=shape) if positive else rng.standard_normal(size=shape)
        return np.asarray(values / np.sqrt(fan_in(shape)), dtype=dtype)
    if dtype.kind == "b":
        return np.asarray(rng.integers(0, 2, size=shape), dtype=np.bool_)
    return np.asarray(rng.integers(*SMALL_INTEGERS, size=shape), dtype=dtype)


def random_inputs(function: FuncOp, seed: int = 0, positive: bool = False) -> list[np.ndarray]:
    """One array per argument (0-d for a scalar). Floats as f64: standard normal divided by
    the square root of the argument's `fan_in`, so that sums over a row stay near 1 and
    nothing saturates (inputs in [0.25, 1.25) made every tanh of an MLP's first layer 1
    and its gradients 0); with `positive`, uniform in [0.25, 1.25) scaled alike (for log,
    sqrt, pow). Random booleans for i1, integers in `SMALL_INTEGERS` for the other
    integer types and index. A dynamic dimension is `DYNAMIC_SIZE` long."""
    rng = np.random.default_rng(seed)
    arrays = []
    for type_ in function.function_type.inputs.data:
        if isinstance(type_, TensorType):
            shape = tuple(DYNAMIC_SIZE if size == DYNAMIC_INDEX else size for size in type_.get_shape())
            element = type_.element_type
        else:
            shape, element = (), type_
        if isinstance(element, FLOAT_ELEMENT_TYPES):
            dtype = np.dtype(np.float64)
        elif isinstance(element, IntegerType) and element.width.data == 1:
            dtype = np.dtype(np.bool_)
        else:
            dtype = _integer_dtype(element)
        arrays.append(random_array(rng, shape, dtype, positive))
    return arrays


def _finite(values) -> bool:
    return all(np.all(np.isfinite(np.asarray(value, dtype=np.float64))) for value in values if np.asarray(value).dtype.kind == "f")


def _checked_input(function: str, index: int, value: object, type_: Attribute) -> np.ndarray:
    """A given input as gradcheck uses it: float values as float64, an integer tensor's
    values as its dtype, converted only when nothing is lost (`2.7` or `2**40` in an
    `i32` tensor is an ArgumentError, never 2 or an OverflowError); an integer scalar as
    given, for `.call` to check."""
    if not isinstance(type_, TensorType) and not is_float_value(type_):
        return value  # an integer scalar: `.call` checks it (`checked_scalar`)
    where = f"@{function}: input {index}"
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        raise ArgumentError(f"{where} is not an array ({' '.join(str(error).split())})") from None
    if array.dtype.kind not in "biuf":
        raise ArgumentError(f"{where} has dtype {array.dtype}, expected numbers for {type_}")
    if is_float_value(type_):
        return array.astype(np.float64)
    element = type_.element_type if isinstance(type_, TensorType) else type_
    if isinstance(element, IntegerType) and element.width.data == 1:
        if array.dtype.kind != "b":
            raise ArgumentError(f"{where} has dtype {array.dtype}, expected booleans for {type_}")
        return array
    target = _integer_dtype(element)
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
            raise ArgumentError(f"{where} holds non-integral values, expected integers for {type_}")
    if array.dtype.kind == "b":
        raise ArgumentError(f"{where} holds booleans, expected integers for {type_}")
    limits = np.iinfo(target)
    if array.size and (array.min() < limits.min or array.max() > limits.max):
        raise ArgumentError(
            f"{where} holds values out of the range of {type_} [{limits.min}, {limits.max}]"
        )
    return array.astype(target)


def vacuity_bound(atol: float) -> float:
    """Values at most this far from zero do not count as a derivative: ten times `atol`."""
    return 10 * atol


def _compare(
    mode: str, what: str, analytic: np.ndarray, numeric: np.ndarray, indices, atol, rtol,
    allow_vacuous: bool = False,
) -> EntryCheck:  # fmt: skip
    analytic = np.asarray(analytic, dtype=np.float64)
    numeric = np.asarray(numeric, dtype=np.float64)
    error = np.abs(analytic - numeric)
    excess = error - (atol + rtol * np.abs(numeric))
    if error.size == 0:
        return EntryCheck(mode, what, 0.0, (), 0.0, 0.0, 0, allow_vacuous, vacuous=True)
    bound = vacuity_bound(atol)
    vacuous = bool(np.all(np.abs(analytic) <= bound) and np.all(np.abs(numeric) <= bound))
    flat = int(np.argmax(excess)) if np.any(excess > 0) else int(np.argmax(error))
    worst = indices[flat] if indices is not None else np.unravel_index(flat, error.shape)
    return EntryCheck(
        mode,
        what,
        float(error.max()),
        tuple(int(i) for i in worst),
        float(analytic.reshape(-1)[flat]),
        float(numeric.reshape(-1)[flat]),
        int(error.size),
        bool(np.all(excess <= 0) and np.all(np.isfinite(analytic)) and (allow_vacuous or not vacuous)),
        vacuous,
    )


def checked_wrt(function: FuncOp, wrt: Sequence[int] | None) -> tuple[int, ...]:
    """The arguments of `function` to differentiate (default: every float tensor and float
    scalar), or an ArgumentError when one is not a float value or a result is neither a
    float nor an integer value (integer results are checked to have zero tangents)."""
    name = function.sym_name.data
    input_types = list(function.function_type.inputs.data)
    if wrt is None:
        wrt = [i for i, t in enumerate(input_types) if is_float_value(t)]
    wrt = tuple(int(i) for i in wrt)
    for index in wrt:
        if not 0 <= index < len(input_types) or not is_float_value(input_types[index]):
            raise ArgumentError(
                f"wrt index {index} does not name a float tensor or float scalar argument of @{name}"
            )
    if any(not (is_float_value(t) or is_integer_valued(t)) for t in function.function_type.outputs.data):
        raise ArgumentError(
            f"@{name} must return only float and integer tensors and scalars to be gradchecked"
        )
    return wrt


class GradChecker:
    """Compiles the f64-promoted program once, with vjp/jvp wrappers for each
    `(function, wrt)` to check, so many functions share one compilation."""

    def __init__(
        self,
        source,
        functions: Sequence[tuple[str, Sequence[int] | None]],
        checkpoint_every: int = 0,
        opt_level: int | None = None,
    ):
        """`opt_level`: LLVM's, as `gradir.compile` takes it (default 2): -O0 compiles a large
        program several times faster (LeNet-5's gradcheck module: 2.2 s of code generation
        instead of 9.2), for a checker whose numbers matter more than its speed."""
        from gradir.compilation import _compile_cpu, checked_options

        _, checkpoint_every = checked_options("cpu", checkpoint_every, {})

        with stage("parse"):
            original = load_module(source)
        with stage("verify"):
            verify_module(original)  # before promotion reprints it: errors name the user's file
        with stage("promote to f64"):
            module = promote_to_f64(original)
        by_name = {op.sym_name.data: op for op in module.ops if isinstance(op, FuncOp)}
        self.callees: dict[str, FuncOp] = {}
        self.wrt: dict[str, tuple[int, ...]] = {}
        wrappers = []
        for function, wrt in functions:
            if function not in by_name:
                raise ArgumentError(f"no function @{function} in the module")
            callee = by_name[function]
            if not callee.body.blocks:
                raise ArgumentError(f"@{function} is a declaration without a body: nothing to check")
            wrt = checked_wrt(callee, wrt)
            self.callees[function] = callee
            self.wrt[function] = wrt
            wrappers.append(_wrapper_functions(callee, wrt))
        # The wrappers parsed alone and appended: printing and re-parsing the whole program
        # for them was a tenth of a corpus program's gradcheck compile.
        for wrapper in list(load_module("".join(wrappers), make_context()).ops):
            wrapper.detach()
            module.body.block.add_op(wrapper)
        self.executable = _compile_cpu(
            module,
            checkpoint_every=checkpoint_every, check_numerics=False,
            options={} if opt_level is None else {"opt_level": opt_level},
            functions=tuple(name for function in self.callees for name in (function, *wrapper_names(function))),
        )

    def check(
        self,
        function: str,
        inputs: Sequence[np.ndarray] | None = None,
        *,
        eps: float = DEFAULT_EPS,
        atol: float = DEFAULT_ATOL,
        rtol: float = DEFAULT_RTOL,
        seed: int = 0,
        modes: Sequence[str] = ("vjp", "jvp"),
        allow_vacuous: bool = False,
        max_entries: int = MAX_CHECKED_ENTRIES,
    ) -> GradcheckResult:
        exe = self.executable
        if function not in self.callees:
            raise ArgumentError(f"@{function} was not given to this GradChecker")
        options = _checked_options(eps, atol, rtol, seed, modes, allow_vacuous, max_entries)
        eps, atol, rtol, seed, modes, allow_vacuous, max_entries = (
            options[k] for k in ("eps", "atol", "rtol", "seed", "modes", "allow_vacuous", "max_entries")
        )
        callee, wrt = self.callees[function], self.wrt[function]
        input_types = list(callee.function_type.inputs.data)
        source = "given"
        if inputs is None:
            arguments, source = random_inputs(callee, seed), SIGNED_INPUTS
            outputs = exe.call(function, *arguments)
            if not _finite(outputs):
                arguments, source = random_inputs(callee, seed, positive=True), POSITIVE_INPUTS
                outputs = exe.call(function, *arguments)
        else:
            if isinstance(inputs, (str, bytes, np.ndarray)) or not isinstance(inputs, Sequence):
                raise ArgumentError(
                    f"inputs must be a list of arrays, one per argument of @{function}, "
                    f"got {type(inputs).__name__}"
                )
            if len(inputs) != len(input_types):
                raise ArgumentError(
                    f"@{function} takes {len(input_types)} arguments, {len(inputs)} inputs given"
                )
            arguments = [
                _checked_input(function, index, a, t)
                for index, (a, t) in enumerate(zip(inputs, input_types))
            ]
            outputs = exe.call(function, *arguments)
        rng = np.random.default_rng(seed + 1)
        result = GradcheckResult(function, wrt, inputs=source)
        tolerances = (atol, rtol, allow_vacuous)
        if "vjp" in modes:
            result.checks += self._check_vjp(function, arguments, outputs, rng, eps, tolerances, max_entries)
        if "jvp" in modes:
            result.checks += self._check_jvp(function, arguments, outputs, rng, eps, tolerances)
        return result

    def _check_vjp(self, function, arguments, outputs, rng, eps, tolerances, max_entries) -> list[EntryCheck]:
        exe, wrt = self.executable, self.wrt[function]
        # An integer result's cotangent is drawn too: the vjp must ignore it.
        cotangents = [
            rng.standard_normal(np.shape(o)) if _is_float(o) else rng.integers(-9, 9, np.shape(o)).astype(np.asarray(o).dtype)
            for o in outputs
        ]
        gradients = exe.call(wrapper_names(function)[0], *arguments, *cotangents)[len(outputs):]

        def objective(args) -> float:
            values = exe.call(function, *args)
            return float(sum(np.sum(c * v) for c, v in zip(cotangents, values) if _is_float(v)))

        checks = []
        for position, index in enumerate(wrt):
            base = arguments[index]
            entries = list(np.ndindex(base.shape))
            if len(entries) > max_entries:
                picks = rng.choice(len(entries), max_entries, replace=False)
                entries = [entries[p] for p in sorted(picks)]
            numeric = np.empty(len(entries))
            shifted = list(arguments)
            for k, entry in enumerate(entries):
                step = relative_step(eps, base[entry])
                shifted[index] = base.copy()
                shifted[index][entry] = base[entry] + step
                plus = objective(shifted)
                shifted[index][entry] = base[entry] - step
                minus = objective(shifted)
                numeric[k] = (plus - minus) / (2 * step)
            analytic = np.array([gradients[position][e] for e in entries])
            what = f"gradient of argument {index}"
            checks.append(_compare("vjp", what, analytic, numeric, entries, *tolerances))
        return checks

    def _check_jvp(self, function, arguments, outputs, rng, eps, tolerances) -> list[EntryCheck]:
        exe, wrt = self.executable, self.wrt[function]
        tangents = [rng.standard_normal(arguments[i].shape) for i in wrt]
        analytic = exe.call(wrapper_names(function)[1], *arguments, *tangents)[len(outputs):]
        step = relative_step(eps, max((np.max(np.abs(arguments[i]), initial=0.0) for i in wrt), default=0.0))

        def shifted_by(sign: float):
            args = list(arguments)
            for index, tangent in zip(wrt, tangents):
                args[index] = arguments[index] + sign * step * tangent
            return exe.call(function, *args)

        plus, minus = shifted_by(1.0), shifted_by(-1.0)
        checks = []
        for k, (p, m) in enumerate(zip(plus, minus)):
            if _is_float(p):
                checks.append(_compare("jvp", f"tangent of result {k}", analytic[k], (p - m) / (2 * step), None, *tolerances))
            elif np.any(analytic[k] != 0):  # an integer result's tangent must be zero
                zero = np.zeros(np.shape(p))
                checks.append(_compare("jvp", f"tangent of integer result {k}", analytic[k], zero, None, *tolerances))
        return checks


def _is_float(value) -> bool:
    return np.issubdtype(np.asarray(value).dtype, np.floating)


def relative_step(eps: float, value: float) -> float:
    """The finite-difference step at `value`: `eps` relative to its magnitude (absolute
    below 1). A fixed step vanishes next to large values: at 1e12 an f64 step of 1e-6 is
    below half an ulp, `x + eps == x`, and the difference quotient was 0."""
    return eps * max(1.0, abs(float(value)))


@reports_internal_errors
def gradcheck(
    source,
    function: str,
    inputs: Sequence[np.ndarray] | None = None,
    wrt: Sequence[int] | None = None,
    *,
    eps: float = DEFAULT_EPS,
    atol: float = DEFAULT_ATOL,
    rtol: float = DEFAULT_RTOL,
    seed: int = 0,
    modes: Sequence[str] = ("vjp", "jvp"),
    checkpoint_every: int = 0,
    allow_vacuous: bool = False,
    max_entries: int = MAX_CHECKED_ENTRIES,
) -> GradcheckResult:
    """Check reverse mode (`vjp`) and forward mode (`jvp`) of `function` against
    central finite differences in float64; see `GradcheckResult.report()`.

    Without `inputs`, floats are drawn from a standard normal scaled by each argument's
    fan-in (or, where the function is not finite there, positive ones). A gradient or
    tangent that is near zero everywhere, analytic and numeric, fails the check as
    vacuous unless `allow_vacuous`. The step is `eps` relative to each input's magnitude.
    `checkpoint_every` is passed to `autodiff-reverse` (loops). The vjp's finite differences
    take two calls per entry of an argument: `max_entries` (4096) entries of each, a random
    sample of larger ones (the jvp's take two calls in all). Bad values (`eps=0`,
    `modes=("bogus",)`, `wrt=[0.5]`) are an `ArgumentError` before anything is compiled."""
    function = checked_name("gradcheck: function", function)
    wrt = checked_indices("gradcheck: wrt", wrt)
    options = _checked_options(eps, atol, rtol, seed, modes, allow_vacuous, max_entries)
    checker = GradChecker(source, [(function, wrt)], checkpoint_every)
    with stage("finite differences"):
        return checker.check(function, inputs, **options)


def _checked_options(eps, atol, rtol, seed, modes, allow_vacuous, max_entries) -> dict:
    return dict(
        eps=checked_real("gradcheck: eps", eps, positive=True),
        atol=checked_real("gradcheck: atol", atol, non_negative=True),
        rtol=checked_real("gradcheck: rtol", rtol, non_negative=True),
        seed=checked_integer("gradcheck: seed", seed, minimum=0),
        modes=checked_choices("gradcheck: modes", modes, ("vjp", "jvp")),
        allow_vacuous=checked_flag("gradcheck: allow_vacuous", allow_vacuous),
        max_entries=checked_integer("gradcheck: max_entries", max_entries, minimum=1),
    )
