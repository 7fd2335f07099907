"""Which format a path holds, for `graph_opt.api` and the `graph-opt` command
line alike: one table, so both read and write exactly the same files."""

from __future__ import annotations

import os
from pathlib import Path

SAVED_MODEL = "saved_model"
"""The format of a directory input (a TensorFlow SavedModel)."""

INPUT_FORMATS = {"mlir": "mlir", "onnx": "onnx", "pb": "graphdef", "pbtxt": "graphdef"}
"""A file extension -> the format read from it (a directory is a SavedModel)."""

OUTPUT_FORMATS = {
    "mlir": "mlir",
    "onnx": "onnx",
    "pb": "graphdef",
    "pbtxt": "graphdef",
    "tflite": "tflite",
}
"""A file extension -> the format written to it."""


def extension(path: str | os.PathLike) -> str:
    """`model.ONNX` -> `onnx`."""
    return os.path.splitext(path)[1].lstrip(".").lower()


def input_format(path: str | os.PathLike) -> str:
    """The format read from `path`; MLIR text for an extension not in the table."""
    if Path(path).is_dir():
        return SAVED_MODEL
    return INPUT_FORMATS.get(extension(path), "mlir")


def output_format(path: str | os.PathLike) -> str:
    """The format written to `path`; MLIR text for an extension not in the table."""
    return OUTPUT_FORMATS.get(extension(path), "mlir")
