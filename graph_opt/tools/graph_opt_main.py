"""`graph-opt`: xDSL's optimizer driver with graph-opt's dialects, passes and ONNX in/out."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import gc
import io
import os
import sys
import time
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

import graph_opt
from graph_opt.driver import verify_numerics
from graph_opt.driver.diagnostics import (
    one_line,
    one_line_usage_errors,
    raise_recursion_limit,
)
from graph_opt.driver.pipeline import PipelineError, build_pipeline
from graph_opt.formats.dispatch import OUTPUT_FORMATS
from graph_opt.formats.mlir.resources import DEFAULT_MIN_BYTES
from graph_opt.remarks import print_warnings_as_one_line
from graph_opt.tools.frontends import apply_limits, byte_size
from graph_opt.tools.pass_docs import describe_passes, describe_patterns
from graph_opt.xdsl_compat import apply_workarounds

OUTPUT_SUFFIX_TARGETS = {
    **{f".{ext}": kind for ext, kind in OUTPUT_FORMATS.items()},
    ".dot": "dot",
    ".svg": "svg",
}
"""The target `-o FILE` implies by FILE's suffix when `-t` is not given: the
formats `graph_opt.api.save` writes, and pictures."""

GRAPH_OPT_TARGETS = ("mlir", "onnx", "graphdef", "dot", "svg", "tflite")
"""The output formats offered (xDSL's other targets print no graph)."""

LISTED_XDSL_PASSES = {
    "canonicalize": "Apply the canonicalization patterns of every op (xDSL).",
    "cse": "Eliminate common subexpressions (xDSL).",
    "dce": "Remove ops whose results are unused and that have no side effects (xDSL).",
}
"""xDSL passes shown by --help and --list-passes beside graph-opt's own (all of xDSL's run with -p)."""


class _DefaultTarget(str):
    """`-t`'s default, told apart from an explicit `-t mlir`."""


VERIFIED_FRONTENDS = {"onnx"}
"""Input formats whose frontend verifies the module it returns (more cheaply than
`module.verify()`, see `import_model`), so that it is not verified again."""


class GraphOptMain(xDSLOptMain):
    """xDSLOptMain with graph-opt registered; adds --pass, --list-passes and `-t onnx`."""

    version_format = f"graph-opt {graph_opt.__version__} (xDSL {{xdsl_version}})"

    _input_verified = False
    """Whether the frontend verified the module being processed (see VERIFIED_FRONTENDS)."""

    def __init__(self, *args, **kwargs):
        apply_workarounds()  # graph-opt's xDSL workarounds, for this process only
        super().__init__(*args, **kwargs)

    def register_all_dialects(self):
        from xdsl.universe import Universe

        from graph_opt.universe import GRAPH_OPT_UNIVERSE, XDSL_DIALECT_OVERRIDES

        for name, factory in Universe.get_multiverse().all_dialects.items():
            self.ctx.register_dialect(name, XDSL_DIALECT_OVERRIDES.get(name, factory))

        for name, factory in GRAPH_OPT_UNIVERSE.all_dialects.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        super().register_all_passes()
        from graph_opt.passes import XDSL_PASS_OVERRIDES, get_all_passes

        for name, factory in {**XDSL_PASS_OVERRIDES, **get_all_passes()}.items():
            self.register_pass(name, factory)
        self._register_extensions()

    def _register_extensions(self) -> None:
        """Passes and dialects registered through `graph_opt.api` (by plugins or
        by the embedding process)."""
        from graph_opt import api

        self.available_passes.update(api.registered_passes())
        for name, factory in api.registered_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self):
        super().register_all_frontends()
        from graph_opt.tools.frontends import register_frontends

        register_frontends(self)

    def register_all_targets(self):
        super().register_all_targets()
        from graph_opt.tools.dot_export import write_dot, write_svg

        self.available_targets["mlir"] = _fast_mlir_target
        self.available_targets["onnx"] = _onnx_target_placeholder
        self.available_targets["graphdef"] = _write_graph_def_text
        self.available_targets["dot"] = write_dot
        self.available_targets["svg"] = write_svg
        self.available_targets["tflite"] = _onnx_target_placeholder
        self.available_targets = {
            name: self.available_targets[name] for name in GRAPH_OPT_TARGETS
        }

    def offered_passes(self) -> list[str]:
        """graph-opt's passes, the xDSL ones that apply to its graphs and the
        registered out-of-tree ones."""
        from graph_opt import api
        from graph_opt.passes import get_all_passes

        # by name: calling every factory would import all of xDSL's passes (seconds)
        offered = {*LISTED_XDSL_PASSES, *get_all_passes(), *api.registered_passes()}
        return sorted(name for name in self.available_passes if name in offered)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        one_line_usage_errors(arg_parser, "graph-opt")
        super().register_all_arguments(arg_parser)
        # Replace xDSL's -p (append) and -t (default told apart, graph-opt's targets).
        arg_parser._optionals.conflict_handler = "resolve"
        arg_parser.add_argument(
            "-p",
            "--passes",
            action="append",
            default=[],
            metavar="PIPELINE",
            help="Passes to run, e.g. 'fold-bn,calibrate{inputs=\"s.npz\"}' "
            "(repeatable: appended in order). Passes: "
            + ", ".join(self.offered_passes()),
        )
        arg_parser.add_argument(
            "-t",
            "--target",
            default=_DefaultTarget("mlir"),
            type=self._target,
            help="Output format: "
            + ", ".join(self.available_targets)
            + " (default: from -o's suffix, else mlir)",
        )
        arg_parser._optionals.conflict_handler = "error"
        arg_parser.add_argument(
            "--pass",
            dest="passes",
            action="append",
            metavar="NAME",
            help="Run a pass (same as -p; repeatable, in the order given)",
        )
        arg_parser.add_argument(
            "--quiet",
            action="store_true",
            help="No progress bars (shown on stderr for long work when it is a terminal)",
        )
        arg_parser.add_argument(
            "--elide-weights",
            nargs="?",
            const=16,
            type=int,
            metavar="N",
            help="Print constants of more than N elements (default 16) as "
            "dense_resource<__elided__>, as MLIR's --mlir-elide-elementsattrs-if-larger; "
            "for reading only (the text no longer holds the weights)",
        )
        arg_parser.add_argument(
            "--weights-as-resources",
            nargs="?",
            const=DEFAULT_MIN_BYTES,
            type=int,
            metavar="MIN_BYTES",
            help="Print dense constants of at least MIN_BYTES bytes (default "
            f"{DEFAULT_MIN_BYTES}) as dense_resource<...> with their bytes in a "
            "{-# dialect_resources #-} section, upstream MLIR's form for large "
            "constants; graph-opt and MLIR read it back",
        )
        arg_parser.add_argument(
            "--onnx-contrib-ops",
            action="store_true",
            help="With -t onnx, write fused ops as onnxruntime's com.microsoft contrib "
            "ops where one computes them exactly (FusedConv, FusedGemm, BiasGelu, "
            "FastGelu, Gelu, QuickGelu, Attention); the model then runs on onnxruntime only",
        )
        arg_parser.add_argument(
            "--tflite-input-stats",
            action="append",
            metavar="MEAN,STD",
            help="With -t tflite, an integer input's real value (q - MEAN) / STD, "
            "as tflite_convert's --mean_values/--std_dev_values (repeatable: one "
            "per input, in order)",
        )
        arg_parser.add_argument(
            "--external-data",
            nargs="?",
            const="",
            metavar="FILE",
            help="With -t onnx, write the weights to the file FILE beside the output "
            "(default: the output's name + .data) even when the model would fit in "
            "one protobuf; past 2 GiB they always go there",
        )
        arg_parser.add_argument(
            "--external-data-threshold",
            type=byte_size,
            default=1024,
            metavar="BYTES",
            help="Weights of fewer bytes stay in the ONNX model when the others go to "
            "external data (default 1024; those under 4096 always stay)",
        )
        arg_parser.add_argument(
            "--emit-before",
            metavar="FILE",
            help="Also write the graph as it is before the passes (.dot, .svg or "
            ".mlir, by suffix): with -o after.svg, a before/after pair in one command",
        )
        arg_parser.add_argument(
            "--pass-statistics",
            action="store_true",
            help="Print on stderr, after each pass, the rewrites each pattern made, "
            "the ops before and after by kind, and what the pass reported",
        )
        arg_parser.add_argument(
            "--cluster",
            type=_cluster,
            metavar="FILE",
            help="The devices the graph runs on (JSON or TOML: memory, bandwidth, "
            "preferred layout): per-device budgets for the memory passes, and the "
            "ops convert-layout converts",
        )
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="List the available passes with their summaries and options",
        )
        arg_parser.add_argument(
            "--explain-pattern",
            metavar="NAME",
            help="Print to stderr why a registered pattern does (not) match each candidate op",
        )
        from graph_opt import plugins
        from graph_opt.driver import reproducer
        from graph_opt.tools.frontends import register_frontend_arguments

        register_frontend_arguments(arg_parser)
        plugins.register_arguments(arg_parser)
        verify_numerics.register_arguments(arg_parser)
        reproducer.register_arguments(arg_parser)

    def _target(self, text: str) -> str:
        """-t's value, refused with the targets offered when it names none."""
        name = text.split("{", 1)[0]
        if name not in self.available_targets and not isinstance(text, _DefaultTarget):
            hint = "; TOSA is MLIR: -p lower-to-tosa -t mlir" if name == "tosa" else ""
            raise argparse.ArgumentTypeError(
                f"invalid choice: '{name}' (choose from "
                f"{', '.join(self.available_targets)}{hint})"
            )
        return text

    def setup_pipeline(self):
        if self.args.load_pass_plugin:
            from graph_opt.plugins import load_plugins

            load_plugins(self.args.load_pass_plugin)
            self._register_extensions()
        if self.args.load_patterns:
            from graph_opt.patterns.registry import load_patterns

            for spec in self.args.load_patterns:
                load_patterns(spec)
        if isinstance(self.args.target, _DefaultTarget) and self.args.output_file:
            suffix = os.path.splitext(self.args.output_file)[1].lower()
            self.args.target = OUTPUT_SUFFIX_TARGETS.get(suffix, self.args.target)
        self._numeric_check = verify_numerics.check_from_args(self.args)
        spec = ",".join(p for p in self.args.passes if p)
        self.pass_times: list[tuple[str, float]] = []
        self._stage_times: dict[str, float] = {}
        self.pipeline = build_pipeline(
            spec, self.available_passes, self.offered_passes(), self._between_passes
        )

    def _between_passes(self, previous, module: ModuleOp, next_pass) -> None:
        """xDSL's callback, with timings kept for a table and prints on stderr."""
        now = time.perf_counter()
        if previous is not None:
            self.pass_times.append((previous.name, now - self._pass_started))
            for stage, seconds in self._stage_times.items():  # optimize's stages
                self.pass_times.append((f"{previous.name}: {stage}", seconds))
            self._stage_times.clear()
        if not self.args.disable_verify:
            module.verify()
        if self.args.pass_statistics:
            self._collect_statistics(previous, module, next_pass)
        if previous and next_pass and self.args.print_between_passes:
            from graph_opt.formats.mlir.printer import FastPrinter

            print(f"// IR after {previous.name}:", file=sys.stderr)
            FastPrinter(stream=sys.stderr).print_op(module)
            print("\n", file=sys.stderr)
        self._pass_started = time.perf_counter()

    def _collect_statistics(self, previous, module: ModuleOp, next_pass) -> None:
        """--pass-statistics: each pass's statistics on stderr once it ran."""
        from graph_opt.statistics import (
            REPORT_HEADER,
            collecting,
            declared_statistics,
        )

        if previous is not None and self._collection is not None:
            self._collection.__exit__(None, None, None)
            print(self._statistics.table(), file=sys.stderr)
            self._collection = None
        if previous is None and next_pass is not None:
            print(REPORT_HEADER, file=sys.stderr)
        if next_pass is not None:
            declared = declared_statistics(type(next_pass))
            self._collection = collecting(next_pass.name, module, declared)
            self._statistics = self._collection.__enter__()

    _collection = None

    def _emit_before(self, prog: ModuleOp) -> None:
        """--emit-before FILE: the input graph, in FILE's format (written as -o is)."""
        from io import StringIO

        from graph_opt.formats.mlir.printer import FastPrinter
        from graph_opt.output_files import write_output_file
        from graph_opt.tools.dot_export import write_dot, write_svg

        suffix = os.path.splitext(self.args.emit_before)[1]
        writers = {".dot": write_dot, ".svg": write_svg}
        text = StringIO()
        if suffix in writers:
            writers[suffix](prog, text)
        elif suffix == ".mlir":
            FastPrinter(stream=text).print_op(prog)
        else:
            raise ValueError(
                f"--emit-before writes .dot, .svg or .mlir, not '{suffix}'"
            )
        write_output_file(self.args.emit_before, text.getvalue().encode())

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """A directory is a TensorFlow SavedModel: its frontend reads the files.
        Stdin without -f is MLIR text, or an ONNX model when it starts as every
        serialized ModelProto does (ir_version, field 1: the byte 0x08, which
        no MLIR text starts with)."""
        name = self.args.input_file
        if name is not None and os.path.isdir(name) and self.args.frontend is None:
            from graph_opt.formats.dispatch import SAVED_MODEL

            return io.BytesIO(), SAVED_MODEL
        if name is None and self.args.frontend is None:
            stdin = sys.stdin.buffer
            return stdin, "onnx" if stdin.peek(1)[:1] == b"\x08" else "mlir"
        return super().get_input_stream()

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset=0):
        self._input_verified = file_extension in VERIFIED_FRONTENDS
        module = super().parse_chunk(chunk, file_extension, start_offset)
        if module is not None:
            from graph_opt.formats.mlir.resources import resolve_resources

            resolve_resources(module, self.ctx)
        return module

    def apply_passes(self, prog: ModuleOp):
        from graph_opt.memory.cluster import using_cluster

        with using_cluster(self.args.cluster):
            self._apply_passes(prog)

    def _apply_passes(self, prog: ModuleOp):
        if self.args.emit_before:
            self._emit_before(prog)
        if self.args.explain_pattern:
            from graph_opt.patterns.registry import print_explanations

            print_explanations(prog, self.args.explain_pattern)
        pipeline = self._verifying_pipeline()
        if self.args.verify_numerics is None and self.args.crash_reproducer is None:
            return pipeline.apply(self.ctx, prog)
        from graph_opt.driver.instrument import apply_instrumented

        apply_instrumented(
            self.ctx,
            prog,
            pipeline,
            numerics=self._numeric_check,
            reproducer=self.args.crash_reproducer,
            plugins=self.args.load_pass_plugin,
        )

    def _verifying_pipeline(self):
        """The pipeline, its callback verifying between passes (more cheaply)."""
        callback = self.pipeline.callback
        if self.args.disable_verify or callback is None:
            return self.pipeline
        from graph_opt.verification import verify_module

        def verify_then_callback(previous, module, next_pass):
            if previous is not None or not self._input_verified:
                verify_module(module)
            self.args.disable_verify = True  # verified above, more cheaply
            try:
                callback(previous, module, next_pass)
            finally:
                self.args.disable_verify = False

        return dataclasses.replace(self.pipeline, callback=verify_then_callback)

    def prepare_output(self) -> IO[str]:
        if self.args.target in ("onnx", "tflite") and self.args.output_file is None:
            raise ValueError(
                f"-t {self.args.target} writes a binary model: give an output file with -o"
            )
        if self.args.output_file is None:
            self._output_stream = sys.stdout
            return sys.stdout
        from graph_opt.output_files import writing_output_file

        self._output_binary = self._output.enter_context(
            writing_output_file(self.args.output_file)
        )
        self._output_stream = io.TextIOWrapper(
            self._output_binary, encoding="utf-8", newline="\n"
        )
        return self._output_stream

    def _check_elision(self) -> None:
        if self.args.onnx_contrib_ops and self.args.target != "onnx":
            raise ValueError(
                "--onnx-contrib-ops is an option of the ONNX output (-t onnx)"
            )
        if self.args.tflite_input_stats and self.args.target != "tflite":
            raise ValueError(
                "--tflite-input-stats is an option of the TFLite output (-t tflite)"
            )
        if self.args.external_data is not None and self.args.target != "onnx":
            raise ValueError(
                "--external-data is an option of the ONNX output (-t onnx)"
            )
        resources = self.args.weights_as_resources
        if resources is not None:
            if resources < 0:
                raise ValueError(
                    f"--weights-as-resources takes a size in bytes >= 0, not {resources}"
                )
            if self.args.target != "mlir" or self.args.elide_weights is not None:
                raise ValueError(
                    "--weights-as-resources is an option of the MLIR output "
                    "(not with -t onnx/dot/svg or --elide-weights)"
                )
        limit = self.args.elide_weights
        if limit is None:
            return
        if limit < 0:
            raise ValueError(
                f"--elide-weights takes a count of elements >= 0, not {limit}"
            )
        if self.args.target not in ("mlir", "dot", "svg") or self.args.print_op_generic:
            raise ValueError(
                "--elide-weights is for reading MLIR in its custom form: the output "
                "must keep the weights with -t onnx or --print-op-generic"
            )

    def output_resulting_program(self, prog: ModuleOp) -> str:
        if self.args.weights_as_resources is not None:
            from graph_opt.formats.mlir.resources import print_with_resources

            # Straight to the output: the text holds the weights twice over (hex).
            print_with_resources(
                prog,
                self._output_stream,
                self.args.weights_as_resources,
                print_generic_format=self.args.print_op_generic,
                print_properties_as_attributes=self.args.print_no_properties,
                print_debuginfo=self.args.print_debuginfo,
            )
            return ""
        if self.args.target == "mlir":
            from graph_opt.dialects.nn.constant import ELISION

            ELISION.larger_than = self.args.elide_weights
            try:
                self._write_mlir(prog)
            finally:
                ELISION.larger_than = None
            return ""
        if self.args.target == "graphdef" and self.args.output_file is not None:
            from graph_opt.formats.tensorflow.export.graph_def_stream import (
                write_graph_def,
                write_graph_def_text,
            )

            text = self.args.output_file.lower().endswith(".pbtxt")
            self._output_stream.flush()  # (what --split-input-file wrote before)
            if text:
                write_graph_def_text(prog, self._output_stream)
            else:
                write_graph_def(prog, self._output_binary)
            return ""
        if self.args.target == "tflite":
            from graph_opt.formats.tflite.exporter import (
                parse_input_stats,
                tflite_bytes,
            )

            stats = parse_input_stats(self.args.tflite_input_stats or [])
            self._output_stream.flush()
            self._output_binary.write(tflite_bytes(prog, stats))
            return ""
        if self.args.target != "onnx":
            return super().output_resulting_program(prog)
        from graph_opt.formats.onnx.exporter import save_model
        from graph_opt.formats.onnx.external_write import ExternalData

        self._output_stream.flush()
        save_model(
            prog,
            self._output_binary,
            contrib_ops=self.args.onnx_contrib_ops,
            path=self.args.output_file,
            external_data=ExternalData(
                self.args.external_data or None,
                self.args.external_data_threshold,
                always=self.args.external_data is not None,
            ),
        )
        return ""

    def _write_mlir(self, prog: ModuleOp) -> None:
        """`-t mlir` written straight to the output: xDSL's driver builds the whole
        text as one string first (a copy of 200 MB on ResNet-50)."""
        from graph_opt.formats.mlir.target import FastMLIRTarget

        target = FastMLIRTarget(
            print_generic_format=self.args.print_op_generic,
            print_properties_as_attributes=self.args.print_no_properties,
            print_debuginfo=self.args.print_debuginfo,
            syntax_highlight=self.args.syntax_highlight,
        )
        target.emit(self.ctx, prog, self._output_stream)

    def run(self):
        from graph_opt.progress import SETTINGS

        SETTINGS.quiet = self.args.quiet
        self._check_elision()
        apply_limits(self.args)
        # -o's file: written in full once the run succeeds, removed if it fails
        with contextlib.ExitStack() as self._output:
            if self.args.time_passes:
                from graph_opt.passes.optimize import timing_stages

                with timing_stages() as self._stage_times:
                    super().run()
            else:
                super().run()
        if self.args.time_passes:
            print(format_pass_times(self.pass_times), file=sys.stderr)


def _cluster(path: str):
    """--cluster's file, read; a bad one is an argument error naming the field."""
    from graph_opt.memory.cluster_file import ClusterFileError, read_cluster

    try:
        return read_cluster(path)
    except ClusterFileError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def format_pass_times(times: Sequence[tuple[str, float]]) -> str:
    """A table of seconds and percent of the total per pass, as MLIR's --mlir-timing;
    a pass's stages (`pass: stage`) are indented under it and not counted twice."""
    total = sum(seconds for name, seconds in times if ": " not in name)
    lines = [f"{'seconds':>9}  {'percent':>7}  pass"]
    for name, seconds in [*times, ("total", total)]:
        percent = 100 * seconds / total if total else 0.0
        indent = "  " if ": " in name else ""
        lines.append(f"{seconds:9.4f}  {percent:6.1f}%  {indent}{name}")
    return "\n".join(lines)


def _write_graph_def_text(module: ModuleOp, stream: IO[str]) -> None:
    """-t graphdef: the GraphDef as text (binary to an -o FILE.pb)."""
    from graph_opt.formats.tensorflow.export.exporter import graph_def_bytes

    stream.write(graph_def_bytes(module, text=True).decode())


def _fast_mlir_target():
    from graph_opt.formats.mlir.target import FastMLIRTarget

    return FastMLIRTarget


def _onnx_target_placeholder(module: ModuleOp, stream: IO[str]) -> None:
    """Listed so `-t onnx` and `-t tflite` are accepted; GraphOptMain writes
    the binary model itself."""


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        # The process runs this command and ends: spare the collector its final
        # pass over the IR at exit (~0.5 s for 20,000 nodes), the memory goes back
        # to the system anyway. Callers in a longer-lived process pass argv.
        atexit.register(gc.freeze)
    print_warnings_as_one_line("graph-opt")
    raise_recursion_limit()
    input_name = None
    try:
        tool = GraphOptMain(
            description="graph-opt: optimize neural-network graphs", args=argv
        )
        input_name = tool.args.input_file
        if tool.args.list_passes:
            print(describe_passes(tool.available_passes, LISTED_XDSL_PASSES))
            print(describe_patterns())
            return 0
        tool.run()
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except KeyboardInterrupt:
        return 130
    except ParseError as e:
        print(one_line(e), file=sys.stderr)
        return 1
    except PipelineError as e:
        print(f"graph-opt: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the reader went away (`graph-opt m.onnx | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # quietly, as a tool SIGPIPE ends
    except BaseException as e:  # every other failure is reported as one line
        if os.environ.get("GRAPH_OPT_TRACEBACK"):
            raise
        print(f"graph-opt: {one_line(e, input_name)}", file=sys.stderr)
        note = getattr(e, "graph_opt_note", None)
        if note:
            print(f"graph-opt: {note}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
