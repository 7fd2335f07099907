"""Writes fixtures/special_ops.pbtxt and .npz: single TensorFlow ops on
special values (NaN with payloads, +-inf, +-0, subnormals, float32's
extremes, whole numbers past 2^24, int32's minimum and maximum), with
TensorFlow's outputs.

Needs TensorFlow (not a test dependency; CI only reads the committed files):
    python tests/formats/tensorflow/make_special_fixtures.py

test_tf_special_values.py runs graph-opt on the graph and compares each
output with TensorFlow's (graph_opt/testing/special_differential.py's
classes). The .npz holds `in:<placeholder>`, `out:<i>`, `outputs` (the
fetched node names) and `ops` (each output's TensorFlow op type).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

from graph_opt.testing.special_values import (
    MODERATE,
    random_bits,
    special_floats,
    special_ints,
)

FIXTURES = Path(__file__).parent / "fixtures"
v1 = tf.compat.v1
raw = tf.raw_ops

UNARY = (
    "Abs", "Neg", "Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Exp",
    "Log", "Sqrt", "Rsqrt", "Floor", "Ceil", "Round", "Sign", "Square",
    "Reciprocal", "Softplus", "Softsign", "IsNan", "IsInf", "IsFinite", "Sin",
    "Cos", "Erf", "Log1p", "Expm1",
)  # fmt: skip
BINARY = (
    "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "FloorDiv",
    "FloorMod", "Pow", "SquaredDifference", "Greater", "Less", "Equal",
    "GreaterEqual", "NotEqual",
)  # fmt: skip
INTEGER_BINARY = ("AddV2", "Maximum", "Minimum", "FloorDiv", "FloorMod", "Mul")
SUMS = ("Sum", "Mean", "Prod")
ARG_ROWS = [
    [np.nan, 1, 3, 2], [np.nan, -np.inf, np.nan, np.nan], [1, np.nan, 3, 3],
    [-np.inf, np.nan, -np.inf, np.nan], [np.nan] * 4,
]  # fmt: skip
"""Where TensorFlow's ArgMax and ArgMin differ from onnxruntime's: a leading NaN."""


def inputs() -> dict[str, np.ndarray]:
    """x: every special float32 and random bit patterns; y: x reordered, so
    that each special meets others; m: specials without finite extremes (for
    sums, whose overflow depends on their order); i, j: int32 specials (j
    without 0)."""
    rng = np.random.default_rng(5)
    x = np.concatenate([special_floats(np.float32), random_bits(rng, np.float32, 7)])
    x = x[:32].reshape(4, 8)
    ints = np.resize(special_ints(np.int32), 32)
    others = rng.permutation(ints)
    moderate = np.resize(special_floats(np.float32, MODERATE), 32)
    return {
        "x": x,
        "m": rng.permutation(moderate).reshape(4, 8),
        "y": rng.permutation(x.ravel()).reshape(4, 8),
        "a": np.array(ARG_ROWS, np.float32),
        "i": ints.reshape(4, 8),
        "j": np.where(others == 0, -3, others).reshape(4, 8),
    }


def _unary(op: str, x):
    if op in ("Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign"):
        return getattr(raw, op)(features=x)
    return getattr(raw, op)(x=x)


def build(p) -> list[tf.Tensor]:
    x, y, m, a, i, j = (p[k] for k in "xymaij")
    out = [_unary(op, x) for op in UNARY]
    out += [getattr(raw, op)(x=x, y=y) for op in BINARY]
    out += [getattr(raw, op)(x=i, y=j) for op in INTEGER_BINARY]
    out += [raw.LeakyRelu(features=x, alpha=0.3)]
    out += [
        tf.cast(x, t)
        for t in (tf.int32, tf.int8, tf.uint8, tf.int64, tf.float16, tf.bool)
    ]
    out += [tf.cast(i, t) for t in (tf.float32, tf.float16, tf.int8)]
    for op in ("ArgMax", "ArgMin"):
        out += [getattr(raw, op)(input=x, dimension=d) for d in (0, 1)]
        out += [getattr(raw, op)(input=a, dimension=1)]
    for op in ("Max", "Min", "Sum", "Mean", "Prod"):
        out += [getattr(raw, op)(input=m if op in SUMS else x, axis=1)]
    out += list(raw.TopKV2(input=x, k=3))
    image = tf.reshape(x, [1, 4, 8, 1])
    out += [
        raw.MaxPool(
            input=image, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID"
        )
    ]
    out += [
        raw.AvgPool(
            value=tf.reshape(m, [1, 4, 8, 1]),
            ksize=[1, 2, 2, 1],
            strides=[1, 1, 1, 1],
            padding="SAME",
        )
    ]
    for low, high in ((-1.0, 2.0), (np.nan, 2.0), (0.0, np.nan)):
        out += [raw.ClipByValue(t=x, clip_value_min=low, clip_value_max=high)]
    out += [raw.Range(start=1e7, limit=1e7 + 0.1 * 40, delta=0.1)]
    out += [raw.Range(start=-3.0, limit=4.0, delta=0.3)]
    out += [raw.Softmax(logits=m), raw.MatMul(a=m, b=m, transpose_b=True)]
    return out


def main() -> None:
    values = inputs()
    graph = tf.Graph()
    with graph.as_default():
        placeholders = {
            k: v1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
            for k, v in values.items()
        }
        outputs = build(placeholders)
        with v1.Session(graph=graph) as session:
            feeds = {placeholders[k]: v for k, v in values.items()}
            results = session.run(outputs, feeds)
    arrays = {f"in:{k}": v for k, v in values.items()}
    arrays |= {f"out:{n}": np.asarray(r) for n, r in enumerate(results)}
    arrays["outputs"] = np.array([t.name.removesuffix(":0") for t in outputs])
    arrays["ops"] = np.array([t.op.type for t in outputs])
    (FIXTURES / "special_ops.pbtxt").write_text(str(graph.as_graph_def()))
    np.savez_compressed(FIXTURES / "special_ops.npz", **arrays)


if __name__ == "__main__":
    main()
