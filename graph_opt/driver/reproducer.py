"""The crash reproducer, as MLIR's `--mlir-pass-pipeline-crash-reproducer`.

While a pipeline runs, the module is kept as it enters each pass; when a pass
raises (or the module fails to verify after it), that module is written with
the failing pass as a `// RUN:` line, so one command replays the failure:

    // graph-opt crash reproducer: pass 'p' failed: <the error>
    // RUN: graph-opt %s -p 'p{opt=1}' --load-pass-plugin /path/plugin.py
    // pipeline: a,p{opt=1},b (pass 2 of 3)
    builtin.module { ... }

`graph-opt FILE -p 'p{opt=1}' ...` (the RUN line with %s replaced by the file)
replays it, and the file is a lit test once CHECK lines are added.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline


def register_arguments(arg_parser: argparse.ArgumentParser) -> None:
    arg_parser.add_argument(
        "--crash-reproducer",
        "--mlir-pass-pipeline-crash-reproducer",
        dest="crash_reproducer",
        metavar="FILE",
        help="When a pass fails, write the module as it entered the pass and the "
        "pass to FILE (an .mlir replayed by `graph-opt FILE -p ...`, as its RUN line says)",
    )


def pass_spec(one_pass: ModulePass) -> str:
    """The pass in pipeline syntax, with the options it was given."""
    return str(one_pass.pipeline_pass_spec())


class CrashReproducer:
    """Keeps the module as it enters each pass; `write` saves it with the pass."""

    def __init__(self, path: str, pipeline: PassPipeline, plugins: Sequence[str] = ()):
        self.path = path
        self.pipeline = pipeline
        self.plugins = [_absolute_if_file(p) for p in plugins]
        self.current: ModulePass | None = None
        self.entered: ModuleOp | None = None
        self.index = -1

    def wrap(self, callback: Callable | None) -> Callable:
        """`callback`, then keep a copy of the module for the next pass. A
        failure in `callback` (the verification after a pass) is the pass's."""

        def keeping(previous, module, next_pass):
            if callback is not None:
                callback(previous, module, next_pass)
            self.current = next_pass
            self.entered = module.clone() if next_pass is not None else None
            self.index += 1

        return keeping

    def replay_command(self, file: str) -> str:
        assert self.current is not None
        words = ["graph-opt", file, "-p", pass_spec(self.current)]
        for plugin in self.plugins:
            words += ["--load-pass-plugin", plugin]
        return shlex.join(words)

    def write(self, error: BaseException) -> str | None:
        """Write the reproducer of the pass that was running; its path, or None
        when no pass was (the input failed before the first)."""
        if self.current is None or self.entered is None:
            return None
        from graph_opt.driver.diagnostics import one_line
        from graph_opt.formats.mlir.printer import FastPrinter
        from graph_opt.output_files import write_output_file

        specs = [pass_spec(p) for p in self.pipeline.passes]
        header = [
            f"// graph-opt crash reproducer: pass '{self.current.name}' failed: "
            + one_line(error).removeprefix("error: "),
            f"// RUN: {self.replay_command('%s')}",
            f"// pipeline: {','.join(specs)} (pass {self.index + 1} of {len(specs)})",
        ]
        text = StringIO()
        text.write("\n".join(header) + "\n")
        FastPrinter(stream=text).print_op(self.entered)  # as `graph_opt.api.to_mlir`
        text.write("\n")
        write_output_file(self.path, text.getvalue().encode())
        return self.path

    def note(self) -> str:
        return (
            f"note: pass '{self.current.name}' failed; its input is in {self.path}; "
            f"replay: {self.replay_command(self.path)}"
        )


def _absolute_if_file(plugin: str) -> str:
    """A plugin file by absolute path, so the replay works from any directory."""
    import os

    return os.path.abspath(plugin) if os.path.isfile(plugin) else plugin
