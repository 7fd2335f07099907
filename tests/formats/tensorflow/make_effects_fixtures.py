"""Writes fixtures/effects*.pb with real TensorFlow (not run by CI): a frozen
tf.function whose output waits on an Assert and a print (control edges), and a
graph whose nodes are pinned to devices.

    python tests/formats/tensorflow/make_effects_fixtures.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

FIXTURES = Path(__file__).parent / "fixtures"


@tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x")])
def checked(x):
    y = tf.nn.relu(x) + 1.0
    check = tf.debugging.assert_positive(y, message="y must be positive")
    with tf.control_dependencies([check, tf.print("y:", y)]):
        return tf.identity(y * 2.0, name="checked")


def devices_graph() -> tf.compat.v1.GraphDef:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3], name="x")
        with tf.device("/device:CPU:0"):
            a = tf.nn.relu(x, name="a")
            same = tf.identity(a, name="same_device")
        with tf.device("/device:GPU:0"):
            moved = tf.identity(same, name="to_gpu")
        with tf.device("/device:CPU:0"):
            tf.math.exp(moved, name="out")
    return graph.as_graph_def()


def main() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    concrete = checked.get_concrete_function()
    frozen = convert_variables_to_constants_v2(concrete).graph.as_graph_def()
    (FIXTURES / "effects.pbtxt").write_text(str(frozen))
    np.savez(FIXTURES / "effects.npz", x=x, out=concrete(x).numpy())
    (FIXTURES / "devices.pbtxt").write_text(str(devices_graph()))


if __name__ == "__main__":
    main()
