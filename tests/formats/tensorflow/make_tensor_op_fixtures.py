"""Writes fixtures of TensorFlow's tensor ops (Tile, Range, OneHot, TopKV2,
resizes, Einsum, SpaceToBatchND/BatchToSpaceND, DepthToSpace/SpaceToDepth,
dilated convolutions, PlaceholderWithDefault, GatherNd, Cumsum...) with
TensorFlow's outputs.

Needs TensorFlow (not a test dependency; CI only reads the committed files):
    python tests/formats/tensorflow/make_tensor_op_fixtures.py

Same conventions as make_tf_fixtures.py (fixtures/tf_<name>.pb or .pbtxt and
.npz), which test_tf_op_fixtures.py runs. The Keras model is a TF2 function
frozen by convert_variables_to_constants_v2.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from make_tf_fixtures import FIXTURES, batch_norm, weight, write
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

v1 = tf.compat.v1
raw = tf.raw_ops


def tile_range(rng):
    """Tile with constant multiples; Range with constant and computed bounds."""
    x = v1.placeholder(tf.float32, [2, 3, 1], name="x")
    steps = tf.cast(tf.range(1, 10, 3), tf.float32)
    countdown = tf.range(5.0, -1.0, -1.5)
    computed = tf.range(raw.Size(input=x))
    return [
        tf.tile(x, [2, 1, 3]),
        tf.tile(x * 2.0, tf.constant([1, 2, 4], tf.int64)),
        x + steps,
        countdown,
        tf.cast(computed, tf.float32) * 0.5,
    ]


def one_hot(rng):
    """Indices with negative and out-of-range values: TensorFlow gives all off."""
    x = v1.placeholder(tf.float32, [2, 5], name="x")
    indices = tf.cast(x * 3.0, tf.int32)
    return [
        tf.one_hot(indices, 4),
        tf.one_hot(indices, 3, on_value=2.5, off_value=-1.0, axis=0),
        tf.one_hot(indices, 5, axis=1, dtype=tf.int32),
    ]


def top_k(rng):
    x = v1.placeholder(tf.float32, [3, 6], name="x")
    values, indices = tf.math.top_k(x, k=4)
    ties = tf.math.top_k(x[:2] * 0.0 + [[1.0, 2.0, 2.0, 1.0, 3.0, 2.0]], k=6)
    return [values, indices, ties.values, ties.indices]


def resizes(rng):
    """Every align_corners / half_pixel_centers mode, up and down."""
    x = v1.placeholder(tf.float32, [1, 4, 5, 2], name="x")
    outs = []
    for size in ([7, 9], [3, 2]):
        for align, half in ((False, False), (True, False), (False, True)):
            for op in (raw.ResizeBilinear, raw.ResizeNearestNeighbor):
                outs.append(
                    op(
                        images=x,
                        size=size,
                        align_corners=align,
                        half_pixel_centers=half,
                    )
                )
    return outs


def einsum(rng):
    """Matmul-like equations: batched, transposed operands, a projection."""
    a = v1.placeholder(tf.float32, [2, 3, 4], name="a")
    b = v1.placeholder(tf.float32, [2, 4, 5], name="b")
    c = v1.placeholder(tf.float32, [2, 3, 2, 4], name="c")
    w = weight(rng, 4, 6)
    return [
        tf.einsum("bij,bjk->bik", a, b),
        tf.einsum("abc,cd->abd", a, w),
        tf.einsum("ij,jk", a[0], b[1]),
        tf.einsum("bji,bjk->bki", a, tf.transpose(a, [0, 1, 2]) * 2.0),
        tf.einsum("bqhd,bkhd->bhqk", c, c * 0.5),
        tf.einsum("bij,bkj->bik", a, a),
        tf.einsum("ijk->kij", a),
    ]


def space_batch(rng):
    """SpaceToBatchND and BatchToSpaceND on their own (not around a conv)."""
    x = v1.placeholder(tf.float32, [2, 5, 6, 3], name="x")
    y = v1.placeholder(tf.float32, [8, 2, 3, 1], name="y")
    return [
        tf.space_to_batch_nd(x, [2, 3], [[1, 0], [0, 0]]),
        tf.batch_to_space(y, [2, 2], [[0, 1], [1, 0]]),
        tf.space_to_batch_nd(x[0], [2], [[0, 2]]),
    ]


def dilated_convs(rng):
    """The SpaceToBatchND -> conv -> BatchToSpaceND form of dilated convs
    (atrous SAME and VALID, a depthwise one, rates 3x2 on an even kernel), each
    followed by a batch norm."""
    x = v1.placeholder(tf.float32, [1, 10, 9, 3], name="x")
    same = tf.nn.atrous_conv2d(x, weight(rng, 3, 3, 3, 4), rate=2, padding="SAME")
    valid = tf.nn.atrous_conv2d(x, weight(rng, 3, 2, 3, 4), rate=3, padding="VALID")
    depthwise = tf.nn.depthwise_conv2d(
        x, weight(rng, 3, 3, 3, 2), [1, 1, 1, 1], "SAME", dilations=[2, 2]
    )
    uneven = tf.nn.convolution(
        x, weight(rng, 2, 3, 3, 2), padding="SAME", dilations=[3, 2]
    )
    return [
        tf.nn.relu(batch_norm(rng, same, 4)),
        batch_norm(rng, valid, 4),
        batch_norm(rng, tf.nn.bias_add(depthwise, weight(rng, 6)), 6),
        batch_norm(rng, uneven, 2),
    ]


def placeholder_default(rng):
    x = v1.placeholder(tf.float32, [2, 3], name="x")
    scale = v1.placeholder_with_default(
        tf.constant([1.5, -2.0, 0.5]), [3], name="scale"
    )
    return [x * scale]


def misc(rng):
    """BroadcastTo, ReverseV2, Fill with a computed shape, ZerosLike, v1 Concat and
    Gather, GatherNd, Cumsum, InvertPermutation."""
    x = v1.placeholder(tf.float32, [3, 1, 4], name="x")
    return [
        tf.broadcast_to(x, [2, 3, 5, 4]),
        tf.reverse(x, [0, -1]),
        tf.fill(tf.shape(x[:, 0]), 2.0) + x[:, 0],
        raw.ZerosLike(x=x) + 1.0,
        raw.Concat(concat_dim=2, values=[x, x * 2.0]),
        raw.Gather(params=x, indices=[2, 0, 2]),
        tf.gather_nd(x, [[2, 0], [0, 0]]),
        tf.gather_nd(x, [[[1, 0, 3]], [[2, 0, 1]]]),
        tf.math.invert_permutation(tf.argsort(x[0, 0])),
        tf.cumsum(x, axis=2),
        tf.cumsum(x, axis=-1, exclusive=True, reverse=True),
    ]


def depth_space(rng):
    x = v1.placeholder(tf.float32, [2, 4, 6, 8], name="x")
    return [tf.nn.depth_to_space(x, 2), tf.nn.space_to_depth(x, 2)]


def volumes(rng):
    """Conv3D, its transpose and 3-D pooling, NDHWC."""
    x = v1.placeholder(tf.float32, [1, 5, 6, 7, 2], name="x")
    conv = tf.nn.conv3d(x, weight(rng, 3, 2, 3, 2, 4), [1, 1, 2, 1, 1], "SAME")
    dilated = tf.nn.conv3d(
        x, weight(rng, 2, 2, 2, 2, 3), [1] * 5, "VALID", dilations=[1, 2, 1, 2, 1]
    )
    return [
        tf.nn.relu(conv),
        dilated,
        tf.nn.max_pool3d(x, [1, 2, 2, 3, 1], [1, 2, 1, 2, 1], "SAME"),
        tf.nn.avg_pool3d(x, [1, 3, 2, 2, 1], [1, 1, 2, 2, 1], "SAME"),
        tf.nn.avg_pool3d(x, 2, 2, "VALID"),
        tf.nn.conv3d_transpose(
            x, weight(rng, 3, 2, 2, 3, 2), [1, 10, 12, 13, 3], 2, "SAME"
        ),
        tf.nn.conv3d_transpose(
            x, weight(rng, 2, 3, 2, 1, 2), [1, 6, 8, 8, 1], 1, "VALID"
        ),
    ]


GRAPHS = {
    "tile_range.pbtxt": tile_range,
    "one_hot.pbtxt": one_hot,
    "top_k.pbtxt": top_k,
    "resizes.pbtxt": resizes,
    "einsum.pb": einsum,
    "space_batch.pbtxt": space_batch,
    "dilated_convs.pb": dilated_convs,
    "placeholder_default.pbtxt": placeholder_default,
    "misc_tensor_ops.pbtxt": misc,
    "depth_space.pbtxt": depth_space,
    "volumes.pb": volumes,
}


def keras_dilated_conv_bn() -> None:
    """Keras Conv2D(dilation_rate=2) + BatchNormalization with random moving
    statistics, frozen by convert_variables_to_constants_v2."""
    tf.keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    inputs = tf.keras.Input([12, 11, 3], batch_size=1, name="image")
    conv = tf.keras.layers.Conv2D(6, 3, dilation_rate=2, padding="same")(inputs)
    bn = tf.keras.layers.BatchNormalization()
    outputs = tf.keras.layers.ReLU()(bn(conv))
    model = tf.keras.Model(inputs, outputs)
    bn.moving_mean.assign(rng.standard_normal(6).astype(np.float32))
    bn.moving_variance.assign(rng.uniform(0.5, 2.0, 6).astype(np.float32))
    bn.gamma.assign(rng.uniform(0.5, 1.5, 6).astype(np.float32))
    bn.beta.assign(rng.standard_normal(6).astype(np.float32))
    spec = tf.TensorSpec([1, 12, 11, 3], tf.float32, name="image")
    concrete = tf.function(lambda x: model(x, training=False)).get_concrete_function(
        spec
    )
    frozen = convert_variables_to_constants_v2(concrete)
    image = rng.standard_normal([1, 12, 11, 3]).astype(np.float32)
    result = frozen(tf.constant(image))
    result = result[0] if isinstance(result, (list, tuple)) else result
    (FIXTURES / "tf_keras_dilated_conv_bn.pb").write_bytes(
        frozen.graph.as_graph_def().SerializeToString(deterministic=True)
    )
    np.savez(
        FIXTURES / "tf_keras_dilated_conv_bn.npz",
        **{
            f"in:{frozen.inputs[0].op.name}": image,
            "out:0": result.numpy(),
            "outputs": np.array([frozen.outputs[0].op.name]),
        },
    )


def main() -> None:
    for name, build in GRAPHS.items():
        write(name, build)
    keras_dilated_conv_bn()


if __name__ == "__main__":
    main()
