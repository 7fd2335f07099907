"""nn.opaque evaluated by onnx's reference implementation of the operator.

The op is exported to an ONNX node and run by `onnx.reference`, so this table
of the interpreter lives with the ONNX format; interpreter/registry.py lists it
with the others (a registration table: the one import from the interpreter up
to the formats)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx
from onnx import numpy_helper
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.interpreter.limits import check_size, static_size
from graph_opt.interpreter.loop_limits import LoopTooLong, loop_name
from graph_opt.interpreter.onnx_loop import bounded_loop
from graph_opt.interpreter.onnx_overrides import reference_overrides

if TYPE_CHECKING:
    from onnx.reference import ReferenceEvaluator


def _opset(op: OpaqueOp) -> list[onnx.OperatorSetIdProto]:
    module = op.get_toplevel_object()
    stored = (
        module.attributes.get("nn.onnx_opset_import")
        if isinstance(module, ModuleOp)
        else None
    )
    if stored is None:
        return [onnx.helper.make_opsetid("", 18)]
    return [
        onnx.helper.make_opsetid(d, v.value.data)
        for d, v in stored.data.items()  # type: ignore[attr-defined]
        if isinstance(v, IntegerAttr)
    ]


@register_impls
class OpaqueFunctions(InterpreterFunctions):
    @impl(OpaqueOp)
    def run_opaque(self, interpreter: Interpreter, op: OpaqueOp, args):
        if op.domain is not None and op.domain.data == "tf":
            return _run_tensorflow_effect(op, args)
        from graph_opt.formats.onnx.exporter import ExportBuilder, export_opaque

        builder = ExportBuilder(opset=0)
        for i, value in enumerate(op.operands):
            builder.names[value] = f"in{i}"
        for i, value in enumerate(op.results):
            builder.names[value] = f"out{i}"
        export_opaque(builder, op)
        _name_left_out_outputs(builder.nodes[-1])
        graph = onnx.helper.make_graph(
            builder.nodes,
            "opaque",
            [_input_info(f"in{i}", arg) for i, arg in enumerate(args)],
            [
                onnx.helper.make_empty_tensor_value_info(f"out{i}")
                for i in range(len(op.results))
            ],
        )
        model = onnx.helper.make_model(graph, opset_imports=_opset(op))
        _check_inferred_sizes(op, model, args)  # declared types may be wrong
        try:
            outputs = _evaluator(model, loop_name(op)).run(
                None, {f"in{i}": a for i, a in enumerate(args)}
            )
        except LoopTooLong:
            raise
        except Exception as e:  # the reference evaluator raises many types
            raise InterpretationError(f"{op.op_type.data}: {e}") from e
        _check_declared_shapes(op, outputs)
        return tuple(outputs)


def _input_info(name: str, arg) -> onnx.ValueInfoProto:
    """A graph input of the argument's element type: the function bodies of
    some operators depend on it (GroupNormalization at opset 21)."""
    try:
        elem = onnx.helper.np_dtype_to_tensor_dtype(arg.dtype)
    except (AttributeError, KeyError, TypeError, ValueError):
        return onnx.helper.make_empty_tensor_value_info(name)  # not a tensor
    return onnx.helper.make_tensor_value_info(name, elem, None)


def _name_left_out_outputs(node: onnx.NodeProto) -> None:
    """Name the optional outputs the exporter leaves out (unused ones: an RNN's
    Y where only Y_h is read), which the interpreter returns too."""
    for index, name in enumerate(node.output):
        if name == "":
            node.output[index] = f"out{index}"


def _check_declared_shapes(op: OpaqueOp, outputs: list) -> None:
    """Refuse results whose shape contradicts the op's static result type."""
    for index, (result, output) in enumerate(zip(op.results, outputs)):
        known = static_size(result.type)
        if known is not None and list(np.shape(output)) != known[0]:
            raise InterpretationError(
                f"{op.op_type.data} gave result {index} the shape "
                f"{list(np.shape(output))}, not the {result.type} it declares"
            )


SHAPE_DATA_ELEMENTS = 64
"""Inputs up to this size are shown to shape inference (shapes, axes, repeats)."""


def _check_inferred_sizes(op: OpaqueOp, model: onnx.ModelProto, args) -> None:
    """Refuse, before running it, an op whose result onnx's shape inference
    (with the small inputs' values) finds above the tensor limit."""
    typed = onnx.ModelProto()
    typed.CopyFrom(model)
    graph = typed.graph
    del graph.input[:]
    for i, arg in enumerate(args):
        if not isinstance(arg, np.ndarray | np.generic):
            return  # a sequence (its items may differ in shape) or an optional
        array = np.asarray(arg)
        if array.dtype == object:
            return
        if array.size <= SHAPE_DATA_ELEMENTS:
            graph.initializer.append(numpy_helper.from_array(array, f"in{i}"))
        else:
            elem = onnx.helper.np_dtype_to_tensor_dtype(array.dtype)
            graph.input.append(
                onnx.helper.make_tensor_value_info(f"in{i}", elem, array.shape)
            )
    try:
        inferred = onnx.shape_inference.infer_shapes(typed, data_prop=True)
    except Exception:  # shape inference rejects what the evaluator reports better
        return
    for output in inferred.graph.output:
        tensor = output.type.tensor_type
        dims = [
            d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim
        ]
        if tensor.HasField("shape") and None not in dims and tensor.elem_type:
            dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
            check_size(op, dims, dtype)


def _evaluator(model: onnx.ModelProto, what: str) -> ReferenceEvaluator:
    """onnx's evaluator of the model (its loops bounded, named by `what`; the
    kernels of `onnx_overrides` instead of its own), at the newest opset when
    it implements the op only from a later version than the model's (the same
    computation)."""
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference import ReferenceEvaluator

    new_ops = [bounded_loop(what), *reference_overrides()]
    try:
        return ReferenceEvaluator(model, new_ops=new_ops)
    except RuntimeError as e:
        if "No implementation for operator" not in str(e):
            raise
        for opset in model.opset_import:
            if opset.domain in ("", "ai.onnx"):
                opset.version = onnx.defs.onnx_opset_version()
        return ReferenceEvaluator(model, new_ops=new_ops)


def _run_tensorflow_effect(op: OpaqueOp, args) -> tuple:
    """TensorFlow's side effects (graph_opt/dialects/effects.py): an Assert
    whose condition fails stops the run, as in TensorFlow; prints print nothing
    and strings are empty (the reference interpreter computes tensors)."""
    op_type = op.op_type.data
    if op_type == "Assert":
        if not np.all(args[0]):
            raise InterpretationError(f"TensorFlow Assert failed at {op.location}")
        return ()
    if op_type in ("Print", "PrintV2"):
        return ()
    if op_type in ("Const", "StringFormat"):
        shape = getattr(op.results[0].type, "shape", None)
        dims = [d.data for d in shape.data] if shape is not None else []
        return (np.full(dims, "", dtype=object),)
    raise InterpretationError(f"no implementation of TensorFlow's {op_type}")
