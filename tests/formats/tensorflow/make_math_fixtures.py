"""Writes GraphDef fixtures of comparisons, logical ops, select, unary math and
reductions, built by real TensorFlow, with TensorFlow's outputs.

Needs TensorFlow (not a test dependency; CI only reads the committed files):
    python tests/formats/tensorflow/make_math_fixtures.py

Same form as make_tf_fixtures.py (fixtures/tf_math_<name>.pbtxt and .npz);
test_tf_op_fixtures.py runs them.
"""

from __future__ import annotations

import tensorflow as tf
from make_tf_fixtures import write

v1 = tf.compat.v1
raw = tf.raw_ops


def compare(rng):
    """Every comparison and logical op, SelectV2 (tf.where) and Select (v1) with
    a same-shape and a vector condition; Where (the indices of true elements)."""
    a = v1.placeholder(tf.float32, [2, 3, 4], name="a")
    b = v1.placeholder(tf.float32, [3, 1], name="b")
    rounded = tf.round(a)
    positive, small = a > 0, tf.abs(a) < 0.5
    vector = v1.placeholder(tf.float32, [2], name="vector")
    return [
        a > b, a >= b, a < b, a <= b,
        tf.equal(rounded, 0.0), tf.not_equal(rounded, 1.0),
        tf.logical_and(positive, small), tf.logical_or(positive, small),
        tf.logical_not(positive), tf.math.logical_xor(positive, small),
        tf.where(a > b, a, b * 2.0),
        raw.Select(condition=positive, x=a, y=-a),
        raw.Select(condition=vector > 0, x=a, y=a * 3.0),
        tf.cast(positive, tf.float32) * a,
        tf.where(a > 0.5),
    ]  # fmt: skip


def unary_math(rng):
    """Unary math, with inputs in each op's domain; NaN and inf from 0/0 and 1/0."""
    x = v1.placeholder(tf.float32, [2, 3, 5], name="x")
    unit = tf.tanh(x)
    halves = x * 0.0 + [0.5, 1.5, 2.5, -0.5, -2.5]
    special = tf.concat([x, (x - x) / (x - x), 1.0 / (x * 0.0)], axis=0)
    return [
        tf.sin(x), tf.cos(x), tf.tan(x), tf.asin(unit), tf.acos(unit), tf.atan(x),
        tf.sinh(x), tf.cosh(x), tf.asinh(x), tf.acosh(1.0 + tf.abs(x)),
        tf.atanh(0.9 * unit), tf.floor(3.0 * x), tf.math.ceil(3.0 * x),
        tf.round(3.0 * x), tf.round(halves), tf.sign(tf.round(x)),
        tf.math.log1p(tf.abs(x)), tf.math.expm1(x), tf.nn.softplus(4.0 * x),
        tf.nn.softsign(x), tf.math.erf(x), tf.nn.selu(x), tf.nn.elu(x),
        tf.nn.leaky_relu(x, alpha=0.3), tf.nn.relu6(4.0 * x),
        tf.math.rsqrt(tf.abs(x) + 0.1), tf.square(x),
        tf.math.is_nan(special), tf.math.is_inf(special), tf.math.is_finite(special),
        tf.nn.log_softmax(x * 40.0),
    ]  # fmt: skip


def hard_swish(rng):
    """Keras MobileNetV3's hard_sigmoid and hard_swish: relu6(x + 3) / 6, x * it."""
    x = v1.placeholder(tf.float32, [1, 4, 4, 3], name="x")
    gate = tf.nn.relu6(x * 3.0 + 3.0) * (1.0 / 6.0)
    return [x * gate, x * tf.nn.relu6(x + 3.0) / 6.0]


def arithmetic(rng):
    """FloorDiv, FloorMod, TruncateMod and Div on floats and on integers of mixed
    signs; AddN, ClipByValue, ZerosLike and OnesLike."""
    x = v1.placeholder(tf.float32, [3, 4], name="x")
    y = v1.placeholder(tf.float32, [4], name="y")
    y = tf.where(tf.abs(y) < 0.3, 0.7, y)  # no division by ~0
    i, j = tf.cast(x * 10.0, tf.int32), tf.cast(y * 4.0, tf.int32)
    j = tf.where(tf.equal(j, 0), 3, j)
    return [
        tf.math.floordiv(x, y), tf.math.floormod(x, y), raw.TruncateMod(x=x, y=y),
        tf.math.floordiv(i, j), tf.math.floormod(i, j), raw.TruncateMod(x=i, y=j),
        raw.Div(x=i, y=j), raw.TruncateDiv(x=i, y=j), raw.Mod(x=x, y=y),
        tf.add_n([x, x * 2.0, x + y]), raw.ClipByValue(t=x, clip_value_min=-0.5, clip_value_max=0.8),
        raw.ClipByValue(t=x, clip_value_min=x * 0.0 + y, clip_value_max=x * 0.0 + y + 1.0),
        raw.ClipByValue(t=i, clip_value_min=-3, clip_value_max=4),
        raw.ZerosLike(x=x), raw.OnesLike(x=i),
    ]  # fmt: skip


def reductions(rng):
    """Prod, Any, All with and without keep_dims, an empty axis list; ArgMax and
    ArgMin with both index types, on ties too (the first index wins); Cumsum."""
    x = v1.placeholder(tf.float32, [3, 4, 5], name="x")
    ties = tf.round(x)
    return [
        tf.reduce_prod(x, axis=1), tf.reduce_prod(x, axis=[0, -1], keepdims=True),
        tf.reduce_any(x > 1.0, axis=[0, 2]), tf.reduce_all(x > -1.5, axis=-1, keepdims=True),
        tf.reduce_any(x > 2.0), tf.reduce_sum(x, axis=[]),
        tf.argmax(x, axis=1), tf.argmin(x, axis=-1, output_type=tf.int32),
        tf.argmax(ties, axis=0, output_type=tf.int32), tf.argmin(ties, axis=2),
        tf.cumsum(x, axis=1), tf.cumsum(x, axis=-1, exclusive=True, reverse=True),
    ]  # fmt: skip


GRAPHS = {
    "math_compare.pbtxt": compare,
    "math_unary.pbtxt": unary_math,
    "math_hard_swish.pbtxt": hard_swish,
    "math_reductions.pbtxt": reductions,
    "math_arithmetic.pbtxt": arithmetic,
}


def main() -> None:
    for name, build in GRAPHS.items():
        write(name, build)


if __name__ == "__main__":
    main()
