"""Embedding graph-opt in another compiler: load, build a pipeline, run, get the module back.

    from graph_opt import api

    module = api.load("model.onnx")                  # or .mlir, or an onnx.ModelProto
    api.run(module, "fold-bn,cse,dce")               # a pipeline string, or pass objects
    api.save(module, "out.onnx")                     # .onnx exports, anything else prints MLIR

Out-of-tree passes, dialects and patterns: `api.register_pass(MyPass)`,
`api.register_dialect(MyDialect)`, `api.register_pattern("name", pattern)`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from io import StringIO, TextIOWrapper
from pathlib import Path
from typing import IO, TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Dialect
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe

from graph_opt.files import mapped
from graph_opt.output_files import write_output_file, writing_output_file
from graph_opt.xdsl_compat import apply_workarounds

if TYPE_CHECKING:
    from mmap import mmap

    import numpy as np

    from graph_opt.driver.verify_numerics import NumericCheck
    from graph_opt.memory.cluster import Cluster

_extra_passes: dict[str, Callable[[], type[ModulePass]]] = {}
_extra_dialects: dict[str, Callable[[], Dialect]] = {}


def register_pass(pass_class: type[ModulePass]) -> None:
    """Make an out-of-tree pass available to pipelines by its `name`."""
    _extra_passes[pass_class.name] = lambda: pass_class


def register_dialect(dialect: Dialect) -> None:
    """Make an out-of-tree dialect available to the parser."""
    _extra_dialects[dialect.name] = lambda: dialect


def register_pattern(name: str, pattern) -> None:
    """Make a dataflow pattern (or a function building one) available by `name` to
    partition-pattern, quantize{patterns=...} and --explain-pattern."""
    from graph_opt.patterns.registry import register_pattern as register

    register(name, pattern)


def bind_params_by_name(
    module: ModuleOp, params: Mapping[str, np.ndarray], function: str | None = None
) -> list[str]:
    """Bind the named arguments of the entry function to constant arrays (TVM's
    bind_params_by_name; see graph_opt.passes.bind_params); the names bound."""
    from graph_opt.passes.bind_params import bind_params_by_name as bind

    return bind(module, params, function)


def registered_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The out-of-tree passes registered with `register_pass`, by name."""
    return dict(_extra_passes)


def registered_dialects() -> dict[str, Callable[[], Dialect]]:
    """The out-of-tree dialects registered with `register_dialect`, by name."""
    return dict(_extra_dialects)


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass a pipeline may name: xDSL's, graph-opt's and registered ones."""
    from graph_opt.passes import XDSL_PASS_OVERRIDES, get_all_passes

    return {
        **Universe.get_multiverse().all_passes,
        **XDSL_PASS_OVERRIDES,
        **get_all_passes(),
        **_extra_passes,
    }


def context() -> Context:
    """A context with every dialect registered (loaded lazily on first use)."""
    from graph_opt.universe import GRAPH_OPT_UNIVERSE, XDSL_DIALECT_OVERRIDES

    apply_workarounds()  # graph-opt's xDSL workarounds (graph_opt.xdsl_compat)
    ctx = Context()
    dialects = {
        **Universe.get_multiverse().all_dialects,
        **XDSL_DIALECT_OVERRIDES,
        **GRAPH_OPT_UNIVERSE.all_dialects,
        **_extra_dialects,
    }
    for name, factory in dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def parse(
    text: str | bytes | mmap,
    name: str = "<string>",
    base_dir: str | os.PathLike | None = None,
) -> ModuleOp:
    """Parse MLIR text (a string, or UTF-8 bytes) into a verified module
    (`dense_resource` weights read from the text's resource section; external
    ONNX tensors an nn.opaque keeps, only from inside `base_dir`)."""
    from graph_opt.formats.mlir.parser import parse_module
    from graph_opt.formats.mlir.resources import resolve_resources
    from graph_opt.formats.onnx.external_data import read_opaque_external_data

    ctx = context()
    module = parse_module(ctx, text, name)
    resolve_resources(module, ctx)
    read_opaque_external_data(module, base_dir, name)
    module.verify()
    return module


def load(
    source,
    validate: bool = True,
    base_dir: str | os.PathLike | None = None,
    checkpoint: str | os.PathLike | None = None,
) -> ModuleOp:
    """A module from an .onnx, .pb/.pbtxt (TensorFlow GraphDef) or .mlir path, a
    TensorFlow SavedModel directory (signature serving_default), or an
    onnx.ModelProto. A GraphDef's variables take their values in the TensorFlow
    `checkpoint` (a prefix such as `ckpt/model.ckpt-1000`) when one is given.

    A model that onnxruntime (ONNX) or TensorFlow's importer (GraphDef,
    SavedModel) would refuse is refused with a FrontendError unless
    `validate=False`. ONNX external data is read only from inside `base_dir`
    (by default an .onnx file's own directory), its large initializers mapped,
    never copied; a ModelProto or an .mlir holding external tensors without
    `base_dir` is refused."""
    from graph_opt.formats.dispatch import SAVED_MODEL, input_format
    from graph_opt.formats.errors import FrontendError
    from graph_opt.formats.onnx.importer import (
        import_model,
        load_model,
        model_directory,
    )

    is_path = isinstance(source, str | os.PathLike)
    if checkpoint is not None and (
        not is_path or input_format(Path(source)) != "graphdef"
    ):
        raise FrontendError(
            f"{source if is_path else 'the model'}: a checkpoint applies to a "
            "TensorFlow GraphDef (.pb, .pbtxt) only"
        )
    if not is_path:
        return import_model(source, validate=validate, base_dir=base_dir)
    path = Path(source)
    kind = input_format(path)
    if kind == "onnx":
        model = load_model(str(path), base_dir, read_external=False)
        directory = model_directory(str(path), base_dir)
        return import_model(model, validate=validate, base_dir=directory)
    if kind == SAVED_MODEL:
        from graph_opt.formats.tensorflow.saved_model import import_saved_model

        return import_saved_model(path, validate=validate)
    if kind == "graphdef":
        from graph_opt.formats.tensorflow import import_graph_def, load_graph_def

        graph = load_graph_def(str(path))
        return import_graph_def(graph, validate=validate, checkpoint=checkpoint)
    with open(path, "rb") as stream, mapped(stream) as text:
        return parse(text, str(path), base_dir)


def pipeline(spec: str | Sequence[ModulePass]) -> PassPipeline:
    """A pipeline from xDSL pipeline syntax (`a,b{opt=1}`) or pass objects."""
    if isinstance(spec, str):
        from graph_opt.driver.pipeline import build_pipeline

        passes = available_passes()
        return build_pipeline(spec, passes, passes)
    return PassPipeline(tuple(spec))


def run(
    module: ModuleOp,
    spec: str | Sequence[ModulePass] | PassPipeline,
    statistics: list | None = None,
    verify_numerics: bool | float | NumericCheck = False,
    crash_reproducer: str | os.PathLike | None = None,
    cluster: Cluster | str | os.PathLike | None = None,
) -> ModuleOp:
    """Apply a pipeline in place, verify the result, and return the module.

    A `cluster` (a `graph_opt.memory.cluster.Cluster`, or the path of a JSON
    or TOML file, see `graph-opt --cluster`) describes the devices the passes
    plan for: per-device memory budgets, the ops convert-layout converts.

    With a `statistics` list, a `graph_opt.statistics.PassStatistics` of each
    pass run is appended to it (rewrites by pattern, ops before and after by
    kind, the pass's own counts and warnings).

    `verify_numerics` (True, a tolerance, or a
    `graph_opt.driver.verify_numerics.NumericCheck`) evaluates the module with
    the reference interpreter before and after each pass and raises
    `NumericsChanged` at the first pass whose outputs differ; with a
    `crash_reproducer` path, a pass that fails leaves its input module and the
    pass there (see `graph-opt --crash-reproducer`)."""
    if cluster is not None:
        from graph_opt.memory.cluster import Cluster, using_cluster
        from graph_opt.memory.cluster_file import read_cluster

        devices = cluster if isinstance(cluster, Cluster) else read_cluster(cluster)
        with using_cluster(devices):
            return run(module, spec, statistics, verify_numerics, crash_reproducer)
    passes = spec if isinstance(spec, PassPipeline) else pipeline(spec)
    if verify_numerics is not False or crash_reproducer is not None:
        if statistics is not None:
            raise ValueError("statistics are not collected with verify_numerics")
        from graph_opt.driver.instrument import apply_instrumented
        from graph_opt.driver.verify_numerics import NumericCheck as Check

        check = verify_numerics
        if check is True:
            check = Check()
        elif check is False:
            check = None
        elif not isinstance(check, Check):
            check = Check(tolerance=float(check))
        if passes.callback is None:  # verify after each pass, as graph-opt does
            passes = PassPipeline(passes.passes, _verify_after_pass)
        apply_instrumented(
            context(),
            module,
            passes,
            numerics=check,
            reproducer=None if crash_reproducer is None else str(crash_reproducer),
        )
    elif statistics is None:
        passes.apply(context(), module)
    else:
        from graph_opt.statistics import collecting, declared_statistics

        ctx = context()
        for one_pass in passes.passes:
            declared = declared_statistics(type(one_pass))
            with collecting(one_pass.name, module, declared) as stats:
                one_pass.apply(ctx, module)
            statistics.append(stats)
    module.verify()
    return module


def _verify_after_pass(previous, module: ModuleOp, next_pass) -> None:
    if previous is not None:
        module.verify()


def to_mlir(
    module: ModuleOp, generic: bool = False, weights_as_resources: int | None = None
) -> str:
    """MLIR text; with `weights_as_resources=N`, dense elements of at least N
    bytes print as `dense_resource`s with their blobs in a resource section
    (upstream MLIR's form for large constants)."""
    out = StringIO()
    _write_mlir(module, out, generic, weights_as_resources)
    return out.getvalue()


def _write_mlir(
    module: ModuleOp, out: IO[str], generic: bool, weights_as_resources: int | None
) -> None:
    from graph_opt.formats.mlir.printer import FastPrinter

    if weights_as_resources is None:
        FastPrinter(stream=out, print_generic_format=generic).print_op(module)
        out.write("\n")
        return
    from graph_opt.formats.mlir.resources import print_with_resources

    print_with_resources(
        module, out, weights_as_resources, print_generic_format=generic
    )


def save(
    module: ModuleOp,
    path: str | os.PathLike,
    weights_as_resources: int | None = None,
    *,
    contrib_ops: bool = False,
    tflite_input_stats: Sequence[tuple[float, float] | None] | None = None,
    external_data: bool | str = False,
    external_data_threshold: int = 1024,
) -> None:
    """Write ONNX (for a .onnx path; with `contrib_ops` onnxruntime's fused
    com.microsoft ops where they apply; its weights of at least
    `external_data_threshold` bytes in an external file beside it when the
    model passes 2 GiB or `external_data` is True or names that file), a
    TensorFlow GraphDef (.pb binary, .pbtxt text), a TFLite model of an int8
    graph (.tflite; with `tflite_input_stats` each integer input's (mean,
    std), as tflite_convert's) or MLIR text (see `to_mlir`), as `graph-opt -o`
    writes files
    (`graph_opt.output_files`: atomically, through symlinks, onto devices)."""
    from graph_opt.formats.dispatch import extension, output_format

    path = Path(path)
    kind = output_format(path)
    if kind == "tflite":
        from graph_opt.formats.tflite.exporter import tflite_bytes

        write_output_file(path, tflite_bytes(module, tflite_input_stats))
        return
    if kind == "onnx":
        from graph_opt.formats.onnx.exporter import save_model
        from graph_opt.formats.onnx.external_write import ExternalData

        location = external_data if isinstance(external_data, str) else None
        options = ExternalData(location, external_data_threshold, bool(external_data))
        with writing_output_file(path) as stream:
            save_model(
                module,
                stream,
                contrib_ops=contrib_ops,
                path=path,
                external_data=options,
            )
        return
    if kind == "graphdef":
        from graph_opt.formats.tensorflow.export.graph_def_stream import (
            write_graph_def,
            write_graph_def_text,
        )

        with writing_output_file(path) as out:
            if extension(path) == "pbtxt":
                text = TextIOWrapper(out, encoding="utf-8", newline="\n")
                write_graph_def_text(module, text)
                text.detach()  # (flushed; `out` is closed by writing_output_file)
            else:
                write_graph_def(module, out)
        return
    with writing_output_file(path) as out:
        text = TextIOWrapper(out, encoding="utf-8", newline="\n")
        _write_mlir(module, text, False, weights_as_resources)
        text.detach()  # (flushed; `out` is closed by writing_output_file)
