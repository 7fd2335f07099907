"""Partitions written as files for another compiler: one module per outlined
function, as MLIR text or an ONNX model, by a lazy table of writers."""

from __future__ import annotations

from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import IO

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from graph_opt.output_files import writing_output_file
from graph_opt.patterns.offload import standalone_module

Writer = Callable[[ModuleOp, IO[bytes]], None]
"""Writes a module to a binary stream; a ValueError for what the format cannot hold."""


def _mlir_writer() -> Writer:
    from graph_opt.formats.mlir.printer import FastPrinter

    def write(module: ModuleOp, stream: IO[bytes]) -> None:
        text = StringIO()
        FastPrinter(stream=text).print_op(module)
        stream.write(text.getvalue().encode() + b"\n")

    return write


def _onnx_writer() -> Writer:
    from graph_opt.formats.errors import FrontendError
    from graph_opt.formats.onnx.exporter import save_model

    def write(module: ModuleOp, stream: IO[bytes]) -> None:
        try:
            save_model(module, stream)
        except FrontendError as error:
            raise ValueError(str(error)) from error

    return write


WRITERS: dict[str, Callable[[], Writer]] = {"mlir": _mlir_writer, "onnx": _onnx_writer}
"""Partition file formats: name (the file's extension) -> a function importing
the writer (a lazy registry: the formats stand above the passes)."""


def partition_writer(file_format: str) -> Writer:
    """The writer of `file_format`; ValueError for an unknown format."""
    if file_format not in WRITERS:
        raise ValueError(
            f"format must be one of {', '.join(WRITERS)}, not '{file_format}'"
        )
    return WRITERS[file_format]()


def write_partition(
    function: func.FuncOp, directory: str, file_format: str, writer: Writer
) -> str:
    """Write `function` alone as `directory/<name>.<file_format>`; the file's name.
    ValueError (one line) when the directory or file cannot be written."""
    name = f"{function.sym_name.data}.{file_format}"
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
        with writing_output_file(Path(directory) / name) as stream:
            writer(standalone_module(function), stream)
    except OSError as error:
        raise ValueError(f"cannot write {Path(directory) / name}: {error}") from error
    return name
