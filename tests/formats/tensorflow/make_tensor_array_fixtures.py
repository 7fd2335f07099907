"""Writes TensorArray fixtures with real TensorFlow (not run by CI).

Run `python tests/formats/tensorflow/make_tensor_array_fixtures.py` in an
environment with tensorflow. Each fixture NAME gets NAME.pb (or .pbtxt) and
NAME.npz in the layout of make_control_flow_fixtures.py. TF1 TensorArrays
(TensorArrayV3 and its Read/Write/Scatter/Gather/Size/Concat ops) come from
graph mode with control flow v2 disabled, inside a v1 while loop; the
tf.function graph is frozen with lower_control_flow=False (a StatelessWhile
over TensorLists); `tensor_array_dynamic_v1` (dynamic_size=True) is a graph
the import refuses.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from make_control_flow_fixtures import save
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

RNG = np.random.default_rng(5)
STEPS = 4
X = tf.TensorSpec([STEPS, 2, 3], tf.float32, name="x")


def input_sets() -> list[dict[str, np.ndarray]]:
    return [{"x": RNG.standard_normal((STEPS, 2, 3)).astype(np.float32)} for _ in "ab"]


def running_mean(x, dynamic_size: bool = False):
    """A recurrence over the rows of `x` read from one TensorArray, its states
    written to another: the stack, the concatenation and the size."""
    rows = tf.TensorArray(tf.float32, size=STEPS).unstack(x)
    states = tf.TensorArray(
        tf.float32, size=STEPS, dynamic_size=dynamic_size, clear_after_read=False
    )

    def body(i, state, states):
        state = state * 0.5 + rows.read(i)
        return i + 1, state, states.write(i, state)

    _, _, states = tf.while_loop(
        lambda i, *_: i < STEPS, body, [0, tf.zeros([2, 3]), states]
    )
    return [
        states.stack(),
        states.concat(),
        tf.cast(states.size(), tf.float32) + 0.0 * tf.reduce_sum(x),
    ]


def v1(name: str, fn, run: bool = True) -> None:
    tf.compat.v1.disable_control_flow_v2()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, X.shape, "x")
        results = [tf.identity(r, name=f"result_{i}") for i, r in enumerate(fn(x))]
    feeds = input_sets()
    outputs = None
    if run:
        with tf.compat.v1.Session(graph=graph) as session:
            outputs = [session.run(results, {x: f["x"]}) for f in feeds]
    tf.compat.v1.enable_control_flow_v2()
    names = [r.name.removesuffix(":0") for r in results]
    save(name, graph.as_graph_def(), feeds, outputs, names)


def functional(name: str, fn) -> None:
    concrete = tf.function(fn, input_signature=[X]).get_concrete_function()
    graph_def = convert_variables_to_constants_v2(
        concrete, lower_control_flow=False
    ).graph.as_graph_def()
    feeds = input_sets()
    outputs = [[r.numpy() for r in concrete(f["x"])] for f in feeds]
    names = [t.name.removesuffix(":0") for t in concrete.outputs]
    save(name, graph_def, feeds, outputs, names)


def main() -> None:
    v1("tensor_array_v1", running_mean)
    v1("tensor_array_dynamic_v1", lambda x: running_mean(x, True), run=False)
    functional("tensor_array_function", lambda x: running_mean(x)[:2])


if __name__ == "__main__":
    main()
