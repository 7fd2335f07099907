"""What onnxruntime would refuse to load, refused before import with one line.

Four checks, on the weight-free copy of the model that shape inference reads
anyway (`onnx_import._weight_free`, nodes in topological order; the model
itself when it has no large weights):

- the ai.onnx opset is one onnxruntime implements (7 to onnx's newest), and the
  graph has an output;
- onnx's checker (`onnx.checker.check_model` without its full check): SSA form,
  every input defined, known operators and attributes, well-formed tensors and
  subgraphs. The checker also requires every graph input and output to declare a
  shape and type, which onnxruntime does not: it sees placeholders, removed after;
- strict type inference (`infer_shapes(check_type=True, strict_mode=True)`):
  an input of a type its operator does not accept (a STRING initializer added to
  floats, Reshape's inputs swapped), an element type that contradicts a declared
  one. A declared shape that inference contradicts is not an error: onnxruntime
  merges such shapes leniently, with a warning;
- integer Div and Mod by a constant divisor holding a zero (onnxruntime's
  kernels refuse the model when they are created).

The inference's types are returned, so that validation costs the import one
inference it would mostly run anyway.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import TensorProto
from onnx.onnx_cpp2py_export import shape_inference as onnx_shape_inference

from graph_opt.formats.errors import FrontendError

MIN_OPSET = 7
"""The oldest ai.onnx opset onnxruntime implements."""

LENIENT_INFERENCE_ERRORS = (
    "Inferred shape and existing shape differ",
    "Inference error(s)",
    "during data propagation",
)
"""Inference errors onnxruntime does not make: a declared shape inference
contradicts (onnxruntime merges them, with a warning), errors inside the
expansion of a function op (onnx 1.23 expands MeanVarianceNormalization-13 into
an invalid Constant; onnxruntime runs its own kernel), and integer overflow
while onnx propagates constant values (int64 arithmetic wraps in onnxruntime;
a shape it makes is checked by the op's own type rule)."""

_INTEGER_TYPES = frozenset(
    [
        TensorProto.INT8,
        TensorProto.INT16,
        TensorProto.INT32,
        TensorProto.INT64,
        TensorProto.UINT8,
        TensorProto.UINT16,
        TensorProto.UINT32,
        TensorProto.UINT64,
    ]
)


def check_opsets(model: onnx.ModelProto) -> None:
    opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
    version = opsets.get("ai.onnx")
    newest = onnx.defs.onnx_opset_version()
    if version is not None and not MIN_OPSET <= version <= newest:
        raise FrontendError(
            f"the model imports ai.onnx opset {version}; onnxruntime and onnx "
            f"implement opsets {MIN_OPSET} to {newest} (onnx.version_converter "
            "converts a model to another opset)"
        )
    if not model.graph.output:
        raise FrontendError("the graph has no outputs")


def check_structure(light: onnx.ModelProto) -> bytes:
    """onnx's checker on the weight-free copy, but for what it requires and
    onnxruntime does not: a shape on every graph input and output, a type on
    every output and value_info (the checker sees placeholders, removed after).
    Returns the copy serialized (as `infer_checked` reads it)."""
    graph = light.graph
    shapeless = [
        info.type.tensor_type
        for info in [*graph.input, *graph.output, *graph.value_info]
        if info.type.HasField("tensor_type")
        and not info.type.tensor_type.HasField("shape")
    ]
    typeless = [
        info for info in [*graph.output, *graph.value_info] if not info.HasField("type")
    ]
    for tensor_type in shapeless:
        tensor_type.shape.SetInParent()  # declared, of rank 0 to the checker only
    if not shapeless and not typeless:  # the checker reads what inference will
        serialized = light.SerializeToString()
        _check(light, serialized)
        return serialized
    for info in typeless:
        info.type.tensor_type.elem_type = TensorProto.FLOAT
        info.type.tensor_type.shape.SetInParent()
    try:
        _check(light, light.SerializeToString())
    finally:
        for tensor_type in shapeless:
            tensor_type.ClearField("shape")
        for info in typeless:
            info.ClearField("type")
    return light.SerializeToString()


def _check(light: onnx.ModelProto, serialized: bytes) -> None:
    error = _checker_error(serialized)
    if error is None:
        return
    if _nameless_nodes(light.graph):  # say which node: name them and check again
        error = _checker_error(_named_copy(light)) or error
    raise FrontendError(f"invalid model: {_checker_message(error)}")


def _checker_error(model: onnx.ModelProto | bytes) -> str | None:
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as e:
        return str(e)
    return None


def _checker_message(text: str) -> str:
    reason, _, context = text.partition("==> Context:")
    reason = " ".join(reason.split())
    undefined = re.search(  # the nodes are in order: the input is defined nowhere
        r"input '([^']*)' of node: name: (\S*) OpType: (\S+) is not output", reason
    )
    if undefined and not context:
        value, name, op_type = undefined.groups()
        return f"node '{name}' ({op_type}) uses undefined value '{value}'"
    found = re.search(r"Name: (\S*) OpType: (\S+)", context)
    if found:
        return f"node '{found[1]}' ({found[2]}): {reason}"
    return reason


def infer_checked(
    light: onnx.ModelProto, data_prop: bool, serialized: bytes | None = None
) -> bytes | None:
    """The model with inferred types, serialized (parsing it back costs as much
    memory as the model, and most imports never read it), or None when strict
    inference stopped on lenient errors only; raises a FrontendError for the
    first strict one. `serialized`: `light` serialized, if the caller has it."""
    if serialized is None:
        serialized = light.SerializeToString()
    try:
        # onnx's compiled inference, bytes to bytes (onnx.shape_inference's
        # infer_shapes wraps it and parses the result)
        return onnx_shape_inference.infer_shapes(serialized, True, True, data_prop)
    except onnx.shape_inference.InferenceError as e:
        errors = _strict_errors(str(e))
        if not errors:
            return None
    if _nameless_nodes(light.graph):  # say which node: name them and infer again
        try:
            onnx.shape_inference.infer_shapes(
                _named_copy(light),
                check_type=True,
                strict_mode=True,
                data_prop=data_prop,
            )
        except onnx.shape_inference.InferenceError as e:
            errors = _strict_errors(str(e)) or errors
    raise FrontendError(f"invalid model: {errors[0]}")


def _strict_errors(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    outer = "[ShapeInferenceError] Inference error(s):"
    if lines and lines[0].startswith(outer):
        lines[0] = lines[0].removeprefix(outer)
    return [
        _inference_message(line)
        for line in lines
        if not any(lenient in line for lenient in LENIENT_INFERENCE_ERRORS)
    ]


def _inference_message(line: str) -> str:
    """`node 'n' (Reshape): reason` from `(op_type:Reshape, node name: n): [...] reason`."""
    found = re.match(
        r"\s*(?:\[\w+\]\s*)?\(op_type:(\w+)(?:, node name: ([^)]*))?\):\s*(.*)", line
    )
    if not found:
        return line
    op_type, name, reason = found.groups()
    reason = re.sub(r"^\[\w+\]\s*", "", reason)
    if "elem type" in reason:  # element types by name, not by enum number
        reason = re.sub(r"\((\d+)\)", lambda m: f"({_type_name(int(m[1]))})", reason)
    label = f"node '{name}' ({op_type})" if name else f"a {op_type} node"
    return f"{label}: {reason}"


def _type_name(number: int) -> str:
    try:
        return onnx.helper.tensor_dtype_to_string(number).removeprefix("TensorProto.")
    except (KeyError, ValueError):
        return str(number)


def _nameless_nodes(graph: onnx.GraphProto) -> bool:
    return any(not node.name for node in graph.node)


def _named_copy(light: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `light` (which may be the caller's model) whose nameless nodes
    are named as the importer names them: by their first output."""
    named = onnx.ModelProto()
    named.CopyFrom(light)
    for node in named.graph.node:
        if not node.name:
            node.name = next((o for o in node.output if o), node.op_type)
    return named


def check_integer_divisors(
    graph: onnx.GraphProto,
    nodes: Sequence[onnx.NodeProto],
    mapped: Mapping[str, object] = {},
) -> None:
    """Integer Div and Mod by a constant holding a zero, as onnxruntime refuses
    them (`mapped`: the bytes of initializers held outside their tensors)."""
    divisions = [
        n
        for n in nodes
        if n.op_type in ("Div", "Mod")
        and n.domain in ("", "ai.onnx")
        and len(n.input) > 1
    ]
    if not divisions:
        return
    inputs = {i.name for i in graph.input}
    constants = {t.name: t for t in graph.initializer if t.name not in inputs}
    for node in nodes:
        if node.op_type == "Constant" and node.output and node.attribute:
            value = node.attribute[0]
            if value.name == "value" and value.type == onnx.AttributeProto.TENSOR:
                constants[node.output[0]] = value.t
    for node in divisions:
        divisor = constants.get(node.input[1])
        if divisor is None or divisor.data_type not in _INTEGER_TYPES:
            continue
        if divisor.name in mapped:
            dtype = onnx.helper.tensor_dtype_to_np_dtype(divisor.data_type)
            values = np.frombuffer(mapped[divisor.name], dtype)
        else:
            values = onnx.numpy_helper.to_array(divisor)
        if not np.all(values):
            what = "division" if node.op_type == "Div" else "modulo"
            label = node.name or node.output[0]
            raise FrontendError(
                f"node '{label}' ({node.op_type}): integer {what} by zero "
                f"(its divisor '{node.input[1]}' holds a zero)"
            )
