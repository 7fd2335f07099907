"""Writes MaxPoolGrad, MaxPoolGradV2, AvgPoolGrad and AvgPool3DGrad fixtures with TensorFlow's
outputs (not run by CI; needs tensorflow):
    python tests/formats/tensorflow/make_pool_grad_fixtures.py

fixtures/pool_grad.pbtxt and pool_grad.npz (the layout of make_tf_fixtures.py:
`in:NAME`, `out:I`, `outputs`). The pooled input holds small whole numbers, so
most max-pool windows hold ties (TensorFlow's CPU kernel routes the gradient to
the first maximum in row-major window order); the windows overlap (stride 1,
kernel 3), leave pixels out (stride 3, kernel 2) and are padded (SAME, and
EXPLICIT pads of different sizes on each side for MaxPoolGrad). oneDNN is turned off: TensorFlow's own CPU
kernels are the reference (oneDNN's MaxPoolGrad and AvgPoolGrad sum in
another order).
"""

from __future__ import annotations

import os

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from make_tf_fixtures import FIXTURES  # noqa: E402

v1 = tf.compat.v1
raw = tf.raw_ops
SHAPE = [2, 7, 6, 3]
SHAPE_3D = [1, 4, 5, 4, 2]
WINDOWS = [  # ksize, strides, padding
    ([1, 3, 3, 1], [1, 1, 1, 1], "VALID"),
    ([1, 2, 2, 1], [1, 3, 3, 1], "VALID"),
    ([1, 3, 2, 1], [1, 2, 2, 1], "SAME"),
]


def main() -> None:
    rng = np.random.default_rng(13)
    graph = tf.Graph()
    results = []
    with graph.as_default():
        x = v1.placeholder(tf.float32, SHAPE, name="x")
        grads = []
        for ksize, strides, padding in WINDOWS:
            pooled = tf.nn.max_pool2d(x, ksize, strides, padding)
            grads.append(
                v1.placeholder(tf.float32, pooled.shape, name=f"grad{len(grads)}")
            )
            args = dict(ksize=ksize, strides=strides, padding=padding)
            results.append(
                raw.MaxPoolGrad(
                    orig_input=x, orig_output=pooled, grad=grads[-1], **args
                )
            )
            results.append(
                raw.AvgPoolGrad(orig_input_shape=SHAPE, grad=grads[-1], **args)
            )
        ksize, strides, padding = WINDOWS[0]
        pooled = tf.nn.max_pool2d(x, ksize, strides, padding)
        results.append(raw.MaxPoolGradV2(orig_input=x, orig_output=pooled, grad=grads[0], ksize=ksize, strides=strides, padding=padding))  # fmt: skip
        x3 = v1.placeholder(tf.float32, SHAPE_3D, name="x3")
        window = dict(ksize=[1, 2, 3, 2, 1], strides=[1, 1, 2, 2, 1], padding="SAME")
        pooled = tf.nn.max_pool3d(x3, **window)
        grads.append(v1.placeholder(tf.float32, pooled.shape, name="grad3d"))
        results.append(raw.AvgPool3DGrad(orig_input_shape=SHAPE_3D, grad=grads[-1], **window))  # fmt: skip
        explicit = dict(ksize=[1, 3, 2, 1], strides=[1, 2, 1, 1], padding="EXPLICIT")
        explicit["explicit_paddings"] = [0, 0, 1, 2, 1, 0, 0, 0]
        pooled = raw.MaxPool(input=x, **explicit)
        grads.append(v1.placeholder(tf.float32, pooled.shape, name="grad_explicit"))
        results.append(raw.MaxPoolGrad(orig_input=x, orig_output=pooled, grad=grads[-1], **explicit))  # fmt: skip
        results = [tf.identity(r, name=f"result_{i}") for i, r in enumerate(results)]
        feeds = {x: rng.integers(0, 3, SHAPE).astype(np.float32)}
        feeds[x3] = rng.integers(0, 3, SHAPE_3D).astype(np.float32)
        feeds |= {g: rng.standard_normal(g.shape).astype(np.float32) for g in grads}
        with v1.Session(graph=graph) as session:
            outputs = session.run(results, feeds)
    arrays = {f"in:{t.op.name}": value for t, value in feeds.items()}
    arrays |= {f"out:{i}": np.asarray(r) for i, r in enumerate(outputs)}
    arrays["outputs"] = np.array([t.op.name for t in results])
    (FIXTURES / "pool_grad.pbtxt").write_text(str(graph.as_graph_def()))
    np.savez(FIXTURES / "pool_grad.npz", **arrays)


if __name__ == "__main__":
    main()
