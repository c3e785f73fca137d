"""Hostile uses of the Python API, as data (see `contract.ApiCase`): every error is a
`GradirError` subclass with a one-line message, never a TypeError, AttributeError,
UnicodeDecodeError or OverflowError from inside, and never a silent conversion."""
from __future__ import annotations

import contextlib

import numpy as np

import gradir
from gradir.autodiff_pass.rules import registry
from gradir.errors import ArgumentError, DifferentiationError, PipelineError, RuleError, SourceError, TargetError

from .cases_run import HUGE_LOOP_CACHE, HUGE_TEMPORARY
from .contract import ApiCase
from .files import INDEXED, PRODUCT

X = np.ones(3)


def _gradcheck_values() -> list[ApiCase]:
    """Bad values for gradcheck's parameters: refused before anything is compiled."""
    bad = [
        ("modes-bogus", {"modes": ("bogus",)}, "gradcheck: modes: unknown 'bogus'"),
        ("modes-empty", {"modes": ()}, "gradcheck: modes must be a non-empty sequence"),
        ("modes-none", {"modes": None}, "gradcheck: modes must be a non-empty sequence"),
        ("modes-int", {"modes": (1,)}, "gradcheck: modes: unknown 1"),
        ("wrt-half", {"wrt": [0.5]}, "gradcheck: wrt entry must be an integer, got 0.5"),
        ("wrt-bool", {"wrt": [True]}, "gradcheck: wrt entry must be an integer, got True"),
        ("wrt-string", {"wrt": "0"}, "gradcheck: wrt must be a list of argument indices"),
        ("wrt-int", {"wrt": 0}, "gradcheck: wrt must be a list of argument indices"),
        ("wrt-none-entry", {"wrt": [None]}, "gradcheck: wrt entry must be an integer, got None"),
        ("wrt-numpy-float", {"wrt": np.array([0.0])}, "gradcheck: wrt entry must be an integer"),
        ("eps-zero", {"eps": 0}, "gradcheck: eps must be > 0, got 0.0"),
        ("eps-negative", {"eps": -1e-6}, "gradcheck: eps must be > 0"),
        ("eps-nan", {"eps": float("nan")}, "gradcheck: eps must be finite"),
        ("eps-string", {"eps": "1e-6"}, "gradcheck: eps must be a number"),
        ("eps-bool", {"eps": True}, "gradcheck: eps must be a number"),
        ("eps-complex", {"eps": 1j}, "gradcheck: eps must be a number"),
        ("atol-negative", {"atol": -1}, "gradcheck: atol must be >= 0"),
        ("rtol-inf", {"rtol": float("inf")}, "gradcheck: rtol must be finite"),
        ("seed-negative", {"seed": -1}, "gradcheck: seed must be >= 0"),
        ("seed-float", {"seed": 1.5}, "gradcheck: seed must be an integer"),
        ("checkpoint-string", {"checkpoint_every": "x"}, "checkpoint_every must be an integer"),
        ("checkpoint-negative", {"checkpoint_every": -2}, "checkpoint_every must be >= 0"),
    ]
    cases = [
        ApiCase(f"api-gradcheck-{name}", lambda tmp, kw=kw: gradir.gradcheck(PRODUCT, "f", **kw), ArgumentError, expect)
        for name, kw, expect in bad
    ]
    cases += [
        ApiCase("api-gradcheck-function-int", lambda tmp: gradir.gradcheck(PRODUCT, 3), ArgumentError,
                "gradcheck: function must be a function name"),
        ApiCase("api-gradcheck-no-function", lambda tmp: gradir.gradcheck(PRODUCT, "nope"), ArgumentError,
                "no function @nope in the module"),
        ApiCase("api-gradcheck-declaration", lambda tmp: gradir.gradcheck(
                    "func.func private @g(%x: tensor<2xf64>) -> tensor<f64>", "g"), ArgumentError,
                "@g is a declaration without a body: nothing to check"),
        ApiCase("api-gradcheck-wrt-out-of-range", lambda tmp: gradir.gradcheck(PRODUCT, "f", wrt=[5]), ArgumentError,
                "wrt index 5 does not name a float tensor"),
    ]  # fmt: skip
    return cases


def _gradcheck_inputs() -> list[ApiCase]:
    """Inputs are converted only when nothing is lost."""
    bad = [
        ("int-tensor-fraction", "g", [X, np.array([2.7, 1, 1])], "@g: input 1 holds non-integral values"),
        ("int-tensor-2-to-40", "g", [X, np.array([2**40, 1, 1])], "@g: input 1 holds values out of the range"),
        ("int-tensor-list-fraction", "g", [X, [2.7, 1, 1]], "@g: input 1 holds non-integral values"),
        ("int-scalar-fraction", "h", [X, 2.7], "h: argument 1 is 2.7, expected an integer (i32)"),
        ("int-scalar-2-to-40", "h", [X, 2**40], "h: argument 1 is 1099511627776, out of the range of i32"),
        ("int-scalar-2-to-70", "h", [X, 2**70], "out of the range of i32"),
        ("int-scalar-bool", "h", [X, True], "h: argument 1 is a bool, expected i32"),
        ("int-scalar-inf", "h", [X, float("inf")], "h: argument 1 is inf, expected an integer (i32)"),
        ("float-string", "h", ["abc", 1], "@h: input 0 has dtype <U3"),
        ("float-complex", "h", [X + 1j, 1], "@h: input 0 has dtype complex128"),
        ("float-ragged", "h", [[[1.0], [1.0, 2.0]], 1], "@h: input 0 is not an array"),
        ("float-object", "h", [object(), 1], "@h: input 0 has dtype object"),
        ("inputs-array", "h", np.ones((2, 3)), "inputs must be a list of arrays"),
        ("inputs-string", "h", "x.npy", "inputs must be a list of arrays"),
        ("inputs-count", "h", [X], "@h takes 2 arguments, 1 inputs given"),
        ("float-shape", "h", [np.ones(4), 1], "h: argument 0 has shape (4,), expected (3,)"),
    ]
    return [
        ApiCase(f"api-gradcheck-{name}", lambda tmp, f=f, i=i: gradir.gradcheck(INDEXED, f, i), ArgumentError, expect)
        for name, f, i, expect in bad
    ]


def _call_arguments() -> list[ApiCase]:
    """`.call` arguments: checked, never truncated (the CPU runtime's `checked_arguments`)."""

    def call(function, *arguments):
        return lambda tmp: getattr(gradir.compile(INDEXED), function)(*arguments)

    bad = [
        ("tensor-float-for-int", call("g", X, np.array([2.7, 1, 1])), "g: argument 1 has dtype float64, expected int32"),
        ("tensor-list", call("g", X, [1, 2, 3]), "g: argument 1 is a list, expected a numpy array"),
        ("scalar-fraction", call("h", X, 2.7), "h: argument 1 is 2.7, expected an integer (i32)"),
        ("scalar-2-to-40", call("h", X, 2**40), "h: argument 1 is 1099511627776, out of the range of i32"),
        ("scalar-2-to-70", call("h", X, 2**70), "out of the range of i32"),
        ("scalar-bool", call("h", X, True), "h: argument 1 is a bool, expected i32"),
        ("scalar-string", call("h", X, "3"), "h: argument 1 is a str, expected a scalar i32"),
        ("scalar-nan", call("h", X, float("nan")), "expected an integer (i32)"),
        ("count", call("h", X), "h: expected 2 arguments, got 1"),
        ("no-function", lambda tmp: gradir.compile(INDEXED).call("nope"), "no public function 'nope'"),
        ("name-none", lambda tmp: gradir.compile(INDEXED).call(None), "a function name is a str, got None"),
        ("name-int", lambda tmp: gradir.compile(INDEXED).call(3, X), "a function name is a str, got 3"),
        ("attribute", lambda tmp: gradir.compile(INDEXED).nope, "has no public function or attribute 'nope'"),
    ]
    return [ApiCase(f"api-call-{name}", f, ArgumentError, expect) for name, f, expect in bad]


def _invalid_utf8(tmp):
    (tmp / "u.mlir").write_bytes(PRODUCT.encode() + b"// \xff\xfe not UTF-8\n")
    return tmp / "u.mlir"


def _sources() -> list[ApiCase]:
    """What `compile`, `gradcheck` and `differentiate` take as a program."""
    cases = []
    for name, function in (
        ("compile", lambda s: gradir.compile(s)),
        ("gradcheck", lambda s: gradir.gradcheck(s, "f")),
        ("differentiate", lambda s: gradir.differentiate(s, "f")),
    ):
        cases += [
            ApiCase(f"api-{name}-source-int", lambda tmp, f=function: f(5), SourceError,
                    "expected .mlir text, a path or an xDSL ModuleOp, got int"),
            ApiCase(f"api-{name}-source-bytes", lambda tmp, f=function: f(PRODUCT.encode()), SourceError,
                    "got bytes"),
            ApiCase(f"api-{name}-source-none", lambda tmp, f=function: f(None), SourceError, "got NoneType"),
            ApiCase(f"api-{name}-missing-file", lambda tmp, f=function: f("nope.mlir"), SourceError,
                    "cannot read nope.mlir: No such file or directory"),
            ApiCase(f"api-{name}-directory", lambda tmp, f=function: f(tmp), SourceError, "Is a directory"),
            ApiCase(f"api-{name}-syntax-error", lambda tmp, f=function: f("func.func @f( {"), SourceError,
                    "<string>:1:15: error: Expected argument or type"),
        ]  # fmt: skip
    cases += [
        # Invalid UTF-8 is read as autodiff-opt reads it (replaced): the program still works,
        # and where the bad byte matters, it is a located SourceError, not UnicodeDecodeError.
        ApiCase("api-compile-invalid-utf8-in-code", lambda tmp: gradir.compile(_bad_code(tmp)), SourceError,
                "b.mlir:1:"),
        ApiCase("api-differentiate-wrt-half", lambda tmp: gradir.differentiate(PRODUCT, "f", wrt=[0.5]),
                ArgumentError, "differentiate: wrt entry must be an integer, got 0.5"),
        ApiCase("api-differentiate-wrt-out-of-range", lambda tmp: gradir.differentiate(PRODUCT, "f", wrt=[9]),
                DifferentiationError, "wrt index 9 does not name a float tensor"),
        ApiCase("api-differentiate-name-int", lambda tmp: gradir.differentiate(PRODUCT, 0),
                ArgumentError, "differentiate: name must be a function name"),
        ApiCase("api-differentiate-no-function", lambda tmp: gradir.differentiate(PRODUCT, "nope"),
                DifferentiationError, "no function @nope with a body"),
        ApiCase("api-compile-target-int", lambda tmp: gradir.compile(PRODUCT, target=5), PipelineError,
                "unknown target 5"),
        ApiCase("api-compile-target-gpus", lambda tmp: gradir.compile(PRODUCT, target="gpus"), PipelineError,
                "unknown target 'gpus' (valid targets: cpu, cuda)"),
        ApiCase("api-compile-unknown-option", lambda tmp: gradir.compile(PRODUCT, bogus=1), ArgumentError,
                "unknown option 'bogus' for target 'cpu'"),
        ApiCase("api-compile-functions-unknown", lambda tmp: gradir.compile(PRODUCT, functions=["g"]), ArgumentError,
                "functions: no function @g in the module (its public functions: @df, @f, @f_grad_0_1"),
        ApiCase("api-compile-functions-empty", lambda tmp: gradir.compile(PRODUCT, functions=[]), ArgumentError,
                "functions must be a function name or a non-empty sequence of them, got []"),
        ApiCase("api-compile-functions-int", lambda tmp: gradir.compile(PRODUCT, functions=[1]), ArgumentError,
                "functions must be a function name (a str), got 1"),
        ApiCase("api-export-functions-unknown",
                lambda tmp: gradir.export(PRODUCT, path=tmp / "libf.so", functions="g"), ArgumentError,
                "functions: no function @g in the module"),
        ApiCase("api-vmap-functions", lambda tmp: gradir.vmap(PRODUCT, "f", functions=["f"]), ArgumentError,
                "unknown option 'functions' for target 'cpu'"),
        ApiCase("api-compile-cpu-chip", lambda tmp: gradir.compile(PRODUCT, chip="sm_90"), ArgumentError,
                "unknown option 'chip' for target 'cpu'"),
        ApiCase("api-compile-opt-level", lambda tmp: gradir.compile(PRODUCT, opt_level=7), ArgumentError,
                "opt_level must be 0, 1, 2 or 3, got 7"),
        ApiCase("api-compile-checkpoint-float", lambda tmp: gradir.compile(PRODUCT, checkpoint_every=0.5),
                ArgumentError, "checkpoint_every must be an integer, got 0.5"),
        ApiCase("api-compile-check-numerics-str", lambda tmp: gradir.compile(PRODUCT, check_numerics="yes"),
                ArgumentError, "check_numerics must be True or False, got 'yes'"),
        ApiCase("api-cuda-check-numerics", lambda tmp: gradir.compile(PRODUCT, target="cuda", check_numerics=True),
                ArgumentError, "check_numerics is supported on the 'cpu' target only, not 'cuda'"),
        ApiCase("api-differentiate-allow-unused-int", lambda tmp: gradir.differentiate(PRODUCT, "f", allow_unused=1),
                ArgumentError, "allow_unused must be True or False, got 1"),
        ApiCase("api-differentiate-refuse-and-materialize",
                lambda tmp: gradir.differentiate(PRODUCT, "f", allow_unused=False, materialize_grads=True),
                ArgumentError, "allow_unused=False contradicts materialize_grads=True"),
        # Only compiled, never called: were the check gone, calling would crash this process.
        ApiCase("api-compile-640gb-temporary", lambda tmp: gradir.compile(HUGE_TEMPORARY), PipelineError,
                "cpu-memory: @f allocates a buffer memref<40000000000x4xf32> of 596 GiB"),
        ApiCase("api-compile-terabyte-loop-cache", lambda tmp: gradir.gradcheck(HUGE_LOOP_CACHE, "f"), PipelineError,
                # the vjp, inlined into gradcheck's wrapper (its own copy is not compiled)
                "cpu-memory: @__gradcheck_vjp_f allocates a buffer memref<1000000000x1000xf64>"),
        ApiCase("api-cuda-chip", lambda tmp: gradir.compile(PRODUCT, target="cuda", chip="sm_1000"), TargetError,
                "unknown GPU chip 'sm_1000'"),
        ApiCase("api-cuda-features", lambda tmp: gradir.compile(PRODUCT, target="cuda", features="+bogus"),
                TargetError, "unknown GPU feature '+bogus'"),
        ApiCase("api-cuda-ptx-too-old", lambda tmp: gradir.compile(PRODUCT, target="cuda", chip="sm_100",
                features="+ptx80"), TargetError, "sm_100 needs PTX version 8.6 or later"),
        ApiCase("api-cuda-opt-level", lambda tmp: gradir.compile(PRODUCT, target="cuda", opt_level=-1),
                ArgumentError, "opt_level must be 0, 1, 2 or 3"),
    ]  # fmt: skip
    return cases


def _bad_code(tmp):
    (tmp / "b.mlir").write_bytes(b"func.func @f\xff() {\n  return\n}\n")
    return tmp / "b.mlir"


def test_invalid_utf8_in_a_comment_is_accepted_like_the_cli(tmp_path):
    """Not a hostile case (it succeeds), but the other half of the contract above."""
    exe = gradir.compile(_invalid_utf8(tmp_path))
    assert exe.df(np.ones(4, np.float32), np.ones(4, np.float32))[0].shape == (4,)


# -- derivative rules registered from Python ------------------------------------------

RULE_PROGRAM = """\
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %y = "test.op"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @jf(%x: tensor<3xf32>, %t: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %y, %dy = autodiff.jvp @f(%x, %t) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  return %y, %dy : tensor<f32>, tensor<f32>
}
"""


@contextlib.contextmanager
def registered(register, rule, op_name: str = "test.op"):
    """`rule` registered for `op_name` only while the case runs."""
    saved = registry._rules
    registry._rules = dict(registry._all_rules())
    try:
        register(op_name, rule)
        yield
    finally:
        registry._rules = saved


def _raise(error: BaseException):
    def rule(builder, op, values):
        raise error

    return rule


def _rules() -> list[ApiCase]:
    """A registered rule that returns None, the wrong count, a non-value, or raises: a
    RuleError naming the rule and located at the op, the original exception chained."""
    bad = [
        ("none", lambda b, op, g: None, "returned None, expected a list of one"),
        ("count", lambda b, op, g: [g[0], g[0]], "returned 2 "),
        ("empty", lambda b, op, g: [], "returned 0 "),
        ("int", lambda b, op, g: [3], "returned an int as "),
        ("string", lambda b, op, g: "grad", "returned a str, expected a list"),
        ("op-itself", lambda b, op, g: op, "returned the op 'test.op' (return its results)"),
        ("list-of-op", lambda b, op, g: [op], "returned the op 'test.op' (return its results) as"),
        ("int-not-list", lambda b, op, g: 3, "returned an int, expected a list"),
        ("raises-value-error", _raise(ValueError("my bug")), "raised ValueError: my bug"),
        ("raises-key-error", _raise(KeyError("k")), "raised KeyError: 'k'"),
        ("raises-recursion", _raise(RecursionError("deep")), "raised RecursionError: deep"),
        ("raises-zero-division", _raise(ZeroDivisionError()), "raised ZeroDivisionError"),
        ("wrong-arity", lambda: None, "raised TypeError"),
    ]
    cases = []
    for direction, register, run in (
        ("vjp", gradir.register_vjp, lambda: gradir.differentiate(RULE_PROGRAM, "f")),
        ("jvp", gradir.register_jvp, lambda: gradir.compile(RULE_PROGRAM)),
    ):
        rule_kind = "reverse" if direction == "vjp" else "forward"
        for name, rule, expect in bad:
            def call(tmp, register=register, rule=rule, run=run):
                with registered(register, rule):
                    run()

            cases.append(ApiCase(f"api-rule-{direction}-{name}", call, RuleError,
                                 f"<string>:2:3: error: the {rule_kind} rule of 'test.op' ("))  # fmt: skip
            cases.append(ApiCase(f"api-rule-{direction}-{name}-says", call, RuleError, expect))
    cases += [
        ApiCase("api-register-bad-name", lambda tmp: gradir.register_vjp("op", lambda *a: a), RuleError,
                "'op' is not an op name of the form 'dialect.op'"),
        ApiCase("api-register-not-callable", lambda tmp: gradir.register_vjp("test.op", 3), RuleError,
                "the rule for 'test.op' is not callable"),
        ApiCase("api-register-saved-negative",
                lambda tmp: gradir.register_vjp("test.op", lambda *a: a, saved_inputs=[-1]), RuleError,
                "saved_inputs must be non-negative ints"),
        ApiCase("api-register-jvp-name-int", lambda tmp: gradir.register_jvp(3, lambda *a: a), RuleError,
                "3 is not an op name"),
    ]  # fmt: skip
    return cases


def test_a_rule_error_chains_the_original_exception():
    with registered(gradir.register_vjp, _raise(ValueError("my bug"))):
        try:
            gradir.differentiate(RULE_PROGRAM, "f")
        except RuleError as error:
            assert isinstance(error.__cause__, ValueError) and str(error.__cause__) == "my bug"
        else:
            raise AssertionError("no RuleError")


API_CASES: list[ApiCase] = [
    *_gradcheck_values(),
    *_gradcheck_inputs(),
    *_call_arguments(),
    *_sources(),
    *_rules(),
]
