"""`graph-opt-run`: evaluate a model with the reference interpreter on .npy/.npz inputs."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence

import numpy as np

from graph_opt.driver.diagnostics import one_line_usage_errors, run_tool


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="graph-opt-run",
        description="Run a model with graph-opt's numpy reference interpreter.",
        epilog="graph-opt's input options (-f, --input-shape, --outputs, ...) are accepted too.",
    )
    one_line_usage_errors(parser, "graph-opt-run")
    parser.add_argument(
        "model", help="any input graph-opt reads (.mlir, .onnx, .pb, .pbtxt, ...)"
    )
    parser.add_argument(
        "-i",
        "--inputs",
        action="append",
        default=[],
        help="an .npz of inputs by argument name, NAME=file.npy, or file.npy for a one-input model (repeatable)",
    )
    parser.add_argument(
        "-o",
        "--output",
        help="an .npz to write the outputs to (default: print them on stdout); "
        "a sequence output S is written as S.0, S.1, ... and S.length (its "
        "item count, so an empty one is S.length alone), an optional output "
        "O holding nothing as O.none; -i reads sequence and optional inputs so",
    )
    parser.add_argument(
        "--function", help="the function to run (default: the only public one)"
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=1,
        help="run the function this many times in one session (training steps: "
        "variables and queues keep their state); outputs are the last run's",
    )
    parser.add_argument(
        "--real-io",
        action="store_true",
        help="integer inputs and outputs with a recorded scale and zero point "
        "(convert-to-int{integer-io=true}) take and give real values: float "
        "inputs are quantized as nn.quantize does, results dequantized",
    )
    parser.add_argument(
        "--variables",
        metavar="FILE",
        help="an .npz to write the variables' values to after the runs",
    )
    parser.add_argument(
        "--partitions",
        metavar="DIR",
        help="run the functions partition-pattern{emit-dir=DIR} wrote out from their files in DIR",
    )
    args, args.frontend_args = parser.parse_known_args(argv)
    return args


def load_module(model: str, frontend_args: Sequence[str]):
    """The module graph-opt would read from `model`: the same frontends and options."""
    from graph_opt.tools.frontends import apply_limits
    from graph_opt.tools.graph_opt_main import GraphOptMain

    tool = GraphOptMain(args=[model, *frontend_args])
    apply_limits(tool.args)
    chunks, extension = tool.prepare_input()
    (chunk, _), *_ = chunks
    try:
        module = tool.parse_chunk(chunk, extension)
    finally:
        chunk.close()
    if not tool.args.disable_verify:
        module.verify()
    return module


def read_inputs(specs: Sequence[str], argument_names: Sequence[str]) -> dict:
    inputs: dict[str, np.ndarray] = {}
    for spec in specs:
        if "=" in spec:
            name, path = spec.split("=", 1)
            inputs[name] = np.load(path)
            continue
        loaded = np.load(spec)
        if isinstance(loaded, np.ndarray):
            if len(argument_names) != 1:
                raise ValueError(
                    f"{spec}: one array for a model of {len(argument_names)} inputs; "
                    "give NAME=file.npy per input or an .npz"
                )
            inputs[argument_names[0]] = loaded
            continue
        with loaded as archive:
            inputs.update({name: archive[name] for name in archive.files})
    return inputs


def real_io_inputs(function, names: Sequence[str], inputs: dict) -> dict:
    """`inputs` by name, the float ones of integer-io arguments quantized."""
    from graph_opt.quantization.boundary import quantized_inputs

    missing = [n for n in names if n not in inputs]
    if missing:
        return inputs  # the session names what is missing
    converted = quantized_inputs(function, [inputs[n] for n in names])
    return inputs | dict(zip(names, converted, strict=True))


def write_npz(path: str, arrays: dict[str, np.ndarray]) -> None:
    from graph_opt.output_files import write_output_file

    data = io.BytesIO()
    np.savez(data, **arrays)
    write_output_file(path, data.getvalue())


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    return run_tool("graph-opt-run", args.model, lambda: run(args))


def run(args: argparse.Namespace) -> None:
    from graph_opt.dialects.nn.names import argument_names, result_names
    from graph_opt.entry import entry_function
    from graph_opt.interpreter.input_types import check_input_types
    from graph_opt.interpreter.tf_state import Session
    from graph_opt.quantization.boundary import dequantized_outputs
    from graph_opt.tools.run_values import npz_arrays, npz_inputs, print_outputs

    if args.steps < 1:
        raise ValueError(f"--steps takes a count >= 1, not {args.steps}")
    module = load_module(args.model, args.frontend_args)
    function = entry_function(module, args.function)
    names = argument_names(function)
    arg_types = dict(zip(names, function.function_type.inputs.data, strict=True))
    inputs = npz_inputs(read_inputs(args.inputs, names), arg_types)
    if args.real_io:
        inputs = real_io_inputs(function, names, inputs)
    check_input_types(function, inputs)
    externals = None
    if args.partitions:
        from graph_opt.tools.partition_runners import partition_runners

        externals = partition_runners(
            module, args.partitions, lambda path: load_module(path, [])
        )
    session = Session()
    for _ in range(args.steps):
        outputs = session.run(module, inputs, args.function, externals)
    if args.real_io:
        outputs = dequantized_outputs(function, outputs)
    results = dict(zip(result_names(function), outputs, strict=True))
    if args.output:
        write_npz(args.output, npz_arrays(results))
    else:
        print_outputs(results)
    if args.variables:
        write_npz(args.variables, session.variables)


if __name__ == "__main__":
    sys.exit(main())
