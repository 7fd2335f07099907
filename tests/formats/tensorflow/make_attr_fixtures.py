"""Writes fixtures whose TensorFlow ops carry non-default attribute values
(batch_dims, data_format NCHW, EXPLICIT padding, dilations, keep_dims, Tidx
and out_type dtypes, transpose/adjoint flags, Cumsum's exclusive/reverse,
incompatible_shape_error, ...), with TensorFlow's outputs.

Needs TensorFlow (not a test dependency; CI only reads the committed files):
    python tests/formats/tensorflow/make_attr_fixtures.py

Same conventions as make_tf_fixtures.py (fixtures/tf_<name>.pb and .npz),
which test_tf_op_fixtures.py runs; test_tf_attr_fixtures.py also exports them
as GraphDefs. tf_attr_values runs as written. TensorFlow's CPU kernels have no
channels-first Conv2D, pooling or DepthToSpace, so tf_attr_layouts records,
for each channels-first node, the output of the same op on the transposed
data (NHWC) transposed back, computed in the same graph.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from make_tf_fixtures import FIXTURES, weight
from tensorflow.core.protobuf import rewriter_config_pb2

v1 = tf.compat.v1
raw = tf.raw_ops
REFERENCES_ONLY = v1.ConfigProto(
    graph_options=v1.GraphOptions(
        place_pruned_graph=True,
        rewrite_options=rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True),
    )
)
"""Place only the fetched nodes (the channels-first ones have no CPU kernel),
and no grappler, which would fold a reference's transposes into them."""


def attr_values(rng):
    x = v1.placeholder(tf.float32, [2, 5, 4], name="x")
    image = v1.placeholder(tf.float32, [1, 6, 7, 3], name="image")
    m = v1.placeholder(tf.float32, [3, 4], name="m")
    indices = tf.constant(rng.integers(0, 5, [2, 3]).astype(np.int32))
    deep = tf.constant(rng.integers(0, 4, [2, 5, 2]).astype(np.int64))
    return [
        # GatherV2 batch_dims: along the first non-batch axis, a later one, negative
        raw.GatherV2(params=x, indices=indices, axis=1, batch_dims=1),
        raw.GatherV2(params=x, indices=deep, axis=2, batch_dims=1),
        raw.GatherV2(params=x, indices=deep, axis=-1, batch_dims=-1),
        raw.GatherV2(params=x, indices=deep[:, :, 0], axis=2, batch_dims=2),
        # convolutions: dilations, EXPLICIT padding, strides
        raw.Conv2D(
            input=image, filter=weight(rng, 2, 3, 3, 4), strides=[1, 1, 2, 1],
            padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0],
            dilations=[1, 2, 1, 1],
        ),
        raw.DepthwiseConv2dNative(
            input=image, filter=weight(rng, 3, 2, 3, 2), strides=[1, 1, 1, 1],
            padding="SAME", dilations=[1, 2, 2, 1],
        ),
        raw.MaxPool(
            input=image, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1],
            padding="EXPLICIT", explicit_paddings=[0, 0, 1, 1, 0, 1, 0, 0],
        ),
        # reductions: keep_dims, an int64 Tidx
        raw.Sum(input=x, axis=tf.constant([2, 0], tf.int64), keep_dims=True),
        raw.Max(input=x, axis=1, keep_dims=True),
        raw.ArgMax(input=x, dimension=tf.constant(1, tf.int64), output_type=tf.int32),
        raw.ArgMin(input=x, dimension=2, output_type=tf.int32),
        # matmuls: transposes, adjoints, Tout
        raw.MatMul(a=m, b=m, transpose_a=True),
        raw.MatMul(a=m, b=m, transpose_b=True),
        raw.BatchMatMulV2(x=x, y=x, adj_y=True),
        raw.BatchMatMulV2(x=x, y=x, adj_x=True),
        raw.BatchMatMulV3(
            x=tf.cast(x * 9.0, tf.int8), y=tf.cast(x * 9.0, tf.int8),
            Tout=tf.int32, adj_x=True,
        ),
        # Cumsum's exclusive and reverse
        raw.Cumsum(x=x, axis=1, exclusive=True),
        raw.Cumsum(x=x, axis=2, reverse=True),
        raw.Cumsum(x=x, axis=-1, exclusive=True, reverse=True),
        # out_type, Tidx and index dtypes
        raw.Shape(input=x, out_type=tf.int64),
        raw.Size(input=x, out_type=tf.int64),
        raw.Range(start=tf.constant(0.5), limit=tf.constant(3.0), delta=tf.constant(0.75)),
        raw.TopKV2(input=m, k=2, index_type=tf.int64)[1],
        # shapes that do not broadcast, tolerated
        raw.Equal(x=x, y=m, incompatible_shape_error=False),
        raw.NotEqual(x=x, y=m, incompatible_shape_error=False),
        # axes, alpha, Truncate where it changes nothing
        raw.Pack(values=[m, m * 2.0], axis=-1),
        raw.Unpack(value=x, num=5, axis=1)[3],
        raw.LeakyRelu(features=x, alpha=0.05),
        raw.Cast(x=x * 3.0, DstT=tf.int32, Truncate=True),
        raw.MirrorPad(input=m, paddings=[[1, 2], [2, 0]], mode="SYMMETRIC"),
        _gather_in_loop(x, indices),
    ]  # fmt: skip


def _gather_in_loop(x, indices):
    """The issue's case: GatherV2 batch_dims=1 in a (functional) While body."""

    def body(i, total):
        rows = tf.gather(x * tf.cast(i + 1, tf.float32), indices, axis=1, batch_dims=1)
        return i + 1, total + rows

    zeros = tf.zeros([2, 3, 4])
    return tf.while_loop(lambda i, _: i < 3, body, [tf.constant(0), zeros])[1]


def _nchw(value):
    return tf.transpose(value, [0, 3, 1, 2])


def _nhwc(value):
    return tf.transpose(value, [0, 2, 3, 1])


def attr_layouts(rng):
    """(channels-first node, its NHWC reference) pairs."""
    x = v1.placeholder(tf.float32, [1, 4, 6, 5], name="x")  # NCHW
    w, dw = weight(rng, 3, 2, 4, 3), weight(rng, 2, 2, 4, 2)
    bias, bn = weight(rng, 4), [weight(rng, 4) for _ in range(3)]
    variance = tf.constant(rng.uniform(0.5, 1.5, 4).astype(np.float32))
    volume = v1.placeholder(tf.float32, [1, 2, 3, 4, 4], name="volume")  # NCDHW
    w3 = weight(rng, 2, 2, 1, 2, 3)
    conv = {"strides": [1, 1, 2, 1], "padding": "SAME"}  # NCHW: H by 2
    pairs = []

    def both(op, data, out_nchw=_nhwc, **attrs):
        """op on `data` (NCHW), and on its NHWC form with the attributes' spatial
        entries permuted the same way."""
        nhwc = {
            k: [v[0], v[2], v[3], v[1]] if isinstance(v, list) and len(v) == 4 else v
            for k, v in attrs.items()
        }
        if "explicit_paddings" in attrs:
            p = attrs["explicit_paddings"]
            nhwc["explicit_paddings"] = p[:2] + p[4:] + p[2:4]
        first = op(**{data[0]: data[1]}, **attrs, data_format="NCHW")
        last = op(**{data[0]: _nhwc(data[1])}, **nhwc, data_format="NHWC")
        pairs.append((first, _nchw(last)))

    both(
        lambda **a: raw.Conv2D(filter=w, **a),
        ("input", x),
        strides=[1, 1, 1, 2],
        padding="EXPLICIT",
        explicit_paddings=[0, 0, 0, 0, 1, 0, 2, 1],
        dilations=[1, 1, 2, 1],
    )
    both(
        lambda **a: raw.DepthwiseConv2dNative(filter=dw, **a),
        ("input", x),
        strides=[1, 1, 1, 1],
        padding="VALID",
        dilations=[1, 1, 1, 2],
    )
    both(
        raw.MaxPool,
        ("input", x),
        ksize=[1, 1, 2, 3],
        strides=[1, 1, 2, 2],
        padding="SAME",
    )
    both(
        raw.AvgPool,
        ("value", x),
        ksize=[1, 1, 3, 2],
        strides=[1, 1, 1, 2],
        padding="SAME",
    )
    both(lambda **a: raw.BiasAdd(bias=bias, **a), ("value", x))
    both(
        lambda **a: raw.FusedBatchNormV3(
            scale=bn[0],
            offset=bn[1],
            mean=bn[2],
            variance=variance,
            epsilon=0.01,
            is_training=False,
            **a,
        )[0],
        ("x", x),
    )
    both(lambda **a: raw.DepthToSpace(block_size=2, **a), ("input", x))
    both(lambda **a: raw.SpaceToDepth(block_size=2, **a), ("input", x[..., :4]))
    grad = x[:, :3]  # NCHW [1, 3, 6, 5]: the gradient of a conv with 3 channels
    transposed = raw.Conv2DBackpropInput(
        input_sizes=tf.constant([1, 4, 12, 5]),
        filter=w,
        out_backprop=grad,
        data_format="NCHW",
        **conv,
    )
    reference = raw.Conv2DBackpropInput(
        input_sizes=tf.constant([1, 12, 5, 4]),
        filter=w,
        out_backprop=_nhwc(grad),
        strides=[1, 2, 1, 1],
        padding="SAME",
    )
    pairs.append((transposed, _nchw(reference)))
    ncdhw = raw.Conv3D(
        input=volume,
        filter=w3,
        strides=[1, 1, 1, 1, 1],
        padding="SAME",
        data_format="NCDHW",
    )
    ndhwc = raw.Conv3D(
        input=tf.transpose(volume, [0, 2, 3, 4, 1]),
        filter=w3,
        strides=[1] * 5,
        padding="SAME",
    )
    pairs.append((ncdhw, tf.transpose(ndhwc, [0, 4, 1, 2, 3])))
    return pairs  # fmt: skip


def write(name: str, build, paired: bool) -> None:
    rng = np.random.default_rng(17)
    graph = tf.Graph()
    with graph.as_default():
        built = build(rng)
        outputs = [o for o, _ in built] if paired else built
        fetched = [r for _, r in built] if paired else built
        placeholders = [op for op in graph.get_operations() if op.type == "Placeholder"]
        feeds = {
            op.outputs[0]: rng.standard_normal(op.outputs[0].shape).astype(np.float32)
            for op in placeholders
        }
        with v1.Session(graph=graph, config=REFERENCES_ONLY) as session:
            results = session.run(fetched, feeds)
    arrays = {f"in:{t.op.name}": value for t, value in feeds.items()}
    arrays |= {f"out:{i}": np.asarray(r) for i, r in enumerate(results)}
    arrays["outputs"] = np.array([t.name.removesuffix(":0") for t in outputs])
    (FIXTURES / f"tf_{name}.pb").write_bytes(
        graph.as_graph_def().SerializeToString(deterministic=True)
    )
    np.savez(FIXTURES / f"tf_{name}.npz", **arrays)


def main() -> None:
    write("attr_values", attr_values, paired=False)
    write("attr_layouts", attr_layouts, paired=True)


if __name__ == "__main__":
    main()
