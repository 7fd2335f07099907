"""What the import does with each attribute of each mapped TensorFlow op, and
which values it refuses, by name, before importing anything.

An attribute that types or sizes an input argument of its OpDef (`T`, `N`,
`Tidx`, ...) follows the inputs; `DTYPES` checks its value. Every other
attribute of a mapped op is declared in `ATTRS` as imported (read by the
importer, every allowed value exact), without effect on the results (with the
reason), or imported with some values refused (with the reason).
tests/formats/tensorflow/test_tf_attr_support.py fails on an attribute of a
mapped op that is neither input-implied nor declared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graph_opt.dialects.nn.shapes import DYN
from graph_opt.formats.tensorflow import attrs
from graph_opt.formats.tensorflow.op_defs import op_defs
from graph_opt.formats.tensorflow.schema import DATA_TYPES, NodeDef
from graph_opt.formats.tensorflow.tensors import NUMPY_DTYPES, dtype_name

IMPORTED = "imported"
NO_EFFECT = "no effect"
PARTLY = "imported, some values refused"

HANDLES = {DATA_TYPES[n] for n in ("DT_RESOURCE", "DT_VARIANT", "DT_STRING")}
"""Types of handles (variables, TensorLists) and strings, which the import
keeps as such; every other type needs an nn element type."""


@dataclass(frozen=True)
class Attr:
    """How the import treats one attribute: `how` (IMPORTED, NO_EFFECT or
    PARTLY) and why; `refused(value, node)` is true for the values it refuses."""

    how: str
    note: str
    refused: Callable[[object, NodeDef], bool] | None = None


def imported(note: str = "") -> Attr:
    return Attr(IMPORTED, note)


def no_effect(note: str) -> Attr:
    return Attr(NO_EFFECT, note)


def refusing(note: str, refused: Callable[[object, NodeDef], bool]) -> Attr:
    return Attr(PARTLY, note, refused)


def refusing_values(note: str, *values) -> Attr:
    return Attr(PARTLY, note, lambda value, node: value in values)


def _flag(node: NodeDef, name: str) -> bool:
    return name in node.attr and node.attr[name].b


def _type(node: NodeDef, name: str) -> str:
    return dtype_name(node.attr[name].type) if name in node.attr else ""


def _float_narrowing(truncate, node: NodeDef) -> bool:
    """A cast to a float type with fewer mantissa bits."""
    mantissa = {"DT_BFLOAT16": 8, "DT_HALF": 11, "DT_FLOAT": 24, "DT_DOUBLE": 53}
    source, target = (mantissa.get(_type(node, a), 0) for a in ("SrcT", "DstT"))
    return bool(truncate) and 0 < target < source


def _both_resize_modes(align, node: NodeDef) -> bool:
    return bool(align) and _flag(node, "half_pixel_centers")


def _unknown_dims(shape, node: NodeDef) -> bool:
    return shape is None or DYN in shape


def _unknown_component_shapes(shapes, node: NodeDef) -> bool:
    given = "component_types" in node.attr
    types = attrs.python_value(node.attr["component_types"]) if given else []
    return len(shapes) != len(types) or any(s is None for s in shapes)


def _items_may_differ(identical, node: NodeDef) -> bool:
    given = "element_shape" in node.attr
    shape = attrs.python_value(node.attr["element_shape"]) if given else None
    return not identical and _unknown_dims(shape, node)


def _with(mapping: dict[str, Attr], *ops: str) -> dict[str, dict[str, Attr]]:
    return {op: mapping for op in ops}


# Rules shared by several ops.
DATA_FORMAT = imported("nn data_layout (NCHW kept, no transposes)")
WINDOW = imported(
    "not 1 on batch or channels: TensorFlow refuses it, so does the import"
)
PADDING = imported("SAME as SAME_UPPER, VALID, EXPLICIT as pads")
EXPLICIT = imported("pads of the spatial axes (TensorFlow refuses others)")
HINT_SHAPES = no_effect("shape hints; the import infers the shapes")
LOCKING = no_effect("orders concurrent updates; graph-opt runs one step at a time")
GRAD_HINT = no_effect("a hint that the operand is a gradient, for the kernel choice")
CONTAINER = no_effect("a resource container scopes sharing between sessions")
FUNCTION = imported("the library function, imported inline or as a region")
CALL_CONFIG = no_effect("runtime configuration of the call")
NUM_OUTPUTS = imported("the number of outputs")
OUT_TYPE = imported("the result's element type (an nn.cast from i64)")
ADJOINT = imported("a transpose of the last two dims (real types)")
SAME_SHAPE = no_effect("graph-opt's variables have a static shape an assign must match")
VECT_C = refusing_values(
    "NHWC, NCHW; NCHW_VECT_C (qint8 in vectors of 4 channels) refused", "NCHW_VECT_C"
)

BATCH_NORM = {
    "epsilon": imported(),
    "exponential_avg_factor": imported("the running statistics' update (training)"),
    "is_training": imported("nn.batch_norm, or nn.batch_norm_training"),
    "data_format": imported("NDHWC and NCDHW as the layout with their channel axis"),
}
BATCH_NORM_GRAD = {
    "epsilon": imported(),
    "is_training": refusing_values("false (an inference batch norm) refused", False),
    "data_format": BATCH_NORM["data_format"],
}
CONV = {
    "strides": WINDOW,
    "dilations": WINDOW,
    "padding": PADDING,
    "explicit_paddings": EXPLICIT,
    "data_format": DATA_FORMAT,
}
CONV_2D = CONV | {"use_cudnn_on_gpu": no_effect("a GPU kernel choice")}
CONV_3D = {k: CONV[k] for k in ("strides", "dilations", "padding", "data_format")}
POOL = {
    "ksize": WINDOW,
    "strides": WINDOW,
    "padding": PADDING,
    "data_format": DATA_FORMAT,
}
BATCH_MATMUL = {
    "adj_x": ADJOINT,
    "adj_y": ADJOINT,
    "grad_x": GRAD_HINT,
    "grad_y": GRAD_HINT,
}
QUEUE_IO = {
    "timeout_ms": no_effect("how long an empty queue blocks; graph-opt's never do")
}
FAKE_QUANT = {"num_bits": imported(), "narrow_range": imported()}
EQUAL = {
    "incompatible_shape_error": imported(
        "false: incompatible static shapes give a constant"
    )
}
VARIABLE = {
    "shape": refusing("unknown dims refused", _unknown_dims),
    "dtype": imported(),
    "container": CONTAINER,
    "shared_name": imported("the variable's name"),
}
IF = {
    "Tout": imported("the branches' result types"),
    "then_branch": FUNCTION,
    "else_branch": FUNCTION,
    "output_shapes": HINT_SHAPES,
}
WHILE = {
    "cond": FUNCTION,
    "body": FUNCTION,
    "output_shapes": HINT_SHAPES,
    "parallel_iterations": no_effect("how many iterations may run at once"),
}
CALL = {
    "Tout": imported("the function's result types"),
    "f": FUNCTION,
    "config": CALL_CONFIG,
    "config_proto": CALL_CONFIG,
    "executor_type": CALL_CONFIG,
}
RESIZE = {
    "align_corners": refusing(
        "true with half_pixel_centers refused (TensorFlow refuses it too)",
        _both_resize_modes,
    ),
    "half_pixel_centers": imported(),
}
ELEMENT_DTYPE = {"element_dtype": imported()}
POOL_GRAD = POOL | {
    "data_format": imported("nn data_layout (TensorFlow runs NCHW on GPU only)")
}
ARRAY_DTYPE = no_effect(
    "repeats the array's element type (TensorFlow checks it), which the result has"
)
ITEM_SHAPE = no_effect("checks the items' shape, which the import knows")

ATTRS: dict[str, dict[str, Attr]] = {
    **_with(
        {"keep_dims": imported()}, "All", "Any", "Max", "Mean", "Min", "Prod", "Sum"
    ),
    **_with(
        {"use_locking": LOCKING, "use_nesterov": imported()},
        "ApplyAdam",
        "ApplyMomentum",
        "ResourceApplyAdam",
        "ResourceApplyMomentum",
    ),
    **_with(
        {"use_locking": LOCKING},
        "ApplyGradientDescent",
        "ResourceApplyGradientDescent",
        "AssignAdd",
        "AssignSub",
    ),
    **_with({"output_type": imported("the index type")}, "ArgMax", "ArgMin"),
    "Assign": {"validate_shape": SAME_SHAPE, "use_locking": LOCKING},
    "AssignVariableOp": {"validate_shape": SAME_SHAPE},
    **_with(POOL, "AvgPool", "AvgPool3D", "MaxPool3D"),
    **_with(POOL_GRAD, "AvgPoolGrad", "AvgPool3DGrad"),
    "MaxPoolGrad": POOL_GRAD | {"explicit_paddings": EXPLICIT},
    "MaxPoolGradV2": {k: POOL_GRAD[k] for k in ("padding", "data_format")},
    "MaxPool": POOL | {"explicit_paddings": EXPLICIT, "data_format": VECT_C},
    **_with(BATCH_MATMUL, "BatchMatMul", "BatchMatMulV2"),
    "BatchMatMulV3": BATCH_MATMUL | {"Tout": imported("operands are cast to Tout")},
    "MatMul": {
        "transpose_a": imported(),
        "transpose_b": imported(),
        "grad_a": GRAD_HINT,
        "grad_b": GRAD_HINT,
    },
    **_with({"data_format": DATA_FORMAT}, "BiasAdd", "BiasAddGrad"),
    "Cast": {
        "DstT": imported(),
        "Truncate": refusing(
            "true on a float narrowing (dropping mantissa bits, not rounding) "
            "refused; no effect on other casts",
            _float_narrowing,
        ),
    },
    "Const": {"value": imported(), "dtype": imported()},
    **_with(CONV_2D, "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"),
    "DepthwiseConv2dNative": CONV,
    **_with(CONV_3D, "Conv3D", "Conv3DBackpropInputV2"),
    "Cumsum": {"exclusive": imported(), "reverse": imported()},
    **_with(
        {"block_size": imported(), "data_format": VECT_C},
        "DepthToSpace",
        "SpaceToDepth",
    ),
    "Einsum": {
        "equation": imported(
            "one- and two-operand equations as transposes, reshapes and matmuls; "
            "others are declined at import, naming the equation"
        )
    },
    **_with(EQUAL, "Equal", "NotEqual"),
    "FIFOQueueV2": {
        "component_types": imported(),
        "shapes": refusing(
            "unknown component shapes refused", _unknown_component_shapes
        ),
        "capacity": imported(),
        "container": CONTAINER,
        "shared_name": imported("the queue's name"),
    },
    "FakeQuantWithMinMaxArgs": FAKE_QUANT | {"min": imported(), "max": imported()},
    **_with(
        FAKE_QUANT,
        "FakeQuantWithMinMaxVars",
        "FakeQuantWithMinMaxVarsGradient",
        "FakeQuantWithMinMaxVarsPerChannel",
    ),
    **_with(BATCH_NORM, "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"),
    **_with(
        BATCH_NORM_GRAD,
        "FusedBatchNormGrad",
        "FusedBatchNormGradV2",
        "FusedBatchNormGradV3",
    ),
    "Gather": {"validate_indices": no_effect("ignored by TensorFlow since 1.x")},
    "GatherNd": {
        "bad_indices_policy": refusing_values(
            "'', DEFAULT and ERROR (an out-of-range index is an error); "
            "IGNORE (zeros for it) refused",
            "IGNORE",
        )
    },
    "GatherV2": {"batch_dims": imported("nn.gather_nd with batch_dims")},
    **_with(IF, "If", "StatelessIf"),
    **_with(WHILE, "While", "StatelessWhile"),
    **_with(CALL, "PartitionedCall", "StatefulPartitionedCall"),
    "LeakyRelu": {"alpha": imported()},
    "MirrorPad": {"mode": imported("REFLECT as nn.pad reflect; SYMMETRIC as slices")},
    "OneHot": {"axis": imported()},
    "Pack": {"axis": imported()},
    "Unpack": {"axis": imported(), "num": NUM_OUTPUTS},
    **_with({"num_split": NUM_OUTPUTS}, "Split", "SplitV"),
    "PlaceholderWithDefault": {
        "dtype": imported(),
        "shape": imported("the shape a feed may have"),
    },
    **_with(
        QUEUE_IO | {"component_types": imported()},
        "QueueDequeueV2",
        "QueueDequeueManyV2",
    ),
    **_with(QUEUE_IO, "QueueEnqueueV2", "QueueEnqueueManyV2"),
    "ReadVariableOp": {"dtype": imported("the variable's element type")},
    **_with(RESIZE, "ResizeBilinear", "ResizeNearestNeighbor"),
    **_with({"out_type": OUT_TYPE}, "Shape", "ShapeN", "Size"),
    "Squeeze": {"squeeze_dims": imported()},
    "StridedSlice": dict.fromkeys(
        (
            "begin_mask",
            "end_mask",
            "ellipsis_mask",
            "new_axis_mask",
            "shrink_axis_mask",
        ),
        imported(),
    ),
    "TensorArrayV3": {
        "dtype": imported(),
        "element_shape": imported("unknown dims (or rank) sized by the first write"),
        "dynamic_size": refusing_values("true (no known bound) refused", True),
        "clear_after_read": no_effect(
            "TensorFlow frees a read item (a second read is an error); "
            "the import keeps it"
        ),
        "identical_element_shapes": refusing(
            "false with an element_shape not fully known refused: items could "
            "differ in shape, the import's are one tensor",
            _items_may_differ,
        ),
        "tensor_array_name": no_effect("names the array's resource"),
    },
    "TensorArrayReadV3": {"dtype": ARRAY_DTYPE},
    "TensorArrayGatherV3": {"dtype": ARRAY_DTYPE, "element_shape": ITEM_SHAPE},
    "TensorArrayConcatV3": {
        "dtype": ARRAY_DTYPE,
        "element_shape_except0": ITEM_SHAPE,
    },
    **_with(
        ELEMENT_DTYPE,
        "TensorListConcatV2",
        "TensorListFromTensor",
        "TensorListGetItem",
        "TensorListReserve",
    ),
    "TensorListSetItem": ELEMENT_DTYPE
    | {
        "resize_if_index_out_of_bounds": refusing_values(
            "true (growing the list) refused", True
        )
    },
    "TensorListStack": ELEMENT_DTYPE
    | {"num_elements": no_effect("a check of the list's length")},
    "TopKV2": {
        "sorted": no_effect(
            "TensorFlow leaves the order open when false; the import sorts"
        ),
        "index_type": OUT_TYPE,
    },
    "VariableV2": VARIABLE,
    "VarHandleOp": VARIABLE
    | {
        "debug_name": no_effect("a name for debugging"),
        "allowed_devices": no_effect("device placement"),
    },
}
"""The attributes of mapped ops that are not input-implied, by op."""

REFUSED_OPS = {
    "MaxPool3DGrad": "its kernel gives every value within 1e-5 of a window's "
    "maximum the gradient, nn.max_pool_grad the first maximum only",
}
"""TensorFlow ops refused whole, with the reason: they have no importer, and
the error listing unsupported ops gives the reason."""


def input_implied(op_def) -> set[str]:
    """The attributes that type or size an input argument: the inputs give them."""
    return {
        name
        for arg in op_def.input_arg
        for name in (arg.type_attr, arg.type_list_attr, arg.number_attr)
        if name
    }


def _types_refused(value, node: NodeDef) -> bool:
    types = value if isinstance(value, list) else [value]
    return any(t not in NUMPY_DTYPES and t not in HANDLES for t in types)


DTYPES = refusing(
    "types with an nn element type, and handles; complex, quantized, "
    "float8 and 4-bit types refused",
    _types_refused,
)
"""The rule of every type attribute (declared ones besides their own rule)."""


def attr_problems(node: NodeDef, op_def) -> list[tuple[str, str]]:
    """(`attr=value`, why) for each attribute value of `node` (or default
    value) that the import refuses."""
    problems = []
    declared = ATTRS.get(node.op, {})
    for attr_def in op_def.attr:
        if attr_def.name in node.attr:
            if node.attr[attr_def.name].WhichOneof("value") in (None, "placeholder"):
                continue  # a function's attribute, bound where it is called
            value = attrs.python_value(node.attr[attr_def.name])
        elif attr_def.HasField("default_value"):
            value = attrs.python_value(attr_def.default_value)
        else:
            continue
        is_type = attr_def.type in ("type", "list(type)")
        for rule in (declared.get(attr_def.name), DTYPES if is_type else None):
            if rule is not None and rule.refused and rule.refused(value, node):
                shown = _shown(value, is_type)
                problems.append((f"{attr_def.name}={shown}", rule.note))
                break
    return problems


def _shown(value, is_type: bool) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_shown(v, is_type) for v in value) + "]"
    if is_type:
        return dtype_name(value).removeprefix("DT_").lower()
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def attr_problems_of(node: NodeDef) -> list[tuple[str, str]]:
    """`attr_problems` of a node of any op (none for unregistered ones)."""
    op_def = op_defs().get(node.op)
    return [] if op_def is None else attr_problems(node, op_def)


def refused_attrs(node: NodeDef) -> list[str]:
    """`attr=value: why` for each value of `node` the import refuses."""
    return [f"{value}: {why}" for value, why in attr_problems_of(node)]


def refused_values(nodes: Iterable[NodeDef]) -> list[str]:
    """`op attr=value (node 'n' and k more)` for each refused value (the
    reasons are on the docs page, and in the error of a single node)."""
    found: dict[tuple[str, str], list[str]] = {}
    for node in nodes:
        for value, _ in attr_problems_of(node):
            found.setdefault((node.op, value), []).append(node.name)
    entries = []
    for (op, value), names in found.items():
        more = f" and {len(names) - 1} more" if len(names) > 1 else ""
        entries.append(f"{op} {value} (node '{names[0]}'{more})")
    return entries
