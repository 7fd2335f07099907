"""Writes TFLite's int8 outputs of the corpus's QAT model (not run by CI: needs
TensorFlow 2.x).

    python tests/formats/tensorflow/make_tflite_qat_reference.py

Rerun it after `make_corpus.py qat_conv_bn`. Converts
corpus/qat_conv_bn_saved_model (the tensorflow-model-optimization model
make_corpus.py wrote, its weights and FakeQuant ranges) with TF2's converter,
which tfmot's documented `from_keras_model` path also runs
(`optimizations=[tf.lite.Optimize.DEFAULT]`, int8 input and output; no
representative data: the ranges are the FakeQuant ones), runs
tf.lite.Interpreter on seeded inputs and writes fixtures/qat_conv_bn_tflite.npz:
- `x`: the float inputs, shape (N, 1, 16, 16, 3); `x_int8`: them quantized by
  the model's input parameters as TFLite's QUANTIZE rounds (half away from 0);
- `input_scale`, `input_zero_point`, `output_scale`, `output_zero_point`;
- `out_int8`: the int8 outputs of the default interpreter (XNNPACK delegate);
  `out_int8_builtin`: of TFLite's builtin kernels (no delegate);
- `ops`: `OP_NAME:input dtype` of each TFLite operator; `layer{i}_int8` and
  `layer{i}_int8_builtin`: operator i's int8 output on each input.

TF1's frozen-graph converter reads the FakeQuant ranges only in its legacy QAT
mode (`inference_type=tf.int8` with `quantized_input_stats`); with
post-training settings (Optimize.DEFAULT and representative data, as
bench/quantize_corpus.py used) it gives the first conv's filter a zero point of
2, which TFLite's int8 CONV_2D refuses when the interpreter allocates tensors.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

HERE = Path(__file__).parent
SAVED_MODEL = HERE / "corpus" / "qat_conv_bn_saved_model"
OUT = HERE / "fixtures" / "qat_conv_bn_tflite.npz"
SAMPLES = 32


def convert() -> bytes:
    converter = tf.lite.TFLiteConverter.from_saved_model(str(SAVED_MODEL))
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.inference_input_type = tf.int8
    converter.inference_output_type = tf.int8
    return converter.convert()


def interpreter_of(model: bytes, delegates: bool) -> tf.lite.Interpreter:
    """The default interpreter (XNNPACK delegate), or TFLite's builtin kernels;
    every tensor kept after a run."""
    resolver = tf.lite.experimental.OpResolverType
    interpreter = tf.lite.Interpreter(
        model_content=model,
        experimental_preserve_all_tensors=True,
        experimental_op_resolver_type=resolver.AUTO
        if delegates
        else resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    interpreter.allocate_tensors()
    return interpreter


def run(model: bytes, inputs: np.ndarray, delegates: bool) -> list[np.ndarray]:
    """The output of each of the model's own operators (not the delegate's
    nodes), stacked over the inputs; the last is the model's output."""
    interpreter = interpreter_of(model, delegates)
    (inp,) = interpreter.get_input_details()
    tensors = [
        op["outputs"][0]
        for op in interpreter._get_ops_details()  # noqa: SLF001 - the op list
        if op["op_name"] != "DELEGATE"
    ]
    outputs = []
    for x in inputs:
        interpreter.set_tensor(inp["index"], x)
        interpreter.invoke()
        outputs.append([interpreter.get_tensor(t).copy() for t in tensors])
    return [np.stack(layer) for layer in zip(*outputs)]


def main() -> None:
    model = convert()
    interpreter = interpreter_of(model, delegates=False)
    (inp,), (out,) = interpreter.get_input_details(), interpreter.get_output_details()
    in_scale, in_zp = inp["quantization"]
    out_scale, out_zp = out["quantization"]
    dtypes = {t["index"]: t["dtype"] for t in interpreter.get_tensor_details()}
    ops = [
        f"{op['op_name']}:{np.dtype(dtypes[op['inputs'][0]]).name}"
        for op in interpreter._get_ops_details()  # noqa: SLF001 - the op list
    ]
    rng = np.random.default_rng(15)
    x = rng.standard_normal((SAMPLES, *inp["shape"])).astype(np.float32)
    scaled = x.astype(np.float64) / in_scale
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    x_int8 = np.clip(rounded + in_zp, -128, 127).astype(np.int8)
    layers = {}
    for suffix, delegates in (("", True), ("_builtin", False)):
        for i, layer in enumerate(run(model, x_int8, delegates)):
            layers[f"layer{i}_int8{suffix}"] = layer
    np.savez_compressed(
        OUT,
        x=x,
        x_int8=x_int8,
        input_scale=np.float32(in_scale),
        input_zero_point=np.int64(in_zp),
        output_scale=np.float32(out_scale),
        output_zero_point=np.int64(out_zp),
        out_int8=layers[f"layer{len(ops) - 1}_int8"],
        out_int8_builtin=layers[f"layer{len(ops) - 1}_int8_builtin"],
        ops=np.array(ops),
        **layers,
    )
    print(f"{OUT.name} written: ops {ops}")


if __name__ == "__main__":
    main()
