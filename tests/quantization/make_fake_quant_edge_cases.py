"""Write fixtures/fake_quant_edge_cases.npz: TensorFlow's FakeQuantWithMinMaxVars
(and ...PerChannel) on ranges at the edges of what it accepts: min == max,
min > max, denormal and tiny bounds, NaN and infinite bounds.

Dev-time only (needs TensorFlow 2.x; the tests read the .npz):
    python tests/quantization/make_fake_quant_edge_cases.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

INPUTS = np.array(
    [-3, -1.0, -0.3, -1e-38, 0.0, 1e-42, 1e-39, 3e-38, 0.2, 0.7, 1.0, 2.5], np.float32
)
RANGES = [
    (1.0, 1.0), (-1.0, -1.0), (2.0, -1.0), (0.5, 0.2), (0.0, 0.0),
    (-1e-42, 1e-42), (0.0, 1e-42), (1e-42, 1e-42), (-1e-42, 1.0), (-1.0, 1e-42),
    (-3e-39, 5e-39), (-1e-36, 1e-36), (0.0, 1e-37), (-1e-37, 0.0), (-2e-38, 3e-38),
    (np.nan, 1.0), (-1.0, np.nan), (-np.inf, 1.0), (-1.0, np.inf),
    (-1.0, 1.0), (-0.5, 3.0),
]  # fmt: skip


def main() -> None:
    import tensorflow as tf

    rows, per_tensor, per_channel = [], [], []
    for low, high in RANGES:
        for narrow in (False, True):
            for bits in (4, 8):
                rows.append((low, high, float(narrow), float(bits)))
                per_tensor.append(
                    tf.quantization.fake_quant_with_min_max_vars(
                        INPUTS, low, high, num_bits=bits, narrow_range=narrow
                    ).numpy()
                )
                per_channel.append(
                    tf.quantization.fake_quant_with_min_max_vars_per_channel(
                        INPUTS.reshape(-1, 1), [low], [high], num_bits=bits,
                        narrow_range=narrow,
                    ).numpy().ravel()
                )  # fmt: skip
    target = Path(__file__).parent / "fixtures" / "fake_quant_edge_cases.npz"
    np.savez(
        target,
        inputs=INPUTS,
        cases=np.array(rows, np.float32),
        per_tensor=np.array(per_tensor),
        per_channel=np.array(per_channel),
        tensorflow=np.array(tf.__version__),
    )
    print(f"wrote {len(rows)} cases to {target}")


if __name__ == "__main__":
    main()
