"""The pooling gradients in graph-opt's reference interpreter against
TensorFlow's CPU kernels (TensorFlow is needed; oneDNN off, so TensorFlow runs
its own kernels, the ones the interpreter reproduces): median seconds of 5
runs each, their ratio, and whether the results are equal bit for bit.
TensorFlow's MaxPoolGrad graph also runs the MaxPool its orig_output comes
from; graph-opt's nn.max_pool_grad finds the maxima again itself.

    python bench/pool_grad.py
"""

from __future__ import annotations

import os
import statistics
import time

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # before TensorFlow loads

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from graph_opt.formats.tensorflow import import_graph_def  # noqa: E402
from graph_opt.interpreter import run_function  # noqa: E402

CASES = [  # input shape, ksize, stride, padding
    ((8, 56, 56, 64), 3, 2, "SAME"),
    ((8, 112, 112, 64), 3, 2, "SAME"),
    ((32, 28, 28, 128), 2, 2, "VALID"),
]
RUNS = 5


def median_seconds(body) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def graph(op_type: str, shape, k: int, s: int, padding: str):
    """A v1 graph of one gradient op fed by placeholders x and dy."""
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, shape, name="x")
        pooled = tf.nn.max_pool2d(x, k, s, padding)
        dy = tf.compat.v1.placeholder(tf.float32, pooled.shape, name="dy")
        window = dict(ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)
        if op_type == "MaxPoolGrad":
            out = tf.raw_ops.MaxPoolGrad(
                orig_input=x, orig_output=pooled, grad=dy, **window
            )
        else:
            out = tf.raw_ops.AvgPoolGrad(orig_input_shape=shape, grad=dy, **window)
        tf.identity(out, name="grad")
    return g


def main() -> None:
    rng = np.random.default_rng(0)
    print("| op | input | graph-opt s | TensorFlow s | ratio | bit-exact |")
    print("| --- | --- | --- | --- | --- | --- |")
    for shape, k, s, padding in CASES:
        for op_type in ("MaxPoolGrad", "AvgPoolGrad"):
            g = graph(op_type, shape, k, s, padding)
            dy_shape = g.get_tensor_by_name("dy:0").shape
            feeds = {
                "x": rng.integers(0, 4, shape).astype(np.float32),  # ties
                "dy": rng.standard_normal(dy_shape).astype(np.float32),
            }
            module = import_graph_def(g.as_graph_def(), outputs=["grad"])
            inputs = feeds if op_type == "MaxPoolGrad" else {"dy": feeds["dy"]}
            ours = median_seconds(lambda m=module, i=inputs: run_function(m, i))
            (mine,) = run_function(module, inputs)
            with tf.compat.v1.Session(graph=g) as session:
                tf_feeds = {f"{k}:0": v for k, v in feeds.items()}
                theirs = median_seconds(
                    lambda s=session, f=tf_feeds: s.run("grad:0", f)
                )
                reference = session.run("grad:0", tf_feeds)
            exact = np.array_equal(mine, reference)
            print(
                f"| {op_type} | {shape} k{k} s{s} {padding} | {ours:.3f} | "
                f"{theirs:.4f} | {ours / theirs:.0f}x | {exact} |"
            )


if __name__ == "__main__":
    main()
