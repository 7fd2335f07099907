"""Side effects and placement as the IR records them: discardable attributes
that any op may carry, whatever format it came from.

TensorFlow's effect ops (`Assert`, `Print`) import as nn.opaque ops that no
pass removes, merges or moves; a node ordered after one keeps its control
inputs in `tf.control_inputs`; a node's device stays in `tf.device`. Passes
(placement, prune, swap), memory planning and the exporters read these names
here; the TensorFlow importer writes them (formats/tensorflow/effects.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, StringAttr

EFFECT_OPS = frozenset({"Assert", "Print", "PrintV2"})
"""Stateful TensorFlow ops with no result a computation needs."""

CONTROL_INPUTS_ATTR = "tf.control_inputs"
DEVICE_ATTR = "tf.device"
GRADIENT_OP_TYPE_ATTR = "tf.gradient_op_type"
"""A node's `_gradient_op_type`: the gradient TensorFlow registers for it instead."""


def control_inputs_attr(names: list[str]) -> ArrayAttr:
    return ArrayAttr([StringAttr(n) for n in names])
