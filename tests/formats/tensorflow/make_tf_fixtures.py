"""Writes GraphDef fixtures built by real TensorFlow, with TensorFlow's outputs.

Needs TensorFlow (not a test dependency; CI only reads the committed files):
    python tests/formats/tensorflow/make_tf_fixtures.py

Each graph is built in tf.compat.v1 graph mode from placeholders and constants,
run once on seeded random inputs, and saved as fixtures/tf_<name>.pb or .pbtxt
with fixtures/tf_<name>.npz: `in:<placeholder>` arrays, `out:<i>` TensorFlow's
results, `outputs` the fetched tensor names. The FileCheck tests under
tests/filecheck/formats/tensorflow read these graphs too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

FIXTURES = Path(__file__).parent / "fixtures"

v1 = tf.compat.v1
raw = tf.raw_ops


def weight(rng, *shape) -> tf.Tensor:
    return tf.constant(rng.standard_normal(shape).astype(np.float32))


def batch_norm(rng, x, channels: int, data_format: str = "NHWC"):
    """An inference FusedBatchNormV3 with a positive variance."""
    scale, offset, mean = (weight(rng, channels) for _ in range(3))
    variance = tf.constant(rng.uniform(0.5, 1.5, channels).astype(np.float32))
    y, *_ = raw.FusedBatchNormV3(
        x=x, scale=scale, offset=offset, mean=mean, variance=variance,
        epsilon=0.001, data_format=data_format, is_training=False,
    )  # fmt: skip
    return y


def conv_bn_relu6(rng):
    x = v1.placeholder(tf.float32, [1, 9, 9, 3], name="input")
    conv = tf.nn.conv2d(x, weight(rng, 3, 3, 3, 8), strides=2, padding="SAME")
    return [tf.nn.relu6(batch_norm(rng, conv, 8))]


def depthwise_blocks(rng):
    """MobileNet blocks: depthwise + BN + Relu6, pointwise + BN; a strided
    VALID depthwise with multiplier 2 and a bias; an EXPLICIT-padded conv."""
    x = v1.placeholder(tf.float32, [1, 8, 8, 4], name="input")
    dw = tf.nn.depthwise_conv2d(x, weight(rng, 3, 3, 4, 1), [1, 1, 1, 1], "SAME")
    dw = tf.nn.relu6(batch_norm(rng, dw, 4))
    pw = batch_norm(rng, tf.nn.conv2d(dw, weight(rng, 1, 1, 4, 6), 1, "VALID"), 6)
    strided = tf.nn.depthwise_conv2d(pw, weight(rng, 3, 3, 6, 2), [1, 2, 2, 1], "VALID")
    biased = tf.nn.relu(tf.nn.bias_add(strided, weight(rng, 12)))
    explicit = tf.nn.conv2d(
        biased, weight(rng, 2, 2, 12, 3), 1, [[0, 0], [1, 0], [0, 1], [0, 0]]
    )
    return [explicit]


def activations(rng):
    x = v1.placeholder(tf.float32, [2, 3, 5], name="x")
    return [tf.nn.elu(x), tf.nn.softmax(x * 3.0)]


def pads(rng):
    x = v1.placeholder(tf.float32, [2, 3, 4], name="x")
    paddings = [[1, 0], [2, 1], [0, 3]]
    return [
        tf.pad(x, paddings),
        tf.pad(x, paddings, constant_values=1.5),
        tf.pad(x, [[1, 1], [2, 1], [3, 2]], mode="REFLECT"),
        tf.pad(x, [[1, 2], [3, 1], [0, 4]], mode="SYMMETRIC"),
    ]


def squeeze_expand(rng):
    x = v1.placeholder(tf.float32, [1, 3, 1, 2], name="x")
    return [
        tf.squeeze(x, axis=[2]),
        tf.squeeze(x),
        tf.expand_dims(x, -1),
        tf.expand_dims(x, 1),
    ]


def transpose_concat(rng):
    a = v1.placeholder(tf.float32, [2, 3, 4], name="a")
    b = v1.placeholder(tf.float32, [2, 3, 4], name="b")
    first, second, third = tf.unstack(a, axis=1)
    return [
        tf.transpose(a, [2, 0, 1]),
        tf.concat([a, b, a], axis=-1),
        tf.concat([a, b], axis=0),
        tf.stack([a, b], axis=1),
        tf.stack([a, b], axis=-1),
        first - third,
        second,
    ]


def splits(rng):
    x = v1.placeholder(tf.float32, [4, 6], name="x")
    left, middle, right = tf.split(x, 3, axis=1)
    top, rest = tf.split(x, [1, -1], axis=0)
    a, b, c = tf.split(x, [2, 1, 3], axis=-1)
    return [left * right + middle, top, rest, a, b, c]


def slices(rng):
    """Slice, and StridedSlice with each mask and negative strides."""
    x = v1.placeholder(tf.float32, [4, 5, 6], name="x")
    return [
        tf.slice(x, [1, 0, 2], [2, -1, 3]),
        x[1:3, ::2, -4:],
        x[::-1, 3:0:-2, :],
        x[..., 1],
        x[:, tf.newaxis, 2:],
        x[-1, ..., tf.newaxis, ::-3],
        x[1, -2],
        x[..., :-1, 2:5],
        x[2:, tf.newaxis, 1, ...],
        x[-7:100, -100:-1:2, ::-1],
    ]


def gather(rng):
    x = v1.placeholder(tf.float32, [4, 5, 3], name="x")
    return [
        tf.gather(x, [3, 0, 0, 2], axis=1),
        tf.gather(x, [[1, 0], [3, 3]], axis=0),
        tf.gather(x, 2, axis=-1),
    ]


def shape_queries(rng):
    """Shape, ShapeN, Size and Rank computed at run time (raw ops: tf.shape would
    fold to a constant on static shapes) feeding Reshape and Fill; Cast."""
    x = v1.placeholder(tf.float32, [2, 3, 4], name="x")
    y = v1.placeholder(tf.float32, [4, 6], name="y")
    shape = raw.Shape(input=x)
    flat = tf.reshape(x, tf.stack([shape[0], -1]))
    x_shape, y_shape = raw.ShapeN(input=[x, y], out_type=tf.int64)
    as_y = tf.reshape(x, y_shape)
    vector = tf.reshape(y, tf.expand_dims(raw.Size(input=y), 0))
    filled = tf.fill(tf.stack([raw.Rank(input=x), 2]), 0.5)
    truncated = tf.cast(x * 4.0, tf.int32)
    return [
        flat, as_y, vector, filled, truncated, tf.cast(x_shape, tf.float32),
        tf.cast(truncated, tf.float32) + 0.25,
    ]  # fmt: skip


def conv_transpose(rng):
    """Conv2DBackpropInput: SAME with an even and an odd output size, VALID with
    strides 3x2 and a last row and column no input reaches, a 2x1 kernel."""
    x = v1.placeholder(tf.float32, [1, 4, 3, 6], name="x")
    w = weight(rng, 3, 3, 5, 6)
    return [
        tf.nn.conv2d_transpose(x, w, [1, 8, 6, 5], 2, "SAME"),
        tf.nn.conv2d_transpose(x, w, [1, 7, 5, 5], 2, "SAME"),
        tf.nn.conv2d_transpose(x, w, [1, 13, 8, 5], [3, 2], "VALID"),
        tf.nn.conv2d_transpose(x, weight(rng, 2, 1, 2, 6), [1, 4, 3, 2], 1, "SAME"),
    ]


GRAPHS = {
    "conv_bn_relu6.pb": conv_bn_relu6,
    "depthwise_blocks.pb": depthwise_blocks,
    "activations.pbtxt": activations,
    "pads.pbtxt": pads,
    "squeeze_expand.pbtxt": squeeze_expand,
    "transpose_concat.pbtxt": transpose_concat,
    "splits.pbtxt": splits,
    "slices.pbtxt": slices,
    "gather.pbtxt": gather,
    "shape_queries.pbtxt": shape_queries,
    "conv_transpose.pb": conv_transpose,
}
"""Fixture file names (without the tf_ prefix) and the graphs they hold."""


def write(name: str, build) -> None:
    rng = np.random.default_rng(11)
    graph = tf.Graph()
    with graph.as_default():
        outputs = build(rng)
        placeholders = [op for op in graph.get_operations() if op.type == "Placeholder"]
        feeds = {
            op.outputs[0]: rng.standard_normal(op.outputs[0].shape).astype(np.float32)
            for op in placeholders
        }
        with v1.Session(graph=graph) as session:
            results = session.run(outputs, feeds)
    arrays = {f"in:{t.op.name}": value for t, value in feeds.items()}
    arrays |= {f"out:{i}": np.asarray(r) for i, r in enumerate(results)}
    arrays["outputs"] = np.array([t.name.removesuffix(":0") for t in outputs])
    stem = f"tf_{name.rpartition('.')[0]}"
    graph_def = graph.as_graph_def()
    if name.endswith(".pbtxt"):
        (FIXTURES / f"tf_{name}").write_text(str(graph_def))
    else:
        (FIXTURES / f"tf_{name}").write_bytes(
            graph_def.SerializeToString(deterministic=True)
        )
    np.savez(FIXTURES / f"{stem}.npz", **arrays)


def main() -> None:
    for name, build in GRAPHS.items():
        write(name, build)


if __name__ == "__main__":
    main()
