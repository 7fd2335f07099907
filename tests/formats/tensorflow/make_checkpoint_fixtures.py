"""Writes a TF1 graph and the checkpoint `tf.compat.v1.train.Saver` wrote for
it (not run by CI; needs tensorflow):
    python tests/formats/tensorflow/make_checkpoint_fixtures.py

fixtures/checkpoint/graph.pbtxt holds a ref variable (VariableV2), a resource
variable (VarHandleOp, ReadVariableOp), their initializers and the Saver's
save/restore ops; fixtures/checkpoint/model.ckpt.{index,data-00000-of-00001}
the values the session held when it saved (not the initial ones), and
graph.npz inputs and TensorFlow's outputs in the layout of
make_control_flow_fixtures.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

DIRECTORY = Path(__file__).parent / "fixtures" / "checkpoint"
v1 = tf.compat.v1


def main() -> None:
    DIRECTORY.mkdir(exist_ok=True)
    rng = np.random.default_rng(3)
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3], name="x")
        weights = v1.get_variable("weights", [3, 4], use_resource=False)
        bias = v1.get_variable("bias", [4], use_resource=True)
        result = tf.identity(tf.nn.relu(x @ weights + bias), name="result")
        # values fed to the initializers: no constant in the graph holds them
        trained = {
            weights.initial_value: rng.standard_normal((3, 4)).astype(np.float32),
            bias.initial_value: rng.standard_normal(4).astype(np.float32),
        }
        saver = v1.train.Saver()
        feeds = [{"x": rng.standard_normal((2, 3)).astype(np.float32)} for _ in "ab"]
        with v1.Session(graph=graph) as session:
            session.run(v1.global_variables_initializer(), trained)
            saver.save(
                session,
                str(DIRECTORY / "model.ckpt"),
                write_state=False,
                write_meta_graph=False,
            )
            outputs = [session.run(result, {x: f["x"]}) for f in feeds]
    (DIRECTORY / "graph.pbtxt").write_text(str(graph.as_graph_def()))
    arrays = {"outputs": np.array(["result"])}
    for k, (feed, out) in enumerate(zip(feeds, outputs)):
        arrays |= {f"in{k}_x": feed["x"], f"out{k}_0": out}
    np.savez(DIRECTORY / "graph.npz", **arrays)


if __name__ == "__main__":
    main()
