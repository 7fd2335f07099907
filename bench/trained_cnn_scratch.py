"""Measures how make_corpus.py's short seeded training (`train_on_teacher`)
changes the corpus' Keras CNNs (experiment for issue 15; needs TensorFlow,
not run by CI).

    /work/tfenv/bin/python bench/trained_cnn_scratch.py [NAME ...]

Each model goes through make_corpus.py's steps: random batch norms,
`calibrate_batch_norms`, `train_on_teacher`, `calibrate_batch_norms` again
(the random batch norms from a fresh seed per model, where make_corpus.py
draws them from one stream over all models, so only the first model's
weights are the fixture's).
Prints, after each stage: spread (std over 32 seeded normal inputs / mean
|output|) and sensitivity (median over those inputs of |f(x+d) - f(x)| / |f(x)|
for a random d with |d| = 1e-3 |x|; about 1e-3 is a gain of 1), and the
training time.
"""

import sys
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).parent.parent / "tests/formats/tensorflow"))
import make_corpus  # noqa: E402


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


def main(names: list[str]) -> None:
    tf.config.experimental.enable_op_determinism()
    builders = make_corpus.keras_models()
    print("model            | stage        | spread | sensitivity | seconds")
    for name in names or make_corpus.DEEP_CNNS:
        tf.keras.utils.set_random_seed(0)
        model = builders[name]()
        make_corpus.randomize_batch_norms(model, np.random.default_rng(0))
        make_corpus.calibrate_batch_norms(model, np.random.default_rng(1))
        rows = [("calibrated", *measure(model), 0.0)]
        start = time.perf_counter()
        make_corpus.train_on_teacher(model, np.random.default_rng(2))
        seconds = time.perf_counter() - start
        rows.append(("trained", *measure(model), seconds))
        make_corpus.calibrate_batch_norms(model, np.random.default_rng(1))
        rows.append(("recalibrated", *measure(model), 0.0))
        for stage, spread, sensitivity, seconds in rows:
            print(
                f"{name:16} | {stage:12} | {spread:6.3f} | {sensitivity:11.2e} "
                f"| {seconds:7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
