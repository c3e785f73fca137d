"""`autodiff-opt`: xDSL's opt driver with the autodiff dialect, gradir's passes
and its named pipelines (`--pipeline`).

Every failure is one line `file:line:col: error: ...` on stderr with exit
status 1 and nothing on stdout (`--debug` shows the Python traceback).
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import re
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from gradir.compilation import keep_public_only
from gradir.errors import GradirError, PipelineError
from gradir.gpu_backend.nvptx_targets import DEFAULT_CHIP, DEFAULT_PTX_VERSION, checked_target
from gradir.autodiff_pass.ir_building import paused_garbage_collection
from gradir.instrumentation import apply_passes, stage
from gradir.tools.cli import OneLineArgumentParser, add_watching_flags, description, one_line_message, run_cli, watching
from gradir.pass_table import PASSES, gradir_passes
from gradir.pipelines import PIPELINES, get_pipeline, run_xdsl_passes, with_numerics_checks
from gradir.source import ensure_autodiff_dialect, parse_module
from gradir.printer import ModulePrinter
from gradir.verify import verify_after_pass, verify_each_from_environment, verify_module, verify_result


GPU_CHIP, GPU_FEATURES = DEFAULT_CHIP, f"+ptx{DEFAULT_PTX_VERSION}"
GPU_STAGES = ("bufferize", "map", "outline", "nvvm")
"""`gpu_backend.gpu_pipeline.STAGES`, spelled out so that `--help` does not load MLIR."""


def check_numerics_option(args: argparse.Namespace) -> None:
    """`--check-numerics` needs a pipeline that generates the derivatives, and runs only
    on the CPU: an error anywhere else, never silently ignored."""
    if not args.check_numerics:
        return
    if args.pipeline is None:
        raise PipelineError("--check-numerics only applies with --pipeline grad, linalg or cpu")
    if args.pipeline == "gpu":
        raise PipelineError(
            "--check-numerics only applies with --pipeline grad, linalg or cpu: the GPU pipeline "
            "does not check (check on the CPU, where the same program computes the same values)"
        )


def functions_option(args: argparse.Namespace) -> tuple[str, ...] | None:
    """`--functions f,g` as names; it needs a named pipeline (it applies after its xDSL passes)."""
    if args.functions is None:
        return None
    if args.pipeline is None:
        raise PipelineError("--functions only applies with --pipeline (it keeps public only the functions named)")
    names = tuple(name.strip() for name in args.functions.split(","))
    if not all(names):
        raise PipelineError(f"--functions expects comma-separated function names, got {args.functions!r}")
    return names


def settle_gpu_options(args: argparse.Namespace) -> None:
    """Check the GPU options, then fill in the defaults of those not given.

    A GPU option given where it does not apply is an error, never silently ignored: all of
    them need `--pipeline gpu`, and the ones about PTX need its last stage, `nvvm`."""
    given = [
        flag
        for flag, value in (
            ("--emit ptx", args.emit == "ptx"),
            ("--gpu-chip", args.gpu_chip is not None),
            ("--gpu-features", args.gpu_features is not None),
            ("--gpu-report", args.gpu_report),
            ("--gpu-stop-after", args.gpu_stop_after is not None),
        )
        if value
    ]
    if given and args.pipeline != "gpu":
        raise PipelineError(f"{given[0]} only applies with --pipeline gpu")
    stage = args.gpu_stop_after
    needing_ptx = [flag for flag in given if flag != "--gpu-stop-after"]
    if stage not in (None, "nvvm") and needing_ptx:
        raise PipelineError(
            f"{needing_ptx[0]} only applies to the nvvm stage, and --gpu-stop-after {stage} "
            "stops before it"
        )
    if args.print_op_generic and (args.emit == "ptx" or args.gpu_report):
        raise PipelineError(
            f"--print-op-generic only applies to MLIR output, not to {'--emit ptx' if args.emit == 'ptx' else '--gpu-report'}"
        )
    settle_library_output(args)
    args.emit = args.emit or "mlir"
    if args.pipeline == "gpu":
        args.gpu_chip, args.gpu_features = checked_target(
            GPU_CHIP if args.gpu_chip is None else args.gpu_chip, args.gpu_features
        )
    args.gpu_stop_after = stage or "nvvm"


def settle_library_output(args: argparse.Namespace) -> None:
    """`--emit shared-lib` needs the CPU or GPU pipeline (to its last stage) and a `-o FILE.so`
    to write (a library is not text for stdout); refused up front, before anything is compiled."""
    if args.emit != "shared-lib":
        return
    if args.pipeline not in ("cpu", "gpu"):
        raise PipelineError("--emit shared-lib only applies with --pipeline cpu or gpu")
    if args.gpu_report or args.gpu_stop_after not in (None, "nvvm"):
        flag = "--gpu-report" if args.gpu_report else f"--gpu-stop-after {args.gpu_stop_after}"
        raise PipelineError(f"--emit shared-lib writes a library: it does not apply with {flag}")
    if args.output_file is None:
        raise PipelineError("--emit shared-lib writes a library: give its path with -o FILE.so")
    if args.split_input_file:
        raise PipelineError("--emit shared-lib writes one library: it does not apply with --split-input-file")
    from gradir.cpu_backend.library_export import checked_library_path

    checked_library_path(args.output_file)


def parse_pass_list(available: dict, spec: str, callback) -> PassPipeline:
    """The `-p` pass list as a pipeline, or a one-line `PipelineError`.

    xDSL reports a malformed list (`'autodiff-reverse{checkpoint-every=2'`, `',,'`) with an
    `ArgSpecParseError`, which derives from `BaseException`, not `Exception`: caught here,
    where the list is parsed, and nowhere more broadly."""
    try:
        specs = tuple(parse_pipeline(spec))
    except ArgSpecParseError as error:
        raise PipelineError(f"-p {spec!r}: {_arg_spec_message(error)}") from None
    unknown = [pass_spec.name for pass_spec in specs if pass_spec.name not in available]
    if unknown:
        raise PipelineError(
            f"Unrecognized passes: {unknown} (see --help for the available passes)"
        )
    passes = []
    for pass_spec in specs:
        pass_class = available[pass_spec.name]()
        options = option_names(pass_class)
        for given in pass_spec.parameters:
            if given.replace("_", "-") not in options:
                raise PipelineError(
                    f"-p {pass_spec.name}: unknown option '{given}' "
                    f"({'options: ' + ', '.join(options) if options else 'it takes no options'})"
                )
        try:
            passes.append(pass_class.from_pass_spec(pass_spec))
        except (ValueError, TypeError) as error:  # a value of the wrong type
            raise PipelineError(f"-p {pass_spec.name}: {_option_message(pass_class, pass_spec, error)}") from error
    return PassPipeline(tuple(passes), callback)


def _option_message(pass_class: type[ModulePass], pass_spec, error: Exception) -> str:
    """`option checkpoint-every: expected int, got 1.5` for the first option that xDSL refuses
    alone (its own message names the type, not the option: "Incompatible types: given
    ('x',), expected <class 'int'>")."""
    for option, values in pass_spec.parameters.items():
        try:
            pass_class.from_pass_spec(type(pass_spec)(pass_spec.name, {option: values}))
        except (ValueError, TypeError) as alone:
            expected = re.search(r"expected <class '(\w+)'>", str(alone))
            given = ", ".join(str(value) for value in values) or "no value"
            wanted = f"expected {expected[1]}" if expected else " ".join(str(alone).split())
            return f"option {option.replace('_', '-')}: {wanted}, got {given}"
    return " ".join(str(error).split())


def option_names(pass_class: type[ModulePass]) -> list[str]:
    """A pass's options as written in a pass list (`checkpoint-every`): its dataclass fields,
    spelled with dashes."""
    return [field.name.replace("_", "-") for field in dataclasses.fields(pass_class) if field.name != "name"]


def _arg_spec_message(error: ArgSpecParseError) -> str:
    """`column N: message` from xDSL's multi-line rendering (header, `pass-pipeline:1:N`,
    the list, a caret line, the message)."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    column = next(
        (line.rsplit(":", 1)[1] for line in lines if line.startswith("pass-pipeline:")), None
    )
    message = lines[-1].strip() if len(lines) > 1 else "malformed pass list"
    return f"column {column}: {message}" if column else message


def gradir_version() -> str:
    try:
        return version("gradir")
    except PackageNotFoundError:
        return "unknown"


class AutodiffOptMain(xDSLOptMain):
    """The opt driver; `run_to_text` returns the output instead of printing it."""

    version_format = (
        f"autodiff-opt (gradir {gradir_version()}) built from xdsl version {{xdsl_version}}"
    )

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description=description(__doc__), args=args)

    def register_all_dialects(self):
        super().register_all_dialects()
        ensure_autodiff_dialect(self.ctx)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in gradir_passes().items():
            self.register_pass(name, factory)  # gradir's `cse` replaces xDSL's

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.error = OneLineArgumentParser.error.__get__(arg_parser)  # type: ignore[method-assign]
        arg_parser.add_argument(
            "--pipeline",
            metavar="NAME",
            help="run a named pipeline after any -p passes: "
            + "; ".join(f"{p.name}: {p.description}" for p in PIPELINES.values()),
        )
        arg_parser.add_argument(
            "--emit",
            choices=("mlir", "ptx", "shared-lib"),
            help="mlir (default): print the resulting MLIR; ptx: with --pipeline gpu, the kernels' "
            "PTX text; shared-lib: with --pipeline cpu or gpu and -o FILE.so, write the machine code "
            "as a shared library (for gpu: host code, kernels as cubin and PTX, a runtime over the "
            "CUDA driver), with FILE.h (C declarations) and FILE.json (the functions' signatures) "
            "beside it, for gradir.load or C",
        )
        arg_parser.add_argument(
            "--gpu-chip",
            help=f"with --pipeline gpu: target chip, sm_50 to sm_121f (default {GPU_CHIP})",
        )
        arg_parser.add_argument(
            "--gpu-features",
            help=f"with --pipeline gpu: PTX version, +ptxNN (default {GPU_FEATURES}, or the "
            "chip's minimum where higher)",
        )
        arg_parser.add_argument(
            "--gpu-report",
            action="store_true",
            help="with --pipeline gpu: print a per-kernel report instead of IR",
        )
        arg_parser.add_argument(
            "--gpu-stop-after",
            choices=GPU_STAGES,
            help="with --pipeline gpu: stop after this stage of the MLIR 22 GPU pipeline and "
            "print its MLIR (bufferize: memrefs; map: gpu.launch regions; outline: gpu.func "
            "kernels; nvvm, the default: PTX in gpu.binary)",
        )
        arg_parser.add_argument(
            "--functions",
            metavar="NAMES",
            help="with --pipeline: keep public only these functions (comma-separated; a name may "
            "be a derived function such as f_grad_0): every other one, the derivatives' helpers "
            "too, becomes private, so that --pipeline cpu or gpu compiles it only where it is "
            "inlined (much less code for a module of many functions); in --emit shared-lib, the "
            "library's only functions",
        )
        arg_parser.add_argument(
            "--check-numerics",
            action="store_true",
            help="with --pipeline grad, linalg or cpu: add autodiff-check-numerics after the "
            "derivative passes, so that the compiled program stops at the first op (forward or "
            "backward) whose result holds a NaN or Inf, with its location",
        )
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="list gradir's passes with their options and the named pipelines, one line each, and exit",
        )
        arg_parser.add_argument(
            "--list-all-passes",
            action="store_true",
            help="--list-passes, followed by every pass of xDSL's",
        )
        arg_parser.add_argument(
            "--verify-each",
            action="store_true",
            default=verify_each_from_environment(),
            help="verify the module after every pass, naming the pass that broke it (a "
            "debugging aid: by default the input and the final result are verified; "
            "GRADIR_VERIFY_EACH=1 sets it)",
        )
        arg_parser.add_argument(
            "--print-ir-before-all", "--mlir-print-ir-before-all", action="store_true",
            help="print the module on stderr before each pass (MLIR 22's passes too), "
            "headed '// -----// IR Dump Before NAME //----- //' as mlir-opt heads it",
        )  # fmt: skip
        arg_parser.add_argument(
            "--print-ir-after-all", "--mlir-print-ir-after-all", action="store_true",
            help="print the module on stderr after each pass (MLIR 22's passes too)",
        )  # fmt: skip
        add_watching_flags(arg_parser)  # its --timing sets xDSL's --time-passes
        _reword_xdsl_flags(arg_parser)
        arg_parser.add_argument(
            "--debug", action="store_true", help="show Python tracebacks on errors"
        )

    def setup_pipeline(self):
        self.pipeline = parse_pass_list(
            self.available_passes, self.args.passes, self._between_passes()
        )
        self.named_pipeline = (
            get_pipeline(self.args.pipeline) if self.args.pipeline else None
        )
        settle_gpu_options(self.args)
        check_numerics_option(self.args)
        self.functions = functions_option(self.args)

    def _between_passes(self):
        """What runs between two passes: the verifier with `--verify-each` (unless
        `--disable-verify`), otherwise nothing. Verifying after every pass cost more than
        the passes themselves on large programs (8 verifications, 11 of 17 s for a
        10k-op program), so by default only the input and the result are verified."""
        if self.args.verify_each and not self.args.disable_verify:
            return verify_after_pass
        return None

    # Parsing, verifying and printing run with the cyclic GC paused, as gradir's passes do
    # (`paused_garbage_collection`): they make long-lived IR or strings and no garbage
    # cycles, so collections, which traverse the growing IR again and again, only cost time.

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp:
        with stage("parse"), paused_garbage_collection():
            text = chunk.read().decode("utf-8", errors="replace")
            # Keep line numbers true to the whole file when --split-input-file cut it.
            return parse_module(self.ctx, "\n" * start_offset + text, self.get_input_name())

    def process_module(self, module: ModuleOp) -> str:
        """Verify, run -p passes and the named pipeline's xDSL passes, verify the result
        (each pass's with `--verify-each`); return the printed result."""
        with stage("verify"), paused_garbage_collection():
            verify_module(module)
        between = self._between_passes()
        apply_passes(self.ctx, module, self.pipeline.passes, between)
        pipeline = self.named_pipeline
        if pipeline is not None:
            passes = with_numerics_checks(pipeline.xdsl_passes) if self.args.check_numerics else pipeline.xdsl_passes
            run_xdsl_passes(self.ctx, module, passes, self.available_passes, between)
            if self.functions is not None:
                keep_public_only(module, self.functions, "--functions")
        ran_passes = self.pipeline.passes or (pipeline is not None and pipeline.xdsl_passes)
        if ran_passes and between is None and not self.args.disable_verify:
            with stage("verify"), paused_garbage_collection():
                verify_result(module, "--verify-each")
        if pipeline is None or pipeline.mlir_stage is None:
            return self.output_resulting_program(module)
        if self.args.emit == "shared-lib":
            return self.write_shared_library(module)
        return self.run_mlir_stage(module)

    def run_mlir_stage(self, module: ModuleOp) -> str:
        """The named pipeline's MLIR 22 stage (`cpu` or `gpu`), on its xDSL passes' result."""
        pipeline = self.named_pipeline
        assert pipeline is not None
        if pipeline.mlir_stage == "cpu":
            from gradir.cpu_backend.cpu_pipeline import lower_to_llvm
            from gradir.mlir_bridge import to_mlir_module

            lowered = lower_to_llvm(to_mlir_module(module))
            return lowered.operation.get_asm(print_generic_op_form=self.args.print_op_generic) + "\n"
        from gradir.gpu_backend.gpu_cli import render_gpu_output

        return render_gpu_output(
            module,
            chip=self.args.gpu_chip,
            features=self.args.gpu_features,
            emit=self.args.emit,
            report=self.args.gpu_report,
            stop_after=self.args.gpu_stop_after,
            generic=self.args.print_op_generic,
        )

    def write_shared_library(self, module: ModuleOp) -> str:
        """`--emit shared-lib`: what `gradir.export` writes, at `-o`; no text output."""
        from gradir.cpu_backend.cpu_runtime import CpuExecutable
        from gradir.cpu_backend.library_export import write_library_files
        from gradir.verify import (
            refuse_external_calls,
            refuse_recursion,
            refuse_unrunnable_ops,
            refuse_writes_to_read_only_memory,
        )

        with stage("verify"):
            for refuse in (refuse_recursion, refuse_external_calls, refuse_unrunnable_ops,
                           refuse_writes_to_read_only_memory):  # fmt: skip
                refuse(module)
        if self.named_pipeline.mlir_stage == "gpu":
            from gradir.gpu_backend.cuda_library_export import write_cuda_library
            from gradir.gpu_backend.cuda_program import CudaProgram

            program = CudaProgram(module, chip=self.args.gpu_chip, features=self.args.gpu_features)
            with stage("export"):
                write_cuda_library(program, self.args.output_file)
            return ""
        executable = CpuExecutable(module)
        with stage("export"):
            write_library_files(executable.library_contents(), self.args.output_file)
        return ""

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """The module as MLIR text, printed by gradir's `ModulePrinter` (xDSL's printer,
        each type printed once: 2.4x faster on large modules); other `-t` targets and
        `--syntax-highlight` by xDSL's."""
        if self.args.target != "mlir" or self.args.syntax_highlight:
            return super().output_resulting_program(prog)
        with stage("print"), paused_garbage_collection():
            stream = StringIO()
            printer = ModulePrinter(
                stream=stream,
                print_generic_format=self.args.print_op_generic,
                print_properties_as_attributes=self.args.print_no_properties,
                print_debuginfo=self.args.print_debuginfo,
            )
            printer.print_op(prog)
            printer.print_metadata(self.ctx.loaded_dialects)
            stream.write("\n\n")
            return stream.getvalue()

    def run_to_text(self) -> str:
        """The output of every chunk. With `--split-input-file`, as mlir-opt: a chunk that
        fails is left out of the output (or, with `--verify-diagnostics`, printed as its
        error) and the next one runs; the errors are kept in `self.chunk_errors`."""
        # Every input is MLIR text, whatever its file name ends with (as for mlir-opt).
        self.args.frontend = self.args.frontend or "mlir"
        if self.args.input_file == "-":
            self.args.input_file = None  # standard input, as for mlir-opt
        self.chunk_errors: list[GradirError] = []
        chunks, file_extension = self.prepare_input()
        outputs: list[str] = []
        for index, (chunk, offset) in enumerate(chunks):
            if index > 0:
                outputs.append("// -----\n")
            try:
                module = self.parse_chunk(chunk, file_extension, offset)
                outputs.append(self.process_module(module))
            except GradirError as error:
                if self.args.verify_diagnostics:
                    outputs.append(f"{error}\n")
                elif self.args.split_input_file:
                    self.chunk_errors.append(error)
                else:
                    raise
            finally:
                chunk.close()
        return "".join(outputs)

    def run(self) -> int:
        if self.args.list_passes or self.args.list_all_passes:
            sys.stdout.write(pass_listing(everything=self.args.list_all_passes))
            return 0
        with watching(self.args, "autodiff-opt"):
            text = self.run_to_text()
        if self.chunk_errors:
            # mlir-opt's convention for split files: the chunks that worked on stdout, one
            # line per chunk that did not on stderr, exit 1; no output file.
            if self.args.output_file is None:
                sys.stdout.write(text)
            for error in self.chunk_errors:
                sys.stderr.write(one_line_message(error) + "\n")
            return 1
        if self.args.emit == "shared-lib":
            return 0  # written by write_shared_library
        if self.args.output_file is None:
            sys.stdout.write(text)
        else:
            with open(self.args.output_file, "w") as stream:
                stream.write(text)
        return 0


def _reword_xdsl_flags(arg_parser: argparse.ArgumentParser) -> None:
    """Help for the xDSL driver's flags that gradir implements itself (xDSL's own
    implementation lives in the pipeline callback that gradir replaces with its verifier),
    and a `-p` help that lists gradir's passes, not xDSL's 130 (`--list-all-passes`)."""
    helps = {
        "--time-passes": "the same as --timing (xDSL's name)",
        "--print-between-passes": "the same as --print-ir-after-all (xDSL's name)",
        "--passes": "comma-separated passes to run before --pipeline, with options in braces "
        "(autodiff-reverse{checkpoint-every=2}); gradir's: "
        + ", ".join(entry.name for entry in PASSES)
        + "; and xDSL's (--list-all-passes lists every one)",
        "--target": "output format after -p passes (default mlir; the other xDSL targets are "
        "not used by gradir)",
    }
    for action in arg_parser._actions:
        for option in action.option_strings:
            if option in helps:
                action.help = helps[option]


def pass_listing(everything: bool = False) -> str:
    """`--list-passes`: gradir's passes (from the one pass table) with their options, the
    named pipelines, and with `everything` (`--list-all-passes`) xDSL's passes after them."""
    width = max(len(entry.name) for entry in PASSES)
    lines = ["gradir passes (-p NAME, options as -p 'NAME{option=value}'):"]
    for entry in PASSES:
        lines.append(f"  {entry.name:<{width}}  {entry.summary}")
        for field in dataclasses.fields(entry.load()):
            if field.name != "name":
                default = field.default if field.default is not dataclasses.MISSING else None
                shown = str(default).lower() if isinstance(default, bool) else default
                lines.append(f"  {'':<{width}}    {field.name.replace('_', '-')}: {field.type} (default {shown})")
    lines.append("named pipelines (--pipeline NAME):")
    width = max(len(name) for name in PIPELINES)
    lines += [f"  {name:<{width}}  {p.description}" for name, p in PIPELINES.items()]
    from xdsl.transforms import get_all_passes

    others = sorted(name for name in get_all_passes() if name not in {entry.name for entry in PASSES})
    if everything:
        lines.append("xDSL's passes (-p NAME; not used by gradir's pipelines):")
        lines += [f"  {name}" for name in others]
    else:
        lines.append(f"and {len(others)} passes of xDSL's: --list-all-passes")
    return "\n".join(lines) + "\n"


def run_keeping_attribute_checks(args: Sequence[str] | None) -> int:
    """Run the driver, then undo what xDSL's `--disable-verify` does to the whole process
    (it replaces `Attribute.__post_init__`, so attributes stop checking themselves, e.g.
    an integer's range): without this, one `main([... "--disable-verify"])` made every
    later parse in the process accept `arith.constant 2 : i1`."""
    checks = Attribute.__post_init__
    try:
        return AutodiffOptMain(args=args).run()
    finally:
        Attribute.__post_init__ = checks


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (`argv` None: the console script's, whose process ends next)."""
    status = run_cli(run_keeping_attribute_checks, argv)
    if argv is None:
        # The IR is garbage now, in reference cycles (ops and their results, blocks and
        # their ops), which the interpreter's last collection would traverse and free on
        # the way out: 0.6-0.8 of 5.6 s CPU for a 10k-op program. Frozen, it is left to the
        # operating system; atexit handlers still run. Not for callers in a longer-lived
        # process (tests, workers), which pass `argv`.
        gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(main())
