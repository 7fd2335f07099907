"""`graph-opt-run`: evaluate a model with the reference interpreter on .npy/.npz inputs."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence

import numpy as np

from graph_opt.remarks import print_warnings_as_one_line
from graph_opt.tools.diagnostics import one_line


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="graph-opt-run",
        description="Run a module (.mlir or .onnx) with graph-opt's numpy reference interpreter.",
    )
    parser.add_argument("model", help="path to an .mlir or .onnx file")
    parser.add_argument(
        "-i",
        "--inputs",
        action="append",
        default=[],
        help="an .npz of inputs by argument name, or NAME=file.npy (repeatable)",
    )
    parser.add_argument(
        "-o", "--output", required=True, help="an .npz to write the outputs to"
    )
    parser.add_argument(
        "--function", help="the function to run (default: the only public one)"
    )
    return parser.parse_args(argv)


def read_inputs(specs: Sequence[str]) -> dict[str, np.ndarray]:
    inputs: dict[str, np.ndarray] = {}
    for spec in specs:
        if "=" in spec:
            name, path = spec.split("=", 1)
            inputs[name] = np.load(path)
        else:
            with np.load(spec) as archive:
                inputs.update({name: archive[name] for name in archive.files})
    return inputs


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_warnings_as_one_line("graph-opt-run")
    try:
        from graph_opt import api
        from graph_opt.entry import entry_function
        from graph_opt.frontend.names import result_names
        from graph_opt.interpreter import run_function

        module = api.load(args.model)
        outputs = run_function(module, read_inputs(args.inputs), args.function)
        names = result_names(entry_function(module, args.function))
        directory = os.path.dirname(os.path.abspath(args.output))
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".npz")
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **dict(zip(names, outputs, strict=True)))
        os.replace(temporary, args.output)
    except Exception as e:  # one line for the user, never a traceback
        print(f"graph-opt-run: {one_line(e, args.model)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
