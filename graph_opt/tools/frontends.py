"""Input formats of `graph-opt`: MLIR (through the fast parser), ONNX, TensorFlow
GraphDefs (.pb, .pbtxt) and SavedModel directories."""

from __future__ import annotations

import argparse
from typing import IO

from xdsl.dialects.builtin import ModuleOp

from graph_opt.formats.dispatch import INPUT_FORMATS, SAVED_MODEL


def register_frontend_arguments(arg_parser: argparse.ArgumentParser) -> None:
    arg_parser.add_argument(
        "--max-tensor-size",
        type=byte_size,
        metavar="BYTES",
        help="Largest tensor that import, passes and the interpreter may create "
        "(e.g. 512M, 2G; default 256M); larger ones are refused before allocation",
    )
    arg_parser.add_argument(
        "--max-loop-iterations",
        type=positive(int),
        metavar="N",
        help="Iterations after which the interpreter stops a loop (scf.while, "
        "scf.for, ONNX Loop) with an error naming it (default 1000000)",
    )
    arg_parser.add_argument(
        "--max-loop-seconds",
        type=positive(float),
        metavar="S",
        help="Seconds after which the interpreter stops one run of a loop with an "
        "error naming it (default 30)",
    )
    arg_parser.add_argument(
        "--no-validate",
        action="store_true",
        help="Import models that onnxruntime or TensorFlow would refuse (unknown "
        "attributes, ill-typed inputs, unsupported opsets, ...) instead of rejecting them",
    )
    arg_parser.add_argument(
        "--external-data-dir",
        metavar="DIR",
        help="Directory to read ONNX external data from (only from inside it): "
        "needed for a model on stdin or an .mlir whose nn.opaque keeps external "
        "tensors; default for an .onnx file: its own directory",
    )
    arg_parser.add_argument(
        "--no-opaque",
        action="store_true",
        help="Reject models with operators the nn dialect does not model, listing them all",
    )
    arg_parser.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="NAME=D0,D1,...",
        help="Shape of a TensorFlow placeholder or an ONNX graph input, e.g. "
        "input=1,224,224,3 (repeatable; fixes an ONNX input's symbolic dims); "
        "a PlaceholderWithDefault named here becomes an argument instead of its default",
    )
    arg_parser.add_argument(
        "--outputs",
        metavar="A,B",
        help="TensorFlow outputs to import (`node` or `node:1`); default: the nodes nothing reads",
    )
    arg_parser.add_argument(
        "--input-checkpoint",
        metavar="PREFIX",
        help="Freeze a TensorFlow GraphDef's variables (VariableV2, VarHandleOp) to "
        "their values in this checkpoint (e.g. ckpt/model.ckpt-1000, as "
        "tf.compat.v1.train.Saver writes it; read from its own directory only)",
    )
    arg_parser.add_argument(
        "--signature",
        default="serving_default",
        metavar="NAME",
        help="The signature of a TensorFlow SavedModel directory to import",
    )
    arg_parser.add_argument(
        "--allow-tf-opaque",
        action="store_true",
        help="Import TensorFlow ops the nn dialect does not model as nn.opaque instead of rejecting them",
    )


def register_frontends(tool) -> None:
    def parse_mlir(stream: IO[bytes]) -> ModuleOp:
        _refuse_checkpoint(tool)
        from graph_opt.files import mapped
        from graph_opt.formats.mlir.parser import parse_module
        from graph_opt.formats.onnx.external_data import read_opaque_external_data

        name = tool.get_input_name()
        with mapped(stream) as source:
            module = parse_module(
                tool.ctx, source, name, not tool.args.no_implicit_module
            )
        read_opaque_external_data(module, tool.args.external_data_dir, name)
        return module

    def parse_onnx(stream: IO[bytes]) -> ModuleOp:
        _refuse_checkpoint(tool)
        from graph_opt.formats.onnx.importer import (
            import_model,
            load_model,
            model_directory,
            model_from_bytes,
        )

        name = tool.get_input_name()
        base_dir = tool.args.external_data_dir
        if tool.args.input_file is None:  # stdin: external data needs base_dir
            model = model_from_bytes(stream.read(), name)
        else:
            stream.close()
            model = load_model(name, base_dir, read_external=False)
            base_dir = model_directory(name, base_dir)
        if tool.args.input_shape:
            from graph_opt.formats.onnx.input_shapes import fix_input_shapes
            from graph_opt.formats.tensorflow import parse_input_shapes

            fix_input_shapes(model, parse_input_shapes(tool.args.input_shape))
        return import_model(
            model,
            allow_opaque=not tool.args.no_opaque,
            verify=not tool.args.disable_verify,
            validate=not tool.args.no_validate,
            base_dir=base_dir,
        )

    def parse_graph_def(stream: IO[bytes]) -> ModuleOp:
        from graph_opt.formats.tensorflow import (
            graph_def_from_bytes,
            import_graph_def,
            parse_input_shapes,
        )

        name = tool.get_input_name()
        text = (tool.args.frontend or name.rpartition(".")[2]) == "pbtxt"
        graph = graph_def_from_bytes(stream.read(), name, text)
        return import_graph_def(
            graph,
            parse_input_shapes(tool.args.input_shape),
            tool.args.outputs.split(",") if tool.args.outputs else None,
            allow_opaque=tool.args.allow_tf_opaque,
            validate=not tool.args.no_validate,
            checkpoint=tool.args.input_checkpoint,
        )

    def parse_saved_model(stream: IO[bytes]) -> ModuleOp:
        _refuse_checkpoint(tool)
        from graph_opt.formats.tensorflow import parse_input_shapes
        from graph_opt.formats.tensorflow.saved_model import import_saved_model

        stream.close()
        return import_saved_model(
            tool.get_input_name(),
            tool.args.signature,
            parse_input_shapes(tool.args.input_shape),
            allow_opaque=tool.args.allow_tf_opaque,
            validate=not tool.args.no_validate,
        )

    readers = {
        "mlir": parse_mlir,
        "onnx": parse_onnx,
        "graphdef": parse_graph_def,
    }
    for ext, kind in INPUT_FORMATS.items():
        tool.available_frontends[ext] = readers[kind]
    tool.available_frontends[SAVED_MODEL] = parse_saved_model


def _refuse_checkpoint(tool) -> None:
    """--input-checkpoint freezes a GraphDef; any other input would ignore it."""
    if tool.args.input_checkpoint is not None:
        from graph_opt.formats.errors import FrontendError

        raise FrontendError(
            f"{tool.get_input_name()}: --input-checkpoint applies to a TensorFlow "
            "GraphDef (.pb, .pbtxt) only"
        )


SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_size(text: str) -> int:
    """A size in bytes from `123`, `64K`, `256M` or `2G`."""
    digits = text.rstrip("KMGkmg")
    suffix = text[len(digits) :].upper()
    if not digits.isdigit() or suffix not in SIZE_SUFFIXES:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 1048576, 512M or 2G, not '{text}'"
        )
    return int(digits) * SIZE_SUFFIXES[suffix]


def positive(kind: type[int] | type[float]):
    """An argparse type: a number of `kind` above zero."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not value > 0:
            raise argparse.ArgumentTypeError(
                f"expected a {kind.__name__} above 0, not '{text}'"
            )
        return value

    return parse


def apply_limits(args: argparse.Namespace) -> None:
    """Make --max-tensor-size and the loop limits the limits of this process."""
    from graph_opt.interpreter.limits import set_max_tensor_bytes
    from graph_opt.interpreter.loop_limits import set_loop_limit

    if args.max_tensor_size is not None:
        set_max_tensor_bytes(args.max_tensor_size)
    set_loop_limit(args.max_loop_iterations, args.max_loop_seconds)
