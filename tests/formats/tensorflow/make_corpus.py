"""Writes the corpus of real TensorFlow models (not run by CI: needs TensorFlow 2.x).

    python tests/formats/tensorflow/make_corpus.py [NAME ...]

Each model is built by Keras' own code (Keras applications scaled down through
their builders' width/depth parameters, so the fixtures stay small while keeping
the op structure TensorFlow writes), with random weights, random batch norm
scales and offsets, and batch norm statistics measured on seeded inputs as
training leaves them (random ones for dilated_conv_bn), so that their outputs
depend on the input as a trained model's do; the Keras applications are also
trained for a few hundred seeded steps on a random teacher (`train_on_teacher`)
so that, as a trained model's, their output is not chaotic in the input
(bench/trained_cnn_scratch.py measures both); and saved into corpus/ as:
- NAME.pb: frozen by convert_variables_to_constants_v2 with its default
  lowering (v1 control flow: Switch/Merge/Enter/Exit/NextIteration);
- NAME_functional.pb: frozen with lower_control_flow=False (models with loops
  or conds only);
- NAME.pbtxt: the frozen graph as text, when it is small;
- NAME_saved_model/: tf.saved_model.save of a module whose serving_default
  signature is the model;
- NAME_export/: Keras 3's `model.export` (a free batch dim), for a few models;
- qat_conv_bn: a tensorflow-model-optimization quantization-aware model (TFLite's
  int8 outputs of it: make_tflite_qat_reference.py, to rerun after this);
- NAME.npz: `in:<placeholder>` seeded inputs, `out:<i>` TensorFlow's outputs,
  `outputs` the frozen graph's output tensor names, `signature_inputs` /
  `signature_outputs` the SavedModel signature's keys (outputs in key order).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

CORPUS = Path(__file__).parent / "corpus"
PBTXT_LIMIT = 200_000


def randomize_batch_norms(model, rng) -> None:
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            for var in layer.weights:
                name = var.name.split("/")[-1]
                shape = tuple(var.shape)
                if "variance" in name:
                    value = rng.uniform(0.5, 2.0, shape)
                elif "gamma" in name:
                    value = rng.uniform(0.5, 1.5, shape)
                else:
                    value = rng.normal(0.0, 0.2, shape)
                var.assign(value.astype(np.float32))


def calibrate_batch_norms(model, rng, samples: int = 32) -> None:
    """Sets each BatchNormalization's moving mean and variance to the mean and
    variance of its input over `samples` seeded normal inputs, layer by layer
    in order (so each sees the calibrated layers before it), as training
    leaves them. With the random statistics alone, a deep network's
    activations fade out or blow up before the classifier and its output is
    nearly the same for every input."""
    x = rng.standard_normal((samples, *model.inputs[0].shape[1:])).astype(np.float32)
    for layer in model.layers:
        if not isinstance(layer, tf.keras.layers.BatchNormalization):
            continue
        features = tf.keras.Model(model.input, layer.input)(x, training=False)
        rank = len(features.shape)
        axes = [a for a in range(rank) if a != layer.axis % rank]
        mean, variance = tf.nn.moments(features, axes)
        layer.moving_mean.assign(mean)
        layer.moving_variance.assign(variance)


def train_on_teacher(model, rng, steps: int = 400, batch: int = 32) -> None:
    """Trains `model` (batch norms in training mode) for `steps` AdamW steps
    (learning rate 1e-3, weight decay 0.05) on seeded standard normal inputs
    towards a fixed random teacher, a seeded linear map of the 8x8-average-
    pooled pixels to the outputs (softmax targets for a softmax classifier).
    A random deep network is chaotic (a 1e-3 input change moves its output by
    up to 4e-2); this brings it to a gain of about 1..3, as a trained one."""
    shape = model.inputs[0].shape[1:]
    softmax = "softmax" in str(getattr(model.layers[-1], "activation", ""))
    teacher = rng.standard_normal(
        (3 * (shape[0] // 8) * (shape[1] // 8), model.outputs[0].shape[-1])
    )
    teacher = (teacher / np.sqrt(teacher.shape[0])).astype(np.float32)
    optimizer = tf.keras.optimizers.AdamW(1e-3, weight_decay=0.05)

    @tf.function
    def step(x):
        pooled = tf.nn.avg_pool2d(x, 8, 8, "VALID") * 8.0
        target = tf.reshape(pooled, (batch, -1)) @ teacher
        with tf.GradientTape() as tape:
            y = model(x, training=True)
            if softmax:
                loss = tf.keras.losses.categorical_crossentropy(
                    tf.nn.softmax(2 * target), y
                )
            else:
                loss = tf.square(y - target)
            loss = tf.reduce_mean(loss)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

    for _ in range(steps):
        step(rng.standard_normal((batch, *shape)).astype(np.float32))


def keras_models():
    from keras.src.applications import densenet, efficientnet, resnet

    def resnet_small(**kw):
        def stack_fn(x):
            x = resnet.stack_residual_blocks_v1(x, 8, 2, stride1=1, name="conv2")
            return resnet.stack_residual_blocks_v1(x, 16, 2, name="conv3")

        return resnet.ResNet(stack_fn, False, True, name="resnet50_small", **kw)

    def efficientnet_small(**kw):
        return efficientnet.EfficientNet(
            0.25, 0.25, 32, name="efficientnetb0_small", **kw
        )

    def densenet_small(**kw):
        return densenet.DenseNet([1, 1, 1, 1], **kw)

    common = {"weights": None, "classes": 10}
    shape = (32, 32, 3)
    return {
        "mobilenet_v2": lambda: tf.keras.applications.MobileNetV2(
            input_shape=shape, alpha=0.35, **common
        ),
        "mobilenet_v3": lambda: tf.keras.applications.MobileNetV3Small(
            input_shape=shape,
            alpha=0.75,
            include_preprocessing=False,
            include_top=False,
            pooling="avg",
            weights=None,
        ),
        "resnet50": lambda: resnet_small(input_shape=shape, **common),
        "efficientnet_b0": lambda: efficientnet_small(input_shape=shape, **common),
        "densenet": lambda: densenet_small(input_shape=shape, **common),
        "dilated_conv_bn": lambda: tf.keras.Sequential(
            [
                tf.keras.Input((16, 16, 3)),
                tf.keras.layers.Conv2D(8, 3, dilation_rate=2, padding="same"),
                tf.keras.layers.BatchNormalization(),
                tf.keras.layers.ReLU(),
            ]
        ),
        "text_lstm": lambda: tf.keras.Sequential(
            [
                tf.keras.Input((12,), dtype="int32"),
                tf.keras.layers.Embedding(50, 8),
                tf.keras.layers.LSTM(16),
                tf.keras.layers.Dense(4),
            ]
        ),
    }


def nested_loops_function():
    """A tf.function with a cond inside a while inside a while."""
    w = tf.constant(np.random.default_rng(3).standard_normal((2, 3)), tf.float32)

    def inner(y, k):
        def body(j, z):
            z = tf.cond(tf.reduce_sum(z) > 1.0, lambda: z * 0.5, lambda: z + w)
            return j + 1, z

        return tf.while_loop(lambda j, z: j < k, body, [tf.constant(0), y])[1]

    @tf.function(
        input_signature=[
            tf.TensorSpec([2, 3], tf.float32, name="x"),
            tf.TensorSpec([], tf.int32, name="n"),
        ]
    )
    def nested(x, n):
        def body(i, y):
            return i + 1, inner(y, i + 1) - 0.25

        return tf.while_loop(lambda i, y: i < n, body, [tf.constant(0), x])[1]

    return nested


def qat_model():
    """A tensorflow-model-optimization quantization-aware conv+BN+relu+dense
    model (tf_keras, run in a process with TF_USE_LEGACY_KERAS=1), trained a
    few steps so that the FakeQuant ranges are not trivial."""
    import tensorflow_model_optimization as tfmot

    keras = tf.keras
    model = keras.Sequential(
        [
            keras.layers.Conv2D(8, 3, padding="same", input_shape=(16, 16, 3)),
            keras.layers.BatchNormalization(),
            keras.layers.ReLU(),
            keras.layers.DepthwiseConv2D(3, padding="same"),
            keras.layers.BatchNormalization(),
            keras.layers.ReLU(),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(4),
        ]
    )
    model = tfmot.quantization.keras.quantize_model(model)
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((32, 16, 16, 3)).astype(np.float32)
    y = rng.standard_normal((32, 4)).astype(np.float32)
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    return model


def model_function(model):
    spec = [
        tf.TensorSpec((1, *t.shape[1:]), t.dtype, name="input") for t in model.inputs
    ]
    return tf.function(lambda x: model(x, training=False), input_signature=spec)


def seeded_inputs(concrete, rng) -> list[np.ndarray]:
    arrays = []
    for spec in concrete.structured_input_signature[0]:
        if spec.dtype.is_integer:
            hi = 4 if spec.shape.rank == 0 else 50
            arrays.append(
                rng.integers(1, hi, spec.shape).astype(spec.dtype.as_numpy_dtype)
            )
        else:
            arrays.append(rng.standard_normal(spec.shape).astype(np.float32))
    return arrays


def write(name: str, function, has_control_flow: bool, rng, model=None) -> None:
    concrete = function.get_concrete_function()
    inputs = seeded_inputs(concrete, rng)
    outputs = concrete(*inputs)
    outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    (CORPUS / f"{name}.pb").write_bytes(graph_def.SerializeToString())
    text = str(graph_def)
    if len(text) < PBTXT_LIMIT:
        (CORPUS / f"{name}.pbtxt").write_text(text)
    if has_control_flow:
        functional = convert_variables_to_constants_v2(
            concrete, lower_control_flow=False
        )
        (CORPUS / f"{name}_functional.pb").write_bytes(
            functional.graph.as_graph_def().SerializeToString()
        )
    placeholders = [t.name.split(":")[0] for t in frozen.inputs]
    arrays = {f"in:{p}": a for p, a in zip(placeholders, inputs)}
    arrays |= {f"out:{i}": np.asarray(o) for i, o in enumerate(outputs)}
    arrays["outputs"] = np.array([t.name.removesuffix(":0") for t in frozen.outputs])
    saved = CORPUS / f"{name}_saved_model"
    shutil.rmtree(saved, ignore_errors=True)
    module = tf.Module()
    module.f = function
    module.model = model  # tracks the variables the function reads
    tf.saved_model.save(module, str(saved), signatures={"serving_default": concrete})
    signature = tf.saved_model.load(str(saved)).signatures["serving_default"]
    arrays["signature_inputs"] = np.array(
        sorted(signature.structured_input_signature[1])
    )
    arrays["signature_outputs"] = np.array(sorted(signature.structured_outputs))
    if model is not None and name in EXPORTED:
        arrays |= exported(name, model, rng)
    np.savez(CORPUS / f"{name}.npz", **arrays)


DEEP_CNNS = ("mobilenet_v2", "mobilenet_v3", "resnet50", "efficientnet_b0", "densenet")
"""The Keras applications, whose batch norms are calibrated on data
(`calibrate_batch_norms`), then trained a little (`train_on_teacher`) and
calibrated again; dilated_conv_bn's one batch norm keeps its random
statistics."""

EXPORTED = ("dilated_conv_bn", "text_lstm", "resnet50")
"""Models also saved by Keras 3's `model.export` (a free batch dim), as users have them."""


def exported(name: str, model, rng) -> dict[str, np.ndarray]:
    """NAME_export/: `model.export`, and its outputs on a batch of 2 (keys
    `export_in`, `export_out`)."""
    path = CORPUS / f"{name}_export"
    shutil.rmtree(path, ignore_errors=True)
    model.export(str(path))
    spec = model.inputs[0]
    shape = (2, *spec.shape[1:])
    if spec.dtype == "int32":
        x = rng.integers(1, 50, shape).astype(np.int32)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
    return {"export_in": x, "export_out": np.asarray(model(x))}


def main(names: list[str]) -> None:
    if names == ["--qat"]:  # in the legacy-Keras process that main starts
        tf.keras.utils.set_random_seed(0)
        model = qat_model()
        write(
            "qat_conv_bn", model_function(model), False, np.random.default_rng(9), model
        )
        return
    tf.keras.utils.set_random_seed(0)
    tf.config.experimental.enable_op_determinism()
    CORPUS.mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    for name, build in keras_models().items():
        if names and name not in names:
            continue
        model = build()
        randomize_batch_norms(model, rng)
        if name in DEEP_CNNS:
            calibrate_batch_norms(model, np.random.default_rng(1))
            train_on_teacher(model, np.random.default_rng(2))
            calibrate_batch_norms(model, np.random.default_rng(1))
        write(name, model_function(model), name == "text_lstm", rng, model)
        print(name, "written")
    if not names or "nested_loops" in names:
        write("nested_loops", nested_loops_function(), True, rng)
        print("nested_loops written")
    if not names or "qat_conv_bn" in names:
        env = dict(os.environ, TF_USE_LEGACY_KERAS="1")
        subprocess.run([sys.executable, __file__, "--qat"], env=env, check=True)
        print("qat_conv_bn written")


if __name__ == "__main__":
    main(sys.argv[1:])
