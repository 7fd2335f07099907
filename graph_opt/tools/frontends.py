"""Input formats of `graph-opt` besides MLIR: ONNX (and later TensorFlow GraphDefs)."""

from __future__ import annotations

import argparse
from typing import IO

from xdsl.dialects.builtin import ModuleOp


def register_frontend_arguments(arg_parser: argparse.ArgumentParser) -> None:
    arg_parser.add_argument(
        "--no-opaque",
        action="store_true",
        help="Reject models with operators the nn dialect does not model, listing them all",
    )


def register_frontends(tool) -> None:
    def parse_onnx(stream: IO[bytes]) -> ModuleOp:
        from graph_opt.frontend.onnx_import import import_model, load_model

        name = tool.get_input_name()
        stream.close()
        model = load_model(name)
        return import_model(model, allow_opaque=not tool.args.no_opaque)

    tool.available_frontends["onnx"] = parse_onnx
