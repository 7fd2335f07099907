"""Writes corpus/: frozen TensorFlow graphs holding floats that MLIR text prints in
hex (not run by CI: needs TensorFlow 2.x).

    python tests/formats/mlir/make_corpus.py

- causal_attention: a Keras self-attention block whose causal mask is a -inf
  constant, as transformer code writes it (`scores + mask`, then softmax),
  with a position scale of 2^24 + 2^2 (a whole number past 2^24).

Each model is NAME.pb (frozen by convert_variables_to_constants_v2) and NAME.npz
(`in:<placeholder>` seeded inputs, `out:<i>` TensorFlow's outputs, `outputs` the
output tensor names), as tests/formats/tensorflow/corpus holds them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import tensorflow as tf
from tensorflow.python.framework.convert_to_constants import (
    convert_variables_to_constants_v2,
)

CORPUS = Path(__file__).parent / "corpus"
SEQ, WIDTH = 6, 8


class CausalAttention(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.qkv = tf.keras.layers.Dense(3 * WIDTH)
        self.out = tf.keras.layers.Dense(WIDTH)
        mask = np.triu(np.full((SEQ, SEQ), -np.inf, np.float32), 1)
        self.mask = tf.constant(mask)
        self.positions = tf.constant(
            np.arange(SEQ, dtype=np.float32)[:, None] / np.float32(16777220.0)
        )

    def call(self, x):
        q, k, v = tf.split(self.qkv(x), 3, axis=-1)
        scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(WIDTH) + self.mask
        mixed = tf.matmul(tf.nn.softmax(scores, axis=-1), v)
        return self.out(mixed) + self.positions * np.float32(16777220.0)


def main() -> None:
    tf.keras.utils.set_random_seed(0)
    x = tf.keras.Input((SEQ, WIDTH), batch_size=1)
    model = tf.keras.Model(x, CausalAttention()(x))
    spec = tf.TensorSpec((1, SEQ, WIDTH), tf.float32, name="input")
    function = tf.function(lambda x: model(x, training=False), input_signature=[spec])
    concrete = function.get_concrete_function()
    inputs = np.random.default_rng(0).standard_normal((1, SEQ, WIDTH)).astype("f4")
    frozen = convert_variables_to_constants_v2(concrete)
    CORPUS.mkdir(exist_ok=True)
    name = "causal_attention"
    (CORPUS / f"{name}.pb").write_bytes(frozen.graph.as_graph_def().SerializeToString())
    placeholder = frozen.inputs[0].name.split(":")[0]
    np.savez(
        CORPUS / f"{name}.npz",
        **{f"in:{placeholder}": inputs, "out:0": concrete(inputs).numpy()},
        outputs=np.array([t.name.removesuffix(":0") for t in frozen.outputs]),
    )


if __name__ == "__main__":
    main()
