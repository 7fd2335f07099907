"""Export of convert-to-int's int8 graphs as .tflite flatbuffers, in the form
TF's converter gives the same QAT graphs: CONV_2D, DEPTHWISE_CONV_2D and
FULLY_CONNECTED with int8 filters (per-channel scales) and int32 biases, ADD
and MEAN on int8 tensors, QUANTIZE and DEQUANTIZE at float boundaries.

Each int8 tensor's scale and zero point are those convert-to-int recorded
(`nn.quantization` on the op computing it, the arguments and results of
`integer-io`, nn.quantize's own); the i32 ops between the int8 ones (nn.qconv,
its nn.rescale and clamp; the widening rescales of an integer add or mean)
become the one TFLite operator that computes them (layers.py; the
other ops, one operator each, ops.py). An op
with no TFLite form is refused in one line naming it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.names import argument_names, op_result_names, result_names
from graph_opt.dialects.nn.qint import QuantizeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.entry import entry_function
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tflite.flatbuffer import Graph, Operator, Tensor, serialize
from graph_opt.quantization.boundary import QUANTIZATION_ATTR
from graph_opt.quantization.runtime_recipes import module_recipe
from graph_opt.quantization.tensor_quantization import (
    TensorQuantization,
    quantization_of_dict,
    recorded_quantization,
)

InputStats = tuple[float, float]
"""(mean, std) of an integer input, as tflite_convert's --mean_values and
--std_dev_values: real = (q - mean) / std."""


class TFLiteExporter:
    """One function's ops as a TFLite subgraph."""

    def __init__(self, function: func.FuncOp, recipe: str | None = None):
        self.function = function
        self.recipe = recipe
        """The runtime recipe convert-to-int followed (nn.int8_recipe), if any."""
        self.graph = Graph()
        self.tensors: dict[SSAValue, int] = {}
        self.done: set[Operation] = set()
        """Ops already written as part of an earlier op's operator."""

    def fail(self, op: Operation, why: str) -> FrontendError:
        name = next((n for n in op_result_names(op) if n), None)
        where = f"{op.name} %{name}" if name else op.name
        return FrontendError(f"tflite export: {where}: {why}")

    def name_of(self, value: SSAValue) -> str:
        if isinstance(value, BlockArgument):
            return argument_names(self.function)[value.index]
        names = op_result_names(value.owner)
        return names[value.index] or f"tensor_{len(self.graph.tensors)}"

    def quantization(self, value: SSAValue) -> TensorQuantization | None:
        """The scale and zero point of an integer value, as convert-to-int recorded them."""
        if isinstance(value, BlockArgument):
            attrs = self.function.arg_attrs
            entry = (
                attrs.data[value.index].data.get(QUANTIZATION_ATTR) if attrs else None
            )
            return None if entry is None else quantization_of_dict(entry)  # type: ignore[arg-type]
        owner = value.owner
        if isinstance(owner, QuantizeOp):
            return TensorQuantization(owner.scales, int(owner.zero_points[0]))
        return recorded_quantization(owner)

    def add_tensor(
        self,
        value: SSAValue,
        quantization: TensorQuantization | None = None,
        name: str | None = None,
    ) -> int:
        """A new activation tensor for `value`, its quantization read from the graph
        unless given; refused for an integer value whose scale is not recorded."""
        t = ranked(value)
        where = value.owner if isinstance(value.owner, Operation) else self.function
        if t is None or DYN in t.get_shape():
            raise self.fail(where, f"needs a static shape, got {value.type}")
        dtype = np.dtype(numpy_dtype(t.element_type))
        if quantization is None and isinstance(t.element_type, IntegerType):
            quantization = self.quantization(value)
            if quantization is None and dtype.itemsize == 1:
                raise self.fail(
                    where,
                    "no scale recorded for this int8 value (convert-to-int records them)",
                )
        index = self.graph.add(
            Tensor(
                name or self.name_of(value), tuple(t.get_shape()), dtype, quantization
            )
        )
        self.tensors[value] = index
        return index

    def constant(
        self,
        data: np.ndarray,
        name: str,
        quantization: TensorQuantization | None = None,
    ) -> int:
        data = np.asarray(data, order="C")  # (0-d stays a scalar)
        return self.graph.add(Tensor(name, data.shape, data.dtype, quantization, data))

    def tensor(self, value: SSAValue) -> int:
        """The tensor of an operand: written before, or a constant."""
        if value in self.tensors:
            return self.tensors[value]
        data = constant_value(value)
        if data is None:
            raise FrontendError(
                f"tflite export: {self.name_of(value)} is not computed before use"
            )
        index = self.constant(data, self.name_of(value), self.quantization(value))
        self.tensors[value] = index
        return index

    def emit(
        self,
        code: str,
        inputs: list[int],
        outputs: list[int],
        options: tuple[str, dict] | None = None,
        version: int = 1,
    ) -> None:
        self.graph.operators.append(Operator(code, inputs, outputs, options, version))

    def export(self, input_stats: Sequence[InputStats | None] | None) -> Graph:
        from graph_opt.formats.tflite.ops import write_op

        self._inputs(input_stats or ())
        for op in self.function.body.block.ops:
            if op in self.done or isinstance(op, ConstantOp):
                continue
            if isinstance(op, func.ReturnOp):
                self._outputs(op)
                continue
            write_op(self, op)
        return self.graph

    def _inputs(self, input_stats: Sequence[InputStats | None]) -> None:
        args = self.function.body.block.args
        if len(input_stats) > len(args):
            raise FrontendError(
                f"tflite export: {len(input_stats)} input stats for {len(args)} inputs"
            )
        for arg in args:
            stats = input_stats[arg.index] if arg.index < len(input_stats) else None
            if stats is None:
                self.graph.inputs.append(self.add_tensor(arg))
                continue
            self.graph.inputs.append(self._input_with_stats(arg, stats))

    def _input_with_stats(self, arg: BlockArgument, stats: InputStats) -> int:
        """The input read as real = (q - mean) / std, requantized (QUANTIZE) to the
        graph's parameters when they differ, as TF's converter does."""
        mean, std = stats
        name = argument_names(self.function)[arg.index]
        inner = self.quantization(arg)
        dtype = np.dtype(numpy_dtype(ranked(arg).element_type))  # type: ignore[union-attr]
        if inner is None or not std > 0 or mean != round(mean):
            raise FrontendError(
                f"tflite export: input {name}: mean/std need an integer input "
                "(convert-to-int{integer-io=true}), an integer mean and std > 0"
            )
        if not np.iinfo(dtype).min <= mean <= np.iinfo(dtype).max:
            raise FrontendError(
                f"tflite export: input {name}: mean {mean:g} is not a {dtype} value"
            )
        given = TensorQuantization(np.array([1 / std], np.float32), int(mean))
        outer = self.add_tensor(arg, given, name)
        if (
            np.array_equal(given.scales, inner.scales)
            and given.zero_point == inner.zero_point
        ):
            return outer
        requantized = self.add_tensor(arg, inner, f"{name}_requantized")
        self.emit("QUANTIZE", [outer], [requantized], version=2)
        return outer

    def _outputs(self, ret: func.ReturnOp) -> None:
        names = result_names(self.function)
        for index, value in enumerate(ret.operands):
            tensor = self.tensor(value)
            self.graph.tensors[tensor].name = names[index]
            self.graph.outputs.append(tensor)


def tflite_bytes(
    module: ModuleOp, input_stats: Sequence[InputStats | None] | None = None
) -> bytes:
    """The module's entry function as a .tflite model."""
    try:
        function = entry_function(module)
    except ValueError as e:
        raise FrontendError(f"tflite export: {e}") from e
    exporter = TFLiteExporter(function, module_recipe(module))
    return serialize(exporter.export(input_stats))


def parse_input_stats(texts: Sequence[str]) -> list[InputStats]:
    """`MEAN,STD` texts (--tflite-input-stats) as (mean, std) pairs."""
    stats = []
    for text in texts:
        try:
            mean, std = (float(part) for part in text.split(","))
        except ValueError:
            raise FrontendError(
                f"--tflite-input-stats takes MEAN,STD (two numbers), not {text!r}"
            ) from None
        stats.append((mean, std))
    return stats
