"""`graph-opt-reduce`: shrink a model while a pass's bug persists, and write the lit test.

    graph-opt-reduce model.onnx -p 'fold-bn' -o tests/filecheck/passes/fold-bn-bug.mlir

The bug is found by running the pipeline once (a crash, kept to its message;
a module that fails verification after a pass; else changed numbers), or
named: `--crash[=MESSAGE]`, `--invalid`, `--numbers[=TOL]`, or `--test
SCRIPT` (interesting when `SCRIPT FILE.mlir` exits with 0).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence

from graph_opt.driver.diagnostics import one_line_usage_errors, run_tool


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="graph-opt-reduce",
        description="Shrink a model while a pass's bug persists (delta debugging) "
        "and write it as a FileCheck test.",
        epilog="graph-opt's input options (-f, --input-shape, --outputs, ...) are accepted too.",
    )
    one_line_usage_errors(parser, "graph-opt-reduce")
    parser.add_argument(
        "model", help="any input graph-opt reads (.mlir, .onnx, .pb, ...)"
    )
    parser.add_argument(
        "-p", "--passes", metavar="PIPELINE", help="the pipeline that shows the bug"
    )
    parser.add_argument("-o", "--output", help="the test to write (default: stdout)")
    parser.add_argument(
        "--load-pass-plugin",
        action="append",
        default=[],
        metavar="MODULE_OR_FILE",
        help="a plugin that registers passes (as graph-opt's option; also in the RUN line)",
    )
    parser.add_argument("--name", default="reduced", help="the test function's name")
    bug = parser.add_mutually_exclusive_group()
    bug.add_argument(
        "--crash",
        nargs="?",
        const="",
        metavar="MESSAGE",
        help="the pipeline raises an error whose text holds MESSAGE",
    )
    bug.add_argument(
        "--invalid",
        action="store_true",
        help="the module fails verification after a pass of the pipeline",
    )
    bug.add_argument(
        "--numbers",
        nargs="?",
        const=1e-4,
        type=float,
        metavar="TOL",
        help="a pass of the pipeline changes the outputs (as --verify-numerics=TOL)",
    )
    bug.add_argument(
        "--test",
        metavar="SCRIPT",
        help="interesting when `SCRIPT FILE.mlir` exits with 0",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args, args.frontend_args = parser.parse_known_args(argv)
    if args.passes is None and args.test is None:
        parser.error("give the pipeline (-p) that shows the bug, or --test SCRIPT")
    return args


def interestingness(args, module):
    from graph_opt.tools import reduce

    if args.test is not None:
        return reduce.Script(args.test, args.passes)
    if args.crash is not None:
        return reduce.Crashes(args.passes, args.crash)
    if args.invalid:
        return reduce.InvalidAfter(args.passes)
    if args.numbers is not None:
        return reduce.ChangesNumbers(args.passes, args.numbers)
    return reduce.detect(module, args.passes)


def lit_test(reduction, interesting, args) -> str:
    """The reduced module as a FileCheck test: the RUN line fails while the bug
    is there (the crash, the verifier, or --verify-numerics) and passes once
    it is fixed."""
    from xdsl.dialects.builtin import StringAttr

    from graph_opt import api
    from graph_opt.entry import entry_function

    function = entry_function(reduction.module)
    function.sym_name = StringAttr(args.name)
    command = ["graph-opt", "%s"]
    if interesting.pipeline:
        command += ["-p", interesting.pipeline]
    for plugin in args.load_pass_plugin:
        command += ["--load-pass-plugin", plugin]
    command += interesting.run_options()
    body = api.to_mlir(reduction.module)
    lines = body.strip().splitlines()
    if lines[0] == "builtin.module {":  # the functions alone, as tests are written
        lines = [line.removeprefix("  ") for line in lines[1:-1]]
    source = args.model.rsplit("/", 1)[-1]
    return "\n".join(
        [
            f"// RUN: {shlex.join(command).replace(chr(39) + '%s' + chr(39), '%s')} | filecheck %s",
            "",
            f"/// Reduced by graph-opt-reduce from {source} ({reduction.ops_before} ops to "
            f"{reduction.ops_after}): {interesting.describe()}.",
            f"// CHECK-LABEL: func.func @{args.name}",
            "// CHECK: func.return",
            *lines,
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_tool("graph-opt-reduce", args.model, lambda: reduce_model(args))


def reduce_model(args: argparse.Namespace) -> None:
    from graph_opt.output_files import write_output_file
    from graph_opt.plugins import load_plugins
    from graph_opt.tools.reduce import Reducer
    from graph_opt.tools.run_main import load_module

    load_plugins(args.load_pass_plugin)
    module = load_module(args.model, args.frontend_args)
    interesting = interestingness(args, module)

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"graph-opt-reduce: {message}", file=sys.stderr)

    progress(f"reducing while {interesting.describe()}")
    reduction = Reducer(interesting).reduce(module)
    text = lit_test(reduction, interesting, args)
    if args.output:
        write_output_file(args.output, text.encode())
    else:
        sys.stdout.write(text)
    progress(
        f"{reduction.ops_before} ops -> {reduction.ops_after} in {reduction.tests} "
        f"tests ({reduction.seconds:.1f} s)"
        + (f"; wrote {args.output}" if args.output else "")
    )


if __name__ == "__main__":
    sys.exit(main())
