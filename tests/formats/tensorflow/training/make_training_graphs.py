"""Writes the training-graph fixtures with real TensorFlow (not run by CI):
TF1-style graphs (tf.compat.v1) with variables, queues and optimizer updates,
and the variable values TensorFlow reaches after a few steps on stored batches.

    /work/tfenv/bin/python tests/formats/tensorflow/training/make_training_graphs.py

- auto_parallel.pbtxt: Grappler's AutoParallel example (auto_parallel_test.cc):
  a FIFO queue, a dequeue of one element, an add with a constant and
  ApplyGradientDescent on a ref variable (VariableV2) with a learning rate; an
  `enqueue` node fills the queue from the placeholder `batch`.
  auto_parallel_grappler.pbtxt is Grappler's AutoParallel (2 replicas) of it,
  and its .npz the variable after each step of that graph in TensorFlow.
- conv_bn_relu.pbtxt: two convolutions, training-mode FusedBatchNormV3 (moving
  statistics updated by AssignSubVariableOp), ReLU, a dense layer and a squared
  error, trained by Momentum on resource variables (VarHandleOp).
- dense_adam.pbtxt: a dense layer on ref variables trained by Adam.

Each `<name>.npz` holds the feeds of each step (`step<k>/<placeholder>`) and
the variables after each step (`after<k>/<variable>`), `initial/<variable>`
their values after `init` (auto_parallel: `assign`; `enqueued/batch` what the
queue holds).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
from tensorflow.python.grappler import tf_optimizer

tf1 = tf.compat.v1
HERE = Path(__file__).parent
STEPS = 3
REPLICAS = 2


def auto_parallel_graph():
    graph = tf.Graph()
    with graph.as_default():
        constant_a = tf.constant([1.0], name="constant_a")
        constant_b = tf.constant(1, name="constant_b")
        # initialized from constant_a by var/Assign (the seed's `assign`)
        var = tf1.Variable(constant_a, name="var", use_resource=False)
        tf.identity(var, name="identity")
        queue = tf1.FIFOQueue(16, [tf.float32], shapes=[[]], name="fifo_queue")
        batch = tf1.placeholder(tf.float32, [REPLICAS * STEPS], name="batch")
        queue.enqueue_many([batch], name="enqueue")
        dequeue = queue.dequeue_many(constant_b, name="dequeue")
        add = tf.add_n([constant_a, dequeue], name="add")
        learning_rate = tf.constant(
            0.01, name="learning_rate"
        )  # a scalar, as TF requires
        apply = tf.raw_ops.ApplyGradientDescent(
            var=var._ref(), alpha=learning_rate, delta=add, name="apply_gradient"
        )
        graph.add_to_collection("train_op", apply)
    return graph


def _unchanged(tensor, name):
    return tensor


def conv_bn_relu_graph(quantize_weight=_unchanged, quantize_activation=_unchanged):
    """`quantize_weight(w, layer)` and `quantize_activation(a, producer)` give
    what layers read instead (make_qat_graphs.py's fake quantizations)."""
    rng = np.random.default_rng(1)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [2, 6, 6, 3], name="x")
        y = tf1.placeholder(tf.float32, [2, 4], name="y")

        def variable(name, shape, scale=0.3):
            init = (rng.standard_normal(shape) * scale).astype(np.float32)
            return tf1.get_variable(
                name, initializer=tf.constant(init), use_resource=True
            )

        w1 = variable("conv1/w", [3, 3, 3, 5])
        h = tf.nn.conv2d(
            x, quantize_weight(w1, "conv1"), [1, 1, 1, 1], "SAME", name="conv1"
        )
        h = quantize_activation(h, "conv1")
        gamma = variable("bn/gamma", [5]) + 0  # read once: the value the grad needs
        beta = variable("bn/beta", [5])
        moving_mean = tf1.get_variable(
            "bn/moving_mean", initializer=tf.zeros([5]), trainable=False,
            use_resource=True,
        )  # fmt: skip
        moving_var = tf1.get_variable(
            "bn/moving_variance", initializer=tf.ones([5]), trainable=False,
            use_resource=True,
        )  # fmt: skip
        bn, mean, var, *_ = tf.raw_ops.FusedBatchNormV3(
            x=h, scale=gamma, offset=beta, mean=tf.zeros([5]), variance=tf.ones([5]),
            epsilon=0.001, is_training=True, name="bn",
        )  # fmt: skip
        decay = 0.1
        updates = [
            moving_mean.assign_sub((moving_mean - mean) * decay, name="update_mean"),
            moving_var.assign_sub((moving_var - var) * decay, name="update_var"),
        ]
        r = tf.nn.relu(bn, name="relu")
        w2 = variable("conv2/w", [3, 3, 5, 4])
        b2 = variable("conv2/b", [4])
        h2 = tf.nn.bias_add(
            tf.nn.conv2d(
                r, quantize_weight(w2, "conv2"), [1, 2, 2, 1], "VALID", name="conv2"
            ),
            b2,
        )
        h2 = quantize_activation(h2, "BiasAdd")
        pooled = tf.reduce_mean(h2, axis=[1, 2], name="pool")
        w3 = variable("dense/w", [4, 4])
        logits = tf.matmul(pooled, quantize_weight(w3, "dense"), name="dense")
        logits = quantize_activation(logits, "dense")
        loss = tf.reduce_mean(tf.square(logits - y), name="loss")
        optimizer = tf1.train.MomentumOptimizer(0.05, 0.9)
        with tf.control_dependencies(updates):
            optimizer.minimize(loss, name="train")
        tf1.global_variables_initializer()  # "init"
    return graph


def dense_adam_graph():
    rng = np.random.default_rng(2)
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [4, 3], name="x")
        y = tf1.placeholder(tf.float32, [4, 2], name="y")
        w = tf1.Variable(
            (rng.standard_normal((3, 2)) * 0.5).astype(np.float32), name="w",
            use_resource=False,
        )  # fmt: skip
        b = tf1.Variable(np.zeros(2, np.float32), name="b", use_resource=False)
        out = tf.nn.relu(tf.matmul(x, w) + b)
        loss = tf.reduce_sum(tf.square(out - y), name="loss")
        tf1.train.AdamOptimizer(0.01).minimize(loss, name="train")
        tf1.global_variables_initializer()
    return graph


def variable_values(session, graph) -> dict[str, np.ndarray]:
    variables = graph.get_collection(tf1.GraphKeys.GLOBAL_VARIABLES)
    return {v.op.name: session.run(v) for v in variables}


def grappler_auto_parallel(graph) -> tf1.GraphDef:
    """Grappler's AutoParallel (alone, one iteration) on the graph, fetching
    its train_op."""
    config = config_pb2.ConfigProto()
    rewrites = config.graph_options.rewrite_options
    rewrites.optimizers.append("autoparallel")
    rewrites.auto_parallel.enable = True
    rewrites.auto_parallel.num_replicas = REPLICAS
    rewrites.min_graph_nodes = -1
    rewrites.meta_optimizer_iterations = rewriter_config_pb2.RewriterConfig.ONE
    meta_graph = tf1.train.export_meta_graph(graph=graph)
    return tf_optimizer.OptimizeGraph(config, meta_graph)


def train_grappler_auto_parallel(graph, batch: np.ndarray) -> None:
    """auto_parallel_grappler.pbtxt and the variable after each of its steps
    (`after<k>/var` in auto_parallel_grappler.npz): each step trains the
    replicas on REPLICAS batches, each update divided by REPLICAS."""
    optimized = grappler_auto_parallel(graph)
    parallel = tf.Graph()
    with parallel.as_default():
        tf1.import_graph_def(optimized, name="")
    record = {"enqueued/batch": batch}
    with tf1.Session(graph=parallel) as session:
        session.run("var/Assign")
        session.run("enqueue", {"batch:0": batch})
        for step in range(STEPS):
            session.run("apply_gradient")
            record[f"after{step}/var"] = session.run("var:0")
    (HERE / "auto_parallel_grappler.pbtxt").write_text(str(optimized))
    np.savez(HERE / "auto_parallel_grappler.npz", **record)


def train(graph, name: str, train_op: str, feeds) -> None:
    record = {}
    with tf1.Session(graph=graph) as session:
        session.run("init" if name != "auto_parallel" else "var/Assign")
        if name == "auto_parallel":
            session.run("enqueue", {"batch:0": feeds[0]["batch"]})
            record["enqueued/batch"] = feeds[0]["batch"]
            feeds = [{}] * STEPS
        for key, value in variable_values(session, graph).items():
            record[f"initial/{key}"] = value
        for step, feed in enumerate(feeds):
            session.run(train_op, {f"{k}:0": v for k, v in feed.items()})
            for key, value in feed.items():
                record[f"step{step}/{key}"] = value
            for key, value in variable_values(session, graph).items():
                record[f"after{step}/{key}"] = value
    (HERE / f"{name}.pbtxt").write_text(str(graph.as_graph_def()))
    np.savez(HERE / f"{name}.npz", **record)


def main() -> None:
    tf1.disable_eager_execution()
    rng = np.random.default_rng(0)
    batch = np.array([0.25, -0.75, 2.0, 1.5, -0.5, 0.125], np.float32)
    train(auto_parallel_graph(), "auto_parallel", "apply_gradient", [{"batch": batch}])
    train_grappler_auto_parallel(auto_parallel_graph(), batch)
    batches = [
        {"x": rng.standard_normal((2, 6, 6, 3)).astype(np.float32),
         "y": rng.standard_normal((2, 4)).astype(np.float32)}
        for _ in range(STEPS)
    ]  # fmt: skip
    train(conv_bn_relu_graph(), "conv_bn_relu", "train", batches)
    batches = [
        {"x": rng.standard_normal((4, 3)).astype(np.float32),
         "y": rng.standard_normal((4, 2)).astype(np.float32)}
        for _ in range(STEPS)
    ]  # fmt: skip
    train(dense_adam_graph(), "dense_adam", "train", batches)


if __name__ == "__main__":
    main()
