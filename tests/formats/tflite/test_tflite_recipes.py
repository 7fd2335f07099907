"""convert-to-int{recipe=...}: the exported .tflite is bit-identical to
graph-opt's interpreter in the runtime each recipe follows (xnnpack: the
default interpreter; tflite-builtin: the builtin kernels without delegate;
tflite-reference: BUILTIN_REF), on many inputs. Under the default recipe
these models differ in each of TFLite's kernel sets, and the residual adds
in XNNPACK too (checked below)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from graph_opt import api
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.formats.tflite.exporter import tflite_bytes
from graph_opt.testing.graph_builder import FakeQuantBuilder
from graph_opt.testing.quantized_blocks import (
    conv_props,
    conv_weights,
    mobilenet_block,
    resnet_block,
)
from graph_opt.testing.tflite_runtime import differing_values

pytest.importorskip("tflite")  # the schema package of graph-opt[tflite]
pytest.importorskip("tensorflow")  # its interpreter (dev time)

INPUTS = 48
RECIPES = ["xnnpack", "tflite-builtin", "tflite-reference"]


def residual_adds(seed: int) -> ModuleOp:
    """x + conv(x) on 2048 values: ADD's rounding shows on many of them."""
    g = FakeQuantBuilder((1, 16, 16, 8), seed=seed)
    x = g.act(g.block.args[0], -3.0, 3.0)
    w = conv_weights(g, "NHWC", 8, 8, 1, True)
    y = g.act(g.op(ConvOp, x, w, g.bias(8), **conv_props("NHWC")), -2.0, 2.5)
    return g.module(g.act(g.op(AddOp, x, y), -4.0, 4.0))


MODELS = {
    "resnet per channel": (lambda: resnet_block("NHWC", True)[1], (1, 8, 8, 4)),
    "resnet per tensor": (lambda: resnet_block("NHWC", False)[1], (1, 8, 8, 4)),
    "mobilenet": (lambda: mobilenet_block("NHWC", True)[1], (1, 6, 6, 4)),
    "residual adds": (lambda: residual_adds(3), (1, 16, 16, 8)),
}


def int8_inputs(shape) -> list[np.ndarray]:
    rng = np.random.default_rng(8)
    return [rng.integers(-128, 128, shape).astype(np.int8) for _ in range(INPUTS)]


def float_inputs(shape) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [(rng.standard_normal(shape) * 2).astype(np.float32) for _ in range(INPUTS)]


def differing(model: str, options: str, runtime: str, integer_io: bool) -> int:
    build, shape = MODELS[model]
    io = "integer-io=true" if integer_io else ""
    joined = " ".join(o for o in (options, io) if o)
    module = api.run(build(), f"convert-to-int{{{joined}}}")
    inputs = int8_inputs(shape) if integer_io else float_inputs(shape)
    return differing_values(module, tflite_bytes(module), runtime, inputs)[1]


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("model", list(MODELS))
def test_integer_io_is_bit_identical_in_the_recipes_runtime(model, recipe):
    assert differing(model, f"recipe={recipe}", recipe, integer_io=True) == 0


@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("model", list(MODELS))
def test_float_io_is_bit_identical_in_the_recipes_runtime(model, recipe):
    """Float inputs and outputs: QUANTIZE and DEQUANTIZE at the boundaries
    compute as the runtime's (nn.quantize / nn.dequantize `arithmetic`)."""
    assert differing(model, f"recipe={recipe}", recipe, integer_io=False) == 0


@pytest.mark.parametrize(
    "model, runtime",
    [
        ("residual adds", "xnnpack"),
        ("resnet per channel", "tflite-builtin"),
        ("resnet per tensor", "tflite-builtin"),
        ("resnet per channel", "tflite-reference"),
    ],
)
def test_the_default_recipe_differs_there(model, runtime):
    """What the recipes fix: the default recipe (rounding once, adding at a
    common scale) is not what these runtimes compute."""
    assert differing(model, "", runtime, integer_io=True) > 0
