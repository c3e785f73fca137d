"""How much work the front end does, counted, never timed: locations from the line table
(xDSL's newline-counting `Span.get_location` never runs while parsing), each repeated type
parsed by xDSL once, each repeated op signature verified once, the fast lexer's tokens
identical to xDSL's, the printer's text identical to xDSL's, and verification between
passes only with `--verify-each`, while a pass that breaks the IR is still reported
without it (bench/pass_scaling.py has the times)."""
from __future__ import annotations

import dataclasses
import glob
import re
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import Float32Type, ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

import gradir.verify as verify
from gradir.errors import SourceError
from gradir.pipelines import GRAD_PASSES
from gradir.printer import ModulePrinter, module_text
from gradir.source import LinearTimeLexer, LocatingParser, make_context, parse_module
from gradir.tools import autodiff_opt

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from pass_scaling import generate  # noqa: E402  (the benchmark's own DAG)

SOURCES = sorted(glob.glob(str(ROOT / "lit_tests/**/*.mlir"), recursive=True)) + sorted(
    glob.glob(str(ROOT / "examples/**/*.mlir"), recursive=True)
)


def count_calls(monkeypatch, owner, name) -> list[int]:
    """Count the calls of `owner.name` from now on (the count is `[n]`)."""
    calls = [0]
    original = getattr(owner, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


# ---- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("forward_ops", [200, 2000])
def test_parsing_never_counts_newlines_from_the_start(monkeypatch, forward_ops):
    """Every op gets its location from the line table, once; xDSL's `get_location` (which
    counts the newlines before the position, so that stamping every op was quadratic) is
    never called."""
    from gradir.source import LineTable

    counted = count_calls(monkeypatch, Span, "get_location")
    located = count_calls(monkeypatch, LineTable, "location")
    module = parse_module(make_context(), generate(forward_ops), "dag.mlir")
    ops = sum(1 for _ in module.walk()) - 1  # the implicit module has no text of its own
    assert counted[0] == 0
    assert located[0] == ops
    assert str(module.ops.first.location) == 'loc("dag.mlir":1:1)'


def test_each_repeated_type_is_parsed_by_xdsl_once(monkeypatch):
    """xDSL's type parser runs once per distinct spelling of a plain shaped type, whatever
    the program's length: 100 ops or 2000 ops, the same count."""
    from xdsl.parser.attribute_parser import AttrParser

    counts = []
    for forward_ops in (100, 2000):
        with monkeypatch.context() as patch:
            parsed = count_calls(patch, AttrParser, "_parse_optional_builtin_parametrized_type")
            parse_module(make_context(), generate(forward_ops), "dag.mlir")
        counts.append(parsed[0])
    assert counts[0] == counts[1] == 2  # tensor<16xf32> and tensor<f32>


def test_a_type_read_from_the_table_leaves_the_parser_where_xdsl_would():
    """After a remembered type the next token is the one after the type's text, and an
    almost-simple spelling (an encoding, a dialect element type) is still xDSL's to read."""
    text = (
        "func.func @f(%a: tensor<2x?xf32>, %b: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<4xi1>) {\n"
        "  %c = autodiff.add %a, %b : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>\n"
        '  %z = "test.op"() : () -> tensor<4xi1, "enc">\n'
        '  %y = "test.op"() : () -> tensor<4xi1>\n'
        "  return %c, %y : tensor<2x?xf32>, tensor<4xi1>\n}\n"
    )
    ctx = make_context()
    ctx.allow_unregistered = True
    parser = LocatingParser(ctx, text, "t.mlir")
    module = parser.parse_module()
    assert set(parser.known_types) == {"tensor<2x?xf32>", "tensor<4xi1>"}
    assert str(module) == str(parse_module(ctx, text, "t.mlir"))
    encoded = list(module.walk())[3].results[0].type
    assert str(encoded) == 'tensor<4xi1, "enc">'


def test_the_fast_lexer_reads_every_source_as_xdsl_does():
    """Token by token (kind and span) over every lit test and example."""

    class XdslLexer(LinearTimeLexer):
        def lex(self):
            return MLIRLexer.lex(self)

    tokens = 0
    for path in SOURCES:
        text = Path(path).read_text(errors="replace")
        fast, reference = LinearTimeLexer(Input(text, path)), XdslLexer(Input(text, path))
        while True:
            try:
                token = fast.lex()
            except ParseError as error:
                with pytest.raises(ParseError, match=re.escape(error.msg)):
                    reference.lex()
                break
            expected = reference.lex()
            assert (token.kind, token.span.start, token.span.end) == (
                expected.kind, expected.span.start, expected.span.end,
            ), path  # fmt: skip
            assert fast.pos == reference.pos
            tokens += 1
            if token.kind is MLIRTokenKind.EOF:
                break
    assert len(SOURCES) > 50 and tokens > 20_000


# ---- verification ----------------------------------------------------------------------------


def chain(length: int, broken_at: int | None = None) -> str:
    """A function of `length` identical `autodiff.add`s; the one at `broken_at` adds
    tensors of two shapes."""
    lines = ["func.func @f(%a: tensor<4xf32>, %w: tensor<5xf32>) -> tensor<4xf32> {"]
    previous = "%a"
    for index in range(length):
        if index == broken_at:
            lines.append(f"  %v{index} = autodiff.add {previous}, %w : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>")
        else:
            lines.append(f"  %v{index} = autodiff.add {previous}, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>")
        previous = f"%v{index}"
    lines.append(f"  return {previous} : tensor<4xf32>\n}}")
    return "\n".join(lines)


@pytest.mark.parametrize("length", [10, 1000])
def test_ops_of_one_signature_are_verified_once(length):
    module = parse_module(make_context(), chain(length), "chain.mlir")
    before = verify.ops_verified
    verify.verify_module(module)
    # module, func, the first add, and return (the last op of its block: a signature of its
    # own, being a terminator; func.return is not autodiff's: verified every time)
    assert verify.ops_verified - before == 4


def test_an_op_unlike_those_verified_before_is_still_verified():
    module = parse_module(make_context(), chain(300, broken_at=250), "chain.mlir")
    with pytest.raises(SourceError, match=r"^chain.mlir:252:3: error: 'autodiff.add' op "):
        verify.verify_module(module)


def test_an_op_changed_after_verification_is_verified_again():
    """The remembered signatures live for one call: a type changed in place is seen."""
    module = parse_module(make_context(), chain(20), "chain.mlir")
    verify.verify_module(module)
    add = list(module.walk())[12]
    add.results[0]._type = TensorType(Float32Type(), [3])  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(SourceError, match=r"^chain.mlir:12:3: error: 'autodiff.add' op "):
        verify.verify_module(module)


def test_remembered_verifiers_read_nothing_but_their_op():
    """`verify_module` verifies an autodiff op once per signature (types, properties,
    attributes, parent op class): its `verify_` must not look at other ops (defining ops
    of its operands, uses, symbols). Ops with regions or symbol uses are exempt: they are
    verified every time."""
    import inspect

    from gradir.dialects.autodiff import Autodiff

    reads_others = re.compile(r"\.owner\b|\.uses\b|parent|lookup|SymbolTable|next_op|prev_op|walk\(")
    checked = 0
    for op_class in Autodiff.operations:
        if not verify._context_free(op_class) or op_class.get_irdl_definition().regions:
            continue
        for klass in op_class.__mro__:
            method = klass.__dict__.get("verify_")
            if method is None or klass.__module__.startswith("xdsl."):
                continue
            source = inspect.getsource(method)
            assert not reads_others.search(source), f"{op_class.name}: {klass.__name__}.verify_"
            checked += 1
    assert checked >= 10


# ---- printing --------------------------------------------------------------------------------


def test_the_module_printer_prints_what_xdsls_prints():
    ctx = make_context()
    printed = 0
    for path in SOURCES:
        try:
            module = parse_module(ctx, Path(path).read_text(errors="replace"), path)
        except SourceError:
            continue  # an invalid-input test
        for options in ({}, {"print_generic_format": True}):
            expected = []
            printer = Printer(**options)
            from io import StringIO

            stream = StringIO()
            dataclasses.replace(printer, stream=stream).print_op(module)
            expected = stream.getvalue()
            assert module_text(module, **options) == expected, path
        printed += 1
    assert printed > 40


def test_each_type_is_printed_by_xdsl_once(monkeypatch):
    module = parse_module(make_context(), generate(500), "dag.mlir")
    printed = count_calls(monkeypatch, TensorType, "print_builtin")
    from io import StringIO

    ModulePrinter(stream=StringIO()).print_op(module)
    assert printed[0] == 2  # tensor<16xf32>, tensor<f32>


# ---- autodiff-opt: verification around passes ------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BreakTypesPass(ModulePass):
    """Gives the first `autodiff.add` a result type its operands do not have: invalid IR,
    as a buggy pass would make it."""

    name = "break-types"

    def apply(self, ctx, op: ModuleOp) -> None:
        add = next(inner for inner in op.walk() if inner.name == "autodiff.add")
        add.results[0]._type = TensorType(Float32Type(), [3])  # pyright: ignore[reportPrivateUsage]


@pytest.fixture
def with_broken_pass(monkeypatch):
    passes = autodiff_opt.gradir_passes()
    monkeypatch.setattr(autodiff_opt, "gradir_passes", lambda: {**passes, "break-types": lambda: BreakTypesPass})


def run_opt(capsys, *args: str) -> tuple[int, str, str]:
    status = autodiff_opt.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


BROKEN = "chain.mlir:2:3: error: after {} 'autodiff.add' op "


def test_a_broken_pass_is_reported_after_the_passes(tmp_path, capsys, with_broken_pass):
    source = tmp_path / "chain.mlir"
    source.write_text(chain(5))
    status, out, err = run_opt(capsys, str(source), "-p", "break-types,cse,dce")
    assert (status, out) == (1, "")
    assert err.startswith(
        str(tmp_path / BROKEN.format("the passes (--verify-each names the pass that broke it):"))
    ), err


def test_verify_each_names_the_pass_that_broke_it(tmp_path, capsys, with_broken_pass):
    source = tmp_path / "chain.mlir"
    source.write_text(chain(5))
    status, out, err = run_opt(capsys, str(source), "-p", "cse,break-types,dce", "--verify-each")
    assert (status, out) == (1, "")
    assert err.startswith(str(tmp_path / BROKEN.format("pass 'break-types':"))), err


def test_disable_verify_prints_what_the_passes_made(tmp_path, capsys, with_broken_pass):
    source = tmp_path / "chain.mlir"
    source.write_text(chain(5))
    status, out, err = run_opt(capsys, str(source), "-p", "break-types", "--disable-verify")
    assert (status, err) == (0, "")
    assert "-> tensor<3xf32>" in out


@pytest.mark.parametrize(
    "flags, runs",
    [((), 2), (("--verify-each",), 1 + len(GRAD_PASSES)), (("--disable-verify",), 1),
     (("--disable-verify", "--verify-each"), 1)],
)  # fmt: skip
def test_how_often_the_grad_pipeline_verifies(tmp_path, capsys, flags, runs):
    """The input and the result by default; the input and after each of the grad
    pipeline's passes with --verify-each; the input only with --disable-verify."""
    source = tmp_path / "dag.mlir"
    source.write_text(generate(30))
    before = verify.ops_verified
    status, out, err = run_opt(capsys, str(source), "--pipeline", "grad", "--timing", *flags)
    assert status == 0 and "autodiff.grad_of" in out
    shown = re.search(r"\)  verify(?: \((\d+) runs\))?$", err, re.MULTILINE)
    assert shown is not None, err
    assert int(shown[1] or 1) == runs
    assert verify.ops_verified > before


def test_verify_each_from_the_environment(tmp_path, capsys, monkeypatch, with_broken_pass):
    monkeypatch.setenv("GRADIR_VERIFY_EACH", "1")
    source = tmp_path / "chain.mlir"
    source.write_text(chain(5))
    status, _, err = run_opt(capsys, str(source), "-p", "cse,break-types,dce")
    assert status == 1 and "after pass 'break-types':" in err, err


@pytest.mark.parametrize("each, context", [(None, "after the passes (GRADIR_VERIFY_EACH=1 names the pass that broke it)"),
                                           ("1", "after pass 'break-types'")])  # fmt: skip
def test_the_api_reports_a_broken_pass(monkeypatch, each, context):
    """`gradir.compile`'s passes (`lower_to_linalg`): a pass's invalid output is a located
    `SourceError` after the passes, or at the pass with GRADIR_VERIFY_EACH=1; the later
    passes lowered the broken op to a `linalg.generic` that xDSL's verifier refuses."""
    from gradir import compilation

    if each is None:
        monkeypatch.delenv("GRADIR_VERIFY_EACH", raising=False)
    else:
        monkeypatch.setenv("GRADIR_VERIFY_EACH", each)
    passes = compilation.available_passes()
    monkeypatch.setattr(
        compilation, "available_passes", lambda: {**passes, "autodiff-specialize-zero": lambda: BreakTypesPass}
    )
    with pytest.raises(SourceError, match="^" + re.escape(f"<string>:2:3: error: {context}: '")):
        compilation.lower_to_linalg(chain(5))


def test_compile_reports_a_broken_pass_as_lower_to_linalg_does(monkeypatch):
    """`gradir.compile` leaves its passes' result for MLIR's parser to verify
    (`runnable_linalg`); when MLIR refuses it, xDSL's verifier names the op the pass broke,
    as `lower_to_linalg` does."""
    from gradir import compilation

    monkeypatch.delenv("GRADIR_VERIFY_EACH", raising=False)
    monkeypatch.setenv("GRADIR_CACHE", "0")
    passes = compilation.available_passes()
    monkeypatch.setattr(
        compilation, "available_passes", lambda: {**passes, "autodiff-specialize-zero": lambda: BreakTypesPass}
    )
    context = "after the passes (GRADIR_VERIFY_EACH=1 names the pass that broke it)"
    with pytest.raises(SourceError, match="^" + re.escape(f"<string>:2:3: error: {context}: '")):
        compilation.compile(chain(5))


def test_compile_verifies_only_its_input_with_xdsl(monkeypatch):
    """Without a broken pass, `gradir.compile` verifies with xDSL what it was given and
    nothing more: MLIR's parser verifies what the passes made."""
    from gradir import compilation
    from gradir.source import load_module

    monkeypatch.setenv("GRADIR_CACHE", "0")
    monkeypatch.delenv("GRADIR_VERIFY_EACH", raising=False)
    before = verify.ops_verified
    verify.verify_module(load_module(chain(6)))
    input_ops = verify.ops_verified - before
    before = verify.ops_verified
    compilation.compile(chain(6))
    assert verify.ops_verified - before == input_ops


def test_only_the_console_script_leaves_its_garbage_to_the_operating_system(tmp_path, capsys, monkeypatch):
    """`main()` (the console script, about to exit) freezes the IR's garbage instead of
    having the interpreter collect it on the way out; `main(argv)` (tests, workers that
    live on) does not."""
    import gc

    source = tmp_path / "dag.mlir"
    source.write_text(generate(20))
    frozen = [0]  # counted, not done: freezing would keep the test process's garbage

    def freeze() -> None:
        frozen[0] += 1

    monkeypatch.setattr(gc, "freeze", freeze)
    assert autodiff_opt.main([str(source), "--pipeline", "grad"]) == 0
    assert frozen[0] == 0
    monkeypatch.setattr(sys, "argv", ["autodiff-opt", str(source), "--pipeline", "grad"])
    assert autodiff_opt.main() == 0
    assert frozen[0] == 1
    assert "autodiff.grad_of" in capsys.readouterr().out


def test_disable_verify_leaves_later_parses_checking_attributes(tmp_path, capsys):
    """xDSL's --disable-verify switches off every attribute's own checks for the whole
    process; autodiff-opt switches them back on when it returns."""
    source = tmp_path / "chain.mlir"
    source.write_text(chain(5))
    assert run_opt(capsys, str(source), "--disable-verify")[0] == 0
    with pytest.raises(SourceError, match="out of range for type i1"):
        parse_module(make_context(), "func.func @f() -> i1 {\n  %c = arith.constant 2 : i1\n  return %c : i1\n}\n", "p.mlir")
