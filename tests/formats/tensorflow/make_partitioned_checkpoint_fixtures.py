"""Writes a TF1 graph with partitioned variables and the checkpoint
`tf.compat.v1.train.Saver` wrote for it (not run by CI; needs tensorflow):
    python tests/formats/tensorflow/make_partitioned_checkpoint_fixtures.py

fixtures/partitioned_checkpoint/ holds, in the layout of
make_checkpoint_fixtures.py, a graph whose `table` (130 x 3, rows gathered
from its parts joined) is split in two `table/part_N` variables along its rows
(starts and lengths past 63: OrderedCode's two-byte numbers) and whose
`kernel` (2 x 1100, resource variables) in two along its rows, parts of more
than 1024 elements (mapped, not read). The Saver saves each as one tensor in
slices: the index holds `table` with its slice specs and a key per slice.
graph.npz also holds the whole `table` as TensorFlow has it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf

DIRECTORY = Path(__file__).parent / "fixtures" / "partitioned_checkpoint"
v1 = tf.compat.v1


def main() -> None:
    DIRECTORY.mkdir(exist_ok=True)
    rng = np.random.default_rng(4)
    graph = tf.Graph()
    with graph.as_default():
        ids = v1.placeholder(tf.int32, [4], name="ids")
        x = v1.placeholder(tf.float32, [1, 1100], name="x")
        table = v1.get_variable(
            "table", [130, 3], partitioner=v1.fixed_size_partitioner(2),
            use_resource=False,
        )  # fmt: skip
        kernel = v1.get_variable(
            "kernel", [2, 1100], partitioner=v1.fixed_size_partitioner(2),
            use_resource=True,
        )  # fmt: skip
        rows = tf.gather(tf.concat(list(table), 0), ids)  # [4, 3]
        mixed = tf.matmul(x, tf.transpose(tf.concat(list(kernel), 0)))  # [1, 2]
        result = tf.identity(tf.reduce_sum(rows) + mixed, name="result")
        saver = v1.train.Saver()
        feeds = [
            {
                "ids": rng.integers(0, 130, 4).astype(np.int32),
                "x": rng.standard_normal((1, 1100)).astype(np.float32),
            }
            for _ in "ab"
        ]
        with v1.Session(graph=graph) as session:
            session.run(v1.global_variables_initializer())
            for part in (*table, *kernel):  # values no initializer holds
                shape = part.shape.as_list()
                part.load(rng.standard_normal(shape).astype(np.float32), session)
            saver.save(
                session,
                str(DIRECTORY / "model.ckpt"),
                write_state=False,
                write_meta_graph=False,
            )
            outputs = [session.run(result, {ids: f["ids"], x: f["x"]}) for f in feeds]
            whole_table = np.concatenate(session.run(list(table)))
    (DIRECTORY / "graph.pbtxt").write_text(str(graph.as_graph_def()))
    arrays = {"outputs": np.array(["result"]), "table": whole_table}
    for k, (feed, out) in enumerate(zip(feeds, outputs)):
        arrays |= {f"in{k}_ids": feed["ids"], f"in{k}_x": feed["x"], f"out{k}_0": out}
    np.savez(DIRECTORY / "graph.npz", **arrays)


if __name__ == "__main__":
    main()
