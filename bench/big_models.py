"""Models past protobuf's 2 GiB: `optimize` to ONNX, graph-opt against
onnxscript's optimizer (on onnx-ir), in one run.

The model is built at run time in a temporary directory (never stored):
`--layers` blocks of MatMul (N x N weight) + Add + Mul + Add + Relu + Identity,
every weight in one external data file (40 layers of 4096: 2.5 GiB; 160: 10 GiB).
Each tool reads it and writes its optimized model (external data) to the
same directory; the table gives the median wall time and peak RSS (the child's
VmHWM, mapped file pages included) of `--runs` runs, and whether the output
loads in onnxruntime and gives the original's outputs (computed block by block
with numpy from the mapped weights, so the check holds no whole model).
`--resnet` also times ResNet-50 (weights inside the protobuf; bench/roundtrip.py)
against `onnx.load` + `onnx.save`.

A last row writes the 2.5 GB of new bytes fold-bn's output holds (each MatMul
weight read, scaled, written) with plain numpy. The tools run in turn, each
run starting one tool later: writing new data costs more in memory the guest
gave back to its host (this VM), so no tool always follows the same one.
`--idle N` sleeps N seconds before each run, whichever the tool: the case of
a tool started on an idle machine, where that cost is highest. graph-opt is
byte-compiled first, as an installed package is (where PYTHONDONTWRITEBYTECODE
is set, a checkout would otherwise compile its modules in every run).

Usage: python bench/big_models.py [--layers 40] [--size 4096] [--runs 3]
       [--idle 0] [--tools graph-opt,onnxscript] [--resnet] [--dir /tmp]
Needs onnxscript (pip install onnxscript) for its row.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).parent))
from peak_rss import ChildFailed, graph_opt, python_code, run_measured  # noqa: E402

DATA_FILE = "weights.data"

ONNXSCRIPT = """
import sys, onnx_ir as ir
from onnxscript import optimizer
model = ir.load(sys.argv[1])
optimizer.optimize(model)
ir.save(model, sys.argv[2], external_data=sys.argv[3])
"""

ONNX_IR_LOAD_SAVE = """
import sys, onnx_ir as ir
model = ir.load(sys.argv[1])
ir.save(model, sys.argv[2], external_data=sys.argv[3] or None)
"""

SCALE_WITH_NUMPY = """
import sys, numpy as np
n, layers, data, out = (int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:])
step, rows = (n * n + 3 * n) * 4, max((8 << 20) // (4 * n), 1)
with open(out, "wb") as f:
    for i in range(layers):
        for r in range(0, n, rows):
            count, offset = min(rows, n - r) * n, i * step + r * n * 4
            w = np.fromfile(data, np.float32, count, offset=offset)
            (w * np.float32(1.5)).tofile(f)
"""
"""fold-bn's new bytes without graph-opt: every MatMul weight read, scaled
and written by plain numpy, in pieces of 8 MiB (no model)."""

ONNX_LOAD_SAVE = """
import sys, onnx
onnx.save(onnx.load(sys.argv[1]), sys.argv[2])
"""


def build_model(directory: Path, layers: int, size: int) -> Path:
    """Write the model and its weights (written as made: never all in memory)."""
    rng = np.random.default_rng(0)
    nodes, initializers, offset = [], [], 0
    value = "x"
    with open(directory / DATA_FILE, "wb") as data:

        def weight(name: str, array: np.ndarray) -> str:
            nonlocal offset
            proto = TensorProto(
                name=name, data_type=TensorProto.FLOAT, dims=array.shape
            )
            proto.data_location = TensorProto.EXTERNAL
            for key, val in (("location", DATA_FILE), ("offset", offset)):
                proto.external_data.add(key=key, value=str(val))
            proto.external_data.add(key="length", value=str(array.nbytes))
            data.write(array.tobytes())
            offset += array.nbytes
            initializers.append(proto)
            return name

        for i in range(layers):
            w = (rng.standard_normal((size, size), np.float32) / np.sqrt(size)).astype(
                np.float32
            )
            vectors = [rng.standard_normal(size, np.float32) * 0.1 for _ in range(3)]
            m = helper.make_node("MatMul", [value, weight(f"p_w{i}", w)], [f"m{i}"])
            a = helper.make_node(
                "Add", [f"m{i}", weight(f"p_b{i}", vectors[0])], [f"a{i}"]
            )
            s = helper.make_node(
                "Mul", [f"a{i}", weight(f"p_s{i}", 1 + vectors[1])], [f"s{i}_"]
            )
            c = helper.make_node(
                "Add", [f"s{i}_", weight(f"p_c{i}", vectors[2])], [f"c{i}"]
            )
            r = helper.make_node("Relu", [f"c{i}"], [f"r{i}"])
            value = f"y{i}"
            nodes += [m, a, s, c, r, helper.make_node("Identity", [f"r{i}"], [value])]
    graph = helper.make_graph(
        nodes,
        "big",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, size])],
        [helper.make_tensor_value_info(value, TensorProto.FLOAT, [1, size])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    path = directory / "model.onnx"
    onnx.save(model, path)
    return path


def reference_output(directory: Path, layers: int, size: int, x: np.ndarray):
    """The model's output, block by block from the mapped weights."""
    data = np.memmap(directory / DATA_FILE, np.float32, "r")
    step = size * size + 3 * size
    for i in range(layers):
        block = data[i * step : (i + 1) * step]
        w = block[: size * size].reshape(size, size)
        b, s, c = block[size * size :].reshape(3, size)
        x = np.maximum((x @ w + b) * s + c, 0)
    return x


def output_ok(path: Path, expected: np.ndarray, x: np.ndarray) -> str:
    import onnxruntime as ort

    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: x})
    except Exception as e:
        return f"no: {str(e).splitlines()[0][:60]}"
    if np.isnan(expected).all():  # (ResNet-50's random weights overflow)
        return "yes (NaN as the original)" if np.isnan(got).all() else "no"
    scale = np.abs(expected).max() + 1e-9
    error = float(np.abs(got - expected).max() / scale)
    return "yes" if error < 1e-4 else f"no: rel. error {error:.1e}"


def big_model_rows(args, directory: Path) -> list[tuple]:
    model = build_model(directory, args.layers, args.size)
    size = sum(f.stat().st_size for f in directory.iterdir())
    print(f"model: {args.layers} layers of {args.size}: {size / 2**30:.2f} GiB")
    x = np.random.default_rng(1).standard_normal((1, args.size), np.float32)
    expected = reference_output(directory, args.layers, args.size, x)
    commands = {
        "graph-opt": lambda out: graph_opt(
            str(model), "-p", "optimize", "-t", "onnx", "-o", str(out)
        ),
        "onnxscript": lambda out: python_code(
            ONNXSCRIPT, str(model), str(out), f"{out.name}.data"
        ),
        **io_only(model, external=True),
        "numpy W*s write": lambda out: python_code(
            SCALE_WITH_NUMPY,
            *(str(v) for v in (args.size, args.layers, directory / DATA_FILE, out)),
        ),
    }
    return measure(
        args,
        directory,
        commands,
        lambda out: (
            "n/a (bytes)" if "numpy" in out.name else output_ok(out, expected, x)
        ),
    )


def resnet_rows(args, directory: Path) -> list[tuple]:
    from roundtrip import resnet50

    model = directory / "resnet50.onnx"
    onnx.save(resnet50(), model)
    x = np.random.default_rng(1).standard_normal((1, 3, 224, 224), np.float32)
    import onnxruntime as ort

    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, {session.get_inputs()[0].name: x})
    commands = {
        "graph-opt": lambda out: graph_opt(
            str(model), "-p", "optimize", "-t", "onnx", "-o", str(out)
        ),
        "onnx.load+save": lambda out: python_code(ONNX_LOAD_SAVE, str(model), str(out)),
        **io_only(model, external=False),
    }
    return measure(args, directory, commands, lambda out: output_ok(out, expected, x))


def io_only(model: Path, external: bool) -> dict:
    """The ONNX I/O layers alone (item 4 of issue 30): graph-opt's import and
    export (no pass) against onnx-ir's load and save."""
    return {
        "graph-opt I/O": lambda out: graph_opt(
            str(model), "-t", "onnx", "-o", str(out)
        ),
        "onnx-ir I/O": lambda out: python_code(
            ONNX_IR_LOAD_SAVE, str(model), str(out), f"{out.name}.data" * external
        ),
    }


def measure(args, directory: Path, commands, check) -> list[tuple]:
    if args.tools:
        commands = {t: c for t, c in commands.items() if t in args.tools}
    times: dict[str, list[float]] = {t: [] for t in commands}
    peaks: dict[str, list[float]] = {t: [] for t in commands}
    ok: dict[str, str] = {}
    tools = list(commands.items())
    for run in range(args.runs):
        for tool, command in tools[run % len(tools) :] + tools[: run % len(tools)]:
            out = directory / f"out-{re.sub('[^a-z.+-]', '_', tool)}.onnx"
            os.sync()  # (no tool pays for the writeback of files made before it)
            time.sleep(args.idle)
            try:
                seconds, peak, _ = run_measured(command(out))
            except ChildFailed as e:
                ok[tool] = f"failed: {e}"
                continue
            times[tool].append(seconds)
            peaks[tool].append(peak)
            ok[tool] = check(out)
            for f in directory.glob(f"{out.name}*"):
                f.unlink()
    return [
        (
            tool,
            statistics.median(times[tool]) if times[tool] else float("nan"),
            statistics.median(peaks[tool]) if peaks[tool] else float("nan"),
            ok[tool],
        )
        for tool in commands
    ]


def print_table(title: str, rows: list[tuple]) -> None:
    print(f"\n{title}")
    print(f"{'tool':<16}{'time (s)':>10}{'peak RSS (MB)':>15}  output ok")
    for tool, seconds, peak, ok in rows:
        print(f"{tool:<16}{seconds:>10.2f}{peak:>15.0f}  {ok}")
    for ours, theirs in zip(rows[::2], rows[1::2]):  # (ours, the peer's)
        print(
            f"{ours[0]} / {theirs[0]}: time {ours[1] / theirs[1]:.2f}x, "
            f"peak RSS {ours[2] / theirs[2]:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=40)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--idle", type=float, default=0, help="seconds to sleep before each run"
    )
    parser.add_argument(
        "--tools",
        type=lambda text: text.split(","),
        default=None,
        help="the rows to run, comma separated (default: all)",
    )
    parser.add_argument("--resnet", action="store_true")
    parser.add_argument("--no-big", action="store_true")
    parser.add_argument("--dir", default=None, help="where the temporary models go")
    args = parser.parse_args()
    (package,) = importlib.util.find_spec("graph_opt").submodule_search_locations
    compileall.compile_dir(package, quiet=1)
    directory = Path(tempfile.mkdtemp(prefix="big-models-", dir=args.dir))
    try:
        if not args.no_big:
            title = f"optimize to ONNX, {args.layers} layers of {args.size}"
            title += f", {args.idle:g} s idle before each run" * bool(args.idle)
            print_table(title, big_model_rows(args, directory))
        if args.resnet:
            resnet_dir = directory / "resnet"
            resnet_dir.mkdir()
            print_table("optimize, ResNet-50", resnet_rows(args, resnet_dir))
    finally:
        shutil.rmtree(directory)


if __name__ == "__main__":
    main()
