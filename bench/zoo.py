"""graph-opt against onnxsim, onnxslim and onnxruntime on a corpus of real exporter output.

The corpus is a folder of `name.onnx`, `name.inputs.npz` and a `manifest.json`
(name, exporter, opset, source, qdq), as bench/make_zoo.py writes it from torch's
two exporters. For each model the table gives the node count of the original
and after each tool: graph-opt's `optimize`, onnxsim, onnxslim and
onnxruntime's offline optimizer (extended level, saved with
`optimized_model_filepath`). Every tool runs in its own subprocess (the
workers of bench/optimize.py: load, optimize, save, timed after a warm-up on a
tiny model); graph-opt's seconds and peak RSS (the worker's own
`VmHWM`: `ru_maxrss` would count the parent's pages) are medians over --runs. Two max relative errors (max |out - ref|
/ max |ref| over the outputs) against onnxruntime on the original model with
the stored inputs, optimizations off: graph-opt's round trip (import and
export, no passes), graph-opt's `optimize` and the same exported with
onnxruntime's contrib ops (`go+contrib`, `--onnx-contrib-ops`). On QDQ models
(`qdq` = yes) all must be bit-exact (0).

A tool that fails on a model shows FAIL(reason) in its cell; the notes after
the table list, per model, what is wrong with graph-opt's output: the tool's
error, a mismatch above --tolerance (or any on a QDQ model), or more nodes than
onnxsim or onnxslim, with the op types graph-opt leaves and that peer removed.
A peer whose output holds onnxruntime's contrib ops (onnxsim 0.8 writes
com.microsoft Attention) is compared with `go+contrib`, whose output also
runs on onnxruntime only; a peer writing standard ONNX with graph-opt's
standard output.

Usage: python bench/zoo.py [--zoo /work/zoo] [--runs 1 (3 for published numbers)]
       [--tools graph-opt,onnxsim,onnxslim,ort] [--models a,b] [--timeout 600]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import optimize  # noqa: E402 - after making the repository importable
from bench.peak_rss import own_peak_mb  # noqa: E402

TOOLS = ("graph-opt", "onnxsim", "onnxslim", "ort")
ROUNDTRIP = "roundtrip"
"""graph-opt's import and export with no passes; run whenever graph-opt is."""
CONTRIB = "go+contrib"
"""graph-opt's `optimize` exported with contrib ops; run whenever graph-opt is."""
GRAPH_OPT_RUNS = (ROUNDTRIP, "graph-opt", CONTRIB)
"""The runs of graph-opt whose outputs are checked against the original."""


def run_roundtrip(src: str, dst: str) -> None:
    from graph_opt import api

    api.save(api.load(src), dst)


def run_contrib(src: str, dst: str) -> None:
    from xdsl.context import Context

    from graph_opt import api
    from graph_opt.passes.optimize import OptimizePass

    module = api.load(src)
    OptimizePass().apply(Context(), module)
    api.save(module, dst, contrib_ops=True)


def worker(tool: str, src: str, dst: str) -> None:
    """One tool on one model; prints {"seconds"} and then {"peak_rss_mb"} as JSON lines."""
    if tool in (ROUNDTRIP, CONTRIB):
        start = time.perf_counter()
        (run_roundtrip if tool == ROUNDTRIP else run_contrib)(src, dst)
        print(json.dumps({"seconds": time.perf_counter() - start}))
    else:
        optimize.worker(tool, src, dst, "extended")
    print(json.dumps({"peak_rss_mb": own_peak_mb()}))


@dataclass
class Result:
    """A tool's runs on one model: medians of time and peak RSS, or an error."""

    seconds: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)
    error: str | None = None
    detail: str = ""

    def short(self) -> str:
        return f"FAIL({self.error})"


def run_tool(tool: str, src: Path, dst: Path, runs: int, timeout: float) -> Result:
    result = Result()
    command = [sys.executable, __file__, "--worker", tool, str(src), str(dst)]
    for _ in range(runs):
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            result.error = f"timeout {timeout:.0f}s"
            return result
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines() or ["no output"]
            result.error = short_reason(lines[-1])
            result.detail = "\n".join(lines[-12:])
            return result
        fields: dict = {}
        for line in done.stdout.strip().splitlines():
            if line.startswith("{"):
                fields.update(json.loads(line))
        result.seconds.append(fields["seconds"])
        result.peak_mb.append(fields["peak_rss_mb"])
    return result


def short_reason(line: str) -> str:
    """An exception's last line cut to a table cell: its type, or the start of its message."""
    kind, _, message = line.partition(": ")
    kind = kind.rsplit(".", 1)[-1]
    return f"{kind}: {message[:24]}" if message else kind[:40]


def run_outputs(path: Path, inputs: dict[str, np.ndarray], names: list[str]):
    """Outputs of `path` in onnxruntime (optimizations off), in the order of `names`."""
    session = optimize.session(path, optimized=False)
    wanted = {i.name for i in session.get_inputs()}
    got = session.run(None, {k: v for k, v in inputs.items() if k in wanted})
    by_name = dict(zip((o.name for o in session.get_outputs()), got))
    if names and set(names) <= set(by_name):
        return [by_name[n] for n in names]
    return got


def histogram(path: Path) -> Counter:
    """Top-level op types; outside the default domain as `domain.op` (onnxsim 0.8
    fuses attention into com.microsoft.Attention)."""
    model = onnx.load(str(path), load_external_data=False)
    return Counter(
        f"{node.domain}.{node.op_type}"
        if node.domain not in ("", "ai.onnx")
        else node.op_type
        for node in model.graph.node
    )


@dataclass
class Row:
    entry: dict
    before: str = "-"
    nodes: dict[str, str] = field(default_factory=dict)
    """Node count after each tool, or its FAIL cell."""
    seconds: str = "-"
    peak_mb: str = "-"
    errors: dict[str, str] = field(default_factory=dict)
    """Max relative error of the round trip and of optimize, or FAIL."""
    problems: list[str] = field(default_factory=list)


def bench_model(entry: dict, args, work: Path) -> Row:
    name = entry["name"]
    src = args.zoo / f"{name}.onnx"
    row = Row(entry, before=str(sum(histogram(src).values())))
    with np.load(args.zoo / f"{name}.inputs.npz") as data:
        inputs = {k: data[k] for k in data.files}
    model = onnx.load(str(src), load_external_data=False)
    names = [o.name for o in model.graph.output]
    reference = run_outputs(src, inputs, names)
    tools = list(args.tools)
    if "graph-opt" in tools:
        tools.insert(tools.index("graph-opt"), ROUNDTRIP)
        tools.insert(tools.index("graph-opt") + 1, CONTRIB)
    histograms: dict[str, Counter] = {}
    for tool in tools:
        dst = work / f"{name}.{tool}.onnx"
        result = run_tool(tool, src, dst, args.runs, args.timeout)
        if result.error:
            cell = result.short()
            if tool in GRAPH_OPT_RUNS:
                row.errors[tool] = cell
                row.problems.append(f"{tool} failed:\n{indent(result.detail)}")
            if tool != ROUNDTRIP:
                row.nodes[tool] = cell
            continue
        histograms[tool] = histogram(dst)
        if tool != ROUNDTRIP:
            row.nodes[tool] = str(sum(histograms[tool].values()))
        if tool == "graph-opt":
            row.seconds = f"{statistics.median(result.seconds):.2f}"
            row.peak_mb = f"{statistics.median(result.peak_mb):.0f}"
        if tool in GRAPH_OPT_RUNS:
            check_signature(tool, model, dst, row)
            row.errors[tool] = check_outputs(
                tool, dst, inputs, names, reference, row, args
            )
    compare_to_peers(row, histograms)
    return row


def signature(model: onnx.ModelProto) -> dict[str, list]:
    """Each graph input's and output's dims: a size, a symbolic name, or "?"."""
    initializers = {i.name for i in model.graph.initializer}
    values = [v for v in model.graph.input if v.name not in initializers]
    return {
        v.name: [
            d.dim_param or (d.dim_value if d.HasField("dim_value") else "?")
            for d in v.type.tensor_type.shape.dim
        ]
        for v in [*values, *model.graph.output]
    }


def check_signature(tool: str, original: onnx.ModelProto, dst: Path, row: Row) -> None:
    """A problem when graph-opt's output has other inputs or outputs than the
    original, or changes a dim other than by refining an output's unknown
    dim (one whose name no input uses, as the TorchScript exporter writes
    them) to a size."""
    want = signature(original)
    got = signature(onnx.load(str(dst), load_external_data=False))
    inputs = {i.name for i in original.graph.input}
    symbols = {d for name, dims in want.items() if name in inputs for d in dims}

    def same(name: str) -> bool:
        if name not in want or name not in got or len(want[name]) != len(got[name]):
            return False
        return all(
            w == g or (name not in inputs and isinstance(w, str) and w not in symbols)
            for w, g in zip(want[name], got[name])
        )

    changed = [
        f"{name}: {want.get(name, 'absent')} -> {got.get(name, 'absent')}"
        for name in dict.fromkeys([*want, *got])
        if not same(name)
    ]
    if changed:
        row.problems.append(f"{tool} changed the signature: {'; '.join(changed)}")


def check_outputs(tool, dst, inputs, names, reference, row: Row, args) -> str:
    try:
        got = run_outputs(dst, inputs, names)
    except Exception as error:  # noqa: BLE001 - onnxruntime rejecting the output is a finding
        row.problems.append(f"{tool} output does not run in onnxruntime: {error}")
        return "FAIL(ort)"
    if [g.shape for g in got] != [r.shape for r in reference]:
        shapes = f"{[g.shape for g in got]} != {[r.shape for r in reference]}"
        row.problems.append(f"{tool} output shapes differ: {shapes}")
        return "FAIL(shape)"
    error = optimize.max_relative_error(got, reference)
    limit = 0.0 if row.entry.get("qdq") else args.tolerance
    if error > limit:
        worst = [
            f"{n}: {optimize.max_relative_error([g], [r]):.1e}"
            for n, g, r in zip(names, got, reference)
        ]
        row.problems.append(
            f"{tool} mismatch {error:.2e} > {limit:g} (per output: {', '.join(worst)})"
        )
    return f"{error:.1e}"


def compare_to_peers(row: Row, histograms: dict[str, Counter]) -> None:
    """A problem for each peer that leaves fewer nodes than graph-opt, with the
    op types that peer removed: graph-opt's contrib output against a peer
    writing contrib ops, its standard output against the others."""
    for peer in ("onnxsim", "onnxslim"):
        theirs = histograms.get(peer)
        contrib = theirs is not None and any("." in op for op in theirs)
        ours = histograms.get(CONTRIB if contrib else "graph-opt")
        if theirs is None or ours is None:
            continue
        # Constant nodes against initializers is a choice of spelling, not of graph.
        ours_n = sum(ours.values()) - ours["Constant"]
        theirs_n = sum(theirs.values()) - theirs["Constant"]
        if ours_n <= theirs_n:
            continue
        more = {op: ours[op] - theirs[op] for op in ours if ours[op] > theirs[op]}
        fewer = {
            op: theirs[op] - ours[op]
            for op in theirs
            if theirs[op] > ours[op] and op != "Constant"
        }
        row.problems.append(
            f"{CONTRIB if contrib else 'graph-opt'} {ours_n} nodes > {peer} {theirs_n}"
            f" (Constant nodes not counted); graph-opt has more: {fmt_ops(more)};"
            f" fewer: {fmt_ops(fewer) or '-'}"
        )


def fmt_ops(ops: dict[str, int]) -> str:
    return ", ".join(f"{op} +{n}" for op, n in sorted(ops.items(), key=lambda x: -x[1]))


def indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())


def table(rows: list[Row], tools: list[str]) -> list[str]:
    peers = [t for t in TOOLS if t in tools]
    if "graph-opt" in tools:
        peers.insert(peers.index("graph-opt") + 1, CONTRIB)
    header = ["model", "exporter", "opset", "qdq", "nodes", *peers]
    if "graph-opt" in tools:
        header += ["go s", "go MB", "roundtrip err", "optimize err", "contrib err"]
    cells = [header]
    for row in rows:
        entry = row.entry
        line = [
            entry["name"],
            entry["exporter"],
            str(entry["opset"]),
            "yes" if entry.get("qdq") else "-",
            row.before,
            *(row.nodes.get(t, "-") for t in peers),
        ]
        if "graph-opt" in tools:
            line += [
                row.seconds,
                row.peak_mb,
                row.errors.get(ROUNDTRIP, "-"),
                row.errors.get("graph-opt", "-"),
                row.errors.get(CONTRIB, "-"),
            ]
        cells.append(line)
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    return [
        "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(line, widths))
        )
        for line in cells
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path, default=Path("/work/zoo"))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument(
        "--models", default="", help="comma-separated names (default: all)"
    )
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds per tool run"
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=1e-4,
        help="max relative error before a float model's output is a mismatch",
    )
    parser.add_argument("--worker", nargs=3, metavar=("TOOL", "SRC", "DST"))
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    args.tools = args.tools.split(",")
    unknown = set(args.tools) - set(TOOLS)
    if unknown:
        parser.error(f"unknown tools: {', '.join(sorted(unknown))}")
    manifest = json.loads((args.zoo / "manifest.json").read_text())
    if args.models:
        wanted = args.models.split(",")
        missing = set(wanted) - {m["name"] for m in manifest}
        if missing:
            parser.error(f"not in the manifest: {', '.join(sorted(missing))}")
        manifest = [m for m in manifest if m["name"] in wanted]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for entry in manifest:
            print(f"... {entry['name']}", file=sys.stderr, flush=True)
            try:
                rows.append(bench_model(entry, args, Path(tmp)))
            except Exception as error:  # noqa: BLE001 - one broken model must not stop the table
                reason = f"{type(error).__name__}: {error}"
                row = Row(entry, before=f"FAIL({short_reason(reason)})")
                row.problems.append(f"the original does not load or run: {reason}")
                rows.append(row)
    print(
        f"{len(rows)} models from {args.zoo}; runs={args.runs}; nodes = top-level"
        " node count after each tool; go s / go MB = graph-opt's median seconds"
        " (load to save) and peak RSS; err = max relative error against the original"
    )
    print("\n".join(table(rows, args.tools)))
    failing = [row for row in rows if row.problems]
    print(f"\n{len(failing)} models where graph-opt falls short:")
    for row in failing:
        print(f"- {row.entry['name']}:")
        for problem in row.problems:
            print(f"  {problem}")


if __name__ == "__main__":
    main()
