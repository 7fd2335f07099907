"""TFLite's interpreter on exported .tflite models, in the runtime each
convert-to-int recipe follows (dev time: ai-edge-litert, or TensorFlow's
tf.lite, imported lazily)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

RESOLVERS = {
    "xnnpack": "AUTO",
    "tflite-builtin": "BUILTIN_WITHOUT_DEFAULT_DELEGATES",
    "tflite-reference": "BUILTIN_REF",
}
"""The OpResolverType that runs a model as each recipe's runtime does."""


def tflite_interpreter(data: bytes, runtime: str, keep_tensors: bool = False):
    """An allocated interpreter running `data` in `runtime` (a recipe name)."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        import tensorflow as tf

        Interpreter = tf.lite.Interpreter
        OpResolverType = tf.lite.experimental.OpResolverType
    runner = Interpreter(
        model_content=data,
        experimental_op_resolver_type=getattr(OpResolverType, RESOLVERS[runtime]),
        experimental_preserve_all_tensors=keep_tensors,
    )
    runner.allocate_tensors()
    return runner


def tflite_outputs(data: bytes, runtime: str, inputs: Sequence[np.ndarray]):
    """The model's first output for each input, in `runtime`."""
    runner = tflite_interpreter(data, runtime)
    (inp,), (out,) = runner.get_input_details(), runner.get_output_details()
    outputs = []
    for x in inputs:
        runner.set_tensor(inp["index"], x)
        runner.invoke()
        outputs.append(runner.get_tensor(out["index"]).copy())
    return outputs


def differing_values(
    module: ModuleOp, data: bytes, runtime: str, inputs: Sequence[np.ndarray]
) -> tuple[int, int]:
    """(values, how many differ) of TFLite's outputs in `runtime` against
    graph-opt's interpreter on the int8 graph."""
    from graph_opt.interpreter import run_function

    values = differing = 0
    for x, got in zip(inputs, tflite_outputs(data, runtime, inputs), strict=True):
        want = run_function(module, [x])[0]
        values += got.size
        differing += int((got != want).sum())
    return values, differing
