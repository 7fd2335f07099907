"""Fake quantization: FakeQuantWithMinMaxArgs / Vars / VarsPerChannel -> nn.fake_quant;
FakeQuantWithMinMaxVars on ranges the graph computes (a quantization-aware
training graph's range variables) and its gradient -> nn.fake_quant_vars(_grad)."""

from __future__ import annotations

import numpy as np
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import i64_attr
from graph_opt.dialects.nn.elementwise import IdentityOp, StopGradientOp
from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.dialects.nn.quant_training import FakeQuantVarsGradOp, FakeQuantVarsOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.passes.common.constant_eval import computed_constant


def _read_through(value):
    """The value under Identity reads (frozen variables)."""
    while isinstance(value.owner, IdentityOp | StopGradientOp):
        value = value.owner.input
    return value


def _constant_bound(b, value, what: str) -> np.ndarray:
    """A Const input, also through Identity reads."""
    return b.constant_input(_read_through(value), what)


def _checked(b, op):
    try:
        op.verify()
    except VerifyException as e:
        raise b.error(str(e)) from e
    return op


def _range_props(b) -> dict:
    return {
        "num_bits": i64_attr(b.attr("num_bits", 8)),
        "narrow_range": i64_attr(int(b.attr("narrow_range", False))),
    }


def _fake_quant(b, x, mins, maxs, axis=None):
    props = fake_quant_props(
        mins, maxs, b.attr("num_bits", 8), b.attr("narrow_range", False), axis
    )
    return _checked(b, b.create(FakeQuantOp, [x], props))


@importer("FakeQuantWithMinMaxArgs")
def import_fake_quant_args(b, node, inputs):
    low, high = b.attr("min", -6.0), b.attr("max", 6.0)
    if not low < high:  # TensorFlow's kernel refuses it (the Vars ops compute)
        raise b.error(f"min must be smaller than max, got min {low} and max {high}")
    return _fake_quant(b, inputs[0], [low], [high])


@importer("FakeQuantWithMinMaxVars")
def import_fake_quant_vars(b, node, inputs):
    mins, maxs = (computed_constant(_read_through(v)) for v in inputs[1:])
    if mins is None or maxs is None:
        # a range the graph computes: quantization-aware training's variables
        shapes = [ranked(v) for v in inputs[1:]]
        if any(t is not None and t.get_shape() for t in shapes):
            shapes = [list(t.get_shape()) if t else None for t in shapes]
            raise b.error(f"min and max must be scalars, got shapes {shapes}")
        return _checked(b, b.create(FakeQuantVarsOp, inputs, _range_props(b)))
    if mins.size != 1 or maxs.size != 1:
        raise b.error(
            f"min and max must be scalars, got shapes {mins.shape} and {maxs.shape}"
        )
    return _fake_quant(b, inputs[0], mins.ravel(), maxs.ravel())


@importer("FakeQuantWithMinMaxVarsPerChannel")
def import_fake_quant_per_channel(b, node, inputs):
    mins = _constant_bound(b, inputs[1], "min")
    maxs = _constant_bound(b, inputs[2], "max")
    if np.ndim(mins) != 1 or np.ndim(maxs) != 1:
        raise b.error(
            f"min and max must be 1-D, got shapes {mins.shape} and {maxs.shape}"
        )
    x = ranked(inputs[0])
    axis = -1 if x is None else len(x.get_shape()) - 1
    return _fake_quant(b, inputs[0], mins, maxs, axis)


@importer("FakeQuantWithMinMaxVarsGradient")
def import_fake_quant_vars_gradient(b, node, inputs):
    if b.used_outputs > 1:
        b.decline("the gradients for min and max (outputs 1 and 2) are not supported")
    return _checked(b, b.create(FakeQuantVarsGradOp, inputs, _range_props(b)))
