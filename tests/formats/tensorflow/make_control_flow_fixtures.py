"""Writes the control-flow GraphDef fixtures with real TensorFlow (not run by CI).

Run `python tests/formats/tensorflow/make_control_flow_fixtures.py` in an
environment with tensorflow. Each fixture NAME gets NAME.pb (or .pbtxt) and
NAME.npz holding, for each input set k, `in{k}_{placeholder}` and TF's
`out{k}_{i}`. Functional graphs (If/While with a function library) come from
tf.function frozen with convert_variables_to_constants_v2(lower_control_flow=False);
v1 graphs (Switch/Merge/Enter/Exit/NextIteration/LoopCond) from graph mode with
control flow v2 disabled.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

FIXTURES = Path(__file__).parent / "fixtures"
RNG = np.random.default_rng(7)
X = tf.TensorSpec([2, 3], tf.float32, name="x")
N = tf.TensorSpec([], tf.int32, name="n")
W = RNG.standard_normal((2, 3)).astype(np.float32)


def input_sets() -> list[dict[str, np.ndarray]]:
    """Two inputs whose sums have opposite signs, so each branch runs."""
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    x = x - x.mean() + 0.5
    return [{"x": x, "n": np.int32(3)}, {"x": -x, "n": np.int32(5)}]


def cond(x):
    return tf.cond(
        tf.reduce_sum(x) > 0.0, lambda: x * 2.0 + W, lambda: tf.nn.relu(x - 1.0)
    )


def loop(x, n):
    def body(i, y):
        return i + 1, y * 0.5 + W

    return tf.while_loop(lambda i, y: i < n, body, [tf.constant(0), x])[1]


def cond_in_loop(x, n):
    def body(i, y):
        y = tf.cond(tf.reduce_sum(y) > 1.0, lambda: y * 0.5, lambda: y + 1.0)
        return i + 1, y

    return tf.while_loop(lambda i, y: i < n, body, [tf.constant(0), x])[1]


@tf.function
def scaled(x, k):
    return x * k + W


def partitioned_call(x):
    return scaled(tf.nn.relu(x), 3.0) - x


def save(
    name: str,
    graph_def,
    feeds: list[dict],
    outputs: list[list] | None,
    output_names: list[str],
) -> None:
    if name.endswith("_pbtxt"):
        name = name.removesuffix("_pbtxt")
        (FIXTURES / f"{name}.pbtxt").write_text(str(graph_def))
    else:
        (FIXTURES / f"{name}.pb").write_bytes(graph_def.SerializeToString())
    if outputs is None:  # an error case: no outputs to compare
        return
    arrays = {"outputs": np.array(output_names)}
    for k, (feed, outs) in enumerate(zip(feeds, outputs)):
        arrays |= {f"in{k}_{key}": value for key, value in feed.items()}
        arrays |= {f"out{k}_{i}": np.asarray(v) for i, v in enumerate(outs)}
    np.savez(FIXTURES / f"{name}.npz", **arrays)


def functional(name: str, fn, specs, freeze: bool = True) -> None:
    concrete = tf.function(fn, input_signature=specs).get_concrete_function()
    if freeze:
        graph_def = convert_variables_to_constants_v2(
            concrete, lower_control_flow=False
        ).graph.as_graph_def()
    else:
        graph_def = concrete.graph.as_graph_def()
    feeds = [{s.name: f[s.name] for s in specs} for f in input_sets()]
    outputs = [[concrete(*f.values())] for f in feeds]
    names = [t.name.removesuffix(":0") for t in concrete.outputs]
    save(name, graph_def, feeds, outputs, names)


def v1(name: str, fn, specs, run: bool = True) -> None:
    tf.compat.v1.disable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        args = [tf.compat.v1.placeholder(s.dtype, s.shape, s.name) for s in specs]
        result = tf.identity(fn(*args), name="result")
    feeds = [{s.name: f[s.name] for s in specs} for f in input_sets()]
    outputs = None
    if run:
        with tf.compat.v1.Session(graph=graph) as session:
            outputs = [
                [session.run(result, dict(zip(args, f.values())))] for f in feeds
            ]
    tf.compat.v1.enable_control_flow_v2()
    save(name, graph.as_graph_def(), feeds, outputs, ["result"])


def not_nested(x, n):
    """A Merge joining the true sides of two different predicates."""
    low = tf.raw_ops.Switch(data=x, pred=tf.reduce_sum(x) > 0.0)
    high = tf.raw_ops.Switch(data=x * 2.0, pred=n > 0)
    return tf.raw_ops.Merge(inputs=[low.output_true, high.output_true]).output


def main() -> None:
    functional("cond_v2", cond, [X])
    functional("while_v2", loop, [X, N])
    functional("cond_in_while_v2", cond_in_loop, [X, N])
    functional("partitioned_call", partitioned_call, [X], freeze=False)
    v1("cond_v1_pbtxt", cond, [X])
    v1("while_v1", loop, [X, N])
    v1("cond_in_while_v1", cond_in_loop, [X, N])
    v1("not_nested_v1_pbtxt", not_nested, [X, N], run=False)


if __name__ == "__main__":
    main()
