"""Mutation fuzzing of gradir's parser and CLIs: seeds from the lit tests'
inputs, byte-level and token-level mutations, and the oracle every input must
satisfy.

The oracle: `autodiff-opt` exits 0 or 1; on 1 it prints one line on stderr and
nothing on stdout; it never shows a traceback or an "internal error"; it ends
within a time bound; and when it exits 0 its output parses and verifies.

Budgets: GRADIR_FUZZ_MUTATIONS (default 600), GRADIR_FUZZ_SEED (default 0),
GRADIR_FUZZ_TIMEOUT CPU seconds per input (default 20), GRADIR_FUZZ_RUN_MUTATIONS
for `autodiff-run` (default 6); see `scripts/fuzz`.
"""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import random
import re
import resource
import signal
import subprocess
import tempfile
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]

AUTODIFF_OPS = (
    "neg exp log sqrt rsqrt sin cos tanh sigmoid relu abs add sub mul div pow maximum "
    "minimum matmul transpose reshape broadcast_to sum_to_size sum mean max softmax "
    "log_softmax select grad vjp jvp grad_of autograd_add autograd_zero yield"
).split()

INTERESTING_TOKENS = (
    # types and element types, valid and not
    "tensor<f32>", "tensor<4xf32>", "tensor<2x3xf64>", "tensor<1x1xf16>", "tensor<0xf32>",
    "tensor<?x4xf32>", "tensor<*xf32>", "tensor<4xi1>", "tensor<4xi32>", "tensor<4xcomplex<f32>>",
    "memref<4xf32>", "vector<4xf32>", "f16", "bf16", "f32", "f64", "f8E4M3FN", "i1", "i64", "index",
    "tensor<2147483648xf32>", "tensor<99999999999x99999999999xf32>",
    # numbers
    "0", "-1", "1", "2", "5", "65536", "2147483648", "9223372036854775807",
    "-9223372036854775808", "99999999999999999999999", "1.5", "1e309", "nan", "0x7FC00000",
    # attributes and syntax
    "array<i64>", "array<i64: 0>", "array<i64: 1, 0>", "array<i64: -1>", "array<i64: 0, 0>",
    "array<i32: 0>", "dense<1.0>", "dense<[1.0, 2.0]>", "true", "false", "unit", "{}", "<{}>",
    "keepdim = true", "dims = array<i64: 5>", "dim = 7 : i64", "wrt = array<i64: 9>",
    "permutation = array<i64: 2, 2>", "callee = @nowhere", "loc(unknown)", "#loc", "^bb0:",
    "^bb1(%z: tensor<f32>):", "%0", "%0#1", "%g:2", "@loss", "@main", "\"autodiff.add\"",
    "func.func", "func.return", "func.call", "return", "builtin.module", "arith.constant",
    "autodiff.", "(", ")", "{", "}", "[", "]", "<", ">", ":", ",", "->", "=", "\"", "//",
    "\u00e9", "\u2028", "\x00",
)  # fmt: skip

TOKEN = re.compile(
    r'"[^"\n]*"|%[\w$.#:-]+|@[\w$.-]+|\^[\w]+|#[\w.$-]+|[A-Za-z_][\w.$]*(?:<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>)?'
    r"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|->|\s+|\S"
)


@dataclass(frozen=True)
class Seed:
    """One input a mutation starts from: a chunk of a lit test (cut at `// -----`)."""

    origin: str
    text: str


def seeds() -> list[Seed]:
    """Every chunk of every lit test input (and example), comments dropped."""
    files = sorted(ROOT.glob("lit_tests/**/*.mlir")) + sorted(ROOT.glob("examples/*.mlir"))
    found = []
    for path in files:
        if "Output" in path.parts:
            continue
        relative = path.relative_to(ROOT)
        for index, chunk in enumerate(re.split(r"(?m)^// -----\s*$", path.read_text())):
            code = "\n".join(
                line for line in chunk.splitlines() if not line.lstrip().startswith("//")
            ).strip()
            if code:
                found.append(Seed(f"{relative}#{index}", code + "\n"))
    return found


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


class Mutator:
    """Random byte- and token-level edits, drawn from one `random.Random`."""

    def __init__(self, rng: random.Random, corpus: list[Seed]):
        self.rng = rng
        vocabulary = {t for seed in corpus for t in tokens(seed.text) if not t.isspace()}
        self.dictionary = sorted(vocabulary) + list(INTERESTING_TOKENS) + [
            f"autodiff.{op}" for op in AUTODIFF_OPS
        ]

    def mutate(self, text: str) -> tuple[bytes, str]:
        """A mutated copy of `text` and a short description of the edits."""
        edits = self.rng.choice((1, 1, 2, 3))
        data, notes = text, []
        as_bytes: bytes | None = None
        for _ in range(edits):
            if as_bytes is None and self.rng.random() < 0.75:
                data, note = self.token_edit(data)
            else:
                as_bytes, note = self.byte_edit(as_bytes if as_bytes is not None else data.encode())
            notes.append(note)
        return (as_bytes if as_bytes is not None else data.encode()), "; ".join(notes)

    # -- token level -------------------------------------------------------------

    def token_edit(self, text: str) -> tuple[str, str]:
        pieces = tokens(text)
        significant = [i for i, t in enumerate(pieces) if not t.isspace()]
        if not significant:
            return text + self.rng.choice(self.dictionary), "append token"
        position = self.rng.choice(significant)
        kind = self.rng.choice(
            ("replace", "replace", "replace", "delete", "duplicate", "swap", "number", "line")
        )
        if kind == "replace":
            pieces[position] = self.rng.choice(self.dictionary)
        elif kind == "delete":
            pieces[position] = ""
        elif kind == "duplicate":
            pieces[position] *= self.rng.choice((2, 3, 50))
        elif kind == "swap":
            other = self.rng.choice(significant)
            pieces[position], pieces[other] = pieces[other], pieces[position]
        elif kind == "number":
            numbers = [i for i in significant if re.fullmatch(r"-?\d+", pieces[i])]
            if numbers:
                position = self.rng.choice(numbers)
            pieces[position] = str(self.rng.choice((0, 1, -1, 2, 3, 7, 2**31, 2**63, 2**64)))
        else:
            return self.line_edit(text)
        return "".join(pieces), f"token {kind} at #{position}"

    def line_edit(self, text: str) -> tuple[str, str]:
        lines = text.splitlines(keepends=True)
        index = self.rng.randrange(len(lines))
        kind = self.rng.choice(("delete", "duplicate", "swap"))
        if kind == "delete":
            del lines[index]
        elif kind == "duplicate":
            lines.insert(index, lines[index])
        else:
            other = self.rng.randrange(len(lines))
            lines[index], lines[other] = lines[other], lines[index]
        return "".join(lines), f"line {kind} {index + 1}"

    # -- byte level --------------------------------------------------------------

    def byte_edit(self, data: bytes) -> tuple[bytes, str]:
        if not data:
            return bytes([self.rng.randrange(256)]), "insert byte"
        position = self.rng.randrange(len(data))
        kind = self.rng.choice(("flip", "set", "insert", "delete", "duplicate", "truncate"))
        if kind == "flip":
            mutated = bytearray(data)
            mutated[position] ^= 1 << self.rng.randrange(8)
            data = bytes(mutated)
        elif kind == "set":
            value = self.rng.choice((0, 0xFF, 0x80, 0x22, 0x7B, 0x7D, self.rng.randrange(256)))
            data = data[:position] + bytes([value]) + data[position + 1:]
        elif kind == "insert":
            junk = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 8)))
            data = data[:position] + junk + data[position:]
        elif kind == "delete":
            data = data[:position] + data[position + self.rng.randint(1, 16):]
        elif kind == "duplicate":
            end = min(len(data), position + self.rng.randint(1, 64))
            data = data[:end] + data[position:end] + data[end:]
        else:
            data = data[:position]
        return data, f"byte {kind} at {position}"


# -- the oracle ------------------------------------------------------------------


class Hang(BaseException):
    """Raised by the alarm when one input runs past its time bound (a BaseException,
    so the CLI's catch-all cannot swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise `Hang` after `seconds` of CPU time (a loaded machine must not turn
    slowness into findings), or after ten times that of wall-clock time."""

    def expire(signum, frame):
        raise Hang()

    timers = ((signal.SIGVTALRM, signal.ITIMER_VIRTUAL, seconds),
              (signal.SIGALRM, signal.ITIMER_REAL, 10 * seconds))  # fmt: skip
    previous = [signal.signal(signum, expire) for signum, _, _ in timers]
    for _, timer, limit in timers:
        signal.setitimer(timer, limit)
    try:
        yield
    finally:
        for (signum, timer, _), handler in zip(timers, previous):
            signal.setitimer(timer, 0)
            signal.signal(signum, handler)


@dataclass
class Finding:
    """An input that broke the oracle."""

    problem: str
    options: tuple[str, ...]
    origin: str
    edits: str
    data: bytes
    stderr: str = ""

    def signature(self) -> str:
        """Findings with the same signature are the same bug (numbers and names blurred)."""
        first = (self.stderr.strip().splitlines() or [""])[-1]
        first = re.sub(r"[\w./-]*\.mlir:\d+:\d+", "FILE", first)
        return self.problem + " | " + re.sub(r"\d+", "N", first)[:160]

    def describe(self) -> str:
        text = self.data.decode("utf-8", errors="backslashreplace")
        return (
            f"{self.problem} with options {list(self.options)} (from {self.origin}; "
            f"{self.edits}):\n{self.stderr.strip()[-1500:]}\n--- input ---\n{text}"
        )


def run_limited(command: list[str], cpu_seconds: float) -> subprocess.CompletedProcess | None:
    """Run `command` with its CPU time bounded (wall-clock time at ten times that);
    None when it ran out of time."""

    def limit_cpu_time() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu_seconds), int(cpu_seconds) + 5))

    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=10 * cpu_seconds,
            preexec_fn=limit_cpu_time,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None
    if completed.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return None
    return completed


def run_opt_in_process(path: str, options: tuple[str, ...], seconds: float):
    """`autodiff-opt PATH OPTIONS` in this process: (status, stdout, stderr, hung)."""
    from gradir.tools.autodiff_opt import main

    stdout, stderr = io.StringIO(), io.StringIO()
    status, hung = None, False
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            with time_limit(seconds):
                status = main([path, *options])
        except Hang:
            hung = True
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
        except BaseException as error:  # escaped the CLI's handler: a bug
            import traceback

            traceback.print_exc(file=stderr)
            status = f"exception {type(error).__name__}"
    return status, stdout.getvalue(), stderr.getvalue(), hung


def output_problem(output: str, options: tuple[str, ...]) -> str | None:
    """Why a successful run's output is invalid, or None when it parses and verifies."""
    from gradir.errors import GradirError
    from gradir.source import make_context, parse_module
    from gradir.verify import verify_module

    chunks = re.split(r"(?m)^// -----\s*$", output) if "--split-input-file" in options else [output]
    for chunk in chunks:
        try:
            verify_module(parse_module(make_context(), chunk, "output.mlir"))
        except GradirError as error:
            return f"exit 0 but the output does not parse/verify: {error}"
        except Exception as error:
            return f"exit 0 and re-parsing the output crashed: {type(error).__name__}: {error}"
    return None


def check_opt(data: bytes, options: tuple[str, ...], seconds: float,
              origin: str = "", edits: str = "") -> Finding | None:  # fmt: skip
    """Run one input through `autodiff-opt` in-process; a `Finding` if the oracle fails."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "fuzzed.mlir")
        with open(path, "wb") as stream:
            stream.write(data)
        status, stdout, stderr, hung = run_opt_in_process(path, options, seconds)

    def finding(problem: str) -> Finding:
        return Finding(problem, options, origin, edits, data, stderr)

    if hung:
        return finding(f"no result within {seconds:.0f} s of CPU time")
    if "Traceback" in stderr or not isinstance(status, int):
        return finding("a Python traceback")
    if "internal error" in stderr:
        return finding("an internal error")
    if status == 0:
        problem = output_problem(stdout, options)
        return finding(problem) if problem else None
    if status != 1:
        return finding(f"exit status {status}")
    lines = stderr.strip().splitlines()
    if "--split-input-file" in options:
        # mlir-opt's convention: the chunks that worked on stdout, a line per chunk that did not.
        problem = output_problem(stdout, options) if stdout else None
        if problem:
            return finding(problem)
        if not lines:
            return finding("exit 1 without an error line")
    elif stdout:
        return finding("exit 1 with output on stdout")
    elif len(lines) != 1 or "error:" not in lines[0]:
        return finding(f"exit 1 with {len(lines)} stderr lines instead of one 'error:' line")
    for line in lines:
        if not re.match(r"\S*fuzzed\.mlir:\d+:\d+: error: ", line):
            return finding("an error without the input's file:line:col")
    return None
