"""A module of the nn dialect -> ONNX ModelProto."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from typing import IO

import numpy as np
import onnx
from onnx import AttributeProto, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from graph_opt.dialects.effects import EFFECT_OPS
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.names import (
    argument_names,
    dim_names_of,
    op_result_names,
    result_names,
)
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.types import StringType
from graph_opt.entry import entry_function
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.attrs import onnx_attr
from graph_opt.formats.onnx.external_write import (
    ExternalData,
    needs_external_data,
    writing_external_data,
)
from graph_opt.formats.onnx.importer import (
    FUNCTIONS_ATTR,
    IR_VERSION_ATTR,
    OPSET_ATTR,
)
from graph_opt.formats.onnx.int8 import (
    fold_weight_transposes,
    has_integer_ops,
    qdq_copy,
)
from graph_opt.formats.onnx.op_table import exporter_of, load_mappings
from graph_opt.formats.onnx.stream import write_model
from graph_opt.formats.onnx.subgraphs import defined_names, outer_names, rename_outer
from graph_opt.formats.onnx.types import array_of, tensor_from_dense, value_info_for
from graph_opt.gc_pause import collector_paused
from graph_opt.remarks import warn
from graph_opt.rewriting.op_dispatch import walk_ops

DEFAULT_OPSET = 18
CONTRIB_DOMAIN = "com.microsoft"
"""onnxruntime's contrib ops (FusedConv, FusedGemm, BiasGelu, ...), opset version 1."""


class ExportBuilder:
    """What an nn op exporter sees: value names and helpers to emit nodes and initializers.

    With `contrib_ops`, exporters may write onnxruntime's com.microsoft ops
    where one expresses an nn op exactly (`contrib_node`)."""

    def __init__(
        self,
        opset: int,
        contrib_ops: bool = False,
        deferred_weights: dict[str, bytes] | None = None,
    ):
        self.opset = opset
        self.deferred_weights = deferred_weights
        """Where large weights go instead of the model (see onnx_stream)."""
        self.contrib_ops = contrib_ops
        self.domains: set[str] = set()
        """Domains of the nodes written by `contrib_node`, for the opset imports."""
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set()
        self.model = onnx.ModelProto()
        self.nodes = self.model.graph.node
        """Built in place (`add()`): a standalone NodeProto copied in by `extend`
        costs about three times the memory (docs/performance.md)."""
        self.initializers = self.model.graph.initializer
        """Filled in place: large weights are copied once, into the model."""
        self.counter = 0
        self.absorbed: set[Operation] = set()
        """Ops whose results an exporter of another op has written already."""
        self.superseded: set[str] = set()
        """Values whose readers an exporter bypassed: the nodes writing them are
        left out when nothing reads them any more."""

    def absorb(self, ops: Sequence[Operation]) -> None:
        """`ops` (later in the block) are computed by the node just written."""
        self.absorbed.update(ops)

    def supersede(self, values: Sequence[SSAValue]) -> None:
        """The node just written reads past `values` (to their producers' inputs)."""
        self.superseded.update(self.names[v] for v in values)

    def fresh(self, hint: str | None = None) -> str:
        if hint and hint not in self.taken:
            self.taken.add(hint)
            return hint
        base = hint or "v"
        while True:
            self.counter += 1
            name = f"{base}_{self.counter}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def name_results(self, op: Operation) -> None:
        """Name each result after its recorded name (unless it is a graph output, named already)."""
        names = self.names
        for result, hint in zip(op.results, op_result_names(op)):
            if result not in names:
                names[result] = self.fresh(hint)

    def name(self, value: SSAValue | str) -> str:
        return value if type(value) is str else self.names[value]

    def node(
        self,
        op_type: str,
        inputs: Sequence[SSAValue | str],
        outputs: Sequence[SSAValue | str],
        attrs: Sequence[AttributeProto] | Mapping[str, object] = (),
        domain: str = "",
    ) -> onnx.NodeProto:
        if attrs and type(attrs) is not list and isinstance(attrs, Mapping):
            attrs = self.attrs(**attrs)
        names = self.names
        out_names = [o if type(o) is str else names[o] for o in outputs]
        node = self.nodes.add()
        node.input.extend([i if type(i) is str else names[i] for i in inputs])
        node.output.extend(out_names)
        node.name = out_names[0] if out_names else self.fresh(op_type)
        node.op_type = op_type
        if domain:
            node.domain = domain
        if attrs:
            node.attribute.extend(attrs)
        return node

    def contrib_node(
        self,
        op_type: str,
        inputs: Sequence[SSAValue | str],
        outputs: Sequence[SSAValue | str],
        attrs: Sequence[AttributeProto] | Mapping[str, object] = (),
    ) -> onnx.NodeProto:
        """A node of onnxruntime's com.microsoft domain (only with `contrib_ops`)."""
        assert self.contrib_ops, "contrib ops are written only when asked for"
        self.domains.add(CONTRIB_DOMAIN)
        return self.node(op_type, inputs, outputs, attrs, CONTRIB_DOMAIN)

    def initializer(self, array: np.ndarray, hint: str = "const") -> str:
        name = self.fresh(hint)
        self.initializers.add().CopyFrom(
            onnx.numpy_helper.from_array(np.asarray(array), name)
        )
        return name

    @staticmethod
    def attrs(**values: object) -> list[AttributeProto]:
        return [
            onnx.helper.make_attribute(k, v) for k, v in values.items() if v is not None
        ]

    @staticmethod
    def props_to_attrs(props: Mapping[str, Attribute]) -> list[AttributeProto]:
        return [onnx_attr(k, v) for k, v in props.items()]

    @staticmethod
    def numpy_dtype(value: SSAValue) -> np.dtype:
        return numpy_dtype(value.type.element_type)  # type: ignore[attr-defined]

    @staticmethod
    def unsupported(op: Operation, reason: str):
        raise FrontendError(f"cannot export {op.name} to ONNX: {reason}")


def export_opaque(e: ExportBuilder, op: OpaqueOp) -> None:
    attrs = e.props_to_attrs(op.attrs.data) if op.attrs is not None else []
    operands = list(op.operands)
    implicit = op.implicit_inputs.value.data if op.implicit_inputs is not None else 0
    explicit, outer = (
        operands[: len(operands) - implicit],
        operands[len(operands) - implicit :],
    )
    if op.serialized_attrs is not None:
        holder = onnx.NodeProto()
        holder.ParseFromString(op.serialized_attrs.data)
        renames = {
            used: e.names[value]
            for used, value in zip(outer_names(holder.attribute), outer)
            if used != e.names[value]
        }
        rename_outer(holder.attribute, renames)
        attrs.extend(holder.attribute)
    absent = (
        set(op.absent_inputs.get_values()) if op.absent_inputs is not None else set()
    )
    present = iter(explicit)
    inputs: list[SSAValue | str] = [
        "" if i in absent else next(present) for i in range(len(explicit) + len(absent))
    ]
    domain = op.domain.data if op.domain is not None else ""
    outputs: list[SSAValue | str] = [
        "" if hint == "" and not result.uses else result
        for result, hint in zip(op.results, op_result_names(op))
    ]
    e.node(op.op_type.data, inputs, outputs, attrs, domain)


INTEGER_ARITHMETIC_OPS = frozenset(
    ("nn.qconv", "nn.qconv_transpose", "nn.qmatmul", "nn.rescale", "nn.qavg_pool")
)
"""convert-to-int's int8 arithmetic (TOSA's integer profile): exported in the QDQ
format (onnx_int8.py) where it has one."""
INTEGER_ARITHMETIC_HINT = (
    " (an int8 op with no QDQ form here: lower-to-tosa takes convert-to-int's int8 "
    "arithmetic, or export the fake-quantized graph quantize gives)"
)


def export_op(builder: ExportBuilder, op: Operation) -> None:
    """Emit one op (region ops export their regions through this too)."""
    if op in builder.absorbed:
        return
    if type(op) is ConstantOp:  # (its fields read directly: IRDL's accessors cost)
        (output,) = op.results
        if output.first_use is None:
            return  # nothing reads it: no initializer (onnxruntime would drop it, noisily)
        builder.name_results(op)
        value = op.properties["value"]
        if is_large_splat(value):
            export_large_splat(builder, op)
            return
        tensor_from_dense(
            builder.names[output],
            value,
            builder.initializers.add(),
            builder.deferred_weights,
        )
        return
    builder.name_results(op)
    if type(op) is OpaqueOp:
        if not is_tensorflow_effect(op):  # no ONNX form: dropped, said by export_module
            export_opaque(builder, op)
    elif (export := exporter_of(type(op))) is not None:
        export(builder, op)
    else:
        hint = INTEGER_ARITHMETIC_HINT if op.name in INTEGER_ARITHMETIC_OPS else ""
        raise FrontendError(f"cannot export {op.name} to ONNX: no ONNX form{hint}")


def is_large_splat(value: Attribute) -> bool:
    """A splat kept as one element whose expansion would pass the tensor limit."""
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return False
    size = len(value.data.data)
    if size != value.get_element_type().compile_time_size:
        return False  # more than one element: not kept as a splat
    from graph_opt.interpreter.limits import max_tensor_bytes

    count = math.prod(value.get_shape())
    return count > 1 and size * count > max_tensor_bytes()


def export_large_splat(builder: ExportBuilder, op: ConstantOp) -> None:
    """ONNX has no splat initializer: a ConstantOfShape of the value, which keeps
    the file (and the export's memory) small."""
    array = array_of(op.value)
    value = np.array(array[(0,) * array.ndim]).reshape(1)
    shape = builder.initializer(np.array(array.shape, np.int64), "shape")
    builder.node(
        "ConstantOfShape",
        [shape],
        [op.output],
        [onnx.helper.make_attribute("value", numpy_helper.from_array(value))],
    )


def export_module(
    module: ModuleOp,
    function: str | None = None,
    *,
    contrib_ops: bool = False,
    deferred_weights: dict[str, bytes] | None = None,
) -> onnx.ModelProto:
    """Convert the module's entry function to an ONNX model.

    ONNX is channels-first: a module with channels-last ops is exported from a
    copy that `convert-layout` moved to NCHW (transposes at the edges, cancelled
    between ops); the module itself is left as it is.

    With `contrib_ops`, fused ops that one of onnxruntime's com.microsoft ops
    computes exactly are written as it (FusedConv, FusedGemm, BiasGelu,
    FastGelu, Gelu, QuickGelu, packed Attention) and the model imports that
    domain; the model then runs on onnxruntime only. Other ops are written as
    standard nodes.

    With a `deferred_weights` dict, the raw bytes of large initializers are
    recorded there by name instead of copied into the model, for
    `onnx_stream.write_model` (`save_model` does both)."""
    with collector_paused():
        ops = list(_ops(module))  # walked once for the three looks below
        if has_integer_ops(ops):
            module = qdq_copy(module)
            ops = list(_ops(module))
        if has_channels_last_ops(ops):
            module = channels_first_copy(module)
            fold_weight_transposes(module)
            ops = list(_ops(module))
        model = _export_module(module, function, contrib_ops, deferred_weights)
    effects = [op for op in ops if is_tensorflow_effect(op)]
    if effects:
        kinds = sorted({op.op_type.data for op in effects})  # type: ignore[attr-defined]
        warn(
            f"ONNX has no form for TensorFlow's side effects: {len(effects)} ops "
            f"({', '.join(kinds)}) left out of the export"
        )
    return model


def is_tensorflow_effect(op: Operation) -> bool:
    """An Assert or print of a TensorFlow graph, or a string made for one."""
    return (
        type(op) is OpaqueOp
        and op.domain is not None
        and op.domain.data == "tf"
        and (op.op_type.data in EFFECT_OPS or _string_typed(op))
    )


def _string_typed(op: Operation) -> bool:
    return any(
        isinstance(getattr(r.type, "element_type", None), StringType)
        for r in op.results
    )


def has_channels_last_ops(ops: Iterable[Operation]) -> bool:
    return any(
        "data_layout" in op.properties
        and getattr(op.properties["data_layout"], "data", None) != CHANNELS_FIRST
        for op in ops
    )


def _ops(module: ModuleOp) -> Iterator[Operation]:
    """`module.walk()`, for less per op."""
    return walk_ops(module.body, reverse=False, region_first=False)


def channels_first_copy(module: ModuleOp) -> ModuleOp:
    from xdsl.context import Context

    from graph_opt.passes.convert_layout.convert_layout import ConvertLayoutPass

    copy = module.clone()
    ConvertLayoutPass(target=CHANNELS_FIRST).apply(Context(), copy)
    return copy


def save_model(
    module: ModuleOp,
    stream: IO[bytes],
    *,
    contrib_ops: bool = False,
    path: str | os.PathLike | None = None,
    external_data: ExternalData | None = None,
) -> None:
    """Write the module as an ONNX model to a binary stream, its weights
    written from the module's own bytes (see onnx_stream). `path`: the file
    the stream writes, beside which weights go to external data when the model
    passes protobuf's 2 GiB or `external_data` asks for it (see
    onnx_external_write); a model that cannot be written is refused."""
    deferred: dict[str, bytes] = {}
    model = export_module(module, contrib_ops=contrib_ops, deferred_weights=deferred)
    external_data = external_data or ExternalData()
    with ExitStack() as data_file:
        if needs_external_data(model, deferred, external_data):
            data_file.enter_context(
                writing_external_data(model, deferred, path, external_data)
            )
            if needs_external_data(model, deferred, ExternalData()):
                raise FrontendError(
                    "the model passes protobuf's 2 GiB limit even with its weights "
                    f"of {external_data.min_bytes} bytes or more in external data: "
                    "lower the threshold (--external-data-threshold)"
                )
        write_model(model, deferred, stream)
        stream.flush()  # (a full disk shows here, before the data file is replaced)


def _export_module(
    module: ModuleOp,
    function: str | None,
    contrib_ops: bool,
    deferred_weights: dict[str, bytes] | None,
) -> onnx.ModelProto:
    load_mappings()
    target = entry_function(module, function)
    opsets = {"": DEFAULT_OPSET}
    if isinstance(stored := module.attributes.get(OPSET_ATTR), DictionaryAttr):
        opsets = {k: v.value.data for k, v in stored.data.items()}  # type: ignore[attr-defined]
    builder = ExportBuilder(
        opsets.get("", DEFAULT_OPSET), contrib_ops, deferred_weights
    )
    block = target.body.blocks.first
    inputs = []
    arg_dims = dim_names_of(target.arg_attrs, len(block.args))
    for arg, name, dims in zip(block.args, argument_names(target), arg_dims):
        builder.names[arg] = builder.fresh(name)
        inputs.append(value_info_for(builder.names[arg], arg.type, dims))
    returned = list(block.last_op.operands) if block.last_op else []
    out_names = result_names(target)
    _reserve_names(builder, block, returned, out_names)
    for op in block.ops:
        if type(op) is not func.ReturnOp:
            export_op(builder, op)
    outputs = []
    result_dims = dim_names_of(target.res_attrs, len(returned))
    for value, name, dims in zip(returned, out_names, result_dims):
        if builder.names[value] != name:
            builder.node("Identity", [value], [name])
        outputs.append(value_info_for(name, value.type, dims))
    for domain in sorted(builder.domains - set(opsets)):
        opsets[domain] = 1
    opset_ids = [onnx.helper.make_opsetid(d, v) for d, v in opsets.items()]
    ir_version = module.attributes.get(IR_VERSION_ATTR)
    if isinstance(ir_version, IntegerAttr):
        ir_version = ir_version.value.data
    else:
        ir_version = onnx.helper.find_min_ir_version_for(opset_ids, True)
    if ir_version < 4:  # initializers had to be graph inputs too
        inputs += [
            onnx.helper.make_tensor_value_info(t.name, t.data_type, t.dims)
            for t in builder.initializers
        ]
    model = builder.model
    _drop_superseded_nodes(builder, outputs)
    _drop_unread_initializers(builder, outputs)
    model.graph.name = "main"
    model.graph.input.extend(inputs)
    model.graph.output.extend(outputs)
    model.opset_import.extend(opset_ids)
    model.producer_name = "graph-opt"
    model.ir_version = ir_version
    if isinstance(functions := module.attributes.get(FUNCTIONS_ATTR), ArrayAttr):
        for data in functions.data:
            model.functions.add().ParseFromString(data.data)  # type: ignore[attr-defined]
    return model


def _read_names(builder: ExportBuilder, outputs: list[onnx.ValueInfoProto]) -> set[str]:
    read = {o.name for o in outputs}
    for node in builder.nodes:
        read.update(node.input)
        if node.attribute:
            read.update(outer_names(node.attribute))
    return read


def _drop_superseded_nodes(
    builder: ExportBuilder, outputs: list[onnx.ValueInfoProto]
) -> None:
    """Leave out the nodes writing superseded values that nothing reads, and
    then the nodes that only they read."""
    pending = builder.superseded
    while pending:
        read = _read_names(builder, outputs)
        dropped = [
            node
            for node in builder.nodes
            if any(o in pending for o in node.output)
            and not any(o in read for o in node.output)
        ]
        if not dropped:
            return
        pending = {i for node in dropped for i in node.input if i}
        _delete(builder.nodes, dropped)


def _drop_unread_initializers(
    builder: ExportBuilder, outputs: list[onnx.ValueInfoProto]
) -> None:
    """Leave out initializers no node reads, such as a weight that an exporter
    replaced by a copy (a fake quantization's clamped weights)."""
    read = _read_names(builder, outputs)
    initializers = builder.initializers
    if all(t.name in read for t in initializers):
        return
    _delete(initializers, [t for t in initializers if t.name not in read])


def _delete(repeated, doomed: list) -> None:
    """Delete `doomed` (elements of the repeated field) in place, keeping the order."""
    ids = {id(x) for x in doomed}
    for i in reversed([i for i, x in enumerate(repeated) if id(x) in ids]):
        del repeated[i]


def _reserve_names(
    builder: ExportBuilder,
    block: Block,
    returned: list[SSAValue],
    out_names: list[str],
) -> None:
    """Give returned values their output names, and keep names that subgraphs define."""
    for op in block.ops:
        if type(op) is OpaqueOp and op.serialized_attrs is not None:
            holder = onnx.NodeProto()
            holder.ParseFromString(op.serialized_attrs.data)
            builder.taken |= defined_names(holder.attribute)
    builder.taken.update(out_names)
    for value, name in zip(returned, out_names):
        if value not in builder.names:
            builder.names[value] = name
