"""Writes the fake-quantization GraphDef fixtures with real TensorFlow (not run by CI).

Run `python tests/formats/tensorflow/make_fake_quant_fixtures.py` in an
environment with tensorflow. Each fixture NAME gets NAME.pb and NAME.npz holding,
for each input set k, `in{k}_x` and TF's outputs `out{k}_{i}`, named in `outputs`.
fake_quant covers FakeQuantWithMinMaxArgs, ...Vars (ranges with and without 0,
narrow range, 2 to 16 bits) and ...VarsPerChannel on a conv filter and on an
activation. fake_quant_qat is a quantization-aware-training graph frozen by
convert_variables_to_constants: its ranges are Consts read through Identity.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

FIXTURES = Path(__file__).parent / "fixtures"
RNG = np.random.default_rng(11)
INPUT_SHAPE = (2, 5, 5, 3)
OUTPUTS = ["args", "vars_wide", "vars_positive", "vars_negative", "vars_narrow_4",
           "vars_16", "vars_2", "per_channel", "conv"]  # fmt: skip


def fake_quant_graph() -> tf.Graph:
    v1 = tf.compat.v1
    fq_vars = tf.quantization.fake_quant_with_min_max_vars
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, INPUT_SHAPE, name="x")
        tf.quantization.fake_quant_with_min_max_args(
            x, min=-1.3, max=2.1, num_bits=8, name="args"
        )
        fq_vars(x, tf.constant(-3.7), tf.constant(2.9), name="vars_wide")
        fq_vars(x, tf.constant(0.4), tf.constant(1.9), name="vars_positive")
        fq_vars(
            x, tf.constant(-2.6), tf.constant(-0.3), num_bits=5, name="vars_negative"
        )
        fq_vars(x, tf.constant(-1.1), tf.constant(1.1), num_bits=4, narrow_range=True,
                name="vars_narrow_4")  # fmt: skip
        fq_vars(x, tf.constant(-2.0), tf.constant(3.0), num_bits=16, name="vars_16")
        fq_vars(x, tf.constant(-0.9), tf.constant(1.7), num_bits=2, name="vars_2")
        tf.quantization.fake_quant_with_min_max_vars_per_channel(
            x, tf.constant([-1.5, 0.2, -0.7]), tf.constant([1.2, 2.5, -0.1]),
            num_bits=6, name="per_channel",
        )  # fmt: skip
        weights = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
        extent = np.abs(weights).max(axis=(0, 1, 2))
        filter_fq = tf.quantization.fake_quant_with_min_max_vars_per_channel(
            tf.constant(weights), tf.constant(-extent), tf.constant(extent),
            narrow_range=True, name="filter_fq",
        )  # fmt: skip
        conv = tf.nn.relu6(tf.nn.conv2d(x, filter_fq, 1, "SAME"))
        fq_vars(conv, tf.constant(0.0), tf.constant(6.0), name="conv")
    return graph


def qat_graph() -> tf.Graph:
    """Conv + relu with fake-quantized weights and output, ranges in variables."""
    v1 = tf.compat.v1
    fq_vars = tf.quantization.fake_quant_with_min_max_vars
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, INPUT_SHAPE, name="x")
        weights = RNG.standard_normal((1, 1, 3, 4)).astype(np.float32)
        w = v1.get_variable("w", initializer=weights)
        w_min = v1.get_variable("w_min", initializer=np.float32(weights.min()))
        w_max = v1.get_variable("w_max", initializer=np.float32(weights.max()))
        conv = tf.nn.conv2d(x, fq_vars(w, w_min, w_max, narrow_range=True), 1, "SAME")
        act_min = v1.get_variable("act_min", initializer=np.float32(0.0))
        act_max = v1.get_variable("act_max", initializer=np.float32(3.5))
        fq_vars(tf.nn.relu(conv), act_min, act_max, name="out")
    return graph


def input_sets() -> list[np.ndarray]:
    """Standard normal values, and wide ones that hit every clamp."""
    return [
        RNG.standard_normal(INPUT_SHAPE).astype(np.float32),
        RNG.uniform(-5, 5, INPUT_SHAPE).astype(np.float32),
    ]


def save(name: str, graph: tf.Graph, outputs: list[str]) -> None:
    arrays = {"outputs": np.array(outputs)}
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.global_variables_initializer())
        fetches = [graph.get_tensor_by_name(f"{name}:0") for name in outputs]
        for k, x in enumerate(input_sets()):
            arrays[f"in{k}_x"] = x
            for i, value in enumerate(session.run(fetches, {"x:0": x})):
                arrays[f"out{k}_{i}"] = value
        graph_def = tf.compat.v1.graph_util.convert_variables_to_constants(
            session, graph.as_graph_def(), outputs
        )
    (FIXTURES / f"{name}.pb").write_bytes(graph_def.SerializeToString())
    np.savez(FIXTURES / f"{name}.npz", **arrays)


def main() -> None:
    tf.compat.v1.disable_eager_execution()
    save("fake_quant", fake_quant_graph(), OUTPUTS)
    save("fake_quant_qat", qat_graph(), ["out"])


if __name__ == "__main__":
    main()
