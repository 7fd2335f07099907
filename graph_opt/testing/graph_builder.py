"""Build nn-dialect test graphs op by op: one `func.func @main` in a module, with
seeded random float32 constants and inputs.

    g = ModuleBuilder((1, 3, 8, 8), seed=0)
    y = g.batch_norm(g.op(ConvOp, g.x, g.random(4, 3, 3, 3)), 4)
    module = g.module(g.op(ReluOp, y))
    outputs = run_function(module, g.inputs())

`FakeQuantBuilder` adds fake-quantized activations and weights for the
quantization passes; `run_op` evaluates one op on numpy arrays.
(`model_zoo.GraphBuilder` builds ONNX models instead.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, f32
from xdsl.ir import Attribute, Block, Region, SSAValue

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.dtypes import element_type
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.interpreter import run_function
from graph_opt.quantization.fake_quant_math import nudge


def props(**values: int | float | str | tuple[int, ...]) -> dict[str, Attribute]:
    """Properties as the ops expect them: int → i64, float → f32, str, tuple → i64 array."""
    converters = {int: i64_attr, float: f32_attr, str: str_attr, tuple: i64_array}
    return {k: converters[type(v)](v) for k, v in values.items()}


def run_op(
    cls,
    inputs: Sequence[np.ndarray],
    properties: dict[str, Attribute] | None = None,
    result_type: Attribute | None = None,
) -> np.ndarray:
    """Evaluate one op of `cls`, whose operands are all function inputs, on `inputs`
    in the interpreter; its result type is inferred unless `result_type` is given."""
    block = Block(
        arg_types=[TensorType(element_type(a.dtype), a.shape) for a in inputs]
    )
    op = cls.create_inferred(
        list(block.args),
        properties or {},
        None if result_type is None else [result_type],
    )
    block.add_ops([op, func.ReturnOp(op.results[0])])
    function_type = FunctionType.from_lists(
        [a.type for a in block.args], [op.results[0].type]
    )
    module = ModuleOp([func.FuncOp("main", function_type, Region(block))])
    module.verify()
    return run_function(module, list(inputs))[0]


class ModuleBuilder:
    """A one-function module (`@main`, float32 inputs of `input_shapes`) built op by op.

    Every random value comes from one generator seeded with `seed`, in call order,
    so a graph and its `inputs()` are the same on every run.
    """

    def __init__(self, *input_shapes: tuple[int, ...], seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.input_shapes = input_shapes
        self.block = Block(arg_types=[TensorType(f32, s) for s in input_shapes])

    @property
    def args(self) -> tuple[SSAValue, ...]:
        """The function's inputs."""
        return self.block.args

    @property
    def x(self) -> SSAValue:
        """The first input."""
        return self.block.args[0]

    def const(self, values, dtype: type = np.float32) -> SSAValue:
        """A constant of `values` as `dtype` (float32 unless told)."""
        op = ConstantOp.from_array(np.asarray(values, dtype=dtype))
        self.block.add_op(op)
        return op.output

    def const_i64(self, values) -> SSAValue:
        return self.const(values, np.int64)

    def random(self, *shape: int) -> SSAValue:
        """A float32 constant drawn from the standard normal."""
        return self.const(self.rng.standard_normal(shape))

    def op(self, cls, *operands: SSAValue, **properties: Attribute):
        """Append `cls` with inferred result types; its result, or all of them if more than one."""
        op = cls.create_inferred(list(operands), properties)
        self.block.add_op(op)
        return op.results[0] if len(op.results) == 1 else op.results

    def conv(
        self,
        x: SSAValue,
        c_in: int,
        c_out: int,
        k: int = 3,
        *,
        layout: str = CHANNELS_FIRST,
        **properties: Attribute,
    ) -> SSAValue:
        """A `k`x`k` SAME_UPPER-padded conv with random filter (OIHW, or HWIO for
        NHWC) and bias; `properties` override the defaults."""
        shape = (c_out, c_in, k, k) if layout == CHANNELS_FIRST else (k, k, c_in, c_out)
        w = self.random(*shape)
        properties = {
            "data_layout": str_attr(layout),
            "auto_pad": str_attr("SAME_UPPER"),
            **properties,
        }
        return self.op(ConvOp, x, w, self.random(c_out), **properties)

    def batch_norm(
        self, x: SSAValue, channels: int, **properties: Attribute
    ) -> SSAValue:
        """A batch norm with random scale (0.5 to 1.5), bias, mean and variance (0.5 to 2)."""
        params = [
            self.rng.uniform(0.5, 1.5, channels),
            self.rng.standard_normal(channels),
            self.rng.standard_normal(channels),
            self.rng.uniform(0.5, 2.0, channels),
        ]
        return self.op(BatchNormOp, x, *map(self.const, params), **properties)

    def module(self, *results: SSAValue) -> ModuleOp:
        """Return `results` from `@main` and the verified module; call it once."""
        self.block.add_op(func.ReturnOp(*results))
        function_type = FunctionType.from_lists(
            [a.type for a in self.block.args], [r.type for r in results]
        )
        module = ModuleOp([func.FuncOp("main", function_type, Region(self.block))])
        module.verify()
        return module

    def inputs(self) -> list[np.ndarray]:
        """One random float32 array per input."""
        return [
            self.rng.standard_normal(s).astype(np.float32) for s in self.input_shapes
        ]

    def input_sets(self, count: int = 3) -> list[list[np.ndarray]]:
        """`count` sets of `inputs()`."""
        return [self.inputs() for _ in range(count)]


class FakeQuantBuilder(ModuleBuilder):
    """A module of fake-quantized float ops; `output_scale` is the step of the
    last activation fake quant, the unit in which converted results are compared."""

    def __init__(self, *input_shapes: tuple[int, ...], seed: int = 0):
        super().__init__(*input_shapes, seed=seed)
        self.output_scale = 0.0

    def act(self, x: SSAValue, low: float, high: float, **kwargs) -> SSAValue:
        """A per-tensor activation fake quant; the range is jittered to get odd zero points."""
        low = low * self.rng.uniform(0.9, 1.1)
        high = high * self.rng.uniform(0.9, 1.1)
        properties = fake_quant_props([low], [high], **kwargs)
        self.output_scale = float(nudge([low], [high], 8, False).scale[0])
        return self.op(FakeQuantOp, x, **properties)

    def weights(self, shape: Sequence[int], axis: int | None) -> SSAValue:
        """Fake-quantized weights: symmetric narrow range, per tensor or per channel."""
        fan_in = int(np.prod(shape)) // shape[axis if axis is not None else 0]
        w = self.rng.standard_normal(shape) / np.sqrt(fan_in)
        reduce = tuple(i for i in range(len(shape)) if i != axis)
        bound = np.abs(w).max(axis=reduce) if axis is not None else np.abs(w).max()
        bound = np.atleast_1d(bound)
        properties = fake_quant_props(-bound, bound, narrow_range=True, axis=axis)
        return self.op(FakeQuantOp, self.const(w), **properties)

    def bias(self, channels: int) -> SSAValue:
        """Small random float32 biases."""
        return self.const(self.rng.standard_normal(channels) * 0.1)
