"""Which nn ops the interpreter, the ONNX and TensorFlow formats and the TOSA
lowering cover, read from their own registries.

| column | read from |
| --- | --- |
| `interpreter` | the `@impl` methods of `interpreter.registry.nn_functions()` |
| `onnx-export` | `onnx_op_table.EXPORTERS` (`exporter_of`) and the ops `onnx_export.export_op` writes itself |
| `tf-export` | `tensorflow.graph_export.EXPORTERS` and `op_table.SIMPLE_OP_TYPES` |
| `onnx-import` | the nn op classes the functions in `onnx_op_table.IMPORTERS` (and the `nn.opaque` fallback) name |
| `tf-import` | the nn op classes the functions in `tensorflow.op_table.IMPORTERS` (and the `nn.opaque` fallback) name |
| `tosa` | the nn op classes `lower-to-tosa`'s patterns (`to_tosa.PATTERNS`, `DecomposeAttention`, the NMS lowering) match |

The export and interpreter columns are keyed by op class, so they are exact.
Importers are keyed by the framework's operator name: an op counts as imported
when an importer (or a graph_opt function it calls, or a table it reads) names
its class. Lowering patterns take any op: an op counts as lowered when a
pattern tests `op` against its class.

`NOT_COVERED` declares, with a reason, each op a column does not cover;
tests/dialects/test_op_coverage.py fails on an op neither covered nor declared,
and on a declaration that no longer holds.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types
from collections.abc import Callable, Iterable
from functools import cache
from typing import get_args

from xdsl.ir import Operation

COLUMNS = (
    "interpreter",
    "onnx-import",
    "onnx-export",
    "tf-import",
    "tf-export",
    "tosa",
)

# Reasons shared by several ops.
TRAINING = "a training kernel (TensorFlow's gradients and batch statistics)"
NO_ONNX = "ONNX has no such operator"
NO_TF = "TensorFlow has no such op"
FUSED = "made by fuse-ops/optimize, after import"
FUSED_TF = "made by fuse-ops after import; the TensorFlow export has no form for it yet"
INT8 = "convert-to-int's int8 arithmetic, made after import for lower-to-tosa"
INT8_EXPORT = (
    "convert-to-int's int8 arithmetic is for lower-to-tosa, not for a framework"
)
INT8_QDQ = (
    "convert-to-int's int8 layers export as QDQ nodes around the float op "
    "(formats/onnx/int8.py), not op by op"
)
SWAP = "made by the swap pass (a memory-planning copy), after import"
SHAPE_QUERY = "shape computations fold away before lowering: run fold-constants first"
RANGE_VARS = "its range is computed by the graph (quantization-aware training)"
NO_TOSA = "no TOSA lowering yet"
QDQ = "TensorFlow quantizes with FakeQuant*, which imports as nn.fake_quant"
TF_EXPORT_TODO = "no TensorFlow export yet"
FREEZE = RANGE_VARS + ": freeze-variables makes it nn.fake_quant"


NOT_COVERED: dict[str, dict[str, str]] = {
    "nn.acos": {"tosa": NO_TOSA},
    "nn.acosh": {"tosa": NO_TOSA},
    "nn.asin": {"tosa": NO_TOSA},
    "nn.asinh": {"tosa": NO_TOSA},
    "nn.atan": {"tosa": NO_TOSA},
    "nn.atanh": {"tosa": NO_TOSA},
    "nn.avg_pool_grad": {
        "onnx-import": TRAINING,
        "onnx-export": TRAINING,
        "tosa": TRAINING,
    },
    "nn.attention": {"onnx-import": FUSED, "tf-import": FUSED, "tf-export": FUSED_TF},
    "nn.batch_norm_grad": {
        "onnx-import": TRAINING,
        "onnx-export": TRAINING,
        "tosa": TRAINING,
    },
    "nn.batch_norm_training": {
        "onnx-import": TRAINING,
        "onnx-export": TRAINING,
        "tosa": TRAINING,
    },
    "nn.constant_of_shape": {"tosa": SHAPE_QUERY},
    "nn.conv_filter_grad": {
        "onnx-import": TRAINING,
        "onnx-export": TRAINING,
        "tosa": TRAINING,
    },
    "nn.cosh": {"tosa": NO_TOSA},
    "nn.cumsum": {"tosa": NO_TOSA},
    "nn.dequantize": {"tf-import": QDQ, "tf-export": TF_EXPORT_TODO},
    "nn.dropout": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.expand": {
        "tf-import": "BroadcastTo imports as nn.reshape and nn.tile",
        "tf-export": TF_EXPORT_TODO,
    },
    "nn.expm1": {"onnx-import": NO_ONNX, "tosa": NO_TOSA},
    "nn.fake_quant": {
        "onnx-import": "QuantizeLinear/DequantizeLinear import as nn.quantize/nn.dequantize"
    },
    "nn.fake_quant_vars": {
        "onnx-import": NO_ONNX,
        "onnx-export": FREEZE,
        "tosa": FREEZE,
    },
    "nn.fake_quant_vars_grad": {
        "onnx-import": NO_ONNX,
        "onnx-export": FREEZE,
        "tosa": FREEZE,
    },
    "nn.flatten": {
        "tf-import": "TensorFlow writes Reshape, which imports as nn.reshape"
    },
    "nn.fused_conv": {"onnx-import": FUSED, "tf-import": FUSED, "tf-export": FUSED_TF},
    "nn.fused_matmul": {
        "onnx-import": FUSED,
        "tf-import": FUSED,
        "tf-export": FUSED_TF,
    },
    "nn.gather_elements": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.gelu": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.gemm": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.global_avg_pool": {
        "tf-import": "TensorFlow writes Mean over the spatial axes, which imports as nn.reduce_mean"
    },
    "nn.hard_sigmoid": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.hard_swish": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.is_finite": {"onnx-import": NO_ONNX},
    "nn.layer_norm": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.log1p": {"onnx-import": NO_ONNX, "tosa": NO_TOSA},
    "nn.logical_xor": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.max_pool_grad": {
        "onnx-import": TRAINING,
        "onnx-export": TRAINING,
        "tosa": TRAINING,
    },
    "nn.mish": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.mod": {"tosa": NO_TOSA},
    "nn.non_max_suppression": {
        "tf-import": "NonMaxSuppressionV* has no importer yet",
        "tf-export": TF_EXPORT_TODO,
    },
    "nn.nonzero": {"tosa": NO_TOSA},
    "nn.not_equal": {"onnx-import": NO_ONNX},
    "nn.one_hot": {"tosa": NO_TOSA},
    "nn.opaque": {"tosa": "a framework operator kept as is has no TOSA form"},
    "nn.qavg_pool": {
        "onnx-import": INT8,
        "onnx-export": INT8_QDQ,
        "tf-import": INT8,
        "tf-export": INT8_EXPORT,
    },
    "nn.qconv": {
        "onnx-import": INT8,
        "tf-import": INT8,
        "tf-export": INT8_EXPORT,
    },
    "nn.qconv_transpose": {
        "onnx-import": INT8,
        "onnx-export": INT8_EXPORT,
        "tf-import": INT8,
        "tf-export": INT8_EXPORT,
    },
    "nn.qmatmul": {
        "onnx-import": INT8,
        "tf-import": INT8,
        "tf-export": INT8_EXPORT,
    },
    "nn.quantize": {"tf-import": QDQ, "tf-export": TF_EXPORT_TODO},
    "nn.range": {"tosa": NO_TOSA},
    "nn.rank": {"onnx-import": NO_ONNX, "tosa": SHAPE_QUERY},
    "nn.reduce_all": {"onnx-import": NO_ONNX},
    "nn.reduce_any": {"onnx-import": NO_ONNX},
    "nn.relu_grad": {
        "onnx-import": TRAINING,
        "onnx-export": TRAINING,
        "tosa": TRAINING,
    },
    "nn.rescale": {
        "onnx-import": INT8,
        "onnx-export": INT8_QDQ,
        "tf-import": INT8,
        "tf-export": INT8_EXPORT,
    },
    "nn.round": {"tosa": NO_TOSA},
    "nn.shape": {"tosa": SHAPE_QUERY},
    "nn.sign": {"tosa": NO_TOSA},
    "nn.silu": {"tf-import": NO_TF, "tf-export": TF_EXPORT_TODO},
    "nn.sinh": {"tosa": NO_TOSA},
    "nn.size": {"tosa": SHAPE_QUERY},
    "nn.stop_gradient": {"onnx-import": NO_ONNX},
    "nn.swap_in": {
        "onnx-import": SWAP,
        "tf-import": SWAP,
        "tosa": "a host/device copy has no TOSA form",
    },
    "nn.swap_out": {
        "onnx-import": SWAP,
        "tf-import": SWAP,
        "tosa": "a host/device copy has no TOSA form",
    },
    "nn.tan": {"tosa": NO_TOSA},
}
"""op name -> column -> why that column does not cover the op. Each entry is
checked to be still true: remove it when the column covers the op."""


def nn_ops() -> list[type[Operation]]:
    """Every op class of the nn dialect, as the dialect lists them."""
    from graph_opt.dialects.nn import NN

    return list(NN.operations)


@cache
def _nn_op_set() -> frozenset[type[Operation]]:
    return frozenset(nn_ops())


def interpreter_ops() -> set[type[Operation]]:
    from graph_opt.interpreter.registry import nn_functions
    from graph_opt.xdsl_compat.interpreter import implemented_op_types

    return {t for table in nn_functions() for t in implemented_op_types(table)}


def onnx_export_ops() -> set[type[Operation]]:
    from graph_opt.formats.onnx.exporter import export_op
    from graph_opt.formats.onnx.op_table import exporter_of, load_mappings

    load_mappings()
    table = {op for op in nn_ops() if exporter_of(op) is not None}
    return table | matched_ops(export_op)


def tf_export_ops() -> set[type[Operation]]:
    from graph_opt.formats.tensorflow.export import control_flow as export_control_flow  # noqa: F401
    from graph_opt.formats.tensorflow.export import ops as export_ops  # noqa: F401
    from graph_opt.formats.tensorflow.export import state as export_state  # noqa: F401
    from graph_opt.formats.tensorflow.export import tensor_ops as export_tensor_ops  # noqa: F401
    from graph_opt.formats.tensorflow.export.exporter import EXPORTERS
    from graph_opt.formats.tensorflow.op_table import SIMPLE_OP_TYPES, load_mappings

    load_mappings()
    return set(EXPORTERS) | set(SIMPLE_OP_TYPES)


def onnx_import_ops() -> set[type[Operation]]:
    from graph_opt.formats.onnx.importer import opaque_op
    from graph_opt.formats.onnx.op_table import IMPORTERS, load_mappings

    load_mappings()
    return named_ops([*IMPORTERS.values(), opaque_op])


def tf_import_ops() -> set[type[Operation]]:
    from graph_opt.formats.tensorflow.importer import _opaque
    from graph_opt.formats.tensorflow.op_table import IMPORTERS, load_mappings

    load_mappings()
    return named_ops([*IMPORTERS.values(), _opaque])


def tosa_ops() -> set[type[Operation]]:
    from graph_opt.lowering.to_tosa import PATTERNS, lower_non_max_suppressions
    from graph_opt.passes.common.attention_patterns import DecomposeAttention

    found: set[type[Operation]] = set()
    for pattern in (*PATTERNS, DecomposeAttention):
        found |= matched_ops(pattern.match_and_rewrite)
    found |= matched_ops(lower_non_max_suppressions, "o")
    return found


COLUMN_OPS: dict[str, Callable[[], set[type[Operation]]]] = {
    "interpreter": interpreter_ops,
    "onnx-import": onnx_import_ops,
    "onnx-export": onnx_export_ops,
    "tf-import": tf_import_ops,
    "tf-export": tf_export_ops,
    "tosa": tosa_ops,
}


@cache
def coverage() -> dict[str, dict[str, bool]]:
    """op name -> column -> covered, for every nn op."""
    covered = {column: ops() for column, ops in COLUMN_OPS.items()}
    return {
        op.name: {column: op in covered[column] for column in COLUMNS}
        for op in nn_ops()
    }


# --- reading functions for the op classes they name ---------------------------


def _op_classes(
    value: object, found: set[type[Operation]], subclasses: bool = False
) -> bool:
    """Add the nn op classes `value` is or holds (a class, a union, a tuple, a
    dict's keys and values; with `subclasses`, the nn ops deriving from a class
    it holds); whether it was one of those."""
    if isinstance(value, type):
        if value in _nn_op_set():
            found.add(value)
        elif subclasses and issubclass(value, Operation):
            found.update(op for op in _nn_op_set() if issubclass(op, value))
        return True
    if isinstance(value, types.UnionType):
        value = get_args(value)
    if isinstance(value, tuple | list | set | frozenset):
        for item in value:
            _op_classes(item, found, subclasses)
        return True
    if isinstance(value, dict):
        for item in (*value.keys(), *value.values()):
            _op_classes(item, found, subclasses)
        return True
    return False


def _code_objects(code: types.CodeType) -> Iterable[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def named_ops(
    functions: Iterable[Callable], packages: tuple[str, ...] = ("graph_opt",)
) -> set[type[Operation]]:
    """The nn op classes the functions name: globals and closure variables
    (also through a module, `ew.AddOp`), the tables they read, and the same in
    each function of `packages` they name."""
    found: set[type[Operation]] = set()
    seen: set[int] = set()
    todo = list(functions)
    while todo:
        fn = inspect.unwrap(todo.pop())
        if id(fn) in seen or not isinstance(fn, types.FunctionType):
            continue
        seen.add(id(fn))
        names = {n for code in _code_objects(fn.__code__) for n in code.co_names}
        values = [fn.__globals__[n] for n in names if n in fn.__globals__]
        values += [
            getattr(module, n)
            for module in values
            if isinstance(module, types.ModuleType)
            for n in names
            if hasattr(module, n)
        ]
        values += [cell.cell_contents for cell in fn.__closure__ or ()]
        for value in values:
            if _op_classes(value, found):
                continue
            if (
                isinstance(value, types.FunctionType)
                and value.__module__.split(".")[0] in packages
            ):
                todo.append(value)
    return found


def matched_ops(fn: Callable, param: str = "op") -> set[type[Operation]]:
    """The nn op classes `fn` matches its op against: `isinstance(param, X)`
    (X a class, a union or a table of them, by name or `module.X`),
    `type(param) in X`, `type(param) is X`, `match param: case X():`, or the annotation `param: X`
    (`@op_type_rewrite_pattern`, whose xDSL wrapper is read through to the
    function it holds). A base class stands for the nn ops deriving from it."""
    fn = inspect.unwrap(fn)
    if fn.__module__.split(".")[0] == "xdsl":
        wrapped = [
            cell.cell_contents
            for cell in fn.__closure__ or ()
            if isinstance(cell.cell_contents, types.FunctionType)
            and cell.cell_contents.__module__.split(".")[0] != "xdsl"
        ]
        return set().union(*(matched_ops(f, param) for f in wrapped))
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    scope = {**vars(builtins), **fn.__globals__}
    found: set[type[Operation]] = set()

    def resolve(node: ast.expr) -> object:
        try:
            return eval(compile(ast.Expression(node), "<coverage>", "eval"), scope)
        except Exception:
            return None

    def is_param(node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id == param

    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) == 2
            and is_param(node.args[0])
        ):
            _op_classes(resolve(node.args[1]), found, subclasses=True)
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Call)
            and isinstance(node.left.func, ast.Name)
            and node.left.func.id == "type"
            and node.left.args
            and is_param(node.left.args[0])
            and isinstance(node.ops[0], ast.In | ast.NotIn | ast.Is)
        ):
            _op_classes(resolve(node.comparators[0]), found)
        elif isinstance(node, ast.Match) and is_param(node.subject):
            for case in node.cases:
                for pattern in ast.walk(case.pattern):
                    if isinstance(pattern, ast.MatchClass):
                        _op_classes(resolve(pattern.cls), found, subclasses=True)
        elif isinstance(node, ast.arg) and node.arg == param and node.annotation:
            annotation = resolve(node.annotation)
            if annotation is not Operation:
                _op_classes(annotation, found, subclasses=True)
    return found


# --- the docs page ------------------------------------------------------------


def coverage_page() -> str:
    """docs/op-coverage.md, generated at build time (docs/hooks/op_coverage.py)."""
    table = coverage()
    lines = [
        "# Op coverage",
        "",
        "Which nn ops the interpreter, the ONNX and TensorFlow formats and the",
        "TOSA lowering cover, read from their registries when the site is built",
        "(`graph_opt/testing/op_coverage.py`; `tests/dialects/test_op_coverage.py`",
        "fails on an op neither covered nor declared not covered, and on a",
        "declaration that no longer holds).",
        "",
        "| op | " + " | ".join(COLUMNS) + " |",
        "| --- |" + " :-: |" * len(COLUMNS),
    ]
    for op in sorted(table):
        cells = ["yes" if table[op][column] else "**no**" for column in COLUMNS]
        lines.append(f"| `{op}` | " + " | ".join(cells) + " |")
    lines += ["", "## Why not", "", "| op | column | reason |", "| --- | --- | --- |"]
    for op in sorted(NOT_COVERED):
        for column, reason in NOT_COVERED[op].items():
            lines.append(f"| `{op}` | {column} | {reason} |")
    return "\n".join(lines) + "\n"
