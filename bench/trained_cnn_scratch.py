"""Measures whether a short seeded training makes the corpus' random Keras CNNs
behave like trained ones (experiment for issue 15; needs TensorFlow, not CI).

    /work/tfenv/bin/python bench/trained_cnn_scratch.py [--steps N] [--lr LR]
        [--weight-decay WD] [NAME ...]

Each model is built as make_corpus.py builds it (random batch norms, then
`calibrate_batch_norms`), then trained with Adam(W) on batches of seeded
standard normal inputs, batch norms in training mode, towards a fixed random
teacher: a seeded linear map of the 8x8-average-pooled pixels to the outputs
(softmax targets for the classifiers, MSE for the headless mobilenet_v3).
Prints, before training, after it, and after recalibrating the batch norms:
spread (std over 32 seeded normal inputs / mean |output|) and sensitivity
(median over those inputs of |f(x+d) - f(x)| / |f(x)| for |d| = 1e-3 |x|).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).parent.parent / "tests/frontend/tensorflow"))
import make_corpus  # noqa: E402


def train(model, steps: int, optimizer, rng, batch: int = 32) -> float:
    shape = model.inputs[0].shape[1:]
    outputs = model.outputs[0].shape[-1]
    softmax = "softmax" in str(getattr(model.layers[-1], "activation", ""))
    teacher = rng.standard_normal((3 * (shape[0] // 8) * (shape[1] // 8), outputs))
    teacher = (teacher / np.sqrt(teacher.shape[0])).astype(np.float32)

    @tf.function
    def step(x):
        pooled = tf.nn.avg_pool2d(x, 8, 8, "VALID") * 8.0
        target = tf.reshape(pooled, (batch, -1)) @ teacher
        with tf.GradientTape() as tape:
            y = model(x, training=True)
            if softmax:
                loss = tf.keras.losses.categorical_crossentropy(
                    tf.nn.softmax(2 * target), y
                )
            else:
                loss = (y - target) ** 2
            loss = tf.reduce_mean(loss)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for _ in range(steps):
        loss = step(rng.standard_normal((batch, *shape)).astype(np.float32))
    return float(loss)


def measure(model) -> tuple[float, float]:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((32, *model.inputs[0].shape[1:])).astype(np.float32)
    out = model(x, training=False).numpy().astype(np.float64)
    spread = out.std(axis=0).mean() / np.abs(out).mean()
    d = rng.standard_normal(x.shape).astype(np.float32)
    scale = np.linalg.norm(x.reshape(32, -1), axis=1)
    d *= (1e-3 * scale / np.linalg.norm(d.reshape(32, -1), axis=1))[:, None, None, None]
    moved = model(x + d, training=False).numpy().astype(np.float64)
    change = np.linalg.norm((moved - out).reshape(32, -1), axis=1)
    return spread, float(
        np.median(change / np.linalg.norm(out.reshape(32, -1), axis=1))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(make_corpus.DEEP_CNNS))
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=0.0)
    args = parser.parse_args()
    tf.config.experimental.enable_op_determinism()
    builders = make_corpus.keras_models()
    print("model            | stage      | spread | sensitivity | loss  | seconds")
    for name in args.names:
        tf.keras.utils.set_random_seed(0)
        model = builders[name]()
        make_corpus.randomize_batch_norms(model, np.random.default_rng(0))
        make_corpus.calibrate_batch_norms(model, np.random.default_rng(1))
        rows = [("random", *measure(model), float("nan"), 0.0)]
        optimizer = tf.keras.optimizers.AdamW(args.lr, weight_decay=args.weight_decay)
        start = time.perf_counter()
        loss = train(model, args.steps, optimizer, np.random.default_rng(2))
        rows.append(("trained", *measure(model), loss, time.perf_counter() - start))
        make_corpus.calibrate_batch_norms(model, np.random.default_rng(1))
        rows.append(("recalibrated", *measure(model), float("nan"), 0.0))
        for stage, spread, sensitivity, loss, seconds in rows:
            print(
                f"{name:16} | {stage:10} | {spread:6.3f} | {sensitivity:11.2e} "
                f"| {loss:5.3f} | {seconds:7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
